// SPDX-License-Identifier: MIT
#pragma once

// The questions the keyword matrix (rules.hpp) leaves to the schema at hand: does the provider
// take this keyword, with this value, in this schema, and which subschemas lie below it. Shared
// by the rewrite (rewrite.hpp), the normalisation before it (normalize.hpp), the hoisting of
// definitions (hoist_defs.hpp) and the receiver's walk for nulled optionals
// (nulled_optionals.hpp), so all of them decide alike.
//
// Generic over the JSON type. This file compares with std::string rather than with a literal
// through nlohmann's operator==, and builds values from a value_t and push_back rather than from
// initializer lists: each of those nlohmann templates would be instantiated for this file alone,
// in every file that receives.

#include <handoff/detail/provider/pattern_features.hpp>
#include <handoff/detail/provider/rules.hpp>
#include <handoff/detail/schema/format_check.hpp>
#include <handoff/detail/schema/ids.hpp>
#include <handoff/detail/schema/keywords.hpp>
#include <handoff/schema_dialect.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // find, any_of, all_of
#include <cstdint>     // uint8_t, uint64_t
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view

namespace handoff::detail {

/// Whether `value` is the string `name`.
template <class Json>
[[nodiscard]] bool is_string_value(const Json& value, std::string_view name) {
    return value.is_string() && value.template get_ref<const typename Json::string_t&>() == name;
}

/// Whether a "type" value names `name`, alone or in its list.
template <class Json>
[[nodiscard]] bool type_names(const Json& type, std::string_view name) {
    return is_string_value(type, name) ||
           (type.is_array() &&
            std::any_of(type.begin(), type.end(), [name](const Json& t) { return is_string_value(t, name); }));
}

template <class Json>
[[nodiscard]] bool is_object_schema(const Json& node) {
    if (!node.is_object()) {
        return false;
    }
    if (node.contains("properties")) {
        return true;
    }
    const auto type = node.find("type");
    return type != node.end() && type_names(*type, "object");
}

/// The matrix's cell of `keyword` for the profile (nullptr when unlisted or when the profile
/// keeps everything).
[[nodiscard]] inline const keyword_cell* cell_of(const provider_profile& profile, std::string_view keyword) {
    return profile.keep_everything ? nullptr : find_cell(profile, keyword);
}

[[nodiscard]] inline bool pattern_kept(keep_when when, std::string_view pattern) {
    const pattern_features f = scan_pattern(pattern);
    switch (when) {
    case keep_when::pattern_openai: return !f.lookaround && !f.property_escape;
    case keep_when::pattern_anthropic:
        return !f.lookaround && !f.backreference && !f.word_boundary && f.largest_bound <= anthropic_quantifier_bound;
    case keep_when::pattern_llama: return f.anchored && !f.lookaround && !f.backreference;
    case keep_when::pattern_re2: return !f.lookaround && !f.backreference;
    default: return false;
    }
}

/// A member llama.cpp's allOf reads: a $ref, properties or an enum (json-schema-to-grammar.cpp,
/// visit(): add_component); anything else it skips.
template <class Json>
[[nodiscard]] bool llama_reads_member(const Json& member) {
    return member.is_object() && (member.contains("$ref") || member.contains("properties") || member.contains("enum"));
}

template <class Json>
[[nodiscard]] bool keeps_items(const provider_profile& profile, const Json& value, const Json& node);

/// Whether the cell lets this keyword, with this value in this schema, through unchanged.
template <class Json>
[[nodiscard]] bool cell_keeps(const provider_profile& profile, keep_when when, const Json& value, const Json& node) {
    using string_t = typename Json::string_t;
    switch (when) {
    case keep_when::always:
    case keep_when::rewritten_after: return true;
    case keep_when::never:
    case keep_when::annotation:
    case keep_when::converted: return false;
    case keep_when::false_only: return value.is_boolean() && !value.template get<bool>();
    case keep_when::min_items_zero_or_one:
        return value.is_number_unsigned() && value.template get<std::uint64_t>() <= 1;
    case keep_when::known_format:
        return value.is_string() && std::find(profile.formats.begin(), profile.formats.end(),
                                              value.template get_ref<const string_t&>()) != profile.formats.end();
    case keep_when::pattern_openai:
    case keep_when::pattern_anthropic:
    case keep_when::pattern_llama:
    case keep_when::pattern_re2:
        return value.is_string() && pattern_kept(when, value.template get_ref<const string_t&>());
    case keep_when::items_schema: return keeps_items(profile, value, node);
    case keep_when::integer_only: {
        const auto type = node.find("type");
        return type != node.end() && is_string_value(*type, "integer");
    }
    case keep_when::without_properties: return !node.contains("properties");
    case keep_when::primitive_values:
        return value.is_array() &&
               std::all_of(value.begin(), value.end(), [](const Json& v) { return !v.is_object() && !v.is_array(); });
    case keep_when::string_values:
        return value.is_array() &&
               std::all_of(value.begin(), value.end(), [](const Json& v) { return v.is_string() || v.is_null(); });
    case keep_when::without_ref_member:
        return value.is_array() && std::none_of(value.begin(), value.end(),
                                                [](const Json& m) { return m.is_object() && m.contains("$ref"); });
    case keep_when::llama_members:
        return value.is_array() && !node.contains("properties") &&
               std::all_of(value.begin(), value.end(), [](const Json& m) { return llama_reads_member(m); });
    case keep_when::without_pattern_format: {
        const auto beside = [&](const char* keyword) {
            const auto it = node.find(keyword);
            const keyword_cell* c = cell_of(profile, keyword);
            return it != node.end() && c != nullptr && cell_keeps(profile, c->when, *it, node);
        };
        return !beside("pattern") && !beside("format");
    }
    }
    return false;
}

/// Whether the provider takes `keyword`, with this value in this schema, as written: what the
/// rewrite keeps.
template <class Json>
[[nodiscard]] bool keeps_keyword(const provider_profile& profile, const keyword_cell* cell, const Json& value,
                                 const Json& node) {
    return profile.keep_everything || (cell != nullptr && cell_keeps(profile, cell->when, value, node));
}

/// items as one schema; beside a prefixItems the provider drops, it would apply to every item
/// instead of those after the prefix (2020-12), so it goes too.
template <class Json>
[[nodiscard]] bool keeps_items(const provider_profile& profile, const Json& value, const Json& node) {
    if (!value.is_object()) {
        return false; // a list of schemas is draft-07's tuple, a boolean one no provider lists
    }
    const auto prefix = node.find("prefixItems");
    return prefix == node.end() || keeps_keyword(profile, cell_of(profile, "prefixItems"), *prefix, node);
}

/// Why the provider does not take a keyword (receiver_view::reading says what the receiver does).
[[nodiscard]] inline std::string drop_note(const provider_profile& profile, const keyword_cell* cell) {
    const std::string who(profile.display_name);
    if (cell == nullptr) {
        return who + " does not list this keyword";
    }
    switch (cell->when) {
    case keep_when::min_items_zero_or_one: return who + " takes minItems 0 or 1 only";
    case keep_when::known_format: return who + " does not enforce this format";
    case keep_when::pattern_openai:
        return who + " refuses lookaround and Unicode property escapes (\\p{...}) in a pattern";
    case keep_when::pattern_anthropic:
        return who + " refuses lookaround, backreferences, word boundaries and large {n,m} ranges";
    case keep_when::pattern_llama:
        return who + " needs a pattern anchored with ^ and $, without lookaround or backreferences";
    case keep_when::pattern_re2: return who + " refuses lookaround and backreferences (RE2 syntax)";
    case keep_when::items_schema: return who + " takes items as one schema, and not beside a prefixItems it drops";
    case keep_when::integer_only: return who + " enforces numeric bounds on integers only";
    case keep_when::without_properties: return who + " cannot mix properties with anyOf/oneOf in one schema";
    case keep_when::primitive_values: return who + " takes enum values that are strings, numbers, booleans or null";
    case keep_when::string_values: return who + " takes string enum values only";
    case keep_when::without_ref_member: return who + " does not support allOf with a $ref";
    case keep_when::llama_members:
        return who + " reads allOf only of $ref, properties and enum members, and not beside properties";
    case keep_when::without_pattern_format:
        return who + " ignores minLength and maxLength beside a pattern or a format";
    default: return who + " does not support this keyword";
    }
}

/// How the receiver reads one node of the schema sent: the dialect (nullopt for the envelope's
/// own nodes, whose keywords every dialect reads) and whether formats assert
/// (schema_options::assert_formats). A note about a keyword the provider drops ends with it.
struct receiver_view {
    std::optional<schema_dialect> dialect;
    bool formats_assert = false;

    /// What the receiver does with `keyword` (holding `value`), as the end of such a note. It
    /// checks what the compiler reads in the dialect (keywords.hpp), and a format only when
    /// formats assert and only a format it knows (format_check.hpp); the rest it does not check
    /// either.
    template <class Json>
    [[nodiscard]] std::string reading(std::string_view keyword, const Json& value) const {
        if (!keyword_in_dialect(keyword, dialect)) {
            return "; the receiver does not check it either: no " +
                   (dialect ? std::string(to_string(*dialect)) : std::string("JSON Schema")) +
                   " keyword of this name constrains a value";
        }
        if (keyword == "format") {
            if (!value.is_string() ||
                format_of(value.template get_ref<const typename Json::string_t&>()) == format_kind::none) {
                return "; the receiver does not check it either: handoff asserts no format of this name";
            }
            if (!formats_assert) {
                return "; the receiver checks it only when formats assert (schema_options::assert_formats, or "
                       "the format-assertion vocabulary)";
            }
        }
        return "; the receiver still checks it";
    }
};

} // namespace handoff::detail
