// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/draft07_metaschema.hpp>
#include <handoff/detail/schema_ids.hpp>
#include <handoff/detail/uri.hpp>
#include <handoff/schema_error.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>  // path, recursive_directory_iterator, weakly_canonical
#include <fstream>     // ifstream
#include <map>         // map
#include <memory>      // shared_ptr
#include <optional>    // optional
#include <sstream>     // ostringstream
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff {

/// The schema documents `$ref`s may name besides the schema itself, by URI, filled by the user:
/// handoff never fetches anything over a network. The draft-07 metaschema is built in. A URI
/// registered here wins over a `$id` that another document claims for itself.
class schema_registry {
public:
    /// Registers `document` under `uri` (its fragment, if any, is dropped).
    void add(std::string_view uri, const nlohmann::json& document) {
        auto shared = std::make_shared<const nlohmann::json>(document);
        const std::string key = normalize(uri);
        documents_[key] = shared;
        kept_.push_back(shared); // ids_ points into every document ever added
        ids_.scan(*shared, key, key);
    }

    /// Reads a JSON file and registers it under `uri`, or under its file:// URI when none is
    /// given. Throws schema_error when the file cannot be read or is not JSON.
    void add_file(const std::filesystem::path& path, std::string_view uri = {}) {
        const nlohmann::json document = read_json_file(path);
        add(uri.empty() ? file_uri(path) : std::string(uri), document);
    }

    /// Registers every *.json file under `dir` (recursively): under `base_uri` + its relative
    /// path, and under its file:// URI. `dir` also becomes a folder from which
    /// compiled_schema::from_file may load the files a schema file refers to.
    void add_directory(const std::filesystem::path& dir, std::string_view base_uri = {}) {
        try {
            add_files_under(std::filesystem::weakly_canonical(dir), base_uri);
        } catch (const std::filesystem::filesystem_error& e) {
            throw schema_error("cannot read schema directory " + dir.string() + ": " + e.what());
        }
    }

    /// The document registered (or built in) under `uri`, or null.
    [[nodiscard]] const nlohmann::json* find_document(std::string_view uri) const {
        const std::string key = normalize(uri);
        if (const auto it = documents_.find(key); it != documents_.end()) {
            return it->second.get();
        }
        return key == detail::draft07_metaschema_uri ? &metaschema() : nullptr;
    }

    /// The schema `reference` names, read against `base_uri` as draft-07 does: a registered
    /// document, a `$id` one of them declares, then a JSON pointer or a "#name" inside it. Null
    /// when nothing is registered under that URI or the fragment leads nowhere.
    [[nodiscard]] const nlohmann::json* resolve(std::string_view reference, std::string_view base_uri) const {
        const auto found = locate(detail::resolve_uri(base_uri, reference));
        return found ? found->schema : nullptr;
    }

    /// `resolve`, with the base URI around the schema found and where it is.
    [[nodiscard]] std::optional<detail::schema_location> locate(const std::string& absolute_reference) const {
        const detail::uri_split parts = detail::split_fragment(absolute_reference);
        const std::string document = normalize(parts.document);
        if (!parts.fragment.empty() && parts.fragment.front() != '/') {
            const detail::schema_location* named = ids_.find(document + "#" + parts.fragment);
            return named ? std::optional<detail::schema_location>(*named) : std::nullopt;
        }
        if (const nlohmann::json* root = find_document(document)) {
            return detail::walk_pointer(*root, document, detail::location_of(document, ""), parts.fragment);
        }
        if (const detail::schema_location* by_id = ids_.find(document)) {
            return detail::walk_pointer(*by_id->schema, by_id->parent_base, by_id->where, parts.fragment);
        }
        return std::nullopt;
    }

    /// The folders of add_directory, canonical.
    [[nodiscard]] const std::vector<std::filesystem::path>& directories() const noexcept { return directories_; }

    /// A URI as a map key: scheme and host lower-case, dot segments removed, no fragment; the
    /// https spelling of the draft-07 metaschema is the http one.
    [[nodiscard]] static std::string normalize(std::string_view uri) {
        std::string key = detail::split_fragment(detail::resolve_uri("", uri)).document;
        if (key == "https://json-schema.org/draft-07/schema") {
            key = std::string(detail::draft07_metaschema_uri);
        }
        return key;
    }

    /// file:// URI of a path, made absolute and canonical.
    [[nodiscard]] static std::string file_uri(const std::filesystem::path& path) {
        return "file://" + std::filesystem::weakly_canonical(std::filesystem::absolute(path)).generic_string();
    }

    /// The parsed draft-07 metaschema.
    [[nodiscard]] static const nlohmann::json& metaschema() {
        static const nlohmann::json document = nlohmann::json::parse(detail::draft07_metaschema_text);
        return document;
    }

    /// Reads a JSON file; throws schema_error when it is unreadable or not JSON.
    [[nodiscard]] static nlohmann::json read_json_file(const std::filesystem::path& path) {
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            throw schema_error("cannot read schema file " + path.string());
        }
        std::ostringstream text;
        text << in.rdbuf();
        nlohmann::json document = nlohmann::json::parse(text.str(), nullptr, false);
        if (document.is_discarded()) {
            throw schema_error("schema file " + path.string() + " is not valid JSON");
        }
        return document;
    }

private:
    void add_files_under(const std::filesystem::path& root, std::string_view base_uri) {
        if (!std::filesystem::is_directory(root)) {
            throw schema_error("schema directory " + root.string() + " is not a directory");
        }
        directories_.push_back(root);
        for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
            if (!entry.is_regular_file() || entry.path().extension() != ".json") {
                continue;
            }
            const nlohmann::json document = read_json_file(entry.path());
            add(file_uri(entry.path()), document);
            if (!base_uri.empty()) {
                add(detail::resolve_uri(base_uri, entry.path().lexically_relative(root).generic_string()), document);
            }
        }
    }

    std::map<std::string, std::shared_ptr<const nlohmann::json>> documents_;
    std::vector<std::shared_ptr<const nlohmann::json>> kept_;
    detail::id_index ids_;
    std::vector<std::filesystem::path> directories_;
};

} // namespace handoff
