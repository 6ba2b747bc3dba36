// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/json/writer.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/envelope.hpp>
#include <handoff/envelope_contract.hpp>
#include <handoff/problem.hpp>
#include <handoff/problem_codes.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // uint64_t
#include <iterator>    // size
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff::detail {

/// Step 2 without a schema interpreter: the rules of the envelope contract
/// (envelope_contract.hpp, held equal to schemas/envelope.schema.json), so that each failure gets
/// a message a model can act on and the typed envelope is filled in the same pass.
/// tests/test_envelope_schema.cpp proves it agrees with valijson on the schema file.
class envelope_checker {
public:
    using json = nlohmann::json;

    explicit envelope_checker(problem_list& problems) : problems_(problems) {}

    /// The typed envelope (partial_result kept as JSON), or nullopt when any rule failed.
    std::optional<envelope<json>> check(const json& doc) {
        if (!doc.is_object()) {
            fail(codes::envelope_type, "", "the envelope must be a JSON object, got " + describe(doc));
            return std::nullopt;
        }
        top_level top;
        check_members<contract::envelope_key>(doc, "", contract::envelope,
                                              [&](const auto&... field_args) { read_top_level(field_args..., top); });
        if (failed_) {
            return std::nullopt;
        }
        top.env.status = top.status_read.value_or(top.env.status);
        return std::move(top.env);
    }

private:
    using field = contract::field;

    /// The envelope being filled, and its status once read: empty while unknown or invalid,
    /// when no reason_code rule applies.
    struct top_level {
        envelope<json> env;
        std::optional<status> status_read;
    };

    /// One field of the envelope itself; `v` is nullptr when it is absent and not required.
    void read_top_level(contract::envelope_key k, const json* v, const std::string& pointer, const field& rule,
                        top_level& top) {
        using key = contract::envelope_key;
        if (v == nullptr && k != key::reason_code) {
            return; // reason_code alone has a rule when absent
        }
        envelope<json>& env = top.env;
        switch (k) {
        case key::status: top.status_read = read_word(*v, pointer, rule, status_from_string); break;
        case key::reason_code: read_reason_code(v, pointer, rule, top.status_read, env); break;
        case key::partial_result:
            if (v->is_object()) {
                env.partial_result = *v;
            } else if (!v->is_null()) {
                type_mismatch(pointer, "the task object or null", *v);
            }
            break;
        case key::schema_ok:
            if (v->is_boolean()) {
                env.schema_ok = v->get<bool>();
            } else {
                type_mismatch(pointer, "true or false", *v);
            }
            break;
        case key::coverage: read_coverage(*v, pointer, rule, env.coverage); break;
        case key::steps: read_steps(*v, pointer, rule, env.steps); break;
        case key::retry_hint: env.retry_hint = read_retry_hint(*v, pointer, rule); break;
        case key::trace: env.trace = read_trace(*v, pointer, rule); break;
        case key::budget: env.budget = read_budget(*v, pointer, rule); break;
        }
    }

    void fail(const char* code, std::string pointer, const std::string& message) {
        failed_ = true;
        std::string text = message_pointer(pointer) + ": " + message; // a key may hold escapes
        problems_.push_back(problem{step::envelope_schema, code, std::move(pointer), std::move(text)});
    }

    static std::string describe(const json& v) {
        switch (v.type()) {
        case json::value_t::null: return "null";
        case json::value_t::boolean: return v.get<bool>() ? "true" : "false";
        case json::value_t::string: return "the string " + quote_untrusted(v.get_ref<const std::string&>());
        case json::value_t::number_integer:
        case json::value_t::number_unsigned: return "the integer " + json_text(v);
        case json::value_t::number_float: return "the number " + json_text(v);
        case json::value_t::object: return "an object";
        case json::value_t::array: return "an array";
        case json::value_t::binary:
        case json::value_t::discarded: return "a non-JSON value";
        }
        return "a value";
    }

    void type_mismatch(const std::string& pointer, const std::string& expected, const json& got) {
        fail(codes::envelope_type, pointer, "expected " + expected + ", got " + describe(got));
    }

    /// The words of a vocabulary joined by `separator`, each in `quote`s.
    static std::string word_list(contract::vocabulary v, std::string_view separator, std::string_view quote) {
        std::string out;
        for (std::string_view w : contract::words_of(v)) {
            out.append(out.empty() ? "" : separator).append(quote).append(w).append(quote);
        }
        return out;
    }

    /// A bound as the schema writes it: 0 and 1, not 0.000000.
    static std::string bound_text(double x) {
        const auto whole = static_cast<long long>(x); // the contract's bounds are small
        return static_cast<double>(whole) == x ? std::to_string(whole) : json_text(json(x));
    }

    /// One object of the envelope: its unknown keys named, then each field in field-list order: a
    /// missing required one named, any other passed to `read_one(key, value, pointer, rule)`,
    /// the value nullptr when absent. False when `v` is not an object.
    template <class Key, class ReadOne>
    bool check_members(const json& v, const std::string& pointer, const contract::field_list& fields,
                       ReadOne&& read_one) {
        const std::optional<std::vector<member>> members = members_of(v, pointer, fields);
        if (!members) {
            return false;
        }
        for (const member& m : *members) {
            if (m.missing) {
                fail(codes::envelope_required, m.pointer, "required field is missing");
            } else {
                read_one(static_cast<Key>(m.index), m.value, m.pointer, fields[m.index]);
            }
        }
        return true;
    }

    /// A field of one object of the envelope, in field-list order: its value (nullptr when absent)
    /// and its pointer; `missing` when it is required and absent.
    struct member {
        std::size_t index;
        const json* value;
        std::string pointer;
        bool missing;
    };

    /// check_members' work that does not depend on the object's key type, so that it is compiled
    /// once rather than once for each object: nullopt when `v` is not an object.
    std::optional<std::vector<member>> members_of(const json& v, const std::string& pointer,
                                                  const contract::field_list& fields) {
        if (!v.is_object()) {
            type_mismatch(pointer, "an object", v);
            return std::nullopt;
        }
        unknown_fields(v, pointer, fields);
        std::vector<member> members;
        members.reserve(fields.size());
        for (std::size_t i = 0; i < fields.size(); ++i) {
            const field& rule = fields[i];
            const auto it = v.find(rule.name);
            const bool present = it != v.end();
            members.push_back(
                member{i, present ? &*it : nullptr, pointer_child(pointer, rule.name), !present && rule.required});
        }
        return members;
    }

    // The value of an unexpected key is never echoed: it may carry instructions meant for the
    // next prompt.
    void unknown_fields(const json& obj, const std::string& parent, const contract::field_list& fields) {
        for (const auto& item : obj.get_ref<const json::object_t&>()) {
            const std::string& key = item.first;
            if (fields.index_of(key) == fields.size()) {
                std::string names;
                for (const field& f : fields) {
                    names.append(names.empty() ? "" : ", ").append(f.name);
                }
                fail(codes::envelope_unknown_field, pointer_child(parent, key),
                     "unexpected field " + quote_untrusted(key) + "; allowed here: " + names);
            }
        }
    }

    std::optional<std::string> read_string(const json& v, const std::string& pointer, const field& rule) {
        if (rule.nullable && v.is_null()) {
            return std::nullopt;
        }
        if (!v.is_string()) {
            type_mismatch(pointer, rule.nullable ? "a string or null" : "a string", v);
            return std::nullopt;
        }
        const auto& s = v.get_ref<const std::string&>();
        const std::uint64_t length = count_code_points(s);
        if (rule.max_length && length > *rule.max_length) {
            fail(codes::envelope_max_length, pointer,
                 "a string of " + std::to_string(length) + " characters is longer than the " +
                     std::to_string(*rule.max_length) + " allowed");
            return std::nullopt;
        }
        if (length < rule.min_length.value_or(0)) {
            fail(codes::envelope_min_length, pointer, "must not be empty");
            return std::nullopt;
        }
        return s;
    }

    /// A JSON integer >= 0. 40.0 is the integer 40 (draft-07: a number with a zero fractional
    /// part is an integer); 40.5, -1.0 and numbers from 2^64 up are not counts.
    std::optional<std::uint64_t> read_count(const json& v, const std::string& pointer, const field& rule) {
        if (v.is_number_unsigned()) {
            return v.get<std::uint64_t>();
        }
        // The parser stores every non-negative integer as unsigned; a json built in code may
        // hold one as signed.
        if (v.is_number_integer() && v.get<std::int64_t>() >= 0) {
            return static_cast<std::uint64_t>(v.get<std::int64_t>());
        }
        if (v.is_number_float()) {
            if (const auto n = contract::count_from_double(v.get<double>())) {
                return n;
            }
        }
        const std::string expected = "an integer >= " + bound_text(rule.minimum.value_or(0));
        if (v.is_number_integer()) {
            fail(codes::envelope_range, pointer, "expected " + expected + ", got " + json_text(v));
            return std::nullopt;
        }
        type_mismatch(pointer, expected, v);
        return std::nullopt;
    }

    /// A number within the field's minimum and maximum, or null when the field allows it.
    std::optional<double> read_number(const json& v, const std::string& pointer, const field& rule) {
        const bool both = rule.minimum && rule.maximum;
        const std::string low = bound_text(rule.minimum.value_or(0));
        const std::string range = both ? "[" + low + ", " + bound_text(*rule.maximum) + "]" : "";
        if (rule.nullable && v.is_null()) {
            return std::nullopt;
        }
        if (!v.is_number()) {
            type_mismatch(
                pointer, (both ? "a number in " + range : "a number >= " + low) + (rule.nullable ? " or null" : ""), v);
            return std::nullopt;
        }
        const double x = v.get<double>();
        if (!((!rule.minimum || x >= *rule.minimum) && (!rule.maximum || x <= *rule.maximum))) {
            fail(codes::envelope_range, pointer, json_text(v) + (both ? " is outside " + range : " is below " + low));
            return std::nullopt;
        }
        return x;
    }

    /// "a status", "a reason code", "an action": what a word of the vocabulary is called.
    static std::string_view noun(contract::vocabulary v) noexcept {
        switch (v) {
        case contract::vocabulary::none: return "a word";
        case contract::vocabulary::status: return "a status";
        case contract::vocabulary::reason_code: return "a reason code";
        case contract::vocabulary::action: return "an action";
        }
        return "a word";
    }

    /// A word of the field's vocabulary, as its enum; `from_string` is the enum's own parser.
    /// A two-word vocabulary (status) is quoted in full, longer ones listed as "one of ...".
    template <class FromString>
    auto read_word(const json& v, const std::string& pointer, const field& rule, FromString from_string)
        -> decltype(from_string("")) {
        if (v.is_string()) {
            if (auto parsed = from_string(v.get_ref<const std::string&>())) {
                return parsed;
            }
        }
        word_problem(v, pointer, rule);
        return std::nullopt;
    }

    /// Why `v` is not a word of the field's vocabulary (out of read_word, which is instantiated
    /// once for each vocabulary's enum).
    void word_problem(const json& v, const std::string& pointer, const field& rule) {
        const bool pair = contract::words_of(rule.words).size() == 2;
        const std::string choices =
            pair ? word_list(rule.words, " or ", "\"") : "one of " + word_list(rule.words, ", ", "");
        if (!v.is_string()) {
            type_mismatch(pointer,
                          pair ? "the string " + choices
                               : std::string(noun(rule.words)) + " string" + (rule.nullable ? " or null" : ""),
                          v);
            return;
        }
        fail(codes::envelope_enum, pointer,
             quote_untrusted(v.get_ref<const std::string&>()) + " is not " + std::string(noun(rule.words)) + ": use " +
                 choices);
    }

    void read_reason_code(const json* v, const std::string& pointer, const field& rule,
                          std::optional<status> status_read, envelope<json>& env) {
        const std::string_view when = to_string(contract::reason_code_required_when);
        if (v == nullptr || v->is_null()) {
            if (status_read == contract::reason_code_required_when) {
                fail(codes::envelope_required, pointer,
                     "required when status is \"" + std::string(when) + "\": one of " +
                         word_list(rule.words, ", ", ""));
            }
            return;
        }
        const auto code = read_word(*v, pointer, rule, reason_code_from_string);
        if (code && status_read && status_read != contract::reason_code_required_when) {
            fail(codes::envelope_forbidden, pointer,
                 "must be absent or null when status is \"" + std::string(to_string(*status_read)) + "\", got " +
                     quote_untrusted(v->get_ref<const std::string&>()));
            return;
        }
        env.reason_code = code;
    }

    void read_coverage(const json& v, const std::string& pointer, const field& rule, coverage_info& out) {
        using key = contract::coverage_key;
        check_members<key>(v, pointer, rule.members, [&](key k, const json* f, const std::string& at, const field& r) {
            if (f == nullptr) {
                return;
            }
            switch (k) {
            case key::items_expected: out.items_expected = read_count(*f, at, r).value_or(0); break;
            case key::items_completed: out.items_completed = read_count(*f, at, r).value_or(0); break;
            case key::unit: out.unit = read_string(*f, at, r).value_or(""); break;
            case key::fraction: out.fraction = read_number(*f, at, r).value_or(0.0); break;
            }
        });
    }

    void read_string_list(const json& v, const std::string& pointer, const field& rule, std::vector<std::string>& out) {
        if (!v.is_array()) {
            type_mismatch(pointer, "an array of strings", v);
            return;
        }
        if (rule.max_items && v.size() > *rule.max_items) {
            fail(codes::envelope_max_items, pointer,
                 std::to_string(v.size()) + " items, at most " + std::to_string(*rule.max_items) + " allowed");
            return;
        }
        out.reserve(v.size());
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (auto s = read_string(v[i], pointer_item(pointer, i), rule)) {
                out.push_back(std::move(*s));
            }
        }
    }

    void read_steps(const json& v, const std::string& pointer, const field& rule, steps_info& out) {
        using key = contract::steps_key;
        check_members<key>(v, pointer, rule.members, [&](key k, const json* f, const std::string& at, const field& r) {
            if (f != nullptr) {
                read_string_list(*f, at, r, k == key::completed ? out.completed : out.remaining);
            }
        });
    }

    std::optional<retry_hint_info> read_retry_hint(const json& v, const std::string& pointer, const field& rule) {
        using key = contract::retry_hint_key;
        retry_hint_info hint;
        const bool object = check_members<key>(
            v, pointer, rule.members, [&](key k, const json* f, const std::string& at, const field& r) {
                if (f == nullptr) {
                    return;
                }
                switch (k) {
                case key::suggested_action:
                    hint.suggested_action = read_word(*f, at, r, action_from_string).value_or(hint.suggested_action);
                    break;
                case key::suggested_scope: hint.suggested_scope = read_string(*f, at, r); break;
                case key::budget_multiplier: hint.budget_multiplier = read_number(*f, at, r); break;
                case key::notes: hint.notes = read_string(*f, at, r); break;
                }
            });
        return object ? std::optional<retry_hint_info>(std::move(hint)) : std::nullopt;
    }

    std::optional<trace_info> read_trace(const json& v, const std::string& pointer, const field& rule) {
        using key = contract::trace_key;
        trace_info trace;
        const bool object = check_members<key>(v, pointer, rule.members,
                                               [&](key k, const json* f, const std::string& at, const field& r) {
                                                   if (f == nullptr) {
                                                       return;
                                                   }
                                                   switch (k) {
                                                   case key::trace_id:
                                                       trace.trace_id = read_string(*f, at, r).value_or("");
                                                       break;
                                                   case key::span_id:
                                                       trace.span_id = read_string(*f, at, r).value_or("");
                                                       break;
                                                   case key::parent_span_id:
                                                       trace.parent_span_id = read_string(*f, at, r);
                                                       break;
                                                   }
                                               });
        return object ? std::optional<trace_info>(std::move(trace)) : std::nullopt;
    }

    std::optional<budget_info> read_budget(const json& v, const std::string& pointer, const field& rule) {
        using key = contract::budget_key;
        budget_info budget;
        std::optional<std::uint64_t>* const slots[] = {&budget.tokens_used, &budget.token_cap,  &budget.elapsed_ms,
                                                       &budget.time_cap_ms, &budget.tool_calls, &budget.tool_call_cap};
        static_assert(std::size(slots) == std::size(contract::budget_fields));
        const bool object = check_members<key>(v, pointer, rule.members,
                                               [&](key k, const json* f, const std::string& at, const field& r) {
                                                   if (f != nullptr) {
                                                       *slots[contract::index(k)] = read_count(*f, at, r);
                                                   }
                                               });
        return object ? std::optional<budget_info>(budget) : std::nullopt;
    }

    problem_list& problems_;
    bool failed_ = false;
};

} // namespace handoff::detail
