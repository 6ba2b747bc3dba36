// SPDX-License-Identifier: MIT
#pragma once

// Layer 2: checks of what a schema-valid result *means*. A schema can say
// that stated_total is a number; only application code can see that it disagrees with the sum
// of the line items, or that a quoted "source" appears nowhere in the source. Checks attach to
// a receiver (`receiver<Task>::add_check`) and run after the task schema passed; their problems
// carry step::semantic, a stable code, a JSON pointer and a message fit for a repair prompt.

#include <handoff/config.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/enums.hpp>
#include <handoff/problem.hpp>
#include <handoff/problem_codes.hpp>
#include <handoff/receipt.hpp>
#include <handoff/semantic_check.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // int64_t, uint8_t
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

/// The values a pointer pattern names in `root`. A token `*` stands for every element of an
/// array: "/line_items/*/amount" selects each line item's amount. Without `*` the result has
/// exactly one entry (value null when missing); with it, one entry per element reached.
[[nodiscard]] std::vector<selected_value> select(const nlohmann::json& root, std::string_view pattern);

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
    [[nodiscard]] problem_list operator()(const Task& /*task*/, const check_context& ctx) const {
        return check(ctx);
    }

private:
    /// The check itself: it reads only the JSON result, so it is the same for every Task.
    [[nodiscard]] problem_list check(const check_context& ctx) const;

    /// "/line_items/*/amount" -> "/line_items": messages name the list, not the field.
    [[nodiscard]] std::string items_pattern_head() const;

    [[nodiscard]] bool within(std::int64_t a, std::int64_t b) const noexcept;

    /// |amount| below 2^53 minor units keeps every sum exact in a double and an int64.
    static constexpr std::int64_t max_units = std::int64_t{1} << 53;

    static bool add(std::int64_t& sum, std::int64_t v) noexcept;

    [[nodiscard]] std::optional<std::int64_t> read_amount(const detail::selected_value& at, const std::string& base,
                                                          problem_list& problems) const;

    [[nodiscard]] std::int64_t scale_factor() const noexcept;

    /// Minor units as the result writes them: 48000 -> "480.00" (decimal) or "48000" (cents).
    [[nodiscard]] std::string format(std::int64_t units) const;

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
    [[nodiscard]] problem_list operator()(const Task& /*task*/, const check_context& ctx) const {
        return check(ctx);
    }

private:
    /// The check itself: it reads only the JSON result, so it is the same for every Task.
    [[nodiscard]] problem_list check(const check_context& ctx) const;

    std::string pattern_;
    quote_options options_;
};

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/semantic-inl.hpp>
#endif
