// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/limits.hpp>
#include <handoff/problem.hpp>
#include <handoff/problem_codes.hpp>

#include <nlohmann/json.hpp>

#include <algorithm> // min
#include <cstddef>   // size_t
#include <cstdint>   // int64_t, uint64_t
#include <limits>    // numeric_limits
#include <string>    // string
#include <utility>   // move
#include <vector>    // vector

namespace handoff::detail {

/// A nlohmann SAX handler (nlohmann::json_sax, https://json.nlohmann.me/api/json_sax/) that builds the DOM like
/// nlohmann's own, but enforces parse_limits as it goes, refuses duplicate keys (a proxy and the orchestrator must
/// never read different values for one key) and integers beyond 64 bits, and reports every failure as a `parse` problem
/// with the JSON pointer of the value being read.
class json_builder final : public nlohmann::json_sax<nlohmann::json> {
public:
    using json = nlohmann::json;

    /// A builder for a reply: `limits` enforced, repeated keys and integers beyond 64 bits refused.
    explicit json_builder(const parse_limits& limits) : limits_(limits) {}

    /// A builder for a JSON document that is not a reply (a schema file, handoff's own schema
    /// texts), which reads what nlohmann::json::parse reads: no limits, a repeated key's last
    /// value kept, an integer beyond 64 bits as a double.
    [[nodiscard]] static json_builder for_document() {
        constexpr std::size_t unlimited = std::numeric_limits<std::size_t>::max();
        // Every limit lifted, by position: a limit added to parse_limits must be named here too,
        // or schema files would be held to its default.
        static_assert(sizeof(parse_limits) == 5 * sizeof(std::size_t), "lift the new parse_limits field here");
        json_builder builder(parse_limits{unlimited, unlimited, unlimited, unlimited, unlimited});
        builder.keep_last_key_ = true;
        builder.big_integers_as_doubles_ = true;
        return builder;
    }

    /// A builder for data that is not a reply but comes from a peer (a test case whose instances
    /// may be integers beyond 64 bits): a reply's rules, but such an integer read as the nearest
    /// double, as JSON readers without big numbers read it. The text's size is its caller's to
    /// bound (detail::locate_json).
    [[nodiscard]] static json_builder for_data(const parse_limits& limits) {
        json_builder builder(limits);
        builder.big_integers_as_doubles_ = true;
        return builder;
    }

    bool null() override { return add(json(nullptr)); }
    bool boolean(bool v) override { return add(json(v)); }
    bool number_integer(json::number_integer_t v) override { return add(json(v)); }
    bool number_unsigned(json::number_unsigned_t v) override { return add(json(v)); }

    bool number_float(json::number_float_t v, const std::string& text) override {
        next_item();
        // nlohmann falls back to a double for integer literals beyond 64 bits; that would
        // silently round items_expected, so refuse it.
        if (!big_integers_as_doubles_ && text.find_first_of(".eE") == std::string::npos) {
            return fail(codes::parse_number_range, "integer " + quote_untrusted(text, 40) + " does not fit in 64 bits");
        }
        return add(json(v));
    }

    bool string(std::string& v) override {
        next_item();
        if (v.size() > limits_.max_string_bytes) {
            return fail(codes::parse_limit_string, "a string of " + std::to_string(v.size()) +
                                                       " bytes is over the limit of " +
                                                       std::to_string(limits_.max_string_bytes) + " bytes");
        }
        return add(json(std::move(v)));
    }

    bool binary(json::binary_t& /*unused*/) override { return fail(codes::parse_syntax, "binary values are not JSON"); }

    bool start_object(std::size_t /*unknown size*/) override { return open(json::value_t::object); }
    bool start_array(std::size_t /*unknown size*/) override { return open(json::value_t::array); }

    bool key(std::string& k) override {
        frame& top = stack_.back();
        if (k.size() > limits_.max_string_bytes) {
            return fail(codes::parse_limit_string, "a key of " + std::to_string(k.size()) +
                                                       " bytes is over the limit of " +
                                                       std::to_string(limits_.max_string_bytes) + " bytes");
        }
        top.token = k;
        top.has_token = true;
        if (top.value->size() >= limits_.max_container_items) {
            return fail(codes::parse_limit_items, "an object with more than " +
                                                      std::to_string(limits_.max_container_items) +
                                                      " keys is over the limit");
        }
        if (!keep_last_key_ && top.value->contains(k)) {
            return fail(codes::parse_duplicate_key,
                        "duplicate key " + quote_untrusted(k) +
                            ": each key may appear once, so every reader sees the same value");
        }
        return true;
    }

    bool end_object() override { return close(); }
    bool end_array() override { return close(); }

    bool parse_error(std::size_t /*position*/, const std::string& last_token, const json::exception& ex) override {
        next_item(); // inside an array, the error is in what follows the last item read
        if (!failed_) {
            fail(codes::parse_syntax, describe_syntax_error(ex.what(), last_token));
        }
        return false;
    }

    [[nodiscard]] bool failed() const noexcept { return failed_; }
    [[nodiscard]] json take_value() { return std::move(root_); }
    [[nodiscard]] problem take_problem() { return std::move(problem_); }

private:
    struct frame {
        json* value;
        std::string token; // the key or index of the child being read, for pointers
        bool has_token = false;
    };

    bool open(json::value_t type) {
        next_item();
        if (stack_.size() >= limits_.max_depth) {
            return fail(codes::parse_limit_depth,
                        "nesting deeper than " + std::to_string(limits_.max_depth) + " levels is over the limit");
        }
        json* slot = place(json(type));
        if (slot == nullptr) {
            return false;
        }
        stack_.push_back(frame{slot, {}});
        return true;
    }

    bool close() {
        stack_.pop_back();
        return true;
    }

    bool add(json&& v) { return place(std::move(v)) != nullptr; }

    /// Inside an array, points the top frame at the item about to be read, so that a failure
    /// on that item (a limit, a number out of range) names it rather than the one before.
    void next_item() {
        if (!stack_.empty() && stack_.back().value->is_array()) {
            stack_.back().token = std::to_string(stack_.back().value->size());
            stack_.back().has_token = true;
        }
    }

    /// Puts a value where the parse is (root, after a key, or at the end of an array).
    json* place(json&& v) {
        next_item();
        if (++values_ > limits_.max_values) {
            fail(codes::parse_limit_values,
                 "more than " + std::to_string(limits_.max_values) + " values in one reply is over the limit");
            return nullptr;
        }
        if (stack_.empty()) {
            root_ = std::move(v);
            return &root_;
        }
        frame& top = stack_.back();
        if (top.value->is_array()) {
            if (top.value->size() >= limits_.max_container_items) {
                fail(codes::parse_limit_items, "an array with more than " +
                                                   std::to_string(limits_.max_container_items) +
                                                   " items is over the limit");
                return nullptr;
            }
            top.value->push_back(std::move(v));
            return &top.value->back();
        }
        json& slot = (*top.value)[top.token];
        slot = std::move(v);
        return &slot;
    }

    [[nodiscard]] std::string pointer() const {
        std::string p;
        for (const frame& f : stack_) {
            if (!f.has_token) {
                break;
            }
            append_pointer_token(p, f.token);
        }
        return p;
    }

    bool fail(const char* code, std::string message) {
        if (!failed_) {
            failed_ = true;
            std::string where = pointer();
            problem_ = problem{step::parse, code, where, message_pointer(where) + ": " + std::move(message)};
        }
        return false;
    }

    /// nlohmann's message minus its exception id and its raw echo of the input, plus a hint
    /// for the mistakes models make most (quotes, commas, comments, NaN).
    static std::string describe_syntax_error(std::string what, const std::string& last_token) {
        if (const auto bracket = what.find("] ");
            what.rfind("[json.exception.", 0) == 0 && bracket != std::string::npos) {
            what.erase(0, bracket + 2);
        }
        // nlohmann echoes the token as "; last read: '" + last_token + "'": cut exactly that,
        // never by searching inside it (the worker wrote the token and may spell "'; expected "
        // in it, which once left raw bytes of the reply in the message: fuzz_regressions/).
        const std::string echo_head = "; last read: '";
        if (const auto echo = what.find(echo_head); echo != std::string::npos) {
            what.erase(echo, std::min(what.size() - echo, echo_head.size() + last_token.size() + 1));
        }
        if (const auto echo = what.find(" parsing '"); echo != std::string::npos) {
            what.erase(echo + 8); // number overflow parsing '...': the token is quoted below
        }
        // Whatever nlohmann's wording becomes, no byte of the reply reaches a message raw.
        std::string message = "invalid JSON, " + escape_untrusted(what, 300);
        message += "; last read: " + quote_untrusted(last_token, 40);
        message += hint_for(last_token);
        return message;
    }

    /// The token nlohmann reports ends at the character it choked on.
    static const char* hint_for(const std::string& token) {
        const auto end = token.find_last_not_of(" \t\r\n");
        if (end == std::string::npos) {
            return "";
        }
        // nlohmann writes a raw NUL as <U+0000> and reads it as the end of the input.
        if (token.size() >= 8 && token.compare(token.size() - 8, 8, "<U+0000>") == 0) {
            return " (a raw NUL byte is not JSON: write \\u0000 inside a string)";
        }
        const char last = token[end];
        if (last == '\'') {
            return " (JSON strings take double quotes)";
        }
        if (last == '/') {
            return " (comments are not JSON)";
        }
        if (last == 'N' || last == 'I') {
            return " (NaN and Infinity are not JSON numbers)";
        }
        if (last == '}' || last == ']') {
            const auto before = token.find_last_not_of(" \t\r\n", end == 0 ? 0 : end - 1);
            if (end > 0 && before != std::string::npos && token[before] == ',') {
                return " (a trailing comma is not JSON)";
            }
        }
        return "";
    }

    parse_limits limits_;
    json root_;
    std::vector<frame> stack_;
    std::size_t values_ = 0;
    bool failed_ = false;
    bool keep_last_key_ = false;           // a repeated key's last value kept, not refused
    bool big_integers_as_doubles_ = false; // an integer beyond 64 bits read as a double, not refused
    problem problem_;
};

} // namespace handoff::detail
