// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/json/fast_reader.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/enums.hpp>
#include <handoff/envelope.hpp>
#include <handoff/envelope_contract.hpp>
#include <handoff/limits.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // uint64_t
#include <iterator>    // size
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff::detail {

/// Steps 1 and 2 in one pass, for the envelope that passes both: the reply's bytes are read
/// straight into envelope<json>, with the rules of the envelope contract (envelope_contract.hpp,
/// held equal to schemas/envelope.schema.json) checked as each field goes by (closed enums,
/// required fields, no unknown field, lengths, ranges, reason_code against status). Only
/// partial_result becomes a DOM.
///
/// It never diagnoses: at the first doubt it returns nullopt and the receiver runs the
/// diagnosing path, decode() then envelope_checker, which report every problem with its
/// pointer and message. tests/test_fast_path.cpp holds it to this: whatever it accepts,
/// decode() + envelope_checker accept with an equal envelope, and valijson on the schema file
/// accepts too; so the schema file stays the contract and the messages stay the checker's.
class envelope_reader {
public:
    using json = nlohmann::json;

    envelope_reader(std::string_view text, const parse_limits& limits) noexcept : in_(text, limits) {}

    [[nodiscard]] std::optional<envelope<json>> read() {
        envelope<json> env;
        if (!read_envelope(env) || !in_.finish()) {
            return std::nullopt;
        }
        return env;
    }

    /// The value of the envelope's field `k`, the whole of `text`, read into `env` with every
    /// rule read() applies to it alone (reason_code's against status needs both: not here),
    /// under `limits`. The reader is kept for many texts, so that their arrays are given their
    /// sizes at once.
    [[nodiscard]] bool read_field(std::string_view text, const parse_limits& limits, contract::envelope_key k,
                                  envelope<json>& env) {
        in_.reset(text, limits);
        return read_field(k, env) && in_.finish();
    }

    /// How many values the last text held, as json_builder counts them against max_values.
    [[nodiscard]] std::size_t values() const noexcept { return in_.values(); }

private:
    using container = fast_json::container;
    using field = contract::field;

    /// One object of the envelope: each key must be a field of `fields` not seen before in
    /// this object, read by `read_one(key, field)`; every required field must be there. Bit i
    /// of `seen` stands for field i (contract::field_list fits an unsigned).
    template <class Key, class ReadOne>
    bool read_members(const contract::field_list& fields, ReadOne&& read_one) {
        container c;
        if (in_.peek() != '{' || !in_.begin_object(c)) {
            return false;
        }
        unsigned seen = 0;
        std::string_view key;
        while (in_.next_key(c, key)) {
            const std::size_t i = fields.index_of(key);
            const unsigned bit = 1U << i;
            if (i == fields.size() || (seen & bit) != 0) {
                return false;
            }
            seen |= bit;
            if (!read_one(static_cast<Key>(i), fields[i])) {
                return false;
            }
        }
        return in_.ok() && (seen & fields.required_mask()) == fields.required_mask();
    }

    /// A string within the field's bounds in characters (code points), as envelope_checker.
    bool read_text(std::string& out, const field& rule) {
        if (!in_.read_string(out)) {
            return false;
        }
        const std::uint64_t n = count_code_points(out);
        return n >= rule.min_length.value_or(0) && (!rule.max_length || n <= *rule.max_length);
    }

    bool read_optional_text(std::optional<std::string>& out, const field& rule) {
        if (in_.read_null_if_next()) {
            out.reset();
            return true;
        }
        return in_.ok() && read_text(out.emplace(), rule);
    }

    /// An integer >= 0, as envelope_checker::read_count: 40.0 is 40 (draft-07's integer).
    bool read_count(std::uint64_t& out) {
        json v;
        if (!in_.read_number(v)) {
            return false;
        }
        std::optional<std::uint64_t> n;
        if (v.is_number_unsigned()) {
            n = v.get<std::uint64_t>();
        } else if (v.is_number_float()) {
            n = contract::count_from_double(v.get<double>());
        }
        out = n.value_or(0);
        return n.has_value();
    }

    /// A number within the field's minimum and maximum (null too when the field allows it).
    bool read_bounded_number(std::optional<double>& out, const field& rule) {
        if (rule.nullable && in_.read_null_if_next()) {
            out.reset();
            return true;
        }
        json v;
        if (!in_.ok() || !in_.read_number(v)) {
            return false;
        }
        const double x = v.get<double>();
        out = x;
        return (!rule.minimum || x >= *rule.minimum) && (!rule.maximum || x <= *rule.maximum);
    }

    /// A word of the field's vocabulary, as its enum.
    template <class Enum, class FromString>
    bool read_word(Enum& out, FromString from_string) {
        std::string_view text;
        const std::optional<Enum> parsed = in_.read_string(scratch_, text) ? from_string(text) : std::nullopt;
        if (parsed) {
            out = *parsed;
        }
        return parsed.has_value();
    }

    bool read_field(contract::envelope_key k, envelope<json>& env) {
        using key = contract::envelope_key;
        switch (k) {
        case key::status: return read_word(env.status, status_from_string);
        case key::reason_code:
            if (in_.read_null_if_next()) {
                return true;
            }
            return in_.ok() && read_word(env.reason_code.emplace(), reason_code_from_string);
        case key::partial_result:
            if (in_.read_null_if_next()) {
                return true;
            }
            return in_.ok() && in_.peek() == '{' && in_.read_value(env.partial_result.emplace());
        case key::schema_ok: return in_.read_bool(env.schema_ok);
        case key::coverage: return read_coverage(env.coverage);
        case key::steps: return read_steps(env.steps);
        case key::retry_hint: return read_retry_hint(env.retry_hint.emplace());
        case key::trace: return read_trace(env.trace.emplace());
        case key::budget: return read_budget(env.budget.emplace());
        }
        return false;
    }

    bool read_envelope(envelope<json>& env) {
        using key = contract::envelope_key;
        const bool ok = read_members<key>(contract::envelope, [&](key k, const field&) { return read_field(k, env); });
        // reason_code: required when capped, absent or null otherwise (the schema's if/then/else).
        return ok && env.reason_code.has_value() == (env.status == contract::reason_code_required_when);
    }

    bool read_coverage(coverage_info& out) {
        using key = contract::coverage_key;
        return read_members<key>(contract::coverage_fields, [&](key k, const field& rule) {
            switch (k) {
            case key::items_expected: return read_count(out.items_expected);
            case key::items_completed: return read_count(out.items_completed);
            case key::unit: return read_text(out.unit, rule);
            case key::fraction: {
                std::optional<double> x;
                const bool ok = read_bounded_number(x, rule);
                out.fraction = x.value_or(0.0);
                return ok;
            }
            }
            return false;
        });
    }

    bool read_string_list(std::vector<std::string>& out, const field& rule) {
        container c;
        if (in_.peek() != '[' || !in_.begin_array(c)) {
            return false;
        }
        while (in_.next_item(c)) {
            if (c.items > rule.max_items.value_or(c.items) || !read_text(out.emplace_back(), rule)) {
                return false;
            }
        }
        return in_.ok();
    }

    bool read_steps(steps_info& out) {
        using key = contract::steps_key;
        return read_members<key>(contract::steps_fields, [&](key k, const field& rule) {
            return read_string_list(k == key::completed ? out.completed : out.remaining, rule);
        });
    }

    bool read_retry_hint(retry_hint_info& out) {
        using key = contract::retry_hint_key;
        return read_members<key>(contract::retry_hint_fields, [&](key k, const field& rule) {
            switch (k) {
            case key::suggested_action: return read_word(out.suggested_action, action_from_string);
            case key::suggested_scope: return read_optional_text(out.suggested_scope, rule);
            case key::budget_multiplier: return read_bounded_number(out.budget_multiplier, rule);
            case key::notes: return read_optional_text(out.notes, rule);
            }
            return false;
        });
    }

    bool read_trace(trace_info& out) {
        using key = contract::trace_key;
        return read_members<key>(contract::trace_fields, [&](key k, const field& rule) {
            switch (k) {
            case key::trace_id: return read_text(out.trace_id, rule);
            case key::span_id: return read_text(out.span_id, rule);
            case key::parent_span_id: return read_optional_text(out.parent_span_id, rule);
            }
            return false;
        });
    }

    bool read_budget(budget_info& out) {
        using key = contract::budget_key;
        std::optional<std::uint64_t>* const slots[] = {&out.tokens_used, &out.token_cap,  &out.elapsed_ms,
                                                       &out.time_cap_ms, &out.tool_calls, &out.tool_call_cap};
        static_assert(std::size(slots) == std::size(contract::budget_fields));
        return read_members<key>(contract::budget_fields,
                                 [&](key k, const field&) { return read_count(slots[contract::index(k)]->emplace()); });
    }

    fast_json in_;
    std::string scratch_;
};

/// The fast path of steps 1 and 2: the typed envelope, or nullopt to run the diagnosing path.
[[nodiscard]] inline std::optional<envelope<nlohmann::json>> read_envelope(std::string_view json_text,
                                                                           const parse_limits& limits) {
    return envelope_reader(json_text, limits).read();
}

} // namespace handoff::detail
