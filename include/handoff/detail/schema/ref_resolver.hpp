// SPDX-License-Identifier: MIT
#pragma once

// Finds the schema a `$ref` names, at compile time, in this order: the document being compiled
// (its root URI and the `$id`s it declares), the registry (registered URIs first, then the
// `$id`s its documents declare, then the built-in metaschema), and, for a schema read from a
// file, the files beside it or in the registry's folders — never a file outside them, and never
// anything over a network.

#include <handoff/detail/schema/depth_bound.hpp>
#include <handoff/detail/schema/ids.hpp>
#include <handoff/detail/schema/uri.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/schema_error.hpp>
#include <handoff/schema_registry.hpp>

#include <nlohmann/json.hpp>

#include <filesystem> // path, weakly_canonical
#include <map>        // map
#include <memory>     // shared_ptr
#include <optional>   // optional
#include <string>     // string
#include <utility>    // move
#include <vector>     // vector

namespace handoff::detail {

class ref_resolver {
public:
    /// `root_uri`: where `root` lives ("" when unknown, then only fragments and absolute
    /// references resolve); `folders`: where files may be loaded from (canonical).
    /// `dialect`: the root's (nullopt: read "$id", else "id").
    ref_resolver(const nlohmann::json& root, const std::string& root_uri, const schema_registry* registry,
                 std::vector<std::filesystem::path> folders, std::optional<schema_dialect> dialect = std::nullopt)
        : root_(&root), root_uri_(schema_registry::normalize(root_uri)), registry_(registry),
          folders_(std::move(folders)), dialect_(dialect) {
        local_ids_.scan(root, root_uri_, root_uri_, dialect_);
    }

    [[nodiscard]] std::optional<schema_dialect> dialect() const noexcept { return dialect_; }

    [[nodiscard]] const std::string& root_base() const noexcept { return root_uri_; }
    [[nodiscard]] std::string root_where(const std::string& pointer) const { return location_of(root_uri_, pointer); }

    /// The schema `reference` (read against `base`) names; `where` is the `$ref`'s own pointer.
    [[nodiscard]] schema_location locate(const std::string& reference, const std::string& base,
                                         const std::string& where) {
        const std::string full = resolve_uri(base, reference);
        const uri_split parts = split_fragment(full);
        const std::string document = schema_registry::normalize(parts.document);
        const std::string absolute = parts.fragment.empty() ? document : document + "#" + parts.fragment;
        if (auto found = find(document, parts.fragment, absolute)) {
            return *found;
        }
        load_file(document, where);
        if (auto found = find(document, parts.fragment, absolute)) {
            return *found;
        }
        if (find(document, "", document)) {
            throw schema_error(where,
                               "$ref " + quote_untrusted(reference, 200) + " points to nothing in " +
                                   (document.empty() ? std::string("this schema") : quote_untrusted(document, 200)));
        }
        throw schema_error(where, "$ref " + quote_untrusted(reference, 200) + " names " +
                                      quote_untrusted(document, 200) +
                                      ", a document handoff does not know (nothing is ever fetched over a network): "
                                      "register it with schema_registry::add(...) or handoff-check --schema-dir DIR");
    }

private:
    [[nodiscard]] std::optional<schema_location> find(const std::string& document, const std::string& fragment,
                                                      const std::string& absolute) const {
        if (!fragment.empty() && fragment.front() != '/') {
            for (const id_index* ids : {&local_ids_, &loaded_ids_}) {
                if (const schema_location* named = ids->find(absolute)) {
                    return *named;
                }
            }
            return registry().locate(absolute);
        }
        if (document == root_uri_) {
            return walk_pointer(*root_, root_uri_, location_of(root_uri_, ""), fragment, dialect_);
        }
        if (const schema_location* by_id = local_ids_.find(document)) {
            return walk_pointer(*by_id, fragment, dialect_);
        }
        if (auto in_registry = registry().locate(absolute)) {
            return in_registry;
        }
        if (const auto it = loaded_.find(document); it != loaded_.end()) {
            return walk_pointer(*it->second, document, location_of(document, ""), fragment);
        }
        if (const schema_location* by_id = loaded_ids_.find(document)) {
            return walk_pointer(*by_id, fragment);
        }
        return std::nullopt;
    }

    [[nodiscard]] const schema_registry& registry() const {
        static const schema_registry built_in_only;
        return registry_ != nullptr ? *registry_ : built_in_only;
    }

    /// Loads a file:// document from an allowed folder the first time it is named.
    void load_file(const std::string& document, const std::string& where) {
        if (document.rfind("file://", 0) != 0 || document == root_uri_ || loaded_.count(document) != 0 ||
            registry().find_document(document) != nullptr) {
            return;
        }
        const std::filesystem::path path = std::filesystem::weakly_canonical(percent_decode(document.substr(7)));
        if (!inside_folders(path)) {
            throw schema_error(where, "$ref names " + quote_untrusted(document, 200) +
                                          ", outside the schema's folder and the registry's folders: handoff "
                                          "loads referenced files only from those");
        }
        if (!std::filesystem::is_regular_file(path)) {
            return; // an unknown reference: locate says so
        }
        nlohmann::json read = schema_registry::read_json_file(path);
        if (schema_nests_too_deep(read)) { // as schema_registry::add refuses it: copies of it would recurse
            throw schema_error(where,
                               "$ref names " + quote_untrusted(document, 200) + ": " + schema_too_deep_message());
        }
        auto doc = std::make_shared<const nlohmann::json>(std::move(read));
        loaded_.emplace(document, doc);
        loaded_ids_.scan(*doc, document, document);
    }

    [[nodiscard]] bool inside_folders(const std::filesystem::path& path) const {
        return std::any_of(folders_.begin(), folders_.end(), [&](const std::filesystem::path& folder) {
            const std::filesystem::path rel = path.lexically_relative(folder);
            return !rel.empty() && rel.native().rfind("..", 0) != 0;
        });
    }

    const nlohmann::json* root_;
    std::string root_uri_;
    const schema_registry* registry_;
    std::vector<std::filesystem::path> folders_;
    std::optional<schema_dialect> dialect_;
    id_index local_ids_;
    std::map<std::string, std::shared_ptr<const nlohmann::json>> loaded_;
    id_index loaded_ids_;
};

} // namespace handoff::detail
