// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/config.hpp>
#include <handoff/limits.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move, forward
#include <vector>      // vector

namespace handoff::detail {
class fast_json;
} // namespace handoff::detail

namespace handoff::detail::stream {

/// Reads one container of the reply as its bytes arrive, building its value as it goes, so that
/// an item of a member array is read once rather than scanned for its end and then read. Each
/// scalar is read, once its last byte is in, by the one-pass reader receive uses (a string
/// without escapes or bytes >= 0x80 is taken as it stands), so the value equals what that reader
/// reads from the container's text, and so does the count of values. It doubts, and reads no
/// further, wherever that reader might not read the text as it stands (a grammar error, a
/// duplicate key, a bound reached) or the container nests `room` deep: the caller then reads the
/// container the other way, from its first byte.
class item_reader {
public:
    enum class outcome : std::uint8_t { open, closed, doubt };

    /// A reader for no container yet (give it one made with the limits before start()).
    item_reader() = default; // NOLINT(bugprone-exception-escape): as compiled_schema_state, a json member
    /// `limits` must outlive the reader; `room`: as unit_scan's (the container's bracket counted).
    item_reader(const parse_limits& limits, std::size_t room) : limits_(&limits), room_(room) {}

    /// A container begins (its bracket was read): `object` or an array.
    void start(bool object) {
        root_ = object ? nlohmann::json::object() : nlohmann::json::array();
        stack_.clear();
        stack_.push_back(level_of(root_));
        expect_ = object ? expect::key_or_close : expect::value_or_close;
        token_ = token::none;
        values_ = 1;
    }

    /// Reads the bytes of `text` (the reply so far) from `from` to its end, or until the container
    /// closes (its bracket read) or a doubt: how many it read. At a doubt reading stops at the
    /// byte that gave it (after it, for a literal's last letter, when the literal cannot be put).
    std::size_t feed(std::string_view text, std::size_t from, outcome& out);

    /// The container read (once closed), and how many values it holds, itself included.
    [[nodiscard]] nlohmann::json& value() noexcept { return root_; }
    [[nodiscard]] std::size_t values() const noexcept { return values_; }

private:
    enum class expect : std::uint8_t { value, value_or_close, key, key_or_close, colon, comma_or_close };
    enum class token : std::uint8_t { none, key, string, number, literal };

    /// An open container: its members or its items (the other null), and how many so far. They
    /// live on the heap, so they stay where they are when the reader, and its root, move.
    struct level {
        nlohmann::json::object_t* members;
        nlohmann::json::array_t* items;
        std::size_t count;
        [[nodiscard]] bool object() const noexcept { return members != nullptr; }
    };
    static level level_of(nlohmann::json& container) {
        return level{container.get_ptr<nlohmann::json::object_t*>(), container.get_ptr<nlohmann::json::array_t*>(), 0};
    }

    /// The token or bracket at `p` (not whitespace) read, as far as `text` goes: where reading
    /// stopped (at a doubt, at the doubtful byte, with `out` set).
    const char* between(std::string_view text, const char* p, outcome& out);

    const char* begin_value(std::string_view text, const char* p, outcome& out);

    /// A token begins at `p`.
    void begin_token(std::string_view text, token kind, const char* p);

    /// Inside a token: its bytes to its end (then it is put in place, token_ none) or to the
    /// end of `text` (token_ still set). Returns where reading stopped.
    const char* go_on(std::string_view text, const char* p, outcome& out);

    const char* string_rest(std::string_view text, const char* p, outcome& out);

    const char* number_rest(std::string_view text, const char* p, outcome& out);

    const char* literal_rest(std::string_view text, const char* p, outcome& out);

    /// From `p` inside a string: its closing quote, or `end`, or a control byte (`control`
    /// set). Notes escapes and bytes >= 0x80 (which the one-pass reader then checks).
    const char* string_end(const char* p, const char* end, bool& control);

    /// The string or key `raw` (its quotes included) put in place: false at a doubt. A key is
    /// kept as where it is in the reply while it has nothing to decode.
    bool put_string(std::string_view text, std::string_view raw);

    /// A number, whole in `raw`, put in place: false at a doubt.
    bool put_number(std::string_view text, std::string_view raw);

    /// `raw` read by the one-pass reader into scratch_: false where it does not read.
    bool read_scalar(std::string_view raw);

    /// `v` as the next member or item of the innermost container (`text`: the reply, where a
    /// plain key is): where it now is, or nullptr at a doubt (a bound, a duplicate key).
    template <class Value>
    nlohmann::json* place(std::string_view text, Value&& v) {
        level& in = stack_.back();
        if (++values_ > limits_->max_values || ++in.count > limits_->max_container_items) {
            return nullptr;
        }
        expect_ = expect::comma_or_close;
        if (in.items != nullptr) {
            return &in.items->emplace_back(std::forward<Value>(v));
        }
        const auto [at, inserted] =
            key_plain_
                ? in.members->try_emplace(std::string(text.data() + key_start_, key_size_), std::forward<Value>(v))
                : in.members->try_emplace(std::move(key_), std::forward<Value>(v));
        return inserted ? &at->second : nullptr;
    }

    bool open(std::string_view text, bool object);

    bool close(bool object, outcome& out);

    static fast_json& scalar_reader();

    const parse_limits* limits_ = nullptr;
    std::size_t room_ = 0;
    nlohmann::json root_;
    std::vector<level> stack_;
    expect expect_ = expect::value;
    token token_ = token::none;
    std::string_view literal_;
    std::size_t token_start_ = 0; // where the token being read began in the reply
    std::size_t values_ = 0;
    /// The key just read: where it is in the reply, or (not plain) decoded in key_.
    bool key_plain_ = true;
    std::size_t key_start_ = 0;
    std::size_t key_size_ = 0;
    std::string key_;
    nlohmann::json scratch_;
    bool escaped_ = false;
    bool high_ = false;
    bool escape_next_ = false;
};

} // namespace handoff::detail::stream

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/detail/stream/item_reader-inl.hpp>
#endif
