// SPDX-License-Identifier: MIT
#pragma once

// semantic's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/semantic.hpp>

#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/json/writer.hpp>

#include <cmath> // fabs, floor, llround

namespace handoff {

namespace detail {

HANDOFF_INLINE void select_into(const nlohmann::json* at, const std::vector<std::string>& tokens, std::size_t k,
                                std::string pointer, std::vector<selected_value>& out) {
    for (; k < tokens.size(); ++k) {
        if (at == nullptr) {
            break;
        }
        const std::string& token = tokens[k];
        if (token == "*" && at->is_array()) {
            // Every element: one selection per item, each with its own pointer.
            for (std::size_t i = 0; i < at->size(); ++i) {
                select_into(&(*at)[i], tokens, k + 1, pointer_item(pointer, i), out);
            }
            return;
        }
        append_pointer_token(pointer, token);
        if (at->is_object()) {
            const auto it = at->find(token);
            at = it == at->end() ? nullptr : &*it;
        } else if (const auto index = pointer_index(token); at->is_array() && index) {
            at = *index < at->size() ? &(*at)[*index] : nullptr;
        } else {
            at = nullptr;
        }
    }
    if (at == nullptr) {
        // Finish the pointer so a "missing" problem names the whole path.
        for (; k < tokens.size(); ++k) {
            append_pointer_token(pointer, tokens[k]);
        }
    }
    out.push_back(selected_value{std::move(pointer), at});
}

HANDOFF_INLINE std::vector<selected_value> select(const nlohmann::json& root, std::string_view pattern) {
    std::vector<selected_value> out;
    select_into(&root, pointer_tokens(pattern), 0, std::string(), out);
    return out;
}

/// The field name a message should use for a pointer: its last token that is not an index.
HANDOFF_INLINE std::string field_name(std::string_view pattern) {
    const std::vector<std::string> tokens = pointer_tokens(pattern);
    for (auto it = tokens.rbegin(); it != tokens.rend(); ++it) {
        if (*it != "*" && it->find_first_not_of("0123456789") != std::string::npos) {
            return *it;
        }
    }
    return "value";
}

/// A description of a value for a message, never the raw value of a long string.
HANDOFF_INLINE std::string describe_value(const nlohmann::json& v) {
    if (v.is_string()) {
        return "the string " + quote_untrusted(v.get_ref<const std::string&>(), 40);
    }
    if (v.is_null()) {
        return "null";
    }
    if (v.is_object() || v.is_array()) {
        return v.is_object() ? "an object" : "an array";
    }
    return quote_untrusted(json_text(v), 40);
}

/// Lower-cases ASCII letters and collapses every run of whitespace (ASCII and U+00A0 NO-BREAK
/// SPACE) into one space, trimming both ends. Other bytes, multi-byte UTF-8 included, are kept
/// as they are: a curly quote is not a straight one, because the quote must really be there.
HANDOFF_INLINE std::string normalise_for_match(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    bool pending_space = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
        if (c == 0xC2U && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xA0U) {
            space = true;
            ++i;
        }
        if (space) {
            pending_space = !out.empty();
            continue;
        }
        if (pending_space) {
            out.push_back(' ');
            pending_space = false;
        }
        out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : static_cast<char>(c));
    }
    return out;
}

} // namespace detail

HANDOFF_INLINE problem_list total_matches_sum::check(const check_context& ctx) const {
    problem_list problems;
    if (ctx.status == status::capped && !options_.check_capped) {
        return problems;
    }
    const std::string base(ctx.base_pointer);
    // Sum the items first: a bad item makes every comparison meaningless.
    std::int64_t sum = 0;
    bool items_ok = true;
    for (const detail::selected_value& item : detail::select(ctx.result, items_)) {
        const std::optional<std::int64_t> units = read_amount(item, base, problems);
        if (!units) {
            items_ok = false;
        } else if (!add(sum, *units)) {
            problems.push_back(problem{step::semantic, codes::semantic_amount_invalid, base + item.pointer,
                                       base + item.pointer +
                                           ": the line items sum beyond what can be "
                                           "added exactly"});
            items_ok = false;
        }
    }
    const std::vector<detail::selected_value> total = detail::select(ctx.result, total_);
    const std::optional<std::int64_t> stated =
        total.empty() ? std::nullopt : read_amount(total.front(), base, problems);
    if (!items_ok || !stated) {
        return problems;
    }
    const std::string items_name = detail::field_name(items_pattern_head());
    if (!within(*stated, sum)) {
        const std::string ptr = base + total.front().pointer;
        problems.push_back(problem{step::semantic, codes::semantic_total_mismatch, ptr,
                                   ptr + ": " + detail::field_name(total_) + " (" + format(*stated) +
                                       ") does not match the sum of " + items_name + " (" + format(sum) +
                                       "); re-extract, correcting the discrepancy"});
    }
    if (!calculated_.empty()) {
        const std::vector<detail::selected_value> calc = detail::select(ctx.result, calculated_);
        if (const std::optional<std::int64_t> claimed = read_amount(calc.front(), base, problems)) {
            if (!within(*claimed, sum)) {
                const std::string ptr = base + calc.front().pointer;
                problems.push_back(problem{step::semantic, codes::semantic_calculated_total_mismatch, ptr,
                                           ptr + ": " + detail::field_name(calculated_) + " (" + format(*claimed) +
                                               ") is not the sum of " + items_name + " (" + format(sum) +
                                               "); add the items again"});
            }
        }
    }
    return problems;
}

HANDOFF_INLINE std::string total_matches_sum::items_pattern_head() const {
    const std::size_t star = items_.find("/*");
    return star == std::string::npos ? items_ : items_.substr(0, star);
}

HANDOFF_INLINE bool total_matches_sum::within(std::int64_t a, std::int64_t b) const noexcept {
    const std::int64_t diff = a > b ? a - b : b - a;
    return diff <= options_.tolerance;
}

HANDOFF_INLINE bool total_matches_sum::add(std::int64_t& sum, std::int64_t v) noexcept {
    if ((v > 0 && sum > max_units - v) || (v < 0 && sum < -max_units - v)) {
        return false;
    }
    sum += v;
    return true;
}

HANDOFF_INLINE std::optional<std::int64_t> total_matches_sum::read_amount(const detail::selected_value& at,
                                                                          const std::string& base,
                                                                          problem_list& problems) const {
    const std::string ptr = base + at.pointer;
    if (at.value == nullptr || at.value->is_null()) {
        problems.push_back(problem{step::semantic, codes::semantic_amount_missing, ptr,
                                   ptr + ": missing, so the total cannot be checked against the line items"});
        return std::nullopt;
    }
    const nlohmann::json& v = *at.value;
    if (!v.is_number()) {
        problems.push_back(problem{step::semantic, codes::semantic_amount_invalid, ptr,
                                   ptr + ": expected a number, got " + detail::describe_value(v)});
        return std::nullopt;
    }
    if (v.is_number_integer()) {
        const bool fits = v.is_number_unsigned()
                              ? v.get<std::uint64_t>() < static_cast<std::uint64_t>(max_units)
                              : (v.get<std::int64_t>() < max_units && v.get<std::int64_t>() > -max_units);
        if (fits) {
            const std::int64_t whole =
                v.is_number_unsigned() ? static_cast<std::int64_t>(v.get<std::uint64_t>()) : v.get<std::int64_t>();
            if (options_.format == money_format::integer_minor_units) {
                return whole;
            }
            const std::int64_t scale = scale_factor();
            if (whole < max_units / scale && whole > -max_units / scale) {
                return whole * scale;
            }
        }
    } else {
        const double d = v.get<double>();
        if (options_.format == money_format::integer_minor_units) {
            if (std::floor(d) != d) {
                problems.push_back(
                    problem{step::semantic, codes::semantic_amount_invalid, ptr,
                            ptr + ": " + detail::describe_value(v) + " is not a whole number of minor units (cents)"});
                return std::nullopt;
            }
            if (std::fabs(d) < static_cast<double>(max_units)) {
                return static_cast<std::int64_t>(d);
            }
        } else {
            const double scaled = d * static_cast<double>(scale_factor());
            if (std::fabs(scaled) < static_cast<double>(max_units)) {
                return static_cast<std::int64_t>(std::llround(scaled));
            }
        }
    }
    problems.push_back(problem{step::semantic, codes::semantic_amount_invalid, ptr,
                               ptr + ": " + detail::describe_value(v) + " is too large to sum exactly"});
    return std::nullopt;
}

HANDOFF_INLINE std::int64_t total_matches_sum::scale_factor() const noexcept {
    std::int64_t scale = 1;
    for (int i = 0; i < options_.decimals && i < 15; ++i) {
        scale *= 10;
    }
    return scale;
}

HANDOFF_INLINE std::string total_matches_sum::format(std::int64_t units) const {
    if (options_.format == money_format::integer_minor_units || options_.decimals <= 0) {
        return std::to_string(units);
    }
    const std::int64_t scale = scale_factor();
    const std::uint64_t magnitude = units < 0 ? static_cast<std::uint64_t>(-units) : static_cast<std::uint64_t>(units);
    std::string fraction = std::to_string(magnitude % static_cast<std::uint64_t>(scale));
    fraction.insert(0, static_cast<std::size_t>(options_.decimals) - fraction.size(), '0');
    return (units < 0 ? "-" : "") + std::to_string(magnitude / static_cast<std::uint64_t>(scale)) + "." + fraction;
}

HANDOFF_INLINE problem_list quote_in_source::check(const check_context& ctx) const {
    problem_list problems;
    const std::string base(ctx.base_pointer);
    std::optional<std::string> source; // normalised once, and only when there is a quote
    for (const detail::selected_value& at : detail::select(ctx.result, pattern_)) {
        const std::string ptr = base + at.pointer;
        if (at.value == nullptr || at.value->is_null()) {
            if (!options_.allow_missing) {
                problems.push_back(problem{step::semantic, codes::semantic_quote_missing, ptr,
                                           ptr + ": missing; quote the span of the source this claim comes from"});
            }
            continue;
        }
        if (!at.value->is_string()) {
            problems.push_back(problem{step::semantic, codes::semantic_quote_invalid, ptr,
                                       ptr + ": expected the quoted source text as a string, got " +
                                           detail::describe_value(*at.value)});
            continue;
        }
        const auto& quote = at.value->get_ref<const std::string&>();
        const std::string wanted = detail::normalise_for_match(quote);
        if (wanted.size() < options_.min_length || wanted.empty()) {
            problems.push_back(
                problem{step::semantic, codes::semantic_quote_too_short, ptr,
                        ptr + ": the quote " + detail::quote_untrusted(quote, 80) + " is " +
                            (wanted.empty() ? std::string("empty")
                                            : "shorter than " + std::to_string(options_.min_length) + " characters") +
                            "; quote the exact span of the source"});
            continue;
        }
        if (!source) {
            source = detail::normalise_for_match(ctx.source_text);
        }
        if (source->find(wanted) == std::string::npos) {
            problems.push_back(
                problem{step::semantic, codes::semantic_quote_not_in_source, ptr,
                        ptr + ": the quote " + detail::quote_untrusted(quote, 80) +
                            (ctx.source_text.empty() ? std::string(" cannot be verified: no source text was supplied")
                                                     : std::string(" does not occur in the source text (compared "
                                                                   "ignoring case and whitespace); copy the span "
                                                                   "exactly, or drop the claim"))});
        }
    }
    return problems;
}

} // namespace handoff
