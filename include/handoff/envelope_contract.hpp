// SPDX-License-Identifier: MIT
#pragma once

// The envelope contract as data: every field of every object of the envelope, with its JSON
// type, whether it is required, its bounds and its closed vocabulary. The fast reader
// (detail/envelope/reader.hpp), the diagnosing check (detail/envelope/check.hpp) and the repair
// prompt read these tables, so a name or a bound is written once; tests/test_envelope_schema.cpp
// holds them equal to schemas/envelope.schema.json keyword by keyword, so the schema file stays
// the contract. Only the standard library: routing-only users can include it.

#include <handoff/enums.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // uint8_t, uint64_t
#include <iterator>    // size
#include <optional>    // optional
#include <string_view> // string_view

namespace handoff::contract {

/// A field's JSON type ("number" includes integers, as in JSON Schema).
enum class json_type : std::uint8_t { boolean, integer, number, string, array, object };

/// A closed set of strings a field may hold; the words are the enums' names (enums.hpp).
enum class vocabulary : std::uint8_t { none, status, reason_code, action };

struct field;

/// The fields of one object, in the order the schema file lists them. An object is closed:
/// a key not in its field list is an error (additionalProperties: false).
struct field_list {
    const field* first = nullptr;
    std::size_t count = 0;

    template <std::size_t N>
    constexpr field_list(const field (&fields)[N]) noexcept : first(fields), count(N) {} // NOLINT: a view

    constexpr field_list() noexcept = default;

    [[nodiscard]] constexpr std::size_t size() const noexcept { return count; }
    [[nodiscard]] constexpr const field* begin() const noexcept { return first; }
    [[nodiscard]] constexpr const field* end() const noexcept;
    [[nodiscard]] constexpr const field& operator[](std::size_t i) const noexcept;

    /// The index of the field named `name`, or size() when the object has no such field.
    [[nodiscard]] constexpr std::size_t index_of(std::string_view name) const noexcept;

    /// One bit per required field, bit i for field i: what a reader must have seen.
    [[nodiscard]] constexpr unsigned required_mask() const noexcept;
};

/// One field. Bounds that do not apply stay empty. An array is a list of strings, each bounded
/// by min_length/max_length (the envelope's lists are step descriptions). An object field with
/// no members is the task's result: open here, the task schema closes it.
struct field {
    constexpr field(std::string_view field_name, json_type field_type) noexcept : name(field_name), type(field_type) {}

    std::string_view name;
    json_type type = json_type::string;
    bool required = false;
    bool nullable = false;
    vocabulary words = vocabulary::none;
    std::optional<std::size_t> min_length; ///< code points
    std::optional<std::size_t> max_length; ///< code points
    std::optional<std::size_t> max_items;
    std::optional<double> minimum;
    std::optional<double> maximum;
    field_list members;

private:
    /// A copy of this field with one member set: the one step every builder below takes.
    template <class Member, class Value>
    [[nodiscard]] constexpr field with(Member field::*member, Value value) const noexcept {
        field f = *this;
        f.*member = value;
        return f;
    }

public:
    [[nodiscard]] constexpr field require() const noexcept { return with(&field::required, true); }
    [[nodiscard]] constexpr field or_null() const noexcept { return with(&field::nullable, true); }
    [[nodiscard]] constexpr field one_of(vocabulary v) const noexcept { return with(&field::words, v); }
    [[nodiscard]] constexpr field length(std::size_t min, std::size_t max) const noexcept {
        return with(&field::min_length, min).with(&field::max_length, max);
    }
    [[nodiscard]] constexpr field longest(std::size_t max) const noexcept { return with(&field::max_length, max); }
    [[nodiscard]] constexpr field items(std::size_t max) const noexcept { return with(&field::max_items, max); }
    [[nodiscard]] constexpr field at_least(double min) const noexcept { return with(&field::minimum, min); }
    [[nodiscard]] constexpr field range(double min, double max) const noexcept {
        return with(&field::minimum, min).with(&field::maximum, max);
    }
    [[nodiscard]] constexpr field of(field_list fields) const noexcept { return with(&field::members, fields); }
};

constexpr const field* field_list::end() const noexcept { return first + count; }
constexpr const field& field_list::operator[](std::size_t i) const noexcept { return first[i]; }

constexpr std::size_t field_list::index_of(std::string_view name) const noexcept {
    for (std::size_t i = 0; i < count; ++i) {
        if (first[i].name == name) {
            return i;
        }
    }
    return count;
}

constexpr unsigned field_list::required_mask() const noexcept {
    unsigned mask = 0;
    for (std::size_t i = 0; i < count; ++i) {
        mask |= first[i].required ? 1U << i : 0U;
    }
    return mask;
}

/// The words of a vocabulary, in enum order.
struct word_list {
    std::string_view words[8] = {};
    std::size_t count = 0;

    [[nodiscard]] constexpr const std::string_view* begin() const noexcept { return words; }
    [[nodiscard]] constexpr const std::string_view* end() const noexcept { return words + count; }
    [[nodiscard]] constexpr std::size_t size() const noexcept { return count; }
};

static_assert(status_count <= 8 && reason_code_count <= 8 && action_count <= 8,
              "handoff: a vocabulary outgrew word_list");

[[nodiscard]] constexpr word_list words_of(vocabulary v) noexcept {
    word_list out;
    const auto add = [&out](std::string_view w) { out.words[out.count++] = w; };
    switch (v) {
    case vocabulary::none: break;
    case vocabulary::status:
        for (status s : all_statuses) {
            add(to_string(s));
        }
        break;
    case vocabulary::reason_code:
        for (reason_code r : all_reason_codes) {
            add(to_string(r));
        }
        break;
    case vocabulary::action:
        for (action a : all_actions) {
            add(to_string(a));
        }
        break;
    }
    return out;
}

// Each object's fields. The key enums name the fields in field-list order (a reader switches on
// them to fill its struct); the static_asserts below keep each enum as long as its field list.

enum class coverage_key : std::uint8_t { items_expected, items_completed, unit, fraction };
inline constexpr field coverage_fields[] = {
    field{"items_expected", json_type::integer}.require().at_least(0),
    field{"items_completed", json_type::integer}.require().at_least(0),
    field{"unit", json_type::string}.require().length(1, 64),
    field{"fraction", json_type::number}.require().range(0, 1),
};

enum class steps_key : std::uint8_t { completed, remaining };
inline constexpr field steps_fields[] = {
    field{"completed", json_type::array}.require().items(256).longest(512),
    field{"remaining", json_type::array}.require().items(256).longest(512),
};

enum class retry_hint_key : std::uint8_t { suggested_action, suggested_scope, budget_multiplier, notes };
inline constexpr field retry_hint_fields[] = {
    field{"suggested_action", json_type::string}.require().one_of(vocabulary::action),
    field{"suggested_scope", json_type::string}.or_null().longest(1024),
    field{"budget_multiplier", json_type::number}.or_null().at_least(0),
    field{"notes", json_type::string}.or_null().longest(2048),
};

enum class trace_key : std::uint8_t { trace_id, span_id, parent_span_id };
inline constexpr field trace_fields[] = {
    field{"trace_id", json_type::string}.require().length(1, 128),
    field{"span_id", json_type::string}.require().length(1, 128),
    field{"parent_span_id", json_type::string}.or_null().longest(128),
};

enum class budget_key : std::uint8_t { tokens_used, token_cap, elapsed_ms, time_cap_ms, tool_calls, tool_call_cap };
inline constexpr field budget_fields[] = {
    field{"tokens_used", json_type::integer}.at_least(0), field{"token_cap", json_type::integer}.at_least(0),
    field{"elapsed_ms", json_type::integer}.at_least(0),  field{"time_cap_ms", json_type::integer}.at_least(0),
    field{"tool_calls", json_type::integer}.at_least(0),  field{"tool_call_cap", json_type::integer}.at_least(0),
};

enum class envelope_key : std::uint8_t {
    status,
    reason_code,
    partial_result,
    schema_ok,
    coverage,
    steps,
    retry_hint,
    trace,
    budget,
};
/// reason_code is not required by itself: see reason_code_required_when.
inline constexpr field envelope_fields[] = {
    field{"status", json_type::string}.require().one_of(vocabulary::status),
    field{"reason_code", json_type::string}.or_null().one_of(vocabulary::reason_code),
    field{"partial_result", json_type::object}.require().or_null(),
    field{"schema_ok", json_type::boolean}.require(),
    field{"coverage", json_type::object}.require().of(coverage_fields),
    field{"steps", json_type::object}.require().of(steps_fields),
    field{"retry_hint", json_type::object}.of(retry_hint_fields),
    field{"trace", json_type::object}.of(trace_fields),
    field{"budget", json_type::object}.of(budget_fields),
};
inline constexpr field_list envelope{envelope_fields};

/// The schema's if/then/else: with this status reason_code is a required string; with any
/// other it is absent or null.
inline constexpr status reason_code_required_when = status::capped;

static_assert(std::size(coverage_fields) == static_cast<std::size_t>(coverage_key::fraction) + 1);
static_assert(std::size(steps_fields) == static_cast<std::size_t>(steps_key::remaining) + 1);
static_assert(std::size(retry_hint_fields) == static_cast<std::size_t>(retry_hint_key::notes) + 1);
static_assert(std::size(trace_fields) == static_cast<std::size_t>(trace_key::parent_span_id) + 1);
static_assert(std::size(budget_fields) == static_cast<std::size_t>(budget_key::tool_call_cap) + 1);
static_assert(std::size(envelope_fields) == static_cast<std::size_t>(envelope_key::budget) + 1);

/// The most fields any object of `fields` has, itself included.
[[nodiscard]] constexpr std::size_t widest(field_list fields) noexcept {
    std::size_t most = fields.size();
    for (const field& f : fields) {
        const std::size_t inner = widest(f.members);
        most = inner > most ? inner : most;
    }
    return most;
}
// The readers keep one bit per field of an object in an unsigned (at least 16 bits).
static_assert(widest(envelope) <= 16, "handoff: an envelope object has at most 16 fields");

/// Whether every integer field of `fields` (and of its objects) is a count: minimum 0, no
/// maximum. The readers store counts as uint64_t and rely on it.
[[nodiscard]] constexpr bool integers_are_counts(field_list fields) noexcept {
    for (const field& f : fields) { // NOLINT(readability-use-anyofallof): std::all_of is not constexpr in C++17
        const bool count = f.type != json_type::integer || (f.minimum == 0.0 && !f.maximum);
        if (!count || !integers_are_counts(f.members)) {
            return false;
        }
    }
    return true;
}
static_assert(integers_are_counts(envelope), "handoff: an envelope integer is a count from 0 up");

/// The field of `key` in its field list.
template <class Key>
[[nodiscard]] constexpr std::size_t index(Key key) noexcept {
    return static_cast<std::size_t>(key);
}

/// A JSON number read as an integer count. Draft-07 calls a number with a zero fractional part
/// an integer, so 40.0 is the count 40; 40.5, -1.0 and anything from 2^64 up are not counts.
[[nodiscard]] constexpr std::optional<std::uint64_t> count_from_double(double x) noexcept {
    constexpr double two_to_64 = 18446744073709551616.0;
    if (!(x >= 0.0 && x < two_to_64)) {
        return std::nullopt; // NaN fails here too
    }
    const auto n = static_cast<std::uint64_t>(x);
    if (static_cast<double>(n) != x) {
        return std::nullopt;
    }
    return n;
}

} // namespace handoff::contract
