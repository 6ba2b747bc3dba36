// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/config.hpp>
#include <handoff/problem.hpp>
#include <handoff/schema_dialect.hpp>
#include <handoff/schema_error.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // int32_t, uint64_t
#include <filesystem>  // path
#include <memory>      // shared_ptr
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff {

struct schema_options {
    /// A string (or an object key) longer than this many characters is never given to a
    /// `pattern`, `patternProperties` or `propertyNames` regex: it fails that pattern with a
    /// problem saying so. The regex engine is linear, but a megabyte is still a megabyte.
    /// Inside `not` (or an `if` condition, a `oneOf` branch, `contains` under `maxContains`)
    /// that failure would let the value pass: the value is refused instead.
    std::uint64_t max_pattern_subject = 4096;
    /// The dialect of a schema whose root declares no `$schema`; without it, the schema's own
    /// keywords decide (see compiled_schema::dialect()). A declared `$schema` always wins.
    std::optional<schema_dialect> dialect{};
    /// Whether `format` asserts (a string that does not match a format handoff checks fails; the
    /// formats are listed in docs/json-schema.md) or only annotates, as the dialects specify by
    /// default. Other format names always annotate.
    bool assert_formats = false;
};

class schema_registry; // schema_registry.hpp: the documents `$ref`s may name

namespace detail {
struct compiled_schema_state;  // the schema, its node tree and options (schema-inl.hpp)
struct compiled_schema_access; // the library's other readers of schemas compile through this
} // namespace detail

/// A JSON Schema (draft-04, draft-06, draft-07, 2019-09 or 2020-12) compiled once by handoff's own
/// validator; validating never re-reads the schema. Cheap to copy (shared, immutable) and safe to
/// use from many threads at once.
class compiled_schema {
public:
    /// validate() lists at most this many problems, then one that counts the rest.
    static constexpr std::size_t max_listed_problems = 100;

    /// Throws schema_error (pointer() says where) when `schema` is not a usable schema of its
    /// dialect (dialect_of): a malformed keyword, a regex that is not ECMA-262, a `$ref` to a
    /// document that is not in `registry`, a reference loop that reads no input, a 2019-09/2020-12
    /// keyword in a draft-04/06/07 schema, a `$schema` naming no metaschema handoff knows.
    [[nodiscard]] static compiled_schema from_json(const nlohmann::json& schema, const schema_options& options = {});
    [[nodiscard]] static compiled_schema from_json(const nlohmann::json& schema, const schema_registry& registry,
                                                   const schema_options& options = {});

    /// Reads and compiles a schema file. Relative `$ref`s resolve against its file:// URI;
    /// referenced files are loaded from its own folder and the registry's folders only.
    [[nodiscard]] static compiled_schema from_file(const std::filesystem::path& path,
                                                   const schema_options& options = {});
    [[nodiscard]] static compiled_schema from_file(const std::filesystem::path& path, const schema_registry& registry,
                                                   const schema_options& options = {});

    /// The schema as it was given.
    [[nodiscard]] const nlohmann::json& document() const noexcept;
    [[nodiscard]] const schema_options& options() const noexcept;

    /// The dialect the schema's root was read in (dialect_of).
    [[nodiscard]] schema_dialect dialect() const noexcept;

    /// The dialect a schema is read in: the one its `$schema` names (an official metaschema URI,
    /// with or without the empty fragment); else `options.dialect`; else the one its keywords
    /// say (2020-12 for prefixItems, $dynamicRef, or $defs and the like without an array
    /// "items"; 2019-09 for $recursiveRef, or such keywords with an array "items"; draft-04 for
    /// a boolean exclusiveMaximum/exclusiveMinimum; draft-07 otherwise). docs/json-schema.md
    /// states the rule. A `$schema` naming a registered metaschema is resolved when compiling.
    [[nodiscard]] static schema_dialect dialect_of(const nlohmann::json& schema, const schema_options& options = {});

    /// Validates `value`; each failure becomes a problem of `step_of_problems` whose pointer is
    /// `base_pointer` followed by the path inside `value`. Agrees with accepts() on every value.
    [[nodiscard]] problem_list validate(const nlohmann::json& value, std::string_view base_pointer,
                                        step step_of_problems, const char* code = codes::task_schema) const;

    /// Whether `value` fits: stops at the first failure, allocates nothing in the common case.
    [[nodiscard]] bool accepts(const nlohmann::json& value) const;

    [[nodiscard]] bool is_valid(const nlohmann::json& value) const { return accepts(value); }

private:
    friend struct detail::compiled_schema_access;

    /// The node a schema object of document() was compiled to (-1: none), and a value judged
    /// from there: exactly as the whole schema judges the value where that subschema applies,
    /// unless the schema resolves references by dynamic scope (then -1 for every object).
    [[nodiscard]] std::int32_t node_of(const nlohmann::json* part) const;
    /// Whether every subschema is read as a schema compiled on its own in dialect() would be:
    /// false where a `$schema` (or a referenced document) reads some in another dialect or with
    /// other vocabularies.
    [[nodiscard]] bool one_reading() const noexcept;
    /// How many subschemas it compiled to.
    [[nodiscard]] std::size_t node_count() const noexcept;
    /// The place a node's messages name (a pointer, or a URI with one); `node` < node_count().
    [[nodiscard]] const std::string& where_of(std::int32_t node) const;
    /// Walks of subschemas over values in one judgment past which each walk is remembered and the
    /// same walk made again answered from memory: more than a reply within the default parse
    /// limits takes with a schema that applies a few subschemas to each of its values, so that
    /// such a judgment never pays for the memory, while a schema that applies the same subschemas
    /// to the same value over and over (chains of $ref under if, not, allOf, anyOf or oneOf) costs
    /// what its distinct walks cost, not a count that doubles with each link.
    static constexpr std::size_t walks_before_memo = std::size_t{1} << 20;

    /// `depth`: how deep the walk that reaches `value` is already, which the bound on nesting
    /// counts (a member judged on its own starts where the whole schema's walk reaches it).
    /// `remember_after`: walks_before_memo, or fewer (a test of the memory: the judgment is the
    /// same either way).
    [[nodiscard]] bool accepts_at(std::int32_t node, const nlohmann::json& value, int depth = 0,
                                  std::size_t remember_after = walks_before_memo) const;
    [[nodiscard]] problem_list validate_at(std::int32_t node, const nlohmann::json& value,
                                           std::string_view base_pointer, step step_of_problems,
                                           const char* code = codes::task_schema, int depth = 0,
                                           std::size_t remember_after = walks_before_memo) const;
    /// The root's node.
    [[nodiscard]] std::int32_t root_node() const noexcept;

    /// `where_prefix`: the place of `schema` inside a larger schema it was taken from, put before
    /// every place its messages name (a subschema compiled on its own names places as the
    /// whole schema does).
    [[nodiscard]] static compiled_schema compile(const nlohmann::json& schema, const std::string& uri,
                                                 const schema_registry* registry,
                                                 std::vector<std::filesystem::path> folders,
                                                 const schema_options& options, const std::string& where_prefix = {});

    compiled_schema() = default;

    std::shared_ptr<const detail::compiled_schema_state> state_;
};

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/schema-inl.hpp>
#endif
