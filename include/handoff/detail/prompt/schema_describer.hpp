// SPDX-License-Identifier: MIT
#pragma once

// The task schema in plain sentences, for the worker prompt: a class template on the JSON type
// (nlohmann::json, or nlohmann::ordered_json, which keeps the author's order).

#include <handoff/detail/schema/access.hpp>
#include <handoff/detail/schema/dialect.hpp>
#include <handoff/detail/schema/keywords.hpp>
#include <handoff/detail/schema/refs.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/worker_prompt_options.hpp>

#include <algorithm>        // any_of, find, find_if, none_of
#include <cmath>            // floor, fabs
#include <initializer_list> // initializer_list
#include <optional>         // optional
#include <string>           // string, to_string
#include <string_view>      // string_view
#include <utility>          // exchange, move, pair
#include <vector>           // vector

namespace handoff::detail {

/// Whether keyword `k` constrains an instance in some dialect: an entry of the compiler's table
/// outside the core vocabulary, whose keywords name, declare or hold schemas.
[[nodiscard]] inline bool constraining_keyword(std::string_view k) {
    const keyword_entry* entry = find_keyword(k);
    return entry != nullptr && entry->vocabulary != vocab_core;
}

/// Describes a JSON Schema (any dialect compiled_schema reads) in plain sentences, one list item per property.
/// `Json` is nlohmann::json or nlohmann::ordered_json (the latter keeps the author's order).
/// Every schema comes with the base URI around it, against which its "$ref" resolves.
template <class Json>
class schema_describer {
public:
    /// `dialect`: the task schema's, whose keywords alone are described (nullopt: every
    /// dialect's). From 2019-09 on the keywords beside a `$ref` constrain with it, so they are
    /// described too.
    /// `closed_said`: an object that admits no keys but those listed says so (the envelope's
    /// section says it once for all its objects).
    schema_describer(typed_ref_follower<Json>& refs, const worker_prompt_options& options,
                     std::optional<schema_dialect> dialect = std::nullopt, bool closed_said = true)
        : refs_(refs), options_(options), dialect_(dialect),
          ref_siblings_apply_(dialect && !ref_overrides_siblings(*dialect)), closed_said_(closed_said) {}

    /// Whether `s` admits no keys but those its `properties` and `patternProperties` name
    /// (`additionalProperties` false), when such objects are to say so.
    [[nodiscard]] bool says_closed(const Json& s) const {
        const auto others = s.is_object() ? s.find("additionalProperties") : s.end();
        return closed_said_ && others != s.end() && others->is_boolean() && !others->template get<bool>();
    }

    /// Whether `s` admits no key that no keyword evaluates (`unevaluatedProperties` false, with
    /// no `additionalProperties`, which evaluates every key), when such objects are to say so.
    [[nodiscard]] bool says_unevaluated_closed(const Json& s) const {
        const auto rest = unevaluated(s, "unevaluatedProperties");
        return closed_said_ && rest != s.end() && !s.contains("additionalProperties") && rest->is_boolean() &&
               !rest->template get<bool>();
    }

    /// The fields of an object schema as "- name (required): ..." lines: required fields in the
    /// order "required" lists them, then the others in key order.
    /// Beside a `$ref` whose siblings apply, the sibling `required` names the target's fields too,
    /// and the sibling `properties` are listed after them.
    void fields(const Json& schema, const std::string& base, std::size_t indent, std::size_t depth,
                std::string& out) const {
        const std::vector<ref_link> links = ref_chain(schema, base);
        if (links.empty()) {
            return;
        }
        // Every link's `required` holds for the one object they all describe.
        std::vector<std::string> required;
        for (const ref_link& link : links) {
            for (std::string& name : required_names(*link.schema)) {
                if (std::find(required.begin(), required.end(), name) == required.end()) {
                    required.push_back(std::move(name));
                }
            }
        }
        {
            const path_entry entered(walk_, links.back().schema); // its own fields only: not the siblings
            listed_fields(*links.back().schema, links.back().base, indent, depth, out, required);
        }
        for (std::size_t i = links.size() - 1; i-- > 0;) {
            listed_fields(*links[i].schema, links[i].base, indent, depth, out, required);
        }
        std::vector<const Json*> schemas;
        schemas.reserve(links.size());
        for (const ref_link& link : links) {
            schemas.push_back(link.schema);
        }
        unlisted_required(required, schemas, true, indent, out);
    }

    /// The `required` names that no `properties` of `schemas` (the links of one object) lists,
    /// as "- name (required): ..." lines: the receiver refuses an object without them all the
    /// same. Their values are held only to the rules on the object's other keys, if any, and
    /// unless the object stands `alone`, to the rules of what holds it (an anyOf branch
    /// requiring a field its enclosing object lists).
    void unlisted_required(const std::vector<std::string>& required, const std::vector<const Json*>& schemas,
                           bool alone, std::size_t indent, std::string& out) const {
        const auto lists = [&](const std::string& name) {
            return std::any_of(schemas.begin(), schemas.end(), [&](const Json* s) {
                const auto props = s->find("properties");
                return props != s->end() && props->is_object() && props->contains(name);
            });
        };
        const bool other_rules = std::any_of(schemas.begin(), schemas.end(), [](const Json* s) {
            const auto others = s->find("additionalProperties");
            return s->contains("patternProperties") || (others != s->end() && others->is_object());
        });
        const char* value = !alone        ? "any value the other rules allow"
                            : other_rules ? "a value the rules on the object's other keys allow"
                                          : any_value;
        for (const std::string& name : required) {
            if (lists(name)) {
                continue;
            }
            // Quoted names count against the bound on what a prompt quotes, as a phrase's do.
            if (walk_.quoted > options_.max_quoted_bytes) {
                out += std::string(indent, ' ') + "- (more than " + std::to_string(options_.max_quoted_bytes) +
                       " bytes of values quoted: see the schema)\n";
                return;
            }
            const std::string line = description_line(name);
            walk_.quoted += line.size();
            out += std::string(indent, ' ') + "- " + line + " (required): " + value + "\n";
        }
    }

    /// Whether the object fields() lists admits no other keys: a link of its `$ref` chain says
    /// so, with no `patternProperties` admitting more.
    [[nodiscard]] bool root_closed(const Json& schema, const std::string& base) const {
        const std::vector<ref_link> links = ref_chain(schema, base);
        return std::any_of(links.begin(), links.end(), [&](const ref_link& link) {
            return (says_closed(*link.schema) || says_unevaluated_closed(*link.schema)) &&
                   !link.schema->contains("patternProperties");
        });
    }

    /// Whether the object fields() lists says more than its fields: keywords on the object as a
    /// whole (its branches, its key count, rules on its other keys or between its keys), which
    /// only phrase() puts in words.
    [[nodiscard]] bool beyond_fields(const Json& schema, const std::string& base) const {
        const std::vector<ref_link> links = ref_chain(schema, base);
        return std::any_of(links.begin(), links.end(), [&](const ref_link& link) {
            const Json& s = *link.schema;
            if (!s.is_object()) {
                return false;
            }
            const auto others = s.find("additionalProperties");
            const auto rest = unevaluated(s, "unevaluatedProperties");
            return uses_any(s,
                            {"allOf", "anyOf", "oneOf", "not", "if", "minProperties", "maxProperties", "propertyNames",
                             "patternProperties", "dependentRequired", "dependentSchemas", "dependencies"}) ||
                   (others != s.end() && others->is_object()) || (rest != s.end() && rest->is_object());
        });
    }

    /// One schema as a phrase ("string, at most 64 characters"); nested fields go to `nested`.
    /// `with_description` false leaves the schema's own "description" out. `types_from`: the
    /// schema whose types hold for this one when it names none (a branch of a typed anyOf).
    [[nodiscard]] std::string phrase(const Json& schema, const std::string& base, std::size_t indent, std::size_t depth,
                                     std::string& nested, bool with_description = true,
                                     const Json* types_from = nullptr) const {
        if (depth > options_.max_depth) { // each construct stops at the bound; this is the backstop
            return "(nested too deep to list: see the schema)";
        }
        if (++walk_.described > options_.max_described_schemas) {
            return "(more than " + std::to_string(options_.max_described_schemas) + " parts to list: see the schema)";
        }
        if (walk_.quoted > options_.max_quoted_bytes) {
            return "(more than " + std::to_string(options_.max_quoted_bytes) +
                   " bytes of values quoted: see the schema)";
        }
        const std::vector<ref_link> links = ref_chain(schema, base);
        const Json* s = links.empty() ? nullptr : links.back().schema;
        if (const std::string* place = s != nullptr && s != &schema ? walk_.place_describing(s) : nullptr) {
            // A `$ref` back to a schema being described around it (a tree, a schema of schemas):
            // described once, where it started.
            return "the same shape as " + *place + " above (it nests itself)";
        }
        std::string inner_base = links.empty() ? base : links.back().base;
        // The links whose keywords beside their `$ref` are described after the schema.
        std::size_t referring = links.empty() ? 0 : links.size() - 1;
        if (referring > 0 && s->is_boolean() && s->template get<bool>()) {
            --referring; // a `$ref` to true adds nothing: the keywords beside it say it all
            s = links[referring].schema;
            inner_base = links[referring].base;
        }
        // On the path while the schema itself is described; the keywords beside its `$ref` are
        // the referring schema's, described after.
        std::optional<path_entry> entered;
        entered.emplace(walk_, s);
        if (s == nullptr) {
            return "any JSON value";
        }
        if (s->is_boolean()) {
            return s->template get<bool>() ? "any JSON value" : "nothing (leave it out)";
        }
        if (!s->is_object()) {
            return "any JSON value";
        }
        std::optional<std::string> listed = listed_values(*s);
        std::string out = listed ? std::move(*listed) : typed_phrase(*s, inner_base, indent, depth, nested, types_from);
        entered.reset();
        for (std::size_t i = referring; i-- > 0;) { // innermost first, as each narrows the one it names
            out += sibling_phrase(*links[i].schema, *s, links[i].base, indent, depth, nested);
        }
        // A target's description is its own; a description beside the `$ref` says what this use
        // of it is, and is preferred.
        const bool described = with_description || s != &schema;
        const auto mine = schema.find("description"); // end() for a schema that is no object
        const Json* says = with_description && mine != schema.end() && mine->is_string() ? &schema : s;
        if (const auto it = says->find("description"); described && it != says->end() && it->is_string()) {
            out += ". " + description_line(it->template get<std::string>());
        }
        return out;
    }

private:
    /// Whether `keyword` constrains in the task schema's dialect (a later one's is ignored).
    [[nodiscard]] bool applies(std::string_view keyword) const { return keyword_in_dialect(keyword, dialect_); }

    /// Whether `s` holds one of `keywords` that its dialect reads.
    [[nodiscard]] bool uses_any(const Json& s, std::initializer_list<const char*> keywords) const {
        return std::any_of(keywords.begin(), keywords.end(),
                           [&](const char* k) { return s.contains(k) && applies(k); });
    }

    /// `s`'s `unevaluatedProperties` or `unevaluatedItems` (`keyword`) where the dialect reads it,
    /// else end().
    [[nodiscard]] auto unevaluated(const Json& s, const char* keyword) const {
        return s.is_object() && applies(keyword) ? s.find(keyword) : s.end();
    }

    /// Whether keywords of `s` other than its own properties and items evaluate parts of the
    /// value (its `$ref`, branches, conditions, dependent schemas, and from 2020-12 on the items
    /// `contains` matches): what `unevaluated*` leaves over is then not only what `s` lists.
    [[nodiscard]] bool evaluates_elsewhere(const Json& s) const {
        const bool contains_evaluates = !dialect_ || *dialect_ == schema_dialect::draft2020_12;
        return uses_any(s, {"$ref", "$dynamicRef", "$recursiveRef", "allOf", "anyOf", "oneOf", "if", "dependentSchemas",
                            "dependencies"}) ||
               (contains_evaluates && s.contains("contains"));
    }

    /// What `unevaluated*` false leaves where other keywords of `s` evaluate too: only what a
    /// part that holds describes (a `$ref` or an `allOf` part always does, a branch or a
    /// condition only for some values).
    [[nodiscard]] std::string described_only(const Json& s) const {
        return uses_any(s, {"anyOf", "oneOf", "if", "dependentSchemas", "dependencies", "contains"})
                   ? "but the ones described, a branch's only where it holds"
                   : "but the ones described";
    }

    /// fields() of a schema already resolved; `base` is the base URI inside it.
    /// `also_required`: names whose `required` holds too (from the links of a `$ref` chain).
    void listed_fields(const Json& schema, const std::string& base, std::size_t indent, std::size_t depth,
                       std::string& out, const std::vector<std::string>& also_required = {}) const {
        const Json* s = &schema;
        std::vector<std::string> required = required_names(*s);
        for (const std::string& name : also_required) {
            if (std::find(required.begin(), required.end(), name) == required.end()) {
                required.push_back(name);
            }
        }
        const auto props = s->find("properties");
        if (props == s->end() || !props->is_object()) {
            return;
        }
        for (const std::string& name : required) {
            if (const auto it = props->find(name); it != props->end()) {
                field(name, true, *it, base, indent, depth, out);
            }
        }
        for (const auto& item : props->items()) {
            if (std::find(required.begin(), required.end(), item.key()) == required.end()) {
                field(item.key(), false, item.value(), base, indent, depth, out);
            }
        }
    }

    [[nodiscard]] static std::vector<std::string> required_names(const Json& s) {
        std::vector<std::string> names;
        if (const auto it = s.find("required"); it != s.end() && it->is_array()) {
            for (const auto& name : *it) {
                if (name.is_string()) {
                    names.push_back(name.template get<std::string>());
                }
            }
        }
        return names;
    }

    void field(const std::string& name, bool required, const Json& schema, const std::string& base, std::size_t indent,
               std::size_t depth, std::string& out) const {
        std::string nested;
        const place_entry here(walk_, value_text(Json(description_line(name))));
        const std::string text = phrase(schema, base, indent + 2, depth, nested);
        out += std::string(indent, ' ') + "- " + description_line(name) + (required ? " (required)" : "") + ": " +
               text + "\n";
        out += nested;
    }

    [[nodiscard]] std::string description_line(const std::string& text) const {
        return plain_line(text, options_.max_description_bytes);
    }

    [[nodiscard]] static std::string value_text(const Json& v) {
        return v.dump(-1, ' ', false, Json::error_handler_t::replace);
    }

    /// A value of the schema as the prompt quotes it, counted against max_quoted_bytes: the
    /// values a schema quotes (a const, enum values, patterns, formats, required key names) are
    /// the parts of a prompt whose size no other bound holds, and a definition is quoted again
    /// at each use.
    [[nodiscard]] std::string quote(const Json& v) const {
        std::string text = value_text(v);
        walk_.quoted += text.size();
        return text;
    }

    /// The values `s` lists, when it lists them: its `const`, else its `enum`; nullopt for neither.
    [[nodiscard]] std::optional<std::string> listed_values(const Json& s) const {
        if (const auto it = s.find("const"); it != s.end() && applies("const")) {
            return "exactly " + quote(*it);
        }
        if (const auto en = s.find("enum"); en != s.end() && en->is_array()) {
            return enum_text(*en);
        }
        return std::nullopt;
    }

    [[nodiscard]] std::string enum_text(const Json& values) const {
        std::string listed;
        bool null_allowed = false;
        std::size_t shown = 0;
        std::size_t hidden = 0;
        for (const auto& v : values) {
            if (v.is_null()) {
                null_allowed = true;
            } else if (shown == options_.max_enum_values || walk_.quoted > options_.max_quoted_bytes) {
                ++hidden;
            } else {
                listed += (shown == 0 ? "" : ", ") + quote(v);
                ++shown;
            }
        }
        if (shown == 0 && hidden > 0) { // every value held back by a bound: none is ruled out
            return "one of " + std::to_string(hidden) + " values (see the schema)" + (null_allowed ? ", or null" : "");
        }
        if (shown == 0) {
            return null_allowed ? "null" : "nothing (the enum is empty)";
        }
        std::string out = shown == 1 && hidden == 0 ? "exactly " + listed : "one of " + listed;
        if (hidden > 0) {
            out += " ... and " + std::to_string(hidden) + " more (see the schema)";
        }
        if (null_allowed) {
            out += ", or null";
        }
        return out;
    }

    /// A number as a reader writes it: an integral float (`2.0`, which counts as the integer 2
    /// from draft-06 on) without its fraction.
    static std::string number_text(const Json& v) {
        if (v.is_number_float()) {
            const double d = v.template get<double>();
            constexpr double exact_integers = 9007199254740992.0; // 2^53
            if (std::floor(d) == d && std::fabs(d) < exact_integers) {
                return std::to_string(static_cast<long long>(d));
            }
        }
        return v.is_number() ? value_text(v) : std::string("?");
    }

    [[nodiscard]] static std::string length_text(const Json& s, const char* min_key, const char* max_key,
                                                 const char* unit) {
        const auto min = s.find(min_key);
        const auto max = s.find(max_key);
        const bool has_min = min != s.end() && !(min->is_number() && min->template get<double>() <= 0);
        const bool has_max = max != s.end();
        if (has_min && has_max) {
            return number_text(*min) + " to " + number_text(*max) + " " + unit;
        }
        if (has_max) {
            return "at most " + number_text(*max) + " " + unit;
        }
        if (has_min) {
            return "at least " + number_text(*min) + " " + unit;
        }
        return "";
    }

    [[nodiscard]] static std::string range_text(const Json& s) {
        std::string out;
        const auto add = [&](const char* key, const char* op) {
            if (const auto it = s.find(key); it != s.end() && it->is_number()) {
                out += std::string(out.empty() ? " " : ", ") + op + " " + number_text(*it);
            }
        };
        // draft-04 writes an exclusive bound as `minimum` with `"exclusiveMinimum": true`.
        const auto excludes = [&](const char* key) {
            const auto it = s.find(key);
            return it != s.end() && it->is_boolean() && it->template get<bool>();
        };
        const bool open_low = excludes("exclusiveMinimum");
        const bool open_high = excludes("exclusiveMaximum");
        const auto min = s.find("minimum");
        const auto max = s.find("maximum");
        if (min != s.end() && max != s.end() && min->is_number() && max->is_number() && !open_low && !open_high) {
            out = " from " + number_text(*min) + " to " + number_text(*max);
        } else {
            add("minimum", open_low ? ">" : ">=");
            add("maximum", open_high ? "<" : "<=");
        }
        add("exclusiveMinimum", ">");
        add("exclusiveMaximum", "<");
        if (const auto it = s.find("multipleOf"); it != s.end() && it->is_number()) {
            out += ", a multiple of " + number_text(*it);
        }
        return out;
    }

    /// A string's constraints in words: its length, pattern and format.
    [[nodiscard]] std::string string_phrase(const Json& s) const {
        std::string out = "string";
        if (const std::string len = length_text(s, "minLength", "maxLength", "characters"); !len.empty()) {
            out += ", " + len;
        }
        if (const auto it = s.find("pattern"); it != s.end() && it->is_string()) {
            out += ", matching the regular expression " + quote(*it);
        }
        if (const auto it = s.find("format"); it != s.end() && it->is_string()) {
            out += ", format " + quote(*it);
        }
        return out;
    }

    /// An array in words: its length, then a tuple's places one by one (2020-12's "prefixItems",
    /// or draft-04 to 2019-09's array "items"), then the items after them (2020-12's "items"
    /// beside "prefixItems", the earlier "additionalItems" beside an array "items", or else
    /// "unevaluatedItems").
    [[nodiscard]] std::string array_phrase(const Json& s, const std::string& base, std::size_t indent,
                                           std::size_t depth, std::string& nested) const {
        std::string out = "array";
        if (const std::string len = length_text(s, "minItems", "maxItems", "items"); !len.empty()) {
            out += " of " + len;
        }
        const auto prefix = applies("prefixItems") ? s.find("prefixItems") : s.end();
        const auto items = s.find("items");
        const bool tuple = prefix != s.end() && prefix->is_array();
        const auto places = tuple ? prefix : items != s.end() && items->is_array() ? items : s.end();
        // additionalItems is read only beside an array "items" (ignored beside a single schema).
        auto after = places == items && places != s.end() && applies("additionalItems") ? s.find("additionalItems")
                     : places == items                                                  ? s.end()
                                                                                        : items;
        bool evaluated_only = false; // `after` is unevaluatedItems: parts elsewhere may take items
        if (after == s.end() && (after = unevaluated(s, "unevaluatedItems")) != s.end()) {
            evaluated_only = evaluates_elsewhere(s);
        }
        if ((places != s.end() || (after != s.end() && after->is_object())) && depth >= options_.max_depth) {
            return out + " (nested too deep to list: see the schema)";
        }
        for (std::size_t i = 0; places != s.end() && i < places->size(); ++i) {
            const place_entry here(walk_, "item " + std::to_string(i + 1) + " of " + walk_.place);
            out += "; item " + std::to_string(i + 1) + ": " + phrase((*places)[i], base, indent, depth + 1, nested);
        }
        if (after != s.end() && after->is_object()) {
            const place_entry here(walk_, "each item of " + walk_.place);
            out += evaluated_only      ? "; each item not described otherwise: "
                   : places != s.end() ? "; each item after those: "
                                       : "; each item: ";
            out += phrase(*after, base, indent, depth + 1, nested);
        } else if (after != s.end() && after->is_boolean() && !after->template get<bool>()) {
            out += evaluated_only                          ? "; no items " + described_only(s)
                   : places != s.end() && !places->empty() ? "; no items after those"
                                                           : "; no items at all";
        }
        if (const auto unique = s.find("uniqueItems");
            unique != s.end() && unique->is_boolean() && unique->template get<bool>()) {
            out += "; no two items equal";
        }
        if (const auto contains = applies("contains") ? s.find("contains") : s.end();
            contains != s.end() && depth < options_.max_depth) {
            if (const std::string count = contains_count(s); !count.empty()) {
                const place_entry here(walk_, "the items " + walk_.place + " must contain");
                out += "; " + count + " of the items: " + phrase(*contains, base, indent, depth + 1, nested);
            }
        }
        return out;
    }

    /// How many items must match `contains`: minContains (1 unless given) to maxContains; empty
    /// when any number, none included, will do.
    [[nodiscard]] static std::string contains_count(const Json& s) {
        const auto min = s.find("minContains");
        const auto max = s.find("maxContains");
        const std::string low = min != s.end() ? number_text(*min) : "1";
        if (max == s.end()) {
            return low == "0" ? "" : "at least " + low;
        }
        const std::string high = number_text(*max);
        return low == "0" ? "at most " + high : low == high ? "exactly " + low : low + " to " + high;
    }

    /// An object's keys beyond its listed fields: how many in all, and what the others hold.
    [[nodiscard]] std::string object_extras(const Json& s, const std::string& base, std::size_t indent,
                                            std::size_t depth, std::string& nested) const {
        std::string out;
        if (const std::string count = length_text(s, "minProperties", "maxProperties", "keys"); !count.empty()) {
            out += ", " + count;
        }
        if (const auto names = applies("propertyNames") ? s.find("propertyNames") : s.end();
            names != s.end() && names->is_object()) {
            const place_entry here(walk_, "each key of " + walk_.place);
            out += "; each key: " + phrase(*names, base, indent, depth + 1, nested);
        }
        const auto patterns = s.find("patternProperties");
        if (patterns != s.end() && patterns->is_object()) {
            for (const auto& rule : patterns->items()) {
                const place_entry here(walk_, "a value of " + walk_.place);
                out += "; the value of each key matching the regular expression " + quote(Json(rule.key())) + ": " +
                       phrase(rule.value(), base, indent, depth + 1, nested);
            }
        }
        const bool named = s.contains("properties") || (patterns != s.end() && patterns->is_object());
        const auto others = s.find("additionalProperties");
        const auto rest = unevaluated(s, "unevaluatedProperties");
        if (others != s.end() && others->is_object()) {
            const place_entry here(walk_, "each value of " + walk_.place);
            out += std::string(named ? "; any other key's value: " : "; each value: ") +
                   phrase(*others, base, indent, depth + 1, nested);
        } else if (says_closed(s)) {
            out += named ? "; no other keys" : "; no keys at all";
        } else if (others == s.end() && rest != s.end()) {
            out += leftover_keys(s, *rest, named, base, indent, depth, nested);
        }
        return out + dependent_phrase(s, base, indent, depth, nested);
    }

    /// `s`'s `unevaluatedProperties` (`rest`) in words: the keys no other keyword evaluates.
    /// `named`: the object's own properties name some; its other keywords (a `$ref`,
    /// branches) may evaluate more.
    [[nodiscard]] std::string leftover_keys(const Json& s, const Json& rest, bool named, const std::string& base,
                                            std::size_t indent, std::size_t depth, std::string& nested) const {
        const bool elsewhere = evaluates_elsewhere(s);
        if (rest.is_boolean()) {
            if (rest.template get<bool>() || !closed_said_) {
                return "";
            }
            return elsewhere ? "; no keys " + described_only(s) : named ? "; no other keys" : "; no keys at all";
        }
        const place_entry here(walk_, "each value of " + walk_.place);
        return std::string(elsewhere ? "; the value of any key not described otherwise: "
                           : named   ? "; any other key's value: "
                                     : "; each value: ") +
               phrase(rest, base, indent, depth + 1, nested);
    }

    /// What the presence of a key asks of the object: `dependentRequired` and the array form of
    /// `dependencies` (other keys present too), `dependentSchemas` and the schema form of
    /// `dependencies` (the object also fits a schema).
    [[nodiscard]] std::string dependent_phrase(const Json& s, const std::string& base, std::size_t indent,
                                               std::size_t depth, std::string& nested) const {
        std::string out;
        for (const char* keyword : {"dependentRequired", "dependentSchemas", "dependencies"}) {
            const auto rules = applies(keyword) ? s.find(keyword) : s.end();
            if (rules == s.end() || !rules->is_object()) {
                continue;
            }
            for (const auto& rule : rules->items()) {
                const std::string when = "when " + quote(Json(rule.key())) + " is present";
                if (rule.value().is_array()) {
                    std::string keys;
                    for (const auto& name : rule.value()) {
                        keys += (keys.empty() ? "" : ", ") + quote(name);
                    }
                    if (!keys.empty()) {
                        out.append("; ").append(when).append(", so must be ").append(keys);
                    }
                } else if (depth < options_.max_depth) {
                    out += "; ";
                    part_phrase(when + ", it must also be", when + ", it must also be", rule.value(), base, indent,
                                depth, out, nested, nullptr);
                }
            }
        }
        return out;
    }

    /// `base` is the base URI inside `s`.
    [[nodiscard]] std::string type_phrase(const std::string& type, const Json& s, const std::string& base,
                                          std::size_t indent, std::size_t depth, std::string& nested) const {
        if (type == "string") {
            return string_phrase(s);
        }
        if (type == "integer" || type == "number") {
            return type + range_text(s);
        }
        if (type == "boolean") {
            return "true or false";
        }
        if (type == "null") {
            return "null";
        }
        if (type == "array") {
            return array_phrase(s, base, indent, depth, nested);
        }
        if (type == "object") {
            if (depth >= options_.max_depth) {
                return "object (nested too deep to list: see the schema)";
            }
            std::string inner;
            listed_fields(s, base, indent, depth + 1, inner);
            if (!s.contains("$ref") && !s.contains("$dynamicRef") && !s.contains("$recursiveRef")) {
                unlisted_required(required_names(s), {&s}, false, indent, inner); // (else the target lists them)
            }
            const bool listed = !inner.empty();
            const std::string extras = object_extras(s, base, indent, depth, inner);
            nested += inner;
            return (listed ? "object with these fields" : "object") + extras;
        }
        return type;
    }

    /// The types `s` names, or implies by listing properties.
    [[nodiscard]] static std::vector<std::string> types_of(const Json& s) {
        std::vector<std::string> types;
        if (const auto it = s.find("type"); it != s.end()) {
            if (it->is_string()) {
                types.push_back(it->template get<std::string>());
            } else if (it->is_array()) {
                for (const auto& t : *it) {
                    if (t.is_string()) {
                        types.push_back(t.template get<std::string>());
                    }
                }
            }
        }
        if (types.empty() && (s.contains("properties") || s.contains("required"))) {
            types.emplace_back("object");
        }
        return types;
    }

    /// A schema and the ones its `$ref`s lead to, the schema the chain ends at last, each with the
    /// base URI inside it (which the keywords beside its `$ref` are read in). Where the dialect
    /// ignores those keywords only the end counts, and it alone is listed. Empty when the chain
    /// ends nowhere.
    struct ref_link {
        const Json* schema = nullptr;
        std::string base;
    };
    [[nodiscard]] std::vector<ref_link> ref_chain(const Json& schema, const std::string& base) const {
        if (!ref_siblings_apply_) {
            auto end = refs_.resolve(schema, base);
            return end.schema == nullptr ? std::vector<ref_link>{}
                                         : std::vector<ref_link>{{end.schema, std::move(end.base)}};
        }
        std::vector<ref_link> links{{&schema, refs_.base_inside(schema, base)}};
        std::string around = base; // the base around the last link, which its `$ref` is read in
        while (links.back().schema->is_object() && links.back().schema->contains("$ref")) {
            if (links.size() > static_cast<std::size_t>(max_ref_hops)) {
                return {};
            }
            auto next = refs_.step(*links.back().schema, around);
            if (next.schema == nullptr) {
                return {};
            }
            around = std::move(next.base);
            links.push_back({next.schema, refs_.base_inside(*next.schema, around)});
        }
        return links;
    }

    /// The keywords beside a `$ref` to `target`, described in the target's types when they name
    /// none ("maxLength" beside a string's `$ref` is a string's bound); empty when none
    /// constrains. They are read in place, so a `$ref` among them resolves as it stands.
    [[nodiscard]] std::string sibling_phrase(const Json& referring, const Json& target, const std::string& base,
                                             std::size_t indent, std::size_t depth, std::string& nested) const {
        const auto constrains = [](const auto& member) { return constraining_keyword(member.key()); };
        if (!referring.is_object() || depth >= options_.max_depth ||
            std::none_of(referring.items().begin(), referring.items().end(), constrains)) {
            return "";
        }
        std::string also;
        if (std::optional<std::string> listed = listed_values(referring)) {
            also = std::move(*listed);
        } else if (also = typed_phrase(referring, base, indent, depth, nested, &target);
                   also == any_value || also == bare_type_phrase(target, base, indent, depth)) {
            also.clear(); // a bound of another type ("minimum" beside a string's $ref) says nothing here
        }
        // Required names its own properties do not list are the target's fields.
        const auto props = referring.find("properties");
        std::string keys;
        for (const std::string& name : required_names(referring)) {
            if (props == referring.end() || !props->is_object() || !props->contains(name)) {
                keys += (keys.empty() ? "" : ", ") + quote(Json(name));
            }
        }
        if (!keys.empty()) {
            also += (also.empty() ? "" : ", ") + std::string("with the keys ") + keys + " required";
        }
        return also.empty() ? "" : "; and also " + also;
    }

    /// `target`'s types in words with no bound ("string", "integer or string").
    [[nodiscard]] std::string bare_type_phrase(const Json& target, const std::string& base, std::size_t indent,
                                               std::size_t depth) const {
        std::string unused;
        return typed_phrase(Json::object(), base, indent, depth, unused, &target);
    }

    /// `types_from`: where the types come from when `s` names none.
    [[nodiscard]] std::string typed_phrase(const Json& s, const std::string& base, std::size_t indent,
                                           std::size_t depth, std::string& nested,
                                           const Json* types_from = nullptr) const {
        std::vector<std::string> types = types_of(s);
        const Json* typed_by = &s;
        if (types.empty() && types_from != nullptr) {
            types = types_of(*types_from);
            typed_by = types_from;
        }
        // The types hold for every branch of s's anyOf, oneOf and allOf too.
        const Json* branches_typed_by = types.empty() ? nullptr : typed_by;
        std::string out;
        bool null_allowed = false;
        for (const std::string& t : types) {
            if (t == "null") {
                null_allowed = true;
                continue;
            }
            out += (out.empty() ? "" : " or ") + type_phrase(t, s, base, indent, depth, nested);
        }
        for (const char* key : {"anyOf", "oneOf"}) {
            const auto it = s.find(key);
            if (it == s.end() || !it->is_array() || depth >= options_.max_depth) {
                continue;
            }
            // oneOf refuses a value that fits two of its branches: the worker is told so.
            const std::string which = std::string_view(key) == "oneOf" ? "exactly one of these" : "one of these";
            out += out.empty() ? which : ", and " + which;
            list_schemas(*it, "option", base, indent, depth, nested, branches_typed_by);
        }
        all_of_phrase(s, base, indent, depth, out, nested, branches_typed_by);
        condition_phrase(s, base, indent, depth, out, nested, branches_typed_by);
        const auto no = s.find("not");
        if (no != s.end() && depth < options_.max_depth && !(no->is_boolean() && !no->template get<bool>())) {
            part_phrase(out.empty() ? "anything but" : ", but not", "it must not be", *no, base, indent, depth, out,
                        nested, branches_typed_by); // (not false refuses nothing)
        }
        if (null_allowed) {
            out += out.empty() ? "null" : ", or null";
        }
        if (types.empty()) {
            if (std::string bounds = untyped_bounds(s, base, indent, depth, nested); !bounds.empty()) {
                out = (out.empty() ? any_value : out) + bounds;
            }
        }
        return out.empty() ? any_value : out;
    }

    /// The keywords that constrain only values of one type, in a schema that names no type:
    /// each such type's bounds, which a value of another type is free of.
    [[nodiscard]] std::string untyped_bounds(const Json& s, const std::string& base, std::size_t indent,
                                             std::size_t depth, std::string& nested) const {
        struct type_keywords {
            const char* type;
            std::initializer_list<const char*> keywords;
        };
        static const type_keywords by_type[] = {
            {"string", {"minLength", "maxLength", "pattern", "format"}},
            {"number", {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}},
            {"array",
             {"items", "prefixItems", "additionalItems", "unevaluatedItems", "minItems", "maxItems", "uniqueItems",
              "contains"}},
            {"object",
             {"minProperties", "maxProperties", "propertyNames", "patternProperties", "additionalProperties",
              "unevaluatedProperties", "dependentRequired", "dependentSchemas", "dependencies"}},
        };
        std::string out;
        for (const type_keywords& group : by_type) {
            if (uses_any(s, group.keywords)) {
                out += std::string("; when it is ") + (group.type[0] == 'a' || group.type[0] == 'o' ? "an " : "a ") +
                       group.type + ": " + type_phrase(group.type, s, base, indent, depth, nested);
            }
        }
        return out;
    }

    /// `allOf` added to `out`: a lone member (a `$ref` with a description beside it, as
    /// generators write one) as that member's own phrase, several as parts that all hold. A
    /// part that names no type takes `typed_by`'s types, or else the first part's that names
    /// some: all parts hold of one value.
    void all_of_phrase(const Json& s, const std::string& base, std::size_t indent, std::size_t depth, std::string& out,
                       std::string& nested, const Json* typed_by) const {
        const auto all = s.find("allOf");
        if (all == s.end() || !all->is_array() || all->empty() || depth >= options_.max_depth) {
            return;
        }
        if (out.empty() && all->size() == 1) {
            out = phrase(all->front(), base, indent, depth + 1, nested, true, typed_by);
            return;
        }
        for (auto part = all->begin(); typed_by == nullptr && part != all->end(); ++part) {
            const auto target = refs_.resolve(*part, base);
            if (target.schema != nullptr && target.schema->is_object() && !types_of(*target.schema).empty()) {
                typed_by = target.schema;
            }
        }
        out += out.empty() ? "all of these" : ", and all of these";
        list_schemas(*all, "part", base, indent, depth, nested, typed_by);
    }

    /// The schemas of an anyOf, oneOf or allOf as "- option 1: ..." (or "part") lines; a branch
    /// that names no type takes `typed_by`'s.
    void list_schemas(const Json& schemas, const char* label, const std::string& base, std::size_t indent,
                      std::size_t depth, std::string& nested, const Json* typed_by) const {
        std::size_t n = 1;
        for (const auto& branch : schemas) {
            schema_line(std::string(label) + " " + std::to_string(n++), branch, base, indent, depth, nested, typed_by);
        }
    }

    /// `schema`, a part of the value described now, as a line "- label: ..." of `nested`, its
    /// own lines below it; a part that names no type takes `typed_by`'s.
    void schema_line(const std::string& label, const Json& schema, const std::string& base, std::size_t indent,
                     std::size_t depth, std::string& nested, const Json* typed_by) const {
        std::string inner;
        const place_entry here(walk_, label + " of " + walk_.place);
        const std::string text = phrase(schema, base, indent + 2, depth + 1, inner, true, typed_by);
        nested.append(indent, ' ').append("- ").append(label).append(": ").append(text).append("\n").append(inner);
    }

    /// A schema the whole value fits (or must not fit) besides the rest, added to `out` after
    /// `lead` ("but not") when its phrase is one plain clause, else as a line "- label: ..." of
    /// `nested` that `out` points to.
    void part_phrase(const std::string& lead, const std::string& label, const Json& schema, const std::string& base,
                     std::size_t indent, std::size_t depth, std::string& out, std::string& nested,
                     const Json* typed_by) const {
        std::string inner;
        std::string text;
        {
            const place_entry here(walk_, "what " + walk_.place + " " + label);
            text = phrase(schema, base, indent + 2, depth + 1, inner, true, typed_by);
        }
        if (inner.empty() && text.find("; ") == std::string::npos) {
            out += lead + " " + text;
            return;
        }
        out += lead + " (see below)";
        nested.append(indent, ' ').append("- ").append(label).append(": ").append(text).append("\n").append(inner);
    }

    /// `if`, `then` and `else` added to `out`, as lines of `nested`: what a value that fits the
    /// condition must also fit, and what one that does not must fit instead.
    void condition_phrase(const Json& s, const std::string& base, std::size_t indent, std::size_t depth,
                          std::string& out, std::string& nested, const Json* typed_by) const {
        const auto test = applies("if") ? s.find("if") : s.end();
        const auto then = applies("then") ? s.find("then") : s.end();
        const auto otherwise = applies("else") ? s.find("else") : s.end();
        if (test == s.end() || (then == s.end() && otherwise == s.end()) || depth >= options_.max_depth) {
            return; // `if` alone constrains nothing, nor `then` or `else` without it
        }
        out += out.empty() ? "on a condition" : ", and on a condition";
        schema_line("if it is", *test, base, indent, depth, nested, typed_by);
        // A branch of `false` fits nothing: the value on that side of the condition is refused.
        const auto branch_line = [&](const char* side, const char* must, const Json& branch) {
            if (branch.is_boolean() && !branch.template get<bool>()) {
                nested.append(indent, ' ').append("- ").append(side).append(" it is refused\n");
            } else {
                schema_line(std::string(side) + " " + must, branch, base, indent, depth, nested, typed_by);
            }
        };
        if (then != s.end()) {
            branch_line("then", "it must also be", *then);
        }
        if (otherwise != s.end()) {
            branch_line(then != s.end() ? "otherwise" : "if it is not,", "it must be", *otherwise);
        }
    }

    static constexpr const char* any_value = "any JSON value";

    /// Where the description is: the schemas being described around the current one (each
    /// entered once, so a `$ref` back to one of them is said, not followed), and how many
    /// schemas were described in all (max_described_schemas), and how many bytes of values quoted
    /// (max_quoted_bytes).
    struct walk {
        /// Each schema being described, and the place it is described at.
        std::vector<std::pair<const Json*, std::string>> path;
        /// The place being described now, in words: a field ("\"name\""), "each item of" it, ...
        std::string place = "partial_result";
        std::size_t described = 0;
        /// Bytes of schema values quoted so far (quote(), max_quoted_bytes).
        std::size_t quoted = 0;

        /// The place `s` is being described at, when it is on the path; else nullptr.
        [[nodiscard]] const std::string* place_describing(const Json* s) const {
            const auto it = std::find_if(path.begin(), path.end(), [&](const auto& entry) { return entry.first == s; });
            return it == path.end() ? nullptr : &it->second;
        }
    };
    /// A schema on the path while it is described.
    class path_entry {
    public:
        path_entry(walk& w, const Json* s) : walk_(w) { walk_.path.emplace_back(s, walk_.place); }
        path_entry(const path_entry&) = delete;
        path_entry& operator=(const path_entry&) = delete;
        ~path_entry() { walk_.path.pop_back(); }

    private:
        walk& walk_;
    };
    /// The place being described, while a part of it is.
    class place_entry {
    public:
        place_entry(walk& w, std::string place) : walk_(w), around_(std::exchange(walk_.place, std::move(place))) {}
        place_entry(const place_entry&) = delete;
        place_entry& operator=(const place_entry&) = delete;
        ~place_entry() { walk_.place = std::move(around_); }

    private:
        walk& walk_;
        std::string around_;
    };

    typed_ref_follower<Json>& refs_;
    const worker_prompt_options& options_;
    std::optional<schema_dialect> dialect_;
    bool ref_siblings_apply_ = false;
    bool closed_said_ = true;
    /// The state of the one description under way (the describer's methods only read the schema).
    mutable walk walk_;
};

} // namespace handoff::detail
