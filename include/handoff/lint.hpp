// SPDX-License-Identifier: MIT
#pragma once

// Schema lint (write the schema as if a hostile intern will fill it), as a library
// call and as `handoff-check lint`. A task schema is the law a worker's output is held to; each
// rule below names a way a schema lets a confused or manipulated worker through:
//
// - lint.open_object          an object without "additionalProperties": false (an extra "note"
//                             is how instructions leak into the next prompt)
// - lint.unbounded_string     a string without "maxLength" (nor "enum"/"const")
// - lint.unbounded_array      an array without "maxItems"
// - lint.unbounded_pattern    a "pattern" without a "maxLength" <= 4096 beside it (longer
//                             strings fail the pattern at run time; maxLength says so up front)
// - lint.free_routing_string  a field that routes (by name: label, status, kind, ...) that is a
//                             free string instead of an "enum"/"const"
// - lint.money_not_cents      a field that looks like money typed number or string instead of an
//                             integer count of minor units (price -> price_cents)
// - lint.required_undefined   a "required" name that no "properties" entry defines
// - lint.root_not_object      a task schema whose root admits no JSON object, while
//                             partial_result is one: no reply can pass
// - lint.does_not_compile     compiled_schema::from_json refuses the schema (the message says
//                             the dialect it was read in: "the schema (read as 2020-12) ...")
// - lint.not_json, lint.too_deep: the document is not strict JSON, or nests too deep to lint
// - lint.bad_allow, lint.unused_allow: a malformed or stale "x-lint-allow" (below)
//
// Where a rule is wrong for a place on purpose, the schema says so beside it, with the reason:
//     "x-lint-allow": {"lint.money_not_cents": "amounts are decimals as printed on the invoice"}
// waives that rule for the annotated schema and everything below it. An allowance that waives
// nothing is itself a finding (lint.unused_allow), so waivers cannot outlive their reason.
// Validators ignore the keyword; it does not change what validates.
//
// Which checks apply where: the bounds (open object, string, array) and the name rules
// (routing, money) apply where a schema admits values. Under "if", "not" and "propertyNames"
// nothing is admitted, only tested; and a property in an allOf/anyOf/oneOf/then/else branch
// that its enclosing schema already declares is a refinement, bounded by that declaration.
// "pattern" and "required" are checked everywhere.

#include <handoff/config.hpp>
#include <handoff/limits.hpp>
#include <handoff/schema.hpp>
#include <handoff/schema_registry.hpp>

#include <nlohmann/json.hpp>

#include <handoff/enum_names.hpp>

#include <array>       // array
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff {

/// What a lint finding is about. Codes are stable: "lint.open_object", ... (to_string).
enum class lint_rule : std::uint8_t {
    open_object,
    unbounded_string,
    unbounded_array,
    unbounded_pattern,
    free_routing_string,
    money_not_cents,
    required_undefined,
    does_not_compile,
    not_json,
    too_deep,
    bad_allow,
    unused_allow,
    root_not_object, // (last: the numbers of the rules before it stay as they were)
};
inline constexpr std::size_t lint_rule_count = 13;
template <>
struct enum_names<lint_rule> {
    static constexpr std::array<std::string_view, lint_rule_count> names{
        "lint.open_object",        "lint.unbounded_string",    "lint.unbounded_array",
        "lint.unbounded_pattern",  "lint.free_routing_string", "lint.money_not_cents",
        "lint.required_undefined", "lint.does_not_compile",    "lint.not_json",
        "lint.too_deep",           "lint.bad_allow",           "lint.unused_allow",
        "lint.root_not_object"};
};

inline constexpr std::array<lint_rule, lint_rule_count> all_lint_rules = all_values<lint_rule>();

[[nodiscard]] constexpr std::optional<lint_rule> lint_rule_from_string(std::string_view s) noexcept {
    return from_string<lint_rule>(s);
}

/// Whether "x-lint-allow" may waive `r`. A schema that does not compile or parse, or a broken
/// waiver, is never a choice.
[[nodiscard]] constexpr bool waivable(lint_rule r) noexcept {
    switch (r) {
    case lint_rule::open_object:
    case lint_rule::unbounded_string:
    case lint_rule::unbounded_array:
    case lint_rule::free_routing_string:
    case lint_rule::money_not_cents:
    case lint_rule::required_undefined:
    case lint_rule::root_not_object:                // a file of shared definitions is no task schema
    case lint_rule::unbounded_pattern: return true; // advice: the run-time bound still holds
    case lint_rule::does_not_compile:
    case lint_rule::not_json:
    case lint_rule::too_deep:
    case lint_rule::bad_allow:
    case lint_rule::unused_allow: return false;
    }
    return false;
}

/// One thing wrong with a schema.
struct lint_finding {
    lint_rule rule = lint_rule::does_not_compile;
    /// RFC 6901 pointer into the schema document ("" is the whole document).
    std::string pointer;
    /// What is wrong and what to write instead; one line, without the pointer.
    std::string message;

    [[nodiscard]] std::string_view code() const noexcept { return to_string(rule); }
};

using lint_findings = std::vector<lint_finding>;

/// The keyword that waives rules for a subschema: {"lint.<rule>": "reason", ...}.
inline constexpr std::string_view lint_allow_keyword = "x-lint-allow";

struct lint_options {
    /// Property names that route: such a field must be an "enum" or a "const". A name matches
    /// itself and any name ending in "_" + it, after camelCase and '-' become snake_case
    /// ("ticketType" and "ticket-type" match "type"). Case-insensitive.
    std::vector<std::string> routing_names{"label",  "status", "kind", "category",    "severity",
                                           "action", "route",  "type", "reason_code", "priority"};
    /// Property names that hold money, matched the same way ("unit_price", "line_total").
    /// Such a field typed number or string must become an integer in minor units; any name
    /// ending in "cents" must be an integer.
    std::vector<std::string> money_names{"price",   "amount", "total",    "subtotal", "cost",   "fee",
                                         "balance", "tax",    "discount", "payment",  "refund", "charge"};
    /// The schema is a task schema, partial_result's: its root must admit a JSON object
    /// (lint.root_not_object; judged only of a schema that compiles, every part of it read in
    /// one dialect). False for a schema that is no task's (a file of definitions that task
    /// schemas refer to); in the file itself, a waiver at its root says the same.
    bool task_schema = true;
    /// How the schema is compiled, as compiled_schema reads it: `schema.dialect` names the
    /// dialect of a schema without `$schema` (lint.does_not_compile says the dialect used).
    schema_options schema{};
    /// Limits for lint_schema_text; max_depth also bounds lint_schema (the walk recurses).
    parse_limits limits{std::size_t{8} * 1024 * 1024, 256, std::size_t{1024} * 1024, 100'000, 1'000'000};
};

/// Lints a JSON Schema document (any dialect compiled_schema reads). Never throws for any document; findings come in
/// document order (keys sorted), with lint.does_not_compile last. `$ref`s resolve inside the
/// document (and to the built-in metaschemas) only.
[[nodiscard]] lint_findings lint_schema(const nlohmann::json& schema, const lint_options& options = {});

/// Lints a schema whose `$ref`s may name other documents, followed as compiled_schema follows
/// them: the documents of `registry`, and, when `base_uri` is the schema's file:// URI
/// (schema_registry::file_uri(path)), the files beside it and in the registry's folders.
/// `base_uri` may be "" for a schema that does not say where it lives.
[[nodiscard]] lint_findings lint_schema(const nlohmann::json& schema, const schema_registry& registry,
                                        std::string_view base_uri, const lint_options& options = {});

/// Parses `text` as strict JSON (no fences, no comments, no duplicate keys) within
/// options.limits, then lints it. A document that does not parse is one lint.not_json (or
/// lint.too_deep) finding.
[[nodiscard]] lint_findings lint_schema_text(std::string_view text, const lint_options& options = {});

/// lint_schema_text, with `$ref`s followed into `registry` and beside `base_uri` as
/// lint_schema(schema, registry, base_uri) follows them.
[[nodiscard]] lint_findings lint_schema_text(std::string_view text, const schema_registry& registry,
                                             std::string_view base_uri, const lint_options& options = {});

/// One line: `FILE:POINTER: code: message` ("(document)" for the root pointer).
[[nodiscard]] std::string format_lint_finding(std::string_view file, const lint_finding& f);

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/lint-inl.hpp>
#endif
