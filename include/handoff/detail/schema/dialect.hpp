// SPDX-License-Identifier: MIT
#pragma once

// Which dialect a schema is read in. A `$schema` naming one of the five official metaschemas
// decides (with or without the empty fragment, http or https); a schema that names none is read
// in schema_options::dialect when given, otherwise by the keywords it uses (detect_dialect).
// Core 2020-12, section 8.1.1: "$schema" identifies the dialect; a schema without it is read
// as the application decides (https://json-schema.org/draft/2020-12/json-schema-core#section-8.1.1).

#include <handoff/detail/schema/uri.hpp>
#include <handoff/schema_dialect.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>     // uint8_t
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff::detail {

/// A dialect as one bit, so a keyword's entry in the keyword list names the dialects it belongs to.
enum dialect_bit : std::uint8_t {
    in_draft04 = 1U,
    in_draft06 = 2U,
    in_draft07 = 4U,
    in_2019_09 = 8U,
    in_2020_12 = 16U,
    in_all_dialects = 31U,
    from_draft06 = 30U,
    from_draft07 = 28U,
    from_2019_09 = 24U,
    up_to_draft07 = 7U,
    up_to_2019_09 = 15U,
};

[[nodiscard]] constexpr std::uint8_t bit_of(schema_dialect d) noexcept {
    return static_cast<std::uint8_t>(1U << static_cast<unsigned>(d));
}

/// Whether `$ref` is the only keyword of its schema that applies (draft-04 to draft-07) rather
/// than one applicator among the others (2019-09 on; core 2019-09, section 8.2.4.1).
[[nodiscard]] constexpr bool ref_overrides_siblings(schema_dialect d) noexcept {
    return (bit_of(d) & up_to_draft07) != 0;
}

/// Whether keywords beside a `$ref` apply in `dialect`: not in draft-04 to draft-07, which
/// ignore them; in 2019-09 and 2020-12 (and when the dialect is unknown).
[[nodiscard]] inline bool ref_siblings_apply(std::optional<schema_dialect> dialect) {
    return !dialect || !ref_overrides_siblings(*dialect);
}

/// The metaschema URI of each dialect, as published (fragment-free).
[[nodiscard]] constexpr std::string_view metaschema_uri(schema_dialect d) noexcept {
    switch (d) {
    case schema_dialect::draft04: return "http://json-schema.org/draft-04/schema";
    case schema_dialect::draft06: return "http://json-schema.org/draft-06/schema";
    case schema_dialect::draft07: return "http://json-schema.org/draft-07/schema";
    case schema_dialect::draft2019_09: return "https://json-schema.org/draft/2019-09/schema";
    case schema_dialect::draft2020_12: return "https://json-schema.org/draft/2020-12/schema";
    }
    return "";
}

/// The dialect an official metaschema URI names: "#" or nothing after it, http or https.
[[nodiscard]] inline std::optional<schema_dialect> official_dialect(std::string_view uri) {
    if (!uri.empty() && uri.back() == '#') {
        uri.remove_suffix(1);
    }
    for (std::size_t i = 0; i < schema_dialect_count; ++i) {
        const auto d = static_cast<schema_dialect>(i);
        const std::string_view official = metaschema_uri(d);
        const std::string_view rest = official.substr(official.find(':'));
        if (uri == official || uri == "http" + std::string(rest) || uri == "https" + std::string(rest)) {
            return d;
        }
    }
    return std::nullopt;
}

/// The id keyword of a dialect: draft-04 says "id", later ones "$id".
[[nodiscard]] constexpr std::string_view id_keyword(schema_dialect d) noexcept {
    return d == schema_dialect::draft04 ? "id" : "$id";
}

/// The vocabularies of 2019-09 and 2020-12 as bits (core 2020-12, section 8.1.2): a metaschema's
/// `$vocabulary` turns groups of keywords on; earlier dialects have them all.
enum vocabulary_bit : std::uint8_t {
    vocab_core = 1U,
    vocab_applicator = 2U,
    vocab_unevaluated = 4U,
    vocab_validation = 8U,
    vocab_format_annotation = 16U,
    vocab_format_assertion = 32U,
    vocab_content = 64U,
    vocab_meta_data = 128U,
    vocab_official = 255U - 32U, // an official metaschema's: format annotates
};

struct vocabulary_name {
    std::string_view uri;
    std::uint8_t bit;
};

/// The vocabulary URIs handoff knows. 2019-09 puts unevaluated* in its applicator vocabulary,
/// and its "format" vocabulary asserts when required (validation 2019-09, section 7.2).
inline constexpr vocabulary_name known_vocabularies[] = {
    {"https://json-schema.org/draft/2020-12/vocab/core", vocab_core},
    {"https://json-schema.org/draft/2020-12/vocab/applicator", vocab_applicator},
    {"https://json-schema.org/draft/2020-12/vocab/unevaluated", vocab_unevaluated},
    {"https://json-schema.org/draft/2020-12/vocab/validation", vocab_validation},
    {"https://json-schema.org/draft/2020-12/vocab/meta-data", vocab_meta_data},
    {"https://json-schema.org/draft/2020-12/vocab/format-annotation", vocab_format_annotation},
    {"https://json-schema.org/draft/2020-12/vocab/format-assertion", vocab_format_assertion},
    {"https://json-schema.org/draft/2020-12/vocab/content", vocab_content},
    {"https://json-schema.org/draft/2019-09/vocab/core", vocab_core},
    {"https://json-schema.org/draft/2019-09/vocab/applicator", vocab_applicator | vocab_unevaluated},
    {"https://json-schema.org/draft/2019-09/vocab/validation", vocab_validation},
    {"https://json-schema.org/draft/2019-09/vocab/meta-data", vocab_meta_data},
    {"https://json-schema.org/draft/2019-09/vocab/format", vocab_format_annotation},
    {"https://json-schema.org/draft/2019-09/vocab/content", vocab_content},
};

namespace dialect_detection {

/// Keywords only 2019-09 and 2020-12 define, and those only 2020-12 (or 2019-09) defines.
inline constexpr std::string_view later_keywords[] = {
    "$defs",         "$anchor",         "dependentRequired",     "dependentSchemas",
    "minContains",   "maxContains",     "unevaluatedProperties", "unevaluatedItems",
    "$vocabulary",   "prefixItems",     "$dynamicRef",           "$dynamicAnchor",
    "$recursiveRef", "$recursiveAnchor"};

struct seen {
    bool later = false;       // any keyword of later_keywords
    bool only_2020 = false;   // prefixItems, $dynamicRef, $dynamicAnchor
    bool only_2019 = false;   // $recursiveRef, $recursiveAnchor
    bool array_items = false; // "items" as an array (draft-04 to 2019-09)
    bool draft04 = false;     // a boolean exclusiveMaximum/exclusiveMinimum, or "id" with no "$id"
};

/// Looks at every object of the document (bounded: the first 100,000 nodes), keys only.
inline void look(const nlohmann::json& root, seen& out) {
    std::vector<const nlohmann::json*> todo{&root};
    for (std::size_t visited = 0; !todo.empty() && visited < 100000; ++visited) {
        const nlohmann::json* at = todo.back();
        todo.pop_back();
        if (at->is_object()) {
            for (auto it = at->begin(); it != at->end(); ++it) {
                const std::string& k = it.key();
                for (std::string_view later : later_keywords) {
                    out.later = out.later || k == later;
                }
                out.only_2020 = out.only_2020 || k == "prefixItems" || k == "$dynamicRef" || k == "$dynamicAnchor";
                out.only_2019 = out.only_2019 || k == "$recursiveRef" || k == "$recursiveAnchor";
                out.array_items = out.array_items || (k == "items" && it->is_array());
                out.draft04 = out.draft04 || ((k == "exclusiveMaximum" || k == "exclusiveMinimum") && it->is_boolean());
            }
        }
        if (at->is_structured()) {
            for (const auto& child : *at) {
                todo.push_back(&child);
            }
        }
    }
}

} // namespace dialect_detection

/// The dialect of a schema that declares none, read from its keywords:
///  - a 2020-12-only keyword (prefixItems, $dynamicRef, $dynamicAnchor): 2020-12;
///  - $recursiveRef/$recursiveAnchor: 2019-09;
///  - another 2019-09/2020-12 keyword ($defs, dependentRequired, unevaluatedProperties, ...):
///    2019-09 when "items" is an array somewhere (2020-12 forbids that form), else 2020-12;
///  - a boolean exclusiveMaximum/exclusiveMinimum: draft-04;
///  - otherwise draft-07, the dialect whose keywords the schema's all mean the same in
///    draft-06 and draft-07 (items as an array, additionalItems, definitions, dependencies).
/// Pydantic v2 writes $defs and prefixItems and no $schema: 2020-12, as its documentation says
/// (https://docs.pydantic.dev/latest/concepts/json_schema/).
[[nodiscard]] inline schema_dialect detect_dialect(const nlohmann::json& schema) {
    dialect_detection::seen s;
    dialect_detection::look(schema, s);
    if (s.only_2020) {
        return schema_dialect::draft2020_12;
    }
    if (s.only_2019) {
        return schema_dialect::draft2019_09;
    }
    if (s.later) {
        return s.array_items ? schema_dialect::draft2019_09 : schema_dialect::draft2020_12;
    }
    return s.draft04 ? schema_dialect::draft04 : schema_dialect::draft07;
}

} // namespace handoff::detail
