// SPDX-License-Identifier: MIT
#pragma once

// schema_registry's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/schema_registry.hpp>

#include <handoff/decode.hpp>
#include <handoff/detail/read_file.hpp>
#include <handoff/detail/schema/depth_bound.hpp>
#include <handoff/detail/schema/dialect.hpp>
#include <handoff/detail/schema/ids.hpp>
#include <handoff/detail/schema/metaschemas.hpp>
#include <handoff/detail/schema/uri.hpp>
#include <handoff/problem.hpp>
#include <handoff/schema_error.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>  // path, recursive_directory_iterator, weakly_canonical
#include <functional>  // less
#include <map>         // map
#include <memory>      // make_shared, make_unique
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move

namespace handoff {
namespace detail {

HANDOFF_INLINE id_index_box::id_index_box() : index_(std::make_unique<id_index>()) {}

HANDOFF_INLINE id_index_box::id_index_box(const id_index_box& other)
    : index_(other.index_ ? std::make_unique<id_index>(*other.index_) : std::make_unique<id_index>()) {}

HANDOFF_INLINE id_index_box::id_index_box(id_index_box&& other) noexcept = default;

HANDOFF_INLINE id_index_box& id_index_box::operator=(const id_index_box& other) {
    if (this != &other) {
        id_index_box copy(other);
        index_ = std::move(copy.index_);
    }
    return *this;
}

HANDOFF_INLINE id_index_box& id_index_box::operator=(id_index_box&& other) noexcept = default;

HANDOFF_INLINE id_index_box::~id_index_box() = default;

HANDOFF_INLINE void id_index_box::scan(const nlohmann::json& root, const std::string& base,
                                       const std::string& document_uri) {
    if (!index_) {
        index_ = std::make_unique<id_index>(); // a moved-from box starts over empty
    }
    index_->scan(root, base, document_uri);
}

HANDOFF_INLINE const schema_location* id_index_box::find(const std::string& uri) const {
    return index_ ? index_->find(uri) : nullptr;
}

/// The built-in metaschemas, parsed once, with the ids they declare.
struct builtin_documents {
    std::map<std::string, nlohmann::json, std::less<>> documents;
    id_index ids;
};

[[nodiscard]] HANDOFF_INLINE const builtin_documents& builtins() {
    static const builtin_documents all = [] {
        builtin_documents out;
        for (const builtin_metaschema& m : builtin_metaschemas) {
            out.documents.emplace(std::string(m.uri), parse_document(m.text).value());
        }
        for (const auto& [uri, document] : out.documents) {
            out.ids.scan(document, uri, uri, dialect_inside(document, std::nullopt));
        }
        return out;
    }();
    return all;
}

} // namespace detail

HANDOFF_INLINE void schema_registry::add(std::string_view uri, const nlohmann::json& document) {
    const std::string key = normalize(uri);
    if (detail::schema_nests_too_deep(document)) {
        // Copying it, or scanning it for ids, would recurse once per level.
        throw schema_error(key + "#", detail::schema_too_deep_message());
    }
    auto shared = std::make_shared<const nlohmann::json>(document);
    documents_[key] = shared;
    kept_.push_back(shared); // ids_ points into every document ever added
    ids_.scan(*shared, key, key);
}

HANDOFF_INLINE void schema_registry::add_file(const std::filesystem::path& path, std::string_view uri) {
    const nlohmann::json document = read_json_file(path);
    add(uri.empty() ? file_uri(path) : std::string(uri), document);
}

HANDOFF_INLINE void schema_registry::add_directory(const std::filesystem::path& dir, std::string_view base_uri) {
    try {
        add_files_under(std::filesystem::weakly_canonical(dir), base_uri);
    } catch (const std::filesystem::filesystem_error& e) {
        throw schema_error("cannot read schema directory " + dir.string() + ": " + e.what());
    }
}

HANDOFF_INLINE bool detail::is_built_in_document(std::string_view uri) {
    return detail::builtins().documents.count(schema_registry::normalize(uri)) != 0;
}

HANDOFF_INLINE const nlohmann::json* schema_registry::find_document(std::string_view uri) const {
    const std::string key = normalize(uri);
    if (const auto it = documents_.find(key); it != documents_.end()) {
        return it->second.get();
    }
    const auto& built_in = detail::builtins().documents;
    const auto it = built_in.find(key);
    return it != built_in.end() ? &it->second : nullptr;
}

HANDOFF_INLINE const nlohmann::json* schema_registry::resolve(std::string_view reference,
                                                              std::string_view base_uri) const {
    const auto found = locate(detail::resolve_uri(base_uri, reference));
    return found ? found->schema : nullptr;
}

HANDOFF_INLINE std::optional<detail::schema_location>
schema_registry::locate(const std::string& absolute_reference) const {
    const detail::uri_split parts = detail::split_fragment(absolute_reference);
    const std::string document = normalize(parts.document);
    if (!parts.fragment.empty() && parts.fragment.front() != '/') {
        const detail::schema_location* named = ids_.find(document + "#" + parts.fragment);
        if (named == nullptr) {
            named = detail::builtins().ids.find(document + "#" + parts.fragment);
        }
        return named ? std::optional<detail::schema_location>(*named) : std::nullopt;
    }
    if (const nlohmann::json* root = find_document(document)) {
        return detail::walk_pointer(*root, document, detail::location_of(document, ""), parts.fragment);
    }
    if (const detail::schema_location* by_id = ids_.find(document)) {
        return detail::walk_pointer(*by_id, parts.fragment);
    }
    return std::nullopt;
}

HANDOFF_INLINE std::string schema_registry::normalize(std::string_view uri) {
    std::string key = detail::split_fragment(detail::resolve_uri("", uri)).document;
    if (const auto d = detail::official_dialect(key)) {
        key = std::string(detail::metaschema_uri(*d)); // one spelling of each official metaschema
    }
    return key;
}

HANDOFF_INLINE std::string schema_registry::file_uri(const std::filesystem::path& path) {
    // '%', '#' and '?' in a path would read as an escape, a fragment or a query (a schema in a
    // folder named "a#b" would resolve its relative $refs in "a"): they are percent-encoded, as
    // the loader decodes them; every other byte is written as it is.
    return "file://" +
           detail::percent_encode(std::filesystem::weakly_canonical(std::filesystem::absolute(path)).generic_string(),
                                  [](unsigned char c) { return c == '%' || c == '#' || c == '?'; });
}

HANDOFF_INLINE const nlohmann::json& schema_registry::metaschema() { return metaschema(schema_dialect::draft07); }

HANDOFF_INLINE const nlohmann::json& schema_registry::metaschema(schema_dialect dialect) {
    return detail::builtins().documents.find(detail::metaschema_uri(dialect))->second;
}

HANDOFF_INLINE nlohmann::json detail::parse_schema_file_text(const std::string& content,
                                                             const std::filesystem::path& path) {
    problem failure;
    std::optional<nlohmann::json> document = parse_document(content, &failure);
    if (!document) {
        throw schema_error("schema file " + path.string() + " is not valid JSON: " + failure.message);
    }
    return std::move(*document);
}

HANDOFF_INLINE nlohmann::json schema_registry::read_json_file(const std::filesystem::path& path) {
    const std::optional<std::string> content = detail::read_file(path);
    if (!content) {
        throw schema_error("cannot read schema file " + path.string());
    }
    return detail::parse_schema_file_text(*content, path);
}

HANDOFF_INLINE void schema_registry::add_files_under(const std::filesystem::path& root, std::string_view base_uri) {
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

} // namespace handoff
