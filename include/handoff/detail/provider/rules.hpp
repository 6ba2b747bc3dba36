// SPDX-License-Identifier: MIT
#pragma once

// What each provider's constrained decoder accepts, as data: one keyword matrix (a row per JSON
// Schema keyword, a cell per provider) saying whether the keyword is kept as written, kept only
// under a condition, converted, or dropped, and the source each cell comes from. A keyword the
// matrix does not name is dropped and reported (an unknown keyword is an unenforced constraint
// until a row says otherwise). provider_schema.hpp applies the matrix; docs/providers.md is
// written from it (tests/test_provider_matrix.cpp renders it and holds the two equal).
//
// Where a provider's documentation and what its users report disagree, the cell follows the
// reports and cites them.

#include <handoff/provider.hpp>

#include <array>       // array
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t, uint64_t
#include <string_view> // string_view

namespace handoff::detail {

/// Where a cell of the matrix, or a limit, comes from.
enum class rule_source : std::uint8_t {
    openai_docs,
    openai_python,
    openai_regex_reports,
    anthropic_docs,
    anthropic_sdk,
    gemini_docs,
    gemini_schema_docs,
    gemini_size_reports,
    llama_readme,
    llama_converter,
    pydantic_ai,
    json_schema_spec,
};
inline constexpr std::size_t rule_source_count = 12;

struct rule_source_ref {
    rule_source id;
    std::string_view name;
    std::string_view where;
};

inline constexpr std::array<rule_source_ref, rule_source_count> rule_sources{{
    {rule_source::openai_docs, "OpenAI docs",
     "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas"},
    {rule_source::openai_python, "openai-python",
     "https://github.com/openai/openai-python/blob/main/src/openai/lib/_pydantic.py"},
    {rule_source::openai_regex_reports, "OpenAI regex reports",
     "https://github.com/vercel/ai/issues/21037, https://github.com/pydantic/pydantic-ai/issues/5519"},
    {rule_source::anthropic_docs, "Anthropic docs",
     "https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations"},
    {rule_source::anthropic_sdk, "anthropic-sdk-python",
     "https://github.com/anthropics/anthropic-sdk-python/blob/main/src/anthropic/lib/_parse/_transform.py"},
    {rule_source::gemini_docs, "Gemini docs",
     "https://ai.google.dev/gemini-api/docs/structured-output#json-schema-support"},
    {rule_source::gemini_schema_docs, "Gemini Schema reference", "https://ai.google.dev/api/caching#Schema"},
    {rule_source::gemini_size_reports, "Gemini size reports",
     "https://github.com/googleapis/python-genai/issues/2170, https://github.com/googleapis/js-genai/issues/882, "
     "https://github.com/vercel/ai/issues/21192"},
    {rule_source::llama_readme, "llama.cpp grammars/README.md",
     "https://github.com/ggml-org/llama.cpp/blob/master/grammars/README.md#json-schemas--gbnf"},
    {rule_source::llama_converter, "llama.cpp json-schema-to-grammar.cpp",
     "https://github.com/ggml-org/llama.cpp/blob/master/common/json-schema-to-grammar.cpp"},
    {rule_source::pydantic_ai, "pydantic-ai",
     "https://github.com/pydantic/pydantic-ai/blob/main/pydantic_ai_slim/pydantic_ai/profiles/"},
    {rule_source::json_schema_spec, "JSON Schema", "https://json-schema.org/specification"},
}};

[[nodiscard]] constexpr const rule_source_ref& source_of(rule_source s) noexcept {
    return rule_sources[static_cast<std::size_t>(s)];
}

/// When a keyword survives the rewrite.
enum class keep_when : std::uint8_t {
    always,                 // kept as written
    never,                  // dropped; reported as not enforced
    annotation,             // dropped, unreported: it constrains nothing (comments, lint notes, ids)
    converted,              // rewritten into a form the provider takes before the matrix applies (normalize.hpp);
                            // what is left of it then is dropped and reported
    rewritten_after,        // kept through the walk, then rewritten for the provider (openapi_schema.hpp)
    items_schema,           // items: kept when one schema, and not beside a prefixItems the provider drops
    false_only,             // additionalProperties: kept when false, otherwise closed (reported)
    min_items_zero_or_one,  // minItems: kept when 0 or 1
    known_format,           // format: kept when the value is in the profile's format list
    pattern_openai,         // pattern: kept without lookaround or Unicode property escapes
    pattern_anthropic,      // pattern: kept without lookaround, backreferences, word boundaries, large {n,m}
    pattern_llama,          // pattern: kept when anchored ^...$ and without lookaround or backreferences
    pattern_re2,            // pattern: kept without lookaround or backreferences (RE2 syntax)
    integer_only,           // numeric bounds: kept on "type": "integer" only
    without_properties,     // anyOf/oneOf: kept unless the same schema has properties
    primitive_values,       // enum: kept when every value is a string, number, boolean or null
    string_values,          // enum: kept when every value is a string (or null, sent as nullable)
    without_ref_member,     // allOf: kept when no member is a $ref
    llama_members,          // allOf: kept when no properties beside and every member is $ref, properties or enum
    without_pattern_format, // minLength/maxLength: kept unless a kept pattern or a known format is beside
};

struct keyword_cell {
    keep_when when;
    rule_source source;
};

/// One row of the matrix: a cell per provider, in the order of the provider enum.
struct keyword_row {
    std::string_view keyword;
    std::array<keyword_cell, provider_count> cells;
};

namespace cell {
using k = keep_when;
using s = rule_source;
inline constexpr keyword_cell json{k::always, s::json_schema_spec};
} // namespace cell

// Columns: openai, anthropic, gemini, llama_cpp, json_schema, gemini_openapi (provider.hpp).
// A cell's source is the page, file or report that says so; rule_sources lists them.
// clang-format off
inline constexpr std::array<keyword_row, 42> keyword_matrix{{
    {"type",                 {{{cell::k::always, cell::s::openai_docs}, {cell::k::always, cell::s::anthropic_docs}, {cell::k::always, cell::s::gemini_docs}, {cell::k::always, cell::s::llama_converter}, cell::json, {cell::k::rewritten_after, cell::s::gemini_schema_docs}}}},
    {"properties",           {{{cell::k::always, cell::s::openai_docs}, {cell::k::always, cell::s::anthropic_docs}, {cell::k::always, cell::s::gemini_docs}, {cell::k::always, cell::s::llama_converter}, cell::json, {cell::k::always, cell::s::gemini_schema_docs}}}},
    {"required",             {{{cell::k::always, cell::s::openai_docs}, {cell::k::always, cell::s::anthropic_docs}, {cell::k::always, cell::s::gemini_docs}, {cell::k::always, cell::s::llama_converter}, cell::json, {cell::k::always, cell::s::gemini_schema_docs}}}},
    {"additionalProperties", {{{cell::k::false_only, cell::s::openai_docs}, {cell::k::false_only, cell::s::anthropic_docs}, {cell::k::always, cell::s::gemini_docs}, {cell::k::always, cell::s::llama_converter}, cell::json, {cell::k::never, cell::s::gemini_schema_docs}}}},
    {"items",                {{{cell::k::items_schema, cell::s::openai_docs}, {cell::k::items_schema, cell::s::anthropic_docs}, {cell::k::items_schema, cell::s::gemini_docs}, {cell::k::items_schema, cell::s::llama_converter}, cell::json, {cell::k::items_schema, cell::s::gemini_schema_docs}}}},
    {"prefixItems",          {{{cell::k::converted, cell::s::openai_docs}, {cell::k::converted, cell::s::anthropic_docs}, {cell::k::always, cell::s::gemini_docs}, {cell::k::converted, cell::s::llama_readme}, cell::json, {cell::k::converted, cell::s::gemini_schema_docs}}}},
    {"enum",                 {{{cell::k::always, cell::s::openai_docs}, {cell::k::primitive_values, cell::s::anthropic_docs}, {cell::k::always, cell::s::gemini_docs}, {cell::k::always, cell::s::llama_converter}, cell::json, {cell::k::string_values, cell::s::gemini_schema_docs}}}},
    {"const",                {{{cell::k::always, cell::s::openai_docs}, {cell::k::always, cell::s::anthropic_docs}, {cell::k::converted, cell::s::gemini_docs}, {cell::k::always, cell::s::llama_converter}, cell::json, {cell::k::converted, cell::s::gemini_schema_docs}}}},
    {"anyOf",                {{{cell::k::always, cell::s::openai_docs}, {cell::k::always, cell::s::anthropic_docs}, {cell::k::always, cell::s::gemini_docs}, {cell::k::without_properties, cell::s::llama_readme}, cell::json, {cell::k::always, cell::s::gemini_schema_docs}}}},
    {"oneOf",                {{{cell::k::converted, cell::s::pydantic_ai}, {cell::k::converted, cell::s::anthropic_sdk}, {cell::k::converted, cell::s::gemini_docs}, {cell::k::converted, cell::s::llama_converter}, cell::json, {cell::k::converted, cell::s::gemini_schema_docs}}}},
    {"allOf",                {{{cell::k::converted, cell::s::openai_python}, {cell::k::without_ref_member, cell::s::anthropic_docs}, {cell::k::converted, cell::s::gemini_docs}, {cell::k::llama_members, cell::s::llama_converter}, cell::json, {cell::k::converted, cell::s::gemini_schema_docs}}}},
    {"not",                  {{{cell::k::never, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::never, cell::s::llama_readme}, cell::json, {cell::k::never, cell::s::gemini_schema_docs}}}},
    {"if",                   {{{cell::k::never, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::never, cell::s::llama_readme}, cell::json, {cell::k::never, cell::s::gemini_schema_docs}}}},
    {"then",                 {{{cell::k::never, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::never, cell::s::llama_readme}, cell::json, {cell::k::never, cell::s::gemini_schema_docs}}}},
    {"else",                 {{{cell::k::never, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::never, cell::s::llama_readme}, cell::json, {cell::k::never, cell::s::gemini_schema_docs}}}},
    {"$ref",                 {{{cell::k::always, cell::s::openai_docs}, {cell::k::always, cell::s::anthropic_docs}, {cell::k::always, cell::s::gemini_docs}, {cell::k::always, cell::s::llama_converter}, cell::json, {cell::k::rewritten_after, cell::s::gemini_schema_docs}}}},
    {"$defs",                {{{cell::k::always, cell::s::openai_docs}, {cell::k::always, cell::s::anthropic_docs}, {cell::k::always, cell::s::gemini_docs}, {cell::k::always, cell::s::llama_converter}, cell::json, {cell::k::rewritten_after, cell::s::gemini_schema_docs}}}},
    {"definitions",          {{{cell::k::converted, cell::s::llama_converter}, {cell::k::converted, cell::s::llama_converter}, {cell::k::converted, cell::s::gemini_docs}, {cell::k::converted, cell::s::llama_converter}, cell::json, {cell::k::converted, cell::s::gemini_schema_docs}}}},
    {"description",          {{{cell::k::always, cell::s::openai_docs}, {cell::k::always, cell::s::anthropic_docs}, {cell::k::always, cell::s::gemini_docs}, {cell::k::always, cell::s::llama_converter}, cell::json, {cell::k::always, cell::s::gemini_schema_docs}}}},
    {"title",                {{{cell::k::always, cell::s::openai_docs}, {cell::k::always, cell::s::anthropic_docs}, {cell::k::always, cell::s::gemini_docs}, {cell::k::always, cell::s::llama_converter}, cell::json, {cell::k::always, cell::s::gemini_schema_docs}}}},
    {"pattern",              {{{cell::k::pattern_openai, cell::s::openai_regex_reports}, {cell::k::pattern_anthropic, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::pattern_llama, cell::s::llama_converter}, cell::json, {cell::k::pattern_re2, cell::s::gemini_schema_docs}}}},
    {"format",               {{{cell::k::known_format, cell::s::openai_docs}, {cell::k::known_format, cell::s::anthropic_docs}, {cell::k::known_format, cell::s::gemini_docs}, {cell::k::known_format, cell::s::llama_converter}, cell::json, {cell::k::known_format, cell::s::gemini_schema_docs}}}},
    {"multipleOf",           {{{cell::k::always, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::never, cell::s::llama_converter}, cell::json, {cell::k::never, cell::s::gemini_schema_docs}}}},
    {"minimum",              {{{cell::k::always, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::always, cell::s::gemini_docs}, {cell::k::integer_only, cell::s::llama_readme}, cell::json, {cell::k::always, cell::s::gemini_schema_docs}}}},
    {"maximum",              {{{cell::k::always, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::always, cell::s::gemini_docs}, {cell::k::integer_only, cell::s::llama_readme}, cell::json, {cell::k::always, cell::s::gemini_schema_docs}}}},
    {"exclusiveMinimum",     {{{cell::k::always, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::integer_only, cell::s::llama_readme}, cell::json, {cell::k::never, cell::s::gemini_schema_docs}}}},
    {"exclusiveMaximum",     {{{cell::k::always, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::integer_only, cell::s::llama_readme}, cell::json, {cell::k::never, cell::s::gemini_schema_docs}}}},
    {"minItems",             {{{cell::k::always, cell::s::openai_docs}, {cell::k::min_items_zero_or_one, cell::s::anthropic_docs}, {cell::k::always, cell::s::gemini_docs}, {cell::k::always, cell::s::llama_converter}, cell::json, {cell::k::always, cell::s::gemini_schema_docs}}}},
    {"maxItems",             {{{cell::k::always, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::always, cell::s::gemini_docs}, {cell::k::always, cell::s::llama_converter}, cell::json, {cell::k::always, cell::s::gemini_schema_docs}}}},
    {"uniqueItems",          {{{cell::k::never, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::never, cell::s::llama_readme}, cell::json, {cell::k::never, cell::s::gemini_schema_docs}}}},
    {"contains",             {{{cell::k::never, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::never, cell::s::llama_readme}, cell::json, {cell::k::never, cell::s::gemini_schema_docs}}}},
    {"minLength",            {{{cell::k::never, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::without_pattern_format, cell::s::llama_converter}, cell::json, {cell::k::always, cell::s::gemini_schema_docs}}}},
    {"maxLength",            {{{cell::k::never, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::without_pattern_format, cell::s::llama_converter}, cell::json, {cell::k::always, cell::s::gemini_schema_docs}}}},
    {"minProperties",        {{{cell::k::never, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::never, cell::s::llama_converter}, cell::json, {cell::k::always, cell::s::gemini_schema_docs}}}},
    {"maxProperties",        {{{cell::k::never, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::never, cell::s::llama_converter}, cell::json, {cell::k::always, cell::s::gemini_schema_docs}}}},
    {"patternProperties",    {{{cell::k::never, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::never, cell::s::llama_readme}, cell::json, {cell::k::never, cell::s::gemini_schema_docs}}}},
    {"propertyNames",        {{{cell::k::never, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::never, cell::s::llama_converter}, cell::json, {cell::k::never, cell::s::gemini_schema_docs}}}},
    {"dependentRequired",    {{{cell::k::never, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::never, cell::s::llama_readme}, cell::json, {cell::k::never, cell::s::gemini_schema_docs}}}},
    {"dependentSchemas",     {{{cell::k::never, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::never, cell::s::llama_readme}, cell::json, {cell::k::never, cell::s::gemini_schema_docs}}}},
    {"unevaluatedProperties",{{{cell::k::never, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::never, cell::s::llama_converter}, cell::json, {cell::k::never, cell::s::gemini_schema_docs}}}},
    {"unevaluatedItems",     {{{cell::k::never, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::never, cell::s::llama_converter}, cell::json, {cell::k::never, cell::s::gemini_schema_docs}}}},
    {"nullable",             {{{cell::k::never, cell::s::openai_docs}, {cell::k::never, cell::s::anthropic_docs}, {cell::k::never, cell::s::gemini_docs}, {cell::k::never, cell::s::llama_converter}, cell::json, {cell::k::always, cell::s::gemini_schema_docs}}}},
}};
// clang-format on

/// Keywords that never constrain a value: dropped without a report by every provider that does
/// not take them verbatim.
/// `$anchor` is one: hoisting (hoist_defs.hpp) rewrites every reference to an anchor as a pointer;
/// `$dynamicAnchor` and `$recursiveAnchor` only mark where a dynamic reference may land.
/// `discriminator` is OpenAPI's (Pydantic writes it beside a oneOf): JSON Schema ignores it.
/// `contentEncoding`, `contentMediaType` and `contentSchema` describe what a string holds; the
/// receiver reads them as annotations in every dialect.
inline constexpr std::array<std::string_view, 17> annotation_keywords{
    "$schema",    "$id",           "$comment",        "default",          "examples",       "x-lint-allow",
    "deprecated", "readOnly",      "writeOnly",       "$vocabulary",      "$dynamicAnchor", "$recursiveAnchor",
    "$anchor",    "discriminator", "contentEncoding", "contentMediaType", "contentSchema"};

/// What the rewrite does with the keywords written beside a `$ref`.
enum class ref_siblings : std::uint8_t {
    kept,    // as written
    wrapped, // {"anyOf": [{"$ref": ...}], ...siblings}: the provider refuses keywords beside $ref
    dropped, // the provider reads $ref alone; every other keyword there is reported
    inlined, // the provider has no $ref: the target is written in place
};

/// Everything the rewrite needs to know about one target.
struct provider_profile {
    provider target = provider::json_schema;
    std::string_view display_name;
    std::string_view docs_url;
    /// The `format` values the target enforces (known_format).
    std::array<std::string_view, 10> formats{};
    /// Every object gets additionalProperties: false (where it was not already).
    bool close_objects = false;
    /// Every property is required; an optional one becomes nullable (OpenAI strict mode).
    bool require_all = false;
    /// Take every keyword as written: the draft-07 target.
    bool keep_everything = false;
    ref_siblings siblings = ref_siblings::kept;
    /// The order the decoder writes properties in: schema order, or required ones first.
    bool required_first = false;
};

// ref_siblings: OpenAI answers "$ref cannot have keywords {'description'}" (openai-python
// _pydantic.py inlines such a ref; pydantic-ai wraps it in anyOf, which keeps recursion finite);
// Gemini takes only $-keywords beside $ref (gemini_docs); anthropic-sdk-python's transform_schema
// returns {"$ref"} alone and llama.cpp's visit() reads a $ref before anything beside it.
// required_first: llama.cpp's _build_object_rule writes required properties, then optional ones;
// Anthropic's docs say the same of its structured outputs ("required properties first").
inline constexpr std::array<provider_profile, provider_count> provider_profiles{{
    {provider::openai,
     "OpenAI",
     source_of(rule_source::openai_docs).where,
     {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"},
     true,
     true,
     false,
     ref_siblings::wrapped,
     false},
    {provider::anthropic,
     "Anthropic",
     source_of(rule_source::anthropic_docs).where,
     {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"},
     true,
     false,
     false,
     ref_siblings::dropped,
     true},
    {provider::gemini,
     "Gemini",
     source_of(rule_source::gemini_docs).where,
     {"date-time", "date", "time"},
     false,
     false,
     false,
     ref_siblings::wrapped,
     false},
    {provider::llama_cpp,
     "llama.cpp",
     source_of(rule_source::llama_readme).where,
     {"date", "time", "date-time", "uuid"},
     true,
     false,
     false,
     ref_siblings::dropped,
     true},
    {provider::json_schema,
     "JSON Schema (draft-07)",
     "https://json-schema.org/draft-07",
     {},
     false,
     false,
     true,
     ref_siblings::kept,
     false},
    {provider::gemini_openapi,
     "Gemini responseSchema",
     source_of(rule_source::gemini_schema_docs).where,
     {"date-time", "enum"},
     false,
     false,
     false,
     ref_siblings::inlined,
     false},
}};

[[nodiscard]] constexpr const provider_profile& profile_of(provider p) noexcept {
    return provider_profiles[static_cast<std::size_t>(p)];
}

/// The cell every annotation keyword has.
inline constexpr keyword_cell annotation_cell{keep_when::annotation, rule_source::json_schema_spec};

/// The matrix's cell for `keyword` and the profile's target, an annotation cell, or nullptr (an
/// unknown keyword).
[[nodiscard]] constexpr const keyword_cell* find_cell(const provider_profile& profile,
                                                      std::string_view keyword) noexcept {
    for (const keyword_row& row : keyword_matrix) {
        if (row.keyword == keyword) {
            return &row.cells[static_cast<std::size_t>(profile.target)];
        }
    }
    for (const std::string_view name : annotation_keywords) {
        if (name == keyword) {
            return &annotation_cell;
        }
    }
    return nullptr;
}

// Limits, checked on the rewritten schema before any request is sent.
enum class schema_counter : std::uint8_t {
    object_properties,    // entries of every "properties", summed
    nesting_depth,        // object schemas inside object schemas, the root counting 1
    enum_values,          // values of every "enum", summed
    schema_string_length, // property names, definition names, enum and const string values
    large_enum_length,    // the longest total string length of one enum with more than 250 values
    optional_properties,  // properties not listed in their object's "required"
    union_types,          // schemas using anyOf or a list of types
    recursive_refs,       // local $refs to a schema that contains them
    max_items_sum,        // the values of every "maxItems", summed
    schema_depth,         // subschemas inside subschemas, the root counting 1
};

/// refuse: the provider refuses a request over it. warn: the provider publishes no number, but
/// refuses schemas near it (its users' reports), so handoff warns.
enum class limit_severity : std::uint8_t { refuse, warn };

struct schema_limit {
    provider target;
    std::string_view name;
    schema_counter counter;
    std::uint64_t maximum;
    limit_severity severity;
    rule_source source;
    /// The provider counts it over the whole request (every strict tool and the output schema),
    /// so the envelope's own share leaves the task less.
    bool whole_request;
};

// OpenAI: openai_docs#objects-have-limitations-on-nesting-depth-and-size. Anthropic:
// anthropic_docs#schema-complexity-limits ("24 optional parameters", "16 parameters with union
// types", counted across all strict tools and the output format of a request). Gemini publishes
// no number; its users report refusals ("too many states", "schema too complex") on schemas with
// many enum values, large maxItems sums and deep nesting (gemini_size_reports): the warn rows are
// handoff's own warning points below the sizes those reports show. llama.cpp documents no limit.
inline constexpr std::array<schema_limit, 11> schema_limits{{
    {provider::openai, "openai.max_object_properties", schema_counter::object_properties, 5000, limit_severity::refuse,
     rule_source::openai_docs, false},
    {provider::openai, "openai.max_nesting_depth", schema_counter::nesting_depth, 10, limit_severity::refuse,
     rule_source::openai_docs, false},
    {provider::openai, "openai.max_enum_values", schema_counter::enum_values, 1000, limit_severity::refuse,
     rule_source::openai_docs, false},
    {provider::openai, "openai.max_total_string_length", schema_counter::schema_string_length, 120000,
     limit_severity::refuse, rule_source::openai_docs, false},
    {provider::openai, "openai.max_large_enum_string_length", schema_counter::large_enum_length, 15000,
     limit_severity::refuse, rule_source::openai_docs, false},
    {provider::anthropic, "anthropic.max_optional_parameters", schema_counter::optional_properties, 24,
     limit_severity::refuse, rule_source::anthropic_docs, true},
    {provider::anthropic, "anthropic.max_union_type_parameters", schema_counter::union_types, 16,
     limit_severity::refuse, rule_source::anthropic_docs, true},
    {provider::anthropic, "anthropic.no_recursive_schemas", schema_counter::recursive_refs, 0, limit_severity::refuse,
     rule_source::anthropic_docs, false},
    {provider::gemini, "gemini.enum_values_warning", schema_counter::enum_values, 500, limit_severity::warn,
     rule_source::gemini_size_reports, false},
    {provider::gemini, "gemini.max_items_sum_warning", schema_counter::max_items_sum, 1000, limit_severity::warn,
     rule_source::gemini_size_reports, false},
    {provider::gemini, "gemini.schema_depth_warning", schema_counter::schema_depth, 12, limit_severity::warn,
     rule_source::gemini_size_reports, false},
}};

/// Anthropic refuses "complex {n,m} quantifiers with large ranges" without a number; a bound
/// above this one counts as large (anthropic_docs).
inline constexpr std::uint64_t anthropic_quantifier_bound = 100;

} // namespace handoff::detail
