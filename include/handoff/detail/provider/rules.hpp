// SPDX-License-Identifier: MIT
#pragma once

// What each provider's constrained decoder accepts, as data: one row per JSON Schema keyword,
// saying whether the keyword is kept as written, kept only under a condition, or dropped. A
// keyword a table does not name is dropped and reported (an unknown keyword is an unenforced
// constraint until a row says otherwise). provider_schema.hpp applies the tables; nothing here
// decides anything by itself.
//
// Each table cites the page its rows come from. The rules are the providers' documented
// subsets as read on 2026-11-30; when a provider widens its subset, a row changes, not code.

#include <handoff/provider.hpp>

#include <array>       // array
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t, uint64_t
#include <string_view> // string_view

namespace handoff::detail {

/// When a keyword survives the rewrite.
enum class keep_when : std::uint8_t {
    always,                // kept as written
    never,                 // dropped; reported as not enforced
    annotation,            // dropped, unreported: it constrains nothing (comments, lint notes, ids)
    false_only,            // additionalProperties: kept when false, otherwise closed (reported)
    min_items_zero_or_one, // minItems: kept when 0 or 1
    known_format,          // format: kept when the value is in the profile's format list
    simple_pattern,        // pattern: kept without lookaround, backreferences or word boundaries
    anchored_pattern,      // pattern: kept when it starts with ^ and ends with $
    integer_only,          // numeric bounds: kept on "type": "integer" only
    without_properties,    // anyOf/oneOf: kept unless the same schema has properties
};

struct keyword_rule {
    std::string_view keyword;
    keep_when when;
};

/// Keywords that never constrain a value: dropped without a report by every provider that does
/// not take them verbatim.
inline constexpr std::array<keyword_rule, 6> annotation_rules{{
    {"$schema", keep_when::annotation},
    {"$id", keep_when::annotation},
    {"$comment", keep_when::annotation},
    {"default", keep_when::annotation},
    {"examples", keep_when::annotation},
    {"x-lint-allow", keep_when::annotation},
}};

// OpenAI Structured Outputs, strict: true.
// https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
// Supported: string pattern and format (the listed formats), number multipleOf, maximum,
// exclusiveMaximum, minimum, exclusiveMinimum, array minItems and maxItems, anyOf (not at the
// root), local $ref/$defs, enum, const. Every object must say additionalProperties: false and list
// every property in required. Not supported: allOf, not, if/then/else, dependentRequired,
// dependentSchemas, patternProperties, unevaluatedProperties, propertyNames, minProperties,
// maxProperties, minLength, maxLength.
inline constexpr std::array<keyword_rule, 29> openai_rules{{
    {"type", keep_when::always},
    {"properties", keep_when::always},
    {"required", keep_when::always},
    {"additionalProperties", keep_when::false_only},
    {"items", keep_when::always},
    {"enum", keep_when::always},
    {"const", keep_when::always},
    {"anyOf", keep_when::always},
    {"$ref", keep_when::always},
    {"$defs", keep_when::always},
    {"definitions", keep_when::always},
    {"description", keep_when::always},
    {"title", keep_when::always},
    {"pattern", keep_when::always},
    {"format", keep_when::known_format},
    {"multipleOf", keep_when::always},
    {"minimum", keep_when::always},
    {"maximum", keep_when::always},
    {"exclusiveMinimum", keep_when::always},
    {"exclusiveMaximum", keep_when::always},
    {"minItems", keep_when::always},
    {"maxItems", keep_when::always},
    {"minLength", keep_when::never},
    {"maxLength", keep_when::never},
    {"allOf", keep_when::never},
    {"oneOf", keep_when::never},
    {"not", keep_when::never},
    {"if", keep_when::never},
    {"patternProperties", keep_when::never},
}};

// Anthropic structured outputs (output_config.format) and strict tool input_schema.
// https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations
// Supported: all basic types, enum (primitives), const, anyOf, allOf, local $ref/$defs/definitions,
// required, additionalProperties false, the listed string formats, minItems 0 or 1, simple
// patterns. Not supported: recursive schemas, numerical constraints (minimum, maximum,
// multipleOf, ...), string constraints (minLength, maxLength), array constraints beyond
// minItems 0/1, additionalProperties other than false, complex regex (backreferences,
// lookaround, word boundaries).
inline constexpr std::array<keyword_rule, 28> anthropic_rules{{
    {"type", keep_when::always},
    {"properties", keep_when::always},
    {"required", keep_when::always},
    {"additionalProperties", keep_when::false_only},
    {"items", keep_when::always},
    {"enum", keep_when::always},
    {"const", keep_when::always},
    {"anyOf", keep_when::always},
    {"allOf", keep_when::always},
    {"$ref", keep_when::always},
    {"$defs", keep_when::always},
    {"definitions", keep_when::always},
    {"description", keep_when::always},
    {"title", keep_when::always},
    {"pattern", keep_when::simple_pattern},
    {"format", keep_when::known_format},
    {"minItems", keep_when::min_items_zero_or_one},
    {"maxItems", keep_when::never},
    {"uniqueItems", keep_when::never},
    {"minLength", keep_when::never},
    {"maxLength", keep_when::never},
    {"minimum", keep_when::never},
    {"maximum", keep_when::never},
    {"exclusiveMinimum", keep_when::never},
    {"exclusiveMaximum", keep_when::never},
    {"multipleOf", keep_when::never},
    {"oneOf", keep_when::never},
    {"not", keep_when::never},
}};

// Gemini generateContent with generationConfig.responseJsonSchema.
// https://ai.google.dev/gemini-api/docs/structured-output#json-schema-support
// Supported: type (including "null" and type lists), title, description, properties, required,
// additionalProperties, enum, format (date-time, date, time), minimum, maximum, items,
// prefixItems, minItems, maxItems, anyOf, $ref, $defs. Keywords outside the list are ignored by
// the model, so they are reported here rather than sent.
inline constexpr std::array<keyword_rule, 24> gemini_rules{{
    {"type", keep_when::always},
    {"title", keep_when::always},
    {"description", keep_when::always},
    {"properties", keep_when::always},
    {"required", keep_when::always},
    {"additionalProperties", keep_when::always},
    {"enum", keep_when::always},
    {"format", keep_when::known_format},
    {"minimum", keep_when::always},
    {"maximum", keep_when::always},
    {"items", keep_when::always},
    {"prefixItems", keep_when::always},
    {"minItems", keep_when::always},
    {"maxItems", keep_when::always},
    {"anyOf", keep_when::always},
    {"$ref", keep_when::always},
    {"$defs", keep_when::always},
    {"const", keep_when::never},
    {"minLength", keep_when::never},
    {"maxLength", keep_when::never},
    {"pattern", keep_when::never},
    {"exclusiveMinimum", keep_when::never},
    {"exclusiveMaximum", keep_when::never},
    {"multipleOf", keep_when::never},
}};

// llama-server `json_schema` / `response_format`, converted by common/json-schema-to-grammar.cpp.
// https://github.com/ggml-org/llama.cpp/blob/master/grammars/README.md#json-schemas--gbnf
// Known limitations there: additionalProperties defaults to false; unsupported features are
// skipped silently; properties cannot be mixed with anyOf/oneOf in the same schema; minimum/maximum/exclusive* only for
// "type": "integer"; patterns must start with ^ and end with $; prefixItems is broken; formats lack uri and email; no
// patternProperties; unsupported and unlikely: uniqueItems, contains, not, if/then/else,
// dependentSchemas, $anchor.
inline constexpr std::array<keyword_rule, 32> llama_cpp_rules{{
    {"type", keep_when::always},
    {"properties", keep_when::always},
    {"required", keep_when::always},
    {"additionalProperties", keep_when::always},
    {"items", keep_when::always},
    {"enum", keep_when::always},
    {"const", keep_when::always},
    {"anyOf", keep_when::without_properties},
    {"oneOf", keep_when::without_properties},
    {"allOf", keep_when::always},
    {"$ref", keep_when::always},
    {"$defs", keep_when::always},
    {"definitions", keep_when::always},
    {"description", keep_when::always},
    {"title", keep_when::always},
    {"minItems", keep_when::always},
    {"maxItems", keep_when::always},
    {"minLength", keep_when::always},
    {"maxLength", keep_when::always},
    {"pattern", keep_when::anchored_pattern},
    {"format", keep_when::known_format},
    {"minimum", keep_when::integer_only},
    {"maximum", keep_when::integer_only},
    {"exclusiveMinimum", keep_when::integer_only},
    {"exclusiveMaximum", keep_when::integer_only},
    {"prefixItems", keep_when::never},
    {"multipleOf", keep_when::never},
    {"uniqueItems", keep_when::never},
    {"contains", keep_when::never},
    {"not", keep_when::never},
    {"if", keep_when::never},
    {"patternProperties", keep_when::never},
}};

/// A view of one rule table.
struct rule_table {
    const keyword_rule* rows = nullptr;
    std::size_t size = 0;
};

template <std::size_t N>
[[nodiscard]] constexpr rule_table table_of(const std::array<keyword_rule, N>& rows) noexcept {
    return rule_table{rows.data(), N};
}

/// Everything the rewrite needs to know about one target.
struct provider_profile {
    provider target = provider::json_schema;
    std::string_view display_name;
    std::string_view docs_url;
    rule_table rules;
    /// The `format` values the target enforces (known_format).
    std::array<std::string_view, 10> formats{};
    /// Every object gets additionalProperties: false (where it was not already).
    bool close_objects = false;
    /// Every property is required; an optional one becomes nullable (OpenAI strict mode).
    bool require_all = false;
    /// Take every keyword as written: the draft-07 target.
    bool keep_everything = false;
};

inline constexpr std::array<provider_profile, provider_count> provider_profiles{{
    {provider::openai,
     "OpenAI",
     "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas",
     table_of(openai_rules),
     {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"},
     true,
     true,
     false},
    {provider::anthropic,
     "Anthropic",
     "https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations",
     table_of(anthropic_rules),
     {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"},
     true,
     false,
     false},
    {provider::gemini,
     "Gemini",
     "https://ai.google.dev/gemini-api/docs/structured-output#json-schema-support",
     table_of(gemini_rules),
     {"date-time", "date", "time"},
     false,
     false,
     false},
    {provider::llama_cpp,
     "llama.cpp",
     "https://github.com/ggml-org/llama.cpp/blob/master/grammars/README.md#json-schemas--gbnf",
     table_of(llama_cpp_rules),
     {"date", "time", "date-time", "uuid"},
     true,
     false,
     false},
    {provider::json_schema,
     "JSON Schema (draft-07)",
     "https://json-schema.org/draft-07",
     rule_table{},
     {},
     false,
     false,
     true},
}};

[[nodiscard]] constexpr const provider_profile& profile_of(provider p) noexcept {
    return provider_profiles[static_cast<std::size_t>(p)];
}

/// The row for `keyword`, the shared annotations after the table, or nullptr (an unknown keyword).
[[nodiscard]] constexpr const keyword_rule* find_rule(const provider_profile& profile,
                                                      std::string_view keyword) noexcept {
    for (std::size_t i = 0; i < profile.rules.size; ++i) {
        if (profile.rules.rows[i].keyword == keyword) {
            return &profile.rules.rows[i];
        }
    }
    for (const keyword_rule& rule : annotation_rules) {
        if (rule.keyword == keyword) {
            return &rule;
        }
    }
    return nullptr;
}

// Documented limits, checked on the rewritten schema before any request is sent.
enum class schema_counter : std::uint8_t {
    object_properties,    // entries of every "properties", summed
    nesting_depth,        // object schemas inside object schemas, the root counting 1
    enum_values,          // values of every "enum", summed
    schema_string_length, // property names, definition names, enum and const string values
    large_enum_length,    // the longest total string length of one enum with more than 250 values
    optional_properties,  // properties not listed in their object's "required"
    union_types,          // schemas using anyOf or a list of types
    recursive_refs,       // local $refs to a schema that contains them
};

struct schema_limit {
    provider target;
    std::string_view name;
    schema_counter counter;
    std::uint64_t maximum;
};

// OpenAI: https://platform.openai.com/docs/guides/structured-outputs#objects-have-limitations-on-nesting-depth-and-size
// Anthropic: https://platform.claude.com/docs/en/build-with-claude/structured-outputs#schema-complexity-limits
// Gemini and llama.cpp document no numeric limits (Gemini: the schema counts toward the input
// tokens; a schema that is too large or deep is rejected by the API).
inline constexpr std::array<schema_limit, 8> schema_limits{{
    {provider::openai, "openai.max_object_properties", schema_counter::object_properties, 5000},
    {provider::openai, "openai.max_nesting_depth", schema_counter::nesting_depth, 10},
    {provider::openai, "openai.max_enum_values", schema_counter::enum_values, 1000},
    {provider::openai, "openai.max_total_string_length", schema_counter::schema_string_length, 120000},
    {provider::openai, "openai.max_large_enum_string_length", schema_counter::large_enum_length, 15000},
    {provider::anthropic, "anthropic.max_optional_parameters", schema_counter::optional_properties, 24},
    {provider::anthropic, "anthropic.max_union_type_parameters", schema_counter::union_types, 16},
    {provider::anthropic, "anthropic.no_recursive_schemas", schema_counter::recursive_refs, 0},
}};

} // namespace handoff::detail
