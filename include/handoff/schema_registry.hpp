// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/config.hpp>
#include <handoff/schema_dialect.hpp>
#include <handoff/schema_error.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>  // path
#include <map>         // map
#include <memory>      // shared_ptr, unique_ptr
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff {
namespace detail {

class id_index;
struct schema_location;

/// The registry's `$id` index behind a pointer, so that this header need not see its type.
/// Copies are deep (a copied registry adds to its own index); a moved-from box is empty and
/// behaves as an index of nothing.
class id_index_box {
public:
    id_index_box();
    id_index_box(const id_index_box& other);
    id_index_box(id_index_box&& other) noexcept;
    id_index_box& operator=(const id_index_box& other);
    id_index_box& operator=(id_index_box&& other) noexcept;
    ~id_index_box();

    /// Adds every `$id` of `root`, read against `base`, named inside `document_uri`.
    void scan(const nlohmann::json& root, const std::string& base, const std::string& document_uri);
    /// The schema declared under `uri`, or null.
    [[nodiscard]] const schema_location* find(const std::string& uri) const;

private:
    std::unique_ptr<id_index> index_;
};

/// `content`, the text of the schema file at `path`, parsed as read_json_file parses it;
/// throws its schema_error, naming the file, when it is not JSON.
[[nodiscard]] nlohmann::json parse_schema_file_text(const std::string& content, const std::filesystem::path& path);

/// Whether `uri` names one of the metaschemas every registry holds (the dialects' and their
/// vocabularies').
[[nodiscard]] bool is_built_in_document(std::string_view uri);

} // namespace detail

/// The schema documents `$ref`s may name besides the schema itself, by URI, filled by the user:
/// handoff never fetches anything over a network. The official metaschemas of the five dialects
/// (2019-09's and 2020-12's vocabulary metaschemas too) are built in. A URI
/// registered here wins over a `$id` that another document claims for itself.
class schema_registry {
public:
    /// Registers `document` under `uri` (its fragment, if any, is dropped). Throws schema_error
    /// for a document nested past any schema (compiled_schema's bound), which it never copies.
    void add(std::string_view uri, const nlohmann::json& document);

    /// Reads a JSON file and registers it under `uri`, or under its file:// URI when none is
    /// given. Throws schema_error when the file cannot be read, is not JSON, or nests past any
    /// schema.
    void add_file(const std::filesystem::path& path, std::string_view uri = {});

    /// Registers every *.json file under `dir` (recursively): under `base_uri` + its relative
    /// path, and under its file:// URI. `dir` also becomes a folder from which
    /// compiled_schema::from_file may load the files a schema file refers to.
    void add_directory(const std::filesystem::path& dir, std::string_view base_uri = {});

    /// The document registered (or built in) under `uri`, or null.
    [[nodiscard]] const nlohmann::json* find_document(std::string_view uri) const;

    /// The schema `reference` names, read against `base_uri` as compiled_schema reads it: a registered
    /// document, a `$id` one of them declares, then a JSON pointer or a "#name" inside it. Null
    /// when nothing is registered under that URI or the fragment leads nowhere.
    [[nodiscard]] const nlohmann::json* resolve(std::string_view reference, std::string_view base_uri) const;

    /// `resolve`, with the base URI around the schema found and where it is.
    [[nodiscard]] std::optional<detail::schema_location> locate(const std::string& absolute_reference) const;

    /// The folders of add_directory, canonical.
    [[nodiscard]] const std::vector<std::filesystem::path>& directories() const noexcept { return directories_; }

    /// A URI as a map key: scheme and host lower-case, dot segments removed, no fragment; an
    /// official metaschema has one spelling (http or https, as published).
    [[nodiscard]] static std::string normalize(std::string_view uri);

    /// file:// URI of a path, made absolute and canonical.
    [[nodiscard]] static std::string file_uri(const std::filesystem::path& path);

    /// The parsed draft-07 metaschema.
    [[nodiscard]] static const nlohmann::json& metaschema();
    /// The parsed official metaschema of `dialect`.
    [[nodiscard]] static const nlohmann::json& metaschema(schema_dialect dialect);

    /// Reads a JSON file; throws schema_error when it is unreadable or not JSON.
    [[nodiscard]] static nlohmann::json read_json_file(const std::filesystem::path& path);

private:
    void add_files_under(const std::filesystem::path& root, std::string_view base_uri);

    std::map<std::string, std::shared_ptr<const nlohmann::json>> documents_;
    std::vector<std::shared_ptr<const nlohmann::json>> kept_;
    detail::id_index_box ids_;
    std::vector<std::filesystem::path> directories_;
};

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/schema_registry-inl.hpp>
#endif
