// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/config.hpp>
#include <handoff/decision_table.hpp>
#include <handoff/enums.hpp>
#include <handoff/fixture_manifest.hpp>
#include <handoff/receiver.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>     // uint64_t
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff {

struct fixture_options {
    /// The receiver that checks every fixture as it is made; its policy's table gives the bands.
    receiver_options receiving{};
    /// Items a capped fixture counts. 1000 puts "just below" an edge 0.001 under it.
    std::uint64_t items_expected = 1000;
    std::string unit = "items";
};

/// One fixture: the text a worker might send, and how the receiver routes it.
struct fixture_file {
    manifest_entry entry;
    std::string text;
};

/// Every fixture for one task schema, or why there is none. Each file was received by a
/// `receiver<>` built from the task schema and routed exactly as its entry says.
struct [[nodiscard]] fixture_set {
    std::vector<fixture_file> files;
    /// Set when no fixture set could be made (no value fits the task schema) or when a fixture
    /// did not route as its entry says; `files` is then empty: a partial set would lie.
    std::optional<std::string> error;

    [[nodiscard]] bool ok() const noexcept { return !error; }

    /// manifest.jsonl: one line per file, in order.
    [[nodiscard]] std::string manifest_jsonl() const;
};

namespace detail {

/// The smallest count whose ratio the table puts at or above `edge` (band_of compares `>=`).
[[nodiscard]] std::uint64_t first_count_at(double edge, std::uint64_t expected);

} // namespace detail

/// Fixture envelopes for every route of a receiver built from `task_schema`: an accepted ok
/// envelope whose result is generated to fit the schema; a capped envelope for every reason
/// code at 0, just below and at each band edge, and 1; one contract failure per step (parse,
/// envelope schema, task schema, coverage); a step-3 downgrade; a run out of attempts (FAIL).
/// Each is received as it is made and kept only if it routes as its entry says.
/// Throws schema_error when `task_schema` does not compile (as receiver does).
[[nodiscard]] fixture_set make_fixtures(const nlohmann::json& task_schema, const fixture_options& options = {});

/// The same for a task schema whose `$ref`s may name other documents, read as
/// compiled_schema::from_file reads it: the documents of `registry`, and, when `base_uri` is the
/// schema's file:// URI (schema_registry::file_uri(path)), the files beside it and in the
/// registry's folders. The value is generated from the schema with those documents copied into
/// its definitions; every fixture is still received by a receiver of the schema as given.
/// Throws the schema_error compiled_schema::from_file(path, registry) throws.
[[nodiscard]] fixture_set make_fixtures(const nlohmann::json& task_schema, const schema_registry& registry,
                                        std::string_view base_uri, const fixture_options& options = {});

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/fixtures-inl.hpp>
#endif
