// SPDX-License-Identifier: MIT
#pragma once

// A task schema made to stand alone, for the writers that read one document (provider schemas,
// the fixtures' value generator): each schema its `$ref`s reach in another document (a file
// beside it, a registered document) is copied into its definitions once, and every `$ref` is
// rewritten to the JSON pointer of its target in the result, found exactly as the receiver finds
// it (ref_resolver: `$id` bases, anchors, the registry, the allowed folders). The `$id`s below
// the root are removed, since every `$ref` now names its target from the root. This is JSON
// Schema's bundling (2020-12 core, section 9.3, "Compound Documents") without the embedded
// `$id`s, which provider decoders do not read. Only the referenced schemas are copied, not the
// documents around them: the receiver compiled exactly those, so everything in the result
// compiles, while another part of such a document may name a file nobody registered.
//
// `$dynamicRef` and `$recursiveRef` are left as written: the dynamic scope they read is made of
// the `$id`s a bundle removes, so a schema that extends another through them (2020-12's
// extensible trees) is judged as written only by the receiver; no provider reads them either.
//
// A schema whose `$ref`s all stay inside it, or lead only to a built-in metaschema, is returned
// as it is: the bundle changes nothing for it. The receiver always judges with the schema as
// given; the bundle only serves writers.

#include <handoff/detail/json/count.hpp>
#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/schema/dialect.hpp>
#include <handoff/detail/schema/ids.hpp>
#include <handoff/detail/schema/ref_resolver.hpp>
#include <handoff/detail/schema/refs.hpp>
#include <handoff/detail/schema/uri.hpp>
#include <handoff/schema.hpp>
#include <handoff/schema_error.hpp>
#include <handoff/schema_registry.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // min
#include <cstddef>     // size_t
#include <filesystem>  // filesystem_error
#include <map>         // map
#include <optional>    // optional
#include <set>         // set
#include <string>      // string
#include <string_view> // string_view
#include <type_traits> // is_same_v
#include <utility>     // move
#include <vector>      // vector

namespace handoff::detail {

/// A definition name every provider reads in a `$ref` as written: letters, digits, `_`, `-`, `.`.
[[nodiscard]] inline std::string plain_name(std::string_view name) {
    std::string out;
    for (const char c : name) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                           c == '-' || c == '.';
        out.push_back(plain ? c : '_');
    }
    return out.empty() ? std::string("def") : out;
}

/// A JSON pointer written as a URI fragment: every byte outside RFC 3986's unreserved and
/// sub-delims, ':', '@' and '/' is percent-encoded ('%' itself too), as the resolvers decode it.
[[nodiscard]] inline std::string pointer_fragment(std::string_view pointer) {
    static constexpr std::string_view kept = "-._~!$&'()*+,;=:@/";
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : pointer) {
        const auto byte = static_cast<unsigned char>(c);
        const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (alnum || kept.find(c) != std::string_view::npos) {
            out.push_back(c);
        } else {
            out.push_back('%');
            out.push_back(hex[byte >> 4U]);
            out.push_back(hex[byte & 0x0FU]);
        }
    }
    return out;
}

class schema_bundler {
public:
    /// Reads where every `$ref` of `root` leads; `root` and the scope's registry must outlive
    /// the bundler.
    schema_bundler(const nlohmann::json& root, const ref_scope& scope)
        : dialect_(compiled_schema::dialect_of(root, scope.options())),
          resolver_(root, scope.base_uri, scope.registry, scope.folders(), dialect_),
          defs_keyword_(dialect_ && (bit_of(*dialect_) & from_2019_09) != 0 ? "$defs" : "definitions") {
        copies_.push_back(copied_schema{&root, resolver_.root_base(), {}, {}, {}, {}});
        if (root.is_object()) {
            if (const auto defs = root.find(defs_keyword_); defs != root.end() && defs->is_object()) {
                for (auto it = defs->begin(); it != defs->end(); ++it) {
                    names_.insert(it.key());
                }
            }
        }
        walk(root, 0, "", resolver_.root_base(), dialect_, 0);
        for (std::size_t i = 1; i < copies_.size(); ++i) { // grows while it runs
            const nlohmann::json& json = *copies_[i].json;
            const std::string base = copies_[i].parent_base; // the vector may move while walking
            walk(json, i, "", base, copies_[i].dialect, 0);
        }
    }

    /// Whether some `$ref` leads to another document (not a built-in metaschema).
    [[nodiscard]] bool needed() const noexcept { return copies_.size() > 1; }

    /// `root` (the document given, or the same one as another nlohmann type) standing alone.
    template <class Json>
    [[nodiscard]] Json bundle(const Json& root) const {
        Json out = root;
        if (!needed()) {
            return out;
        }
        apply(out, copies_[0].edits);
        Json& defs = out[defs_keyword_];
        for (std::size_t i = 1; i < copies_.size(); ++i) {
            nlohmann::json copy = *copies_[i].json;
            apply(copy, copies_[i].edits);
            if (copies_[i].declared && copy.is_object() && !copy.contains("$schema")) {
                copy["$schema"] = *copies_[i].declared; // read in its own document's dialect
            }
            if constexpr (std::is_same_v<Json, nlohmann::json>) {
                defs[copies_[i].name] = std::move(copy);
            } else {
                defs[copies_[i].name] = Json::parse(copy.dump()); // a registered document keeps no order
            }
        }
        return out;
    }

private:
    /// At `pointer`, `$ref` becomes `ref`; or, without `ref`, the member `keyword` (an id) goes.
    struct edit {
        std::string pointer;
        std::string keyword;
        std::optional<std::string> ref;
    };
    /// A schema of the bundle: the root (index 0), or a copy of a referenced schema of another
    /// document, which sits at `pointer` of the document at `uri`.
    struct copied_schema {
        const nlohmann::json* json;
        std::string uri;
        std::string pointer;
        std::string name; // under the root's definitions
        std::string parent_base;
        std::vector<edit> edits;
        std::optional<schema_dialect> dialect{};
        /// The `$schema` of its document when that reads it in another dialect than the root.
        std::optional<std::string> declared{};
    };

    /// Copies of nested targets repeat what they hold (a chain of refs to ever shallower
    /// schemas of one big document would copy it again for each): past this many JSON values
    /// copied in all, a `$ref` is left as written, and the writers report it as not sent.
    static constexpr std::size_t max_copied_values = std::size_t{1} << 20;

    /// Deeper than any schema compiles (the compiler bounds nesting), so never reached in one.
    static constexpr int max_walk_depth = 1000;

    void walk(const nlohmann::json& s, std::size_t doc, const std::string& pointer, const std::string& parent_base,
              std::optional<schema_dialect> around, int depth) {
        if (!s.is_object() || depth > max_walk_depth) {
            return;
        }
        const std::optional<schema_dialect> dialect = dialect_inside(s, around);
        const std::string base = base_inside(s, parent_base, dialect);
        if (const nlohmann::json* id = id_member(s, dialect); id != nullptr && (doc != 0 || !pointer.empty())) {
            const auto dollar = s.find("$id");
            copies_[doc].edits.push_back(edit{pointer, dollar != s.end() && &*dollar == id ? "$id" : "id", {}});
        }
        if (const auto ref = s.find("$ref"); ref != s.end() && ref->is_string()) {
            if (std::optional<std::string> target = bundled_ref(ref->get_ref<const std::string&>(), base)) {
                copies_[doc].edits.push_back(edit{pointer, "$ref", std::move(target)});
            }
        }
        for (const subschema_keyword& k : subschema_keywords) {
            const auto it = s.find(k.name);
            if (it == s.end()) {
                continue;
            }
            const std::string at = pointer_child(pointer, k.name);
            if (it->is_object() && k.shape != subschema_shape::map && k.shape != subschema_shape::map_or_array) {
                walk(*it, doc, at, base, dialect, depth + 1);
            } else if (it->is_object()) {
                for (auto m = it->begin(); m != it->end(); ++m) {
                    walk(*m, doc, pointer_child(at, m.key()), base, dialect, depth + 1);
                }
            } else if (it->is_array()) {
                for (std::size_t i = 0; i < it->size(); ++i) {
                    walk((*it)[i], doc, pointer_item(at, i), base, dialect, depth + 1);
                }
            }
        }
    }

    /// The `$ref` naming the target of `reference` in the bundle, or nullopt to leave it as
    /// written (it resolves nowhere, or into a built-in metaschema, which every reader knows).
    [[nodiscard]] std::optional<std::string> bundled_ref(const std::string& reference, const std::string& base) {
        std::optional<schema_location> found;
        try {
            found = resolver_.locate(reference, base, "");
        } catch (const schema_error&) {
            return std::nullopt; // the receiver refuses the schema, or ignores this $ref
        } catch (const std::filesystem::filesystem_error&) {
            return std::nullopt;
        }
        const std::size_t hash = found->where.find('#');
        if (hash == std::string::npos) { // the root, given without a URI
            return "#" + pointer_fragment(found->where);
        }
        const std::string uri = found->where.substr(0, hash);
        const std::string pointer = found->where.substr(hash + 1);
        if (uri == resolver_.root_base()) {
            return "#" + pointer_fragment(pointer);
        }
        static const schema_registry built_in_only;
        if (built_in_only.find_document(uri) != nullptr) {
            return std::nullopt;
        }
        const auto place = copied(*found, uri, pointer);
        if (!place) {
            return std::nullopt;
        }
        return "#" + pointer_fragment(pointer_child(pointer_child("", defs_keyword_), place->first) + place->second);
    }

    /// The definition holding the schema at `pointer` of the document at `uri` (a copy made
    /// before that holds it, or a new one), and the pointer left inside that definition.
    std::optional<std::pair<std::string, std::string>> copied(const schema_location& found, const std::string& uri,
                                                              const std::string& pointer) {
        for (std::size_t i = 1; i < copies_.size(); ++i) {
            const copied_schema& c = copies_[i];
            const bool inside = pointer.compare(0, c.pointer.size(), c.pointer) == 0 &&
                                (pointer.size() == c.pointer.size() || pointer[c.pointer.size()] == '/');
            if (c.uri == uri && inside) {
                return std::pair{c.name, pointer.substr(c.pointer.size())};
            }
        }
        const std::size_t slash = pointer.find_last_of('/');
        std::string stem =
            slash == std::string::npos ? std::string() : unescape_pointer_token(pointer.substr(slash + 1));
        if (stem.empty()) { // the document itself: named after its file, "money.schema.json" as "money"
            stem = uri.substr(uri.find_last_of('/') + 1);
            stem.erase(std::min(stem.find('.', 1), stem.size()));
        }
        const std::size_t values = count_values(
            *found.schema, [](const nlohmann::json&) { return true; }, max_copied_values - copied_values_);
        if (copied_values_ + values > max_copied_values) {
            return std::nullopt;
        }
        copied_values_ += values;
        std::string name = plain_name(stem);
        for (std::size_t n = 2; names_.count(name) != 0; ++n) {
            name = plain_name(stem) + "_" + std::to_string(n);
        }
        names_.insert(name);
        const schema_location document_root = resolver_.locate(uri, "", ""); // known: a $ref just led there
        const std::optional<schema_dialect> own = dialect_inside(*document_root.schema, dialect_);
        std::optional<std::string> declared;
        if (own != dialect_ && document_root.schema->is_object()) {
            declared = document_root.schema->value("$schema", std::string());
        }
        copied_schema made{found.schema, uri, pointer, name, found.parent_base, {}, own, std::move(declared)};
        copies_.push_back(std::move(made));
        return std::pair{name, std::string()};
    }

    template <class Json>
    static void apply(Json& doc, const std::vector<edit>& edits) {
        for (const edit& e : edits) {
            Json& node = e.pointer.empty() ? doc : doc.at(typename Json::json_pointer(e.pointer));
            if (e.ref) {
                node["$ref"] = *e.ref;
            } else {
                node.erase(e.keyword);
            }
        }
    }

    std::optional<schema_dialect> dialect_;
    ref_resolver resolver_;
    const char* defs_keyword_;
    std::vector<copied_schema> copies_;
    std::set<std::string> names_;
    std::size_t copied_values_ = 0;
};

/// `root` standing alone (see above); throws nothing the receiver would not: every `$ref`
/// that leads nowhere is left as written.
template <class Json>
[[nodiscard]] Json bundled_schema(const Json& root, const ref_scope& scope) {
    if constexpr (std::is_same_v<Json, nlohmann::json>) {
        return schema_bundler(root, scope).bundle(root);
    } else {
        const nlohmann::json plain = nlohmann::json::parse(root.dump());
        return schema_bundler(plain, scope).bundle(root);
    }
}

} // namespace handoff::detail
