// SPDX-License-Identifier: MIT
#pragma once

// A task schema made to stand alone, for the writers that read one document (provider schemas,
// the fixtures' value generator). Each schema a `$ref` reaches in another document (a file beside
// it, a registered document) is copied into the root's definitions once, every `$ref` the
// receiver follows is rewritten to the JSON pointer of its target in the result, and the `$id`s
// below the root are removed, since no `$ref` reads them any more. Targets are found by
// ref_follower, as the validator finds them, and the walk goes where the validator's compiler
// goes: from the root, and from every target, each read in the dialect the compiler reads it in
// (the last `$schema` on the way to it in its document, else the root's), never into the keywords beside a
// `$ref` that a dialect before 2019-09 ignores. This is JSON Schema's bundling (2020-12 core,
// section 9.3, "Compound Documents") without embedded `$id`s, which provider decoders do not read.
//
// The schema is left as written (the writers then drop a `$ref` they cannot follow and say so)
// when a bundle could read differently: a `$dynamicRef` or `$recursiveRef` in what the walk
// reaches (their targets depend on the `$id`s a bundle removes), a schema read in a dialect whose
// rule for the keywords beside `$ref` is not the root's (the writers apply the root's), a copy
// whose document declares another reading above it (the copy would lose it), a root
// whose definitions keyword is not an object, or copies of more than max_copied_values values in
// all. bundled_schema also keeps it when the result does not compile alone, or would be read
// alone in another dialect (a root without `$schema` read by keywords its copies bring).

#include <handoff/detail/json/count.hpp>
#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/schema/access.hpp>
#include <handoff/detail/schema/dialect.hpp>
#include <handoff/detail/schema/ids.hpp>
#include <handoff/detail/schema/refs.hpp>
#include <handoff/detail/schema/uri.hpp>
#include <handoff/schema.hpp>
#include <handoff/schema_registry.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // min
#include <cstddef>     // size_t
#include <filesystem>  // filesystem_error
#include <map>         // map
#include <optional>    // optional
#include <set>         // set
#include <string>      // string, to_string
#include <type_traits> // is_same_v
#include <utility>     // move, pair
#include <vector>      // vector

namespace handoff::detail {

class schema_bundler {
public:
    /// Copies of nested targets repeat what they hold (refs to ever shallower schemas of one big
    /// document copy it again each time): past this many JSON values copied in all, the schema
    /// is left as written.
    static constexpr std::size_t max_copied_values = std::size_t{1} << 20;

    /// Reads where every `$ref` the validator follows from `root` leads. `scope.dialect` must be
    /// the dialect the root compiles in (compiled_schema::dialect()); `root` and the scope's
    /// registry must outlive the bundler.
    schema_bundler(const nlohmann::json& root, const ref_scope& scope)
        : refs_(root, scope), root_dialect_(compiled_schema::dialect_of(root, scope.options())),
          defs_keyword_((bit_of(root_dialect_) & from_2019_09) != 0 ? "$defs" : "definitions") {
        copies_.push_back(copied_schema{&root, refs_.document_uri(), "", "", {}});
        if (root.is_object()) {
            if (const auto defs = root.find(defs_keyword_); defs != root.end()) {
                if (!defs->is_object()) {
                    left_as_written_ = true;
                    return;
                }
                for (auto it = defs->begin(); it != defs->end(); ++it) {
                    names_.insert(it.key());
                }
            }
        }
        walk(root, 0, "", refs_.document_uri(), root_dialect_, 0);
        while (!pending_.empty() && !left_as_written_) {
            const place next = std::move(pending_.back());
            pending_.pop_back();
            walk(*next.schema, next.copy, next.pointer, next.parent_base, next.around, 0);
        }
    }

    /// Whether bundle() changes the schema: some `$ref` is written otherwise, and nothing above
    /// asks to leave it as written.
    [[nodiscard]] bool changes() const noexcept { return rewritten_ && !left_as_written_; }

    /// `root` (the document given, or the same one as another nlohmann type) standing alone.
    template <class Json>
    [[nodiscard]] Json bundle(const Json& root) const {
        Json out = root;
        if (!changes()) {
            return out;
        }
        apply(out, copies_[0].edits);
        for (std::size_t i = 1; i < copies_.size(); ++i) {
            nlohmann::json copy = *copies_[i].json;
            apply(copy, copies_[i].edits);
            out[defs_keyword_][copies_[i].name] = Json(std::move(copy));
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
    /// A schema of the bundle: the root (index 0), or a copy of the schema at `pointer` of the
    /// document at `uri`, under the root's definitions as `name`.
    struct copied_schema {
        const nlohmann::json* json;
        std::string uri;
        std::string pointer;
        std::string name;
        std::vector<edit> edits;
    };
    /// A schema the walk still has to go through: at `pointer` of copy `copy`.
    struct place {
        const nlohmann::json* schema;
        std::size_t copy;
        std::string pointer;
        std::string parent_base;
        std::optional<schema_dialect> around;
    };

    /// Deeper than any schema compiles (the compiler bounds nesting), so never reached in one.
    static constexpr int max_walk_depth = 1000;

    void walk(const nlohmann::json& s, std::size_t copy, const std::string& pointer, const std::string& parent_base,
              std::optional<schema_dialect> around, int depth) {
        if (!s.is_object() || depth > max_walk_depth || left_as_written_ || !walked_.emplace(copy, pointer).second) {
            return;
        }
        const std::optional<schema_dialect> dialect = dialect_inside(s, around);
        const bool ref_alone = dialect && ref_overrides_siblings(*dialect);
        if (ref_alone != ref_overrides_siblings(root_dialect_) || s.contains("$dynamicRef") ||
            s.contains("$recursiveRef")) {
            left_as_written_ = true;
            return;
        }
        const std::string base = base_inside(s, parent_base, dialect);
        if (const nlohmann::json* id = id_member(s, dialect); id != nullptr && (copy != 0 || !pointer.empty())) {
            const auto dollar = s.find("$id");
            copies_[copy].edits.push_back(edit{pointer, dollar != s.end() && &*dollar == id ? "$id" : "id", {}});
        }
        const auto ref = s.find("$ref");
        if (ref != s.end() && ref->is_string()) {
            rewrite(ref->get_ref<const std::string&>(), base, copy, pointer);
        }
        if (ref != s.end() && ref_alone) {
            return; // the keywords beside it are not read
        }
        for_each_subschema(s, pointer, [&](const nlohmann::json& child, const std::string& at) {
            walk(child, copy, at, base, dialect, depth + 1);
        });
    }

    /// Rewrites the `$ref` at `pointer` of copy `copy` to its target in the bundle, and has the
    /// target walked. A `$ref` that leads nowhere is left as written (the receiver refuses it,
    /// or never reads it).
    void rewrite(const std::string& reference, const std::string& base, std::size_t copy, const std::string& pointer) {
        std::string error;
        const std::optional<schema_location> found = refs_.locate(reference, base, error);
        if (!found) {
            return;
        }
        // As the compiler reads it: by the last `$schema` on the way to it, else as the root.
        const std::optional<schema_dialect> site =
            found->declaring != nullptr ? dialect_inside(*found->declaring, root_dialect_) : root_dialect_;
        const auto [uri, target] = split_where(found->where);
        std::string written;
        if (uri == refs_.document_uri()) {
            written = "#" + pointer_fragment(target);
            pending_.push_back(place{found->schema, 0, target, found->parent_base, site});
        } else if (is_built_in_document(uri)) {
            written = uri + "#" + pointer_fragment(target); // absolute: the base it was read in may go
        } else if (!copy_reads_as_root(*found)) {
            left_as_written_ = true;
            return;
        } else if (const auto held = holder(*found, uri, target)) {
            written =
                "#" + pointer_fragment(pointer_child(pointer_child("", defs_keyword_), copies_[held->first].name) +
                                       held->second);
            pending_.push_back(place{found->schema, held->first, held->second, found->parent_base, site});
        } else {
            return;
        }
        rewritten_ = rewritten_ || written != reference;
        copies_[copy].edits.push_back(edit{pointer, "$ref", std::move(written)});
    }

    /// Whether a copy of the schema at `found`, which leaves behind any `$schema` above it in its
    /// document, reads as it does there: nothing above it declares one, or what is declared is
    /// the root's official dialect, read with its official vocabularies as the root is.
    [[nodiscard]] bool copy_reads_as_root(const schema_location& found) const {
        if (found.declaring == nullptr || found.declaring == found.schema) {
            return true;
        }
        const nlohmann::json& root = *copies_[0].json;
        return dialect_inside(*found.declaring, std::nullopt) == std::optional<schema_dialect>(root_dialect_) &&
               (!root.is_object() || !root.contains("$schema") || dialect_inside(root, std::nullopt));
    }

    /// A location ("uri#pointer", or a bare pointer in a root given without a URI) as its
    /// document and pointer.
    [[nodiscard]] std::pair<std::string, std::string> split_where(const std::string& where) const {
        if (refs_.document_uri().empty() && (where.empty() || where.front() == '/')) {
            return {std::string(), where};
        }
        const std::size_t hash = where.find('#');
        if (hash == std::string::npos) {
            return {where, std::string()};
        }
        return {where.substr(0, hash), where.substr(hash + 1)};
    }

    /// The copy holding the schema at `pointer` of the document at `uri` (one made before that
    /// holds it, or a new one) and the pointer left inside it; nullopt past max_copied_values.
    std::optional<std::pair<std::size_t, std::string>> holder(const schema_location& found, const std::string& uri,
                                                              const std::string& pointer) {
        std::map<std::string, std::size_t>& made = copies_at_[uri];
        for (std::string prefix = pointer;;) {
            if (const auto it = made.find(prefix); it != made.end()) {
                return std::pair{it->second, pointer.substr(prefix.size())};
            }
            if (prefix.empty()) {
                break;
            }
            prefix.erase(std::min(prefix.rfind('/'), prefix.size()));
        }
        copied_values_ += count_values(
            *found.schema, [](const nlohmann::json&) { return true; }, max_copied_values);
        if (copied_values_ > max_copied_values) {
            left_as_written_ = true;
            return std::nullopt;
        }
        copies_.push_back(copied_schema{found.schema, uri, pointer, unique_name(uri, pointer), {}});
        made.emplace(pointer, copies_.size() - 1);
        return std::pair{copies_.size() - 1, std::string()};
    }

    /// A definition name no other has: the last token of `pointer`, or for a whole document its
    /// file's name up to the first dot ("money.schema.json" is "money"), then _2, _3, ...
    std::string unique_name(const std::string& uri, const std::string& pointer) {
        const std::size_t slash = pointer.rfind('/');
        std::string stem =
            slash == std::string::npos ? std::string() : unescape_pointer_token(pointer.substr(slash + 1));
        if (stem.empty()) {
            stem = uri.substr(uri.rfind('/') + 1);
            stem = stem.substr(0, stem.find('.', 1));
        }
        const std::string base = plain_name(stem);
        std::string name = base;
        for (std::size_t& n = suffixes_[base]; !names_.insert(name).second;) {
            name = base + "_" + std::to_string(++n + 1);
        }
        return name;
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

    ref_follower refs_;
    schema_dialect root_dialect_;
    const char* defs_keyword_;
    std::vector<copied_schema> copies_;
    std::map<std::string, std::map<std::string, std::size_t>> copies_at_; // uri -> pointer -> copy
    std::set<std::pair<std::size_t, std::string>> walked_;                // copy, pointer
    std::vector<place> pending_;
    std::set<std::string> names_;
    std::map<std::string, std::size_t> suffixes_;
    std::size_t copied_values_ = 0;
    bool rewritten_ = false;
    bool left_as_written_ = false;
};

/// bundled_schema on `root` as read into `plain` (the same document as nlohmann::json);
/// `compiled_in`: the dialect `root` compiled in, when it was compiled already with `scope`.
template <class Json>
[[nodiscard]] Json bundled_as(const Json& root, const nlohmann::json& plain, const ref_scope& scope,
                              const schema_options& options, std::optional<schema_dialect> compiled_in) {
    try {
        schema_options read = options;
        read.dialect = compiled_in ? compiled_in
                                   : compiled_schema_access::compile(plain, scope.base_uri, scope.registry,
                                                                     scope.folders(), options)
                                         .dialect();
        ref_scope in_dialect = scope;
        in_dialect.dialect = read.dialect;
        const schema_bundler bundler(plain, in_dialect);
        if (!bundler.changes()) {
            return root;
        }
        Json bundle = bundler.bundle(root);
        const nlohmann::json alone(bundle);
        static_cast<void>(compiled_schema_access::compile(alone, "", nullptr, {}, read));
        // A root without `$schema` is read by the keywords it holds, and the copies add theirs.
        return compiled_schema::dialect_of(alone, options) == *read.dialect ? bundle : root;
    } catch (const schema_error&) {
    } catch (const nlohmann::json::exception&) {
    } catch (const std::filesystem::filesystem_error&) {
    }
    return root;
}

/// `root` standing alone (see above), as the same nlohmann type, when its bundle compiles on its
/// own as `root` compiles with its documents (`scope`, `options`); otherwise, and for a schema
/// the receiver refuses, `root` as written. Throws nothing but bad_alloc.
template <class Json>
[[nodiscard]] Json bundled_schema(const Json& root, const ref_scope& scope, const schema_options& options) {
    if constexpr (std::is_same_v<Json, nlohmann::json>) {
        return bundled_as(root, root, scope, options, std::nullopt);
    } else {
        return bundled_as(root, nlohmann::json(root), scope, options, std::nullopt);
    }
}

/// The same for `root` already compiled as `compiled`, with `scope`'s documents: not compiled again.
[[nodiscard]] inline nlohmann::json bundled_compiled(const nlohmann::json& root, const ref_scope& scope,
                                                     const compiled_schema& compiled) {
    return bundled_as(root, root, scope, compiled.options(), compiled.dialect());
}

} // namespace handoff::detail
