// SPDX-License-Identifier: MIT
#pragma once

// Layer 2: checks of what a schema-valid result *means*. A schema can say
// that stated_total is a number; only application code can see that it disagrees with the sum
// of the line items, or that a quoted "source" appears nowhere in the source. Checks attach to
// a receiver (`receiver<Task>::add_check`) and run after the task schema passed; their problems
// carry step::semantic, a stable code, a JSON pointer and a message fit for a repair prompt.

#include <handoff/detail/json_pointer.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/enums.hpp>
#include <handoff/problem.hpp>
#include <handoff/problem_codes.hpp>
#include <handoff/receipt.hpp>
#include <handoff/semantic_check.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // any_of
#include <cmath>       // fabs, floor, llround
#include <cstddef>     // size_t
#include <cstdint>     // int64_t, uint8_t
#include <exception>   // exception
#include <functional>  // function
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move
#include <vector>      // vector

namespace handoff {

namespace detail {

/// One value found by a pointer pattern; `value` is null when the path is missing there.
struct selected_value {
    std::string pointer; // relative to the result, RFC 6901 escaped
    const nlohmann::json* value = nullptr;
};

inline void select_into(const nlohmann::json* at, const std::vector<std::string>& tokens, std::size_t k,
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

/// The values a pointer pattern names in `root`. A token `*` stands for every element of an
/// array: "/line_items/*/amount" selects each line item's amount. Without `*` the result has
/// exactly one entry (value null when missing); with it, one entry per element reached.
[[nodiscard]] inline std::vector<selected_value> select(const nlohmann::json& root, std::string_view pattern) {
    std::vector<selected_value> out;
    select_into(&root, pointer_tokens(pattern), 0, std::string(), out);
    return out;
}

/// The field name a message should use for a pointer: its last token that is not an index.
[[nodiscard]] inline std::string field_name(std::string_view pattern) {
    const std::vector<std::string> tokens = pointer_tokens(pattern);
    for (auto it = tokens.rbegin(); it != tokens.rend(); ++it) {
        if (*it != "*" && it->find_first_not_of("0123456789") != std::string::npos) {
            return *it;
        }
    }
    return "value";
}

/// A description of a value for a message, never the raw value of a long string.
[[nodiscard]] inline std::string describe_value(const nlohmann::json& v) {
    if (v.is_string()) {
        return "the string " + quote_untrusted(v.get_ref<const std::string&>(), 40);
    }
    if (v.is_null()) {
        return "null";
    }
    if (v.is_object() || v.is_array()) {
        return v.is_object() ? "an object" : "an array";
    }
    return quote_untrusted(v.dump(), 40);
}

/// Lower-cases ASCII letters and collapses every run of whitespace (ASCII and U+00A0 NO-BREAK
/// SPACE) into one space, trimming both ends. Other bytes, multi-byte UTF-8 included, are kept
/// as they are: a curly quote is not a straight one, because the quote must really be there.
[[nodiscard]] inline std::string normalise_for_match(std::string_view s) {
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

/// How money is written in the result.
enum class money_format : std::uint8_t {
    /// Integer minor units ("amount_cents": 52000), the schema habit that keeps money exact. A
    /// number with a fractional part is a problem, never rounded.
    integer_minor_units,
    /// Decimal numbers ("amount": 520.00), rounded to `decimals` places before summing, so
    /// 0.1 + 0.2 sums to exactly 0.30 and binary floating point never causes a mismatch.
    decimal,
};

/// Options of total_matches_sum.
struct money_options {
    money_format format = money_format::decimal;
    /// Places of the minor unit for money_format::decimal (2 for cents, 3 for fils, 0 for yen).
    int decimals = 2;
    /// How far (in minor units) the total may stray from the sum; 0 means exact to the cent.
    std::int64_t tolerance = 0;
    /// A capped envelope's result is partial: its items cannot sum to the document's total
    /// yet, so by default the check runs on ok envelopes only.
    bool check_capped = false;
};

/// Built-in check: the total stated in the result equals the sum of its line items.
///
///     receiver.add_check(handoff::total_matches_sum("/stated_total", "/line_items/*/amount"));
///
/// Optionally also the model's own `calculated_total` ("show your work" field): it must equal
/// the sum too, otherwise the model's arithmetic is off. Codes: `semantic.total_mismatch`,
/// `semantic.calculated_total_mismatch`, `semantic.amount_missing`, `semantic.amount_invalid`.
class total_matches_sum {
public:
    total_matches_sum(std::string total_pointer, std::string items_pattern, money_options options = {},
                      std::string calculated_pointer = {})
        : total_(std::move(total_pointer)), items_(std::move(items_pattern)),
          calculated_(std::move(calculated_pointer)), options_(options) {}

    template <class Task>
    [[nodiscard]] problem_list operator()(const Task& /*typed*/, const check_context& ctx) const {
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

private:
    /// "/line_items/*/amount" -> "/line_items": messages name the list, not the field.
    [[nodiscard]] std::string items_pattern_head() const {
        const std::size_t star = items_.find("/*");
        return star == std::string::npos ? items_ : items_.substr(0, star);
    }

    [[nodiscard]] bool within(std::int64_t a, std::int64_t b) const noexcept {
        const std::int64_t diff = a > b ? a - b : b - a;
        return diff <= options_.tolerance;
    }

    /// |amount| below 2^53 minor units keeps every sum exact in a double and an int64.
    static constexpr std::int64_t max_units = std::int64_t{1} << 53;

    static bool add(std::int64_t& sum, std::int64_t v) noexcept {
        if ((v > 0 && sum > max_units - v) || (v < 0 && sum < -max_units - v)) {
            return false;
        }
        sum += v;
        return true;
    }

    [[nodiscard]] std::optional<std::int64_t> read_amount(const detail::selected_value& at, const std::string& base,
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
                    problems.push_back(problem{step::semantic, codes::semantic_amount_invalid, ptr,
                                               ptr + ": " + detail::describe_value(v) +
                                                   " is not a whole number of minor units (cents)"});
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

    [[nodiscard]] std::int64_t scale_factor() const noexcept {
        std::int64_t scale = 1;
        for (int i = 0; i < options_.decimals && i < 15; ++i) {
            scale *= 10;
        }
        return scale;
    }

    /// Minor units as the result writes them: 48000 -> "480.00" (decimal) or "48000" (cents).
    [[nodiscard]] std::string format(std::int64_t units) const {
        if (options_.format == money_format::integer_minor_units || options_.decimals <= 0) {
            return std::to_string(units);
        }
        const std::int64_t scale = scale_factor();
        const std::uint64_t magnitude =
            units < 0 ? static_cast<std::uint64_t>(-units) : static_cast<std::uint64_t>(units);
        std::string fraction = std::to_string(magnitude % static_cast<std::uint64_t>(scale));
        fraction.insert(0, static_cast<std::size_t>(options_.decimals) - fraction.size(), '0');
        return (units < 0 ? "-" : "") + std::to_string(magnitude / static_cast<std::uint64_t>(scale)) + "." + fraction;
    }

    std::string total_;
    std::string items_;
    std::string calculated_;
    money_options options_;
};

/// Options of quote_in_source.
struct quote_options {
    /// A quote shorter than this (in bytes, after normalising) proves nothing: "the" occurs in
    /// every document. 1 rejects only empty quotes.
    std::size_t min_length = 1;
    /// When the pattern has no `*` and the quote field is absent: false reports it, true lets it
    /// pass (for results where provenance is optional).
    bool allow_missing = false;
};

/// Built-in check (provenance): every quote the pattern selects must occur in
/// the source text, compared after lower-casing ASCII and collapsing whitespace.
///
///     receiver.add_check(handoff::quote_in_source("/customer/source_quote"));
///     receiver.add_check(handoff::quote_in_source("/citations/*/quote"));
///
/// Codes: `semantic.quote_not_in_source`, `semantic.quote_too_short`, `semantic.quote_missing`,
/// `semantic.quote_invalid`.
class quote_in_source {
public:
    explicit quote_in_source(std::string quote_pattern, quote_options options = {})
        : pattern_(std::move(quote_pattern)), options_(options) {}

    template <class Task>
    [[nodiscard]] problem_list operator()(const Task& /*typed*/, const check_context& ctx) const {
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
                problems.push_back(problem{
                    step::semantic, codes::semantic_quote_too_short, ptr,
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
                problems.push_back(problem{step::semantic, codes::semantic_quote_not_in_source, ptr,
                                           ptr + ": the quote " + detail::quote_untrusted(quote, 80) +
                                               (ctx.source_text.empty()
                                                    ? std::string(" cannot be verified: no source text was supplied")
                                                    : std::string(" does not occur in the source text (compared "
                                                                  "ignoring case and whitespace); copy the span "
                                                                  "exactly, or drop the claim"))});
            }
        }
        return problems;
    }

private:
    std::string pattern_;
    quote_options options_;
};

} // namespace handoff
