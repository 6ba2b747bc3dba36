// SPDX-License-Identifier: MIT
#pragma once

#include <array> // array

/// Every code a `handoff::problem` can carry, one constant each: compare `problem::code` with
/// these instead of spelling the text. The README's "Problem codes" table lists the same set
/// (a test holds them equal). A code never changes meaning; a new one is a minor version.
namespace handoff::codes {

// Step 1, parse (decode.hpp, detail/json/builder.hpp).
inline constexpr const char* parse_syntax = "parse.syntax";
inline constexpr const char* parse_no_object = "parse.no_object";
inline constexpr const char* parse_byte_order_mark = "parse.byte_order_mark";
inline constexpr const char* parse_nul_byte = "parse.nul_byte";
inline constexpr const char* parse_duplicate_key = "parse.duplicate_key";
inline constexpr const char* parse_number_range = "parse.number_range";
inline constexpr const char* parse_limit_bytes = "parse.limit.bytes";
inline constexpr const char* parse_limit_depth = "parse.limit.depth";
inline constexpr const char* parse_limit_string = "parse.limit.string";
inline constexpr const char* parse_limit_items = "parse.limit.items";
inline constexpr const char* parse_limit_values = "parse.limit.values";

// Step 2, envelope schema (detail/envelope/check.hpp).
inline constexpr const char* envelope_type = "envelope.type";
inline constexpr const char* envelope_required = "envelope.required";
inline constexpr const char* envelope_unknown_field = "envelope.unknown_field";
inline constexpr const char* envelope_forbidden = "envelope.forbidden";
inline constexpr const char* envelope_enum = "envelope.enum";
inline constexpr const char* envelope_range = "envelope.range";
inline constexpr const char* envelope_min_length = "envelope.min_length";
inline constexpr const char* envelope_max_length = "envelope.max_length";
inline constexpr const char* envelope_max_items = "envelope.max_items";

// Step 3, task schema (receiver.hpp, schema.hpp).
inline constexpr const char* task_schema = "task.schema";
inline constexpr const char* task_absent = "task.absent";
inline constexpr const char* task_self_reported_invalid = "task.self_reported_invalid";
inline constexpr const char* task_conversion = "task.conversion";

// Step 4, coverage (coverage.hpp).
inline constexpr const char* coverage_completed_exceeds_expected = "coverage.completed_exceeds_expected";
inline constexpr const char* coverage_fraction_mismatch = "coverage.fraction_mismatch";
inline constexpr const char* coverage_ok_incomplete = "coverage.ok_incomplete";

// Layer 2, semantic checks (semantic.hpp); `semantic_check` is given to a check's problem
// that names no code of its own.
inline constexpr const char* semantic_check = "semantic.check";
inline constexpr const char* semantic_check_threw = "semantic.check_threw";
inline constexpr const char* semantic_total_mismatch = "semantic.total_mismatch";
inline constexpr const char* semantic_calculated_total_mismatch = "semantic.calculated_total_mismatch";
inline constexpr const char* semantic_amount_missing = "semantic.amount_missing";
inline constexpr const char* semantic_amount_invalid = "semantic.amount_invalid";
inline constexpr const char* semantic_quote_not_in_source = "semantic.quote_not_in_source";
inline constexpr const char* semantic_quote_too_short = "semantic.quote_too_short";
inline constexpr const char* semantic_quote_missing = "semantic.quote_missing";
inline constexpr const char* semantic_quote_invalid = "semantic.quote_invalid";

// Layer 3, the repair loop (repair_loop.hpp) and its dead letters (dead_letter.hpp).
inline constexpr const char* reply_refused = "reply.refused";
inline constexpr const char* reply_truncated = "reply.truncated";
inline constexpr const char* dead_letter_problems_cut = "dead_letter.problems_cut";

/// The families, each the prefix every code of one step shares.
inline constexpr const char* parse_family = "parse.";
inline constexpr const char* parse_limit_family = "parse.limit.";
inline constexpr const char* envelope_family = "envelope.";
inline constexpr const char* task_family = "task.";
inline constexpr const char* coverage_family = "coverage.";
inline constexpr const char* semantic_family = "semantic.";

/// Every code above, once.
inline constexpr std::array all = {
    parse_syntax,
    parse_no_object,
    parse_byte_order_mark,
    parse_nul_byte,
    parse_duplicate_key,
    parse_number_range,
    parse_limit_bytes,
    parse_limit_depth,
    parse_limit_string,
    parse_limit_items,
    parse_limit_values,
    envelope_type,
    envelope_required,
    envelope_unknown_field,
    envelope_forbidden,
    envelope_enum,
    envelope_range,
    envelope_min_length,
    envelope_max_length,
    envelope_max_items,
    task_schema,
    task_absent,
    task_self_reported_invalid,
    task_conversion,
    coverage_completed_exceeds_expected,
    coverage_fraction_mismatch,
    coverage_ok_incomplete,
    semantic_check,
    semantic_check_threw,
    semantic_total_mismatch,
    semantic_calculated_total_mismatch,
    semantic_amount_missing,
    semantic_amount_invalid,
    semantic_quote_not_in_source,
    semantic_quote_too_short,
    semantic_quote_missing,
    semantic_quote_invalid,
    reply_refused,
    reply_truncated,
    dead_letter_problems_cut,
};

} // namespace handoff::codes
