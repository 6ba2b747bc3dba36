// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/fast_json.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/enums.hpp>
#include <handoff/envelope.hpp>
#include <handoff/limits.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // uint64_t
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff::detail {

/// Steps 1 and 2 in one pass, for the envelope that passes both: the reply's bytes are read
/// straight into envelope<json>, with the rules of schemas/envelope.schema.json checked as each
/// field goes by (closed enums, required fields, no unknown field, lengths, ranges,
/// reason_code against status). Only partial_result becomes a DOM.
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

private:
    using container = fast_json::container;

    /// The envelope's fields; each enumerator is the bit of its name in envelope_names.
    enum field : unsigned {
        f_status = 1U << 0U,
        f_reason_code = 1U << 1U,
        f_partial_result = 1U << 2U,
        f_schema_ok = 1U << 3U,
        f_coverage = 1U << 4U,
        f_steps = 1U << 5U,
        f_retry_hint = 1U << 6U,
        f_trace = 1U << 7U,
        f_budget = 1U << 8U,
    };
    static constexpr std::string_view envelope_names[] = {
        "status", "reason_code", "partial_result", "schema_ok", "coverage", "steps", "retry_hint", "trace", "budget"};

    /// The bit of `key` in `names` (1 << index), or 0 for a name not in the list.
    template <std::size_t N>
    static unsigned bit_of(std::string_view key, const std::string_view (&names)[N]) noexcept {
        for (std::size_t i = 0; i < N; ++i) {
            if (key == names[i]) {
                return 1U << i;
            }
        }
        return 0;
    }

    /// A key of `names` not seen before in this object; false (give way) otherwise.
    template <std::size_t N>
    bool member(std::string_view key, const std::string_view (&names)[N], unsigned& seen, unsigned& bit) noexcept {
        bit = bit_of(key, names);
        if (bit == 0 || (seen & bit) != 0) {
            return false;
        }
        seen |= bit;
        return true;
    }

    /// A string of min..max characters (code points), as envelope_checker::read_string.
    bool read_text(std::string& out, std::size_t min_length, std::size_t max_length) {
        if (!in_.read_string(out)) {
            return false;
        }
        const std::uint64_t n = count_code_points(out);
        return n >= min_length && n <= max_length;
    }

    bool read_optional_text(std::optional<std::string>& out, std::size_t max_length) {
        if (in_.read_null_if_next()) {
            out.reset();
            return true;
        }
        return in_.ok() && read_text(out.emplace(), 0, max_length);
    }

    /// An integer >= 0, as envelope_checker::read_count.
    bool read_count(std::uint64_t& out) {
        json v;
        if (!in_.read_number(v)) {
            return false;
        }
        if (v.is_number_unsigned()) {
            out = v.get<std::uint64_t>();
            return true;
        }
        if (v.is_number_integer() && v.get<std::int64_t>() >= 0) {
            out = static_cast<std::uint64_t>(v.get<std::int64_t>());
            return true;
        }
        return false;
    }

    bool read_enum_text(std::string_view& out) { return in_.read_string(scratch_, out); }

    bool read_envelope(envelope<json>& env) {
        container c;
        if (in_.peek() != '{' || !in_.begin_object(c)) {
            return false;
        }
        unsigned seen = 0;
        std::string_view key;
        unsigned bit = 0;
        while (in_.next_key(c, key)) {
            if (!member(key, envelope_names, seen, bit) || !read_field(bit, env)) {
                return false;
            }
        }
        constexpr unsigned required = f_status | f_partial_result | f_schema_ok | f_coverage | f_steps;
        if (!in_.ok() || (seen & required) != required) {
            return false;
        }
        // reason_code: required when capped, absent or null when ok (the schema's if/then/else).
        return env.status == status::capped ? env.reason_code.has_value() : !env.reason_code.has_value();
    }

    bool read_field(unsigned bit, envelope<json>& env) {
        std::string_view text;
        switch (bit) {
        case f_status:
            if (!read_enum_text(text)) {
                return false;
            }
            if (text == "ok") {
                env.status = status::ok;
                return true;
            }
            if (text == "capped") {
                env.status = status::capped;
                return true;
            }
            return false;
        case f_reason_code:
            if (in_.read_null_if_next()) {
                return true;
            }
            if (!in_.ok() || !read_enum_text(text)) {
                return false;
            }
            env.reason_code = reason_code_from_string(text);
            return env.reason_code.has_value();
        case f_partial_result:
            if (in_.read_null_if_next()) {
                return true;
            }
            return in_.ok() && in_.peek() == '{' && in_.read_value(env.partial_result.emplace());
        case f_schema_ok: return in_.read_bool(env.schema_ok);
        case f_coverage: return read_coverage(env.coverage);
        case f_steps: return read_steps(env.steps);
        case f_retry_hint: return read_retry_hint(env.retry_hint.emplace());
        case f_trace: return read_trace(env.trace.emplace());
        case f_budget: return read_budget(env.budget.emplace());
        default: return false;
        }
    }

    bool read_coverage(coverage_info& out) {
        static constexpr std::string_view names[] = {"items_expected", "items_completed", "unit", "fraction"};
        container c;
        if (in_.peek() != '{' || !in_.begin_object(c)) {
            return false;
        }
        unsigned seen = 0;
        unsigned bit = 0;
        std::string_view key;
        while (in_.next_key(c, key)) {
            if (!member(key, names, seen, bit)) {
                return false;
            }
            bool ok = false;
            switch (bit) {
            case 1U: ok = read_count(out.items_expected); break;
            case 2U: ok = read_count(out.items_completed); break;
            case 4U: ok = read_text(out.unit, 1, 64); break;
            default: {
                json v;
                ok = in_.read_number(v);
                out.fraction = ok ? v.get<double>() : 0.0;
                ok = ok && out.fraction >= 0.0 && out.fraction <= 1.0;
            }
            }
            if (!ok) {
                return false;
            }
        }
        return in_.ok() && seen == 0xFU;
    }

    bool read_string_list(std::vector<std::string>& out) {
        container c;
        if (in_.peek() != '[' || !in_.begin_array(c)) {
            return false;
        }
        while (in_.next_item(c)) {
            if (c.items > 256 || !read_text(out.emplace_back(), 0, 512)) {
                return false;
            }
        }
        return in_.ok();
    }

    bool read_steps(steps_info& out) {
        static constexpr std::string_view names[] = {"completed", "remaining"};
        container c;
        if (in_.peek() != '{' || !in_.begin_object(c)) {
            return false;
        }
        unsigned seen = 0;
        unsigned bit = 0;
        std::string_view key;
        while (in_.next_key(c, key)) {
            if (!member(key, names, seen, bit) || !read_string_list(bit == 1U ? out.completed : out.remaining)) {
                return false;
            }
        }
        return in_.ok() && seen == 0x3U;
    }

    bool read_retry_hint(retry_hint_info& out) {
        static constexpr std::string_view names[] = {"suggested_action", "suggested_scope", "budget_multiplier",
                                                     "notes"};
        container c;
        if (in_.peek() != '{' || !in_.begin_object(c)) {
            return false;
        }
        unsigned seen = 0;
        unsigned bit = 0;
        std::string_view key;
        while (in_.next_key(c, key)) {
            if (!member(key, names, seen, bit)) {
                return false;
            }
            bool ok = false;
            switch (bit) {
            case 1U: {
                std::string_view text;
                const auto parsed = read_enum_text(text) ? action_from_string(text) : std::nullopt;
                ok = parsed.has_value();
                out.suggested_action = parsed.value_or(action::fail);
                break;
            }
            case 2U: ok = read_optional_text(out.suggested_scope, 1024); break;
            case 4U: {
                if (in_.read_null_if_next()) {
                    ok = true;
                    break;
                }
                json v;
                ok = in_.ok() && in_.read_number(v) && v.get<double>() >= 0.0;
                if (ok) {
                    out.budget_multiplier = v.get<double>();
                }
                break;
            }
            default: ok = read_optional_text(out.notes, 2048);
            }
            if (!ok) {
                return false;
            }
        }
        return in_.ok() && (seen & 1U) != 0;
    }

    bool read_trace(trace_info& out) {
        static constexpr std::string_view names[] = {"trace_id", "span_id", "parent_span_id"};
        container c;
        if (in_.peek() != '{' || !in_.begin_object(c)) {
            return false;
        }
        unsigned seen = 0;
        unsigned bit = 0;
        std::string_view key;
        while (in_.next_key(c, key)) {
            if (!member(key, names, seen, bit)) {
                return false;
            }
            const bool ok = bit == 1U   ? read_text(out.trace_id, 1, 128)
                            : bit == 2U ? read_text(out.span_id, 1, 128)
                                        : read_optional_text(out.parent_span_id, 128);
            if (!ok) {
                return false;
            }
        }
        return in_.ok() && (seen & 0x3U) == 0x3U;
    }

    bool read_budget(budget_info& out) {
        static constexpr std::string_view names[] = {"tokens_used", "token_cap",  "elapsed_ms",
                                                     "time_cap_ms", "tool_calls", "tool_call_cap"};
        std::optional<std::uint64_t>* const slots[] = {&out.tokens_used, &out.token_cap,  &out.elapsed_ms,
                                                       &out.time_cap_ms, &out.tool_calls, &out.tool_call_cap};
        container c;
        if (in_.peek() != '{' || !in_.begin_object(c)) {
            return false;
        }
        unsigned seen = 0;
        unsigned bit = 0;
        std::string_view key;
        while (in_.next_key(c, key)) {
            if (!member(key, names, seen, bit)) {
                return false;
            }
            std::size_t index = 0;
            while ((bit >> index) != 1U) {
                ++index;
            }
            if (!read_count(slots[index]->emplace())) {
                return false;
            }
        }
        return in_.ok();
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
