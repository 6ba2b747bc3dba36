// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/schema_compiler.hpp>
#include <handoff/detail/schema_validator.hpp>
#include <handoff/problem.hpp>
#include <handoff/schema_error.hpp>
#include <handoff/schema_registry.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // uint64_t
#include <filesystem>  // path, filesystem_error
#include <memory>      // shared_ptr
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move, pair
#include <vector>      // vector

namespace handoff {

namespace detail {

/// Whether `v` nests objects and arrays more than `limit` deep, found without recursion.
[[nodiscard]] inline bool nests_deeper_than(const nlohmann::json& v, std::size_t limit) {
    std::vector<std::pair<const nlohmann::json*, std::size_t>> pending{{&v, 1}};
    while (!pending.empty()) {
        const auto [node, depth] = pending.back();
        pending.pop_back();
        if (!node->is_structured()) {
            continue;
        }
        if (depth > limit) {
            return true;
        }
        for (const nlohmann::json& child : *node) {
            pending.emplace_back(&child, depth + 1);
        }
    }
    return false;
}

} // namespace detail

struct schema_options {
    /// A string (or an object key) longer than this many characters is never given to a
    /// `pattern`, `patternProperties` or `propertyNames` regex: it fails that pattern with a
    /// problem saying so. The regex engine is linear, but a megabyte is still a megabyte.
    std::uint64_t max_pattern_subject = 4096;
};

/// A JSON Schema (draft-07) compiled once by handoff's own validator; validating never re-reads
/// the schema. Cheap to copy (shared, immutable) and safe to use from many threads at once.
class compiled_schema {
public:
    /// validate() lists at most this many problems, then one that counts the rest.
    static constexpr std::size_t max_listed_problems = 100;

    /// Throws schema_error (pointer() says where) when `schema` is not a usable draft-07 schema:
    /// a malformed keyword, a regex that is not ECMA-262, a `$ref` to a document that is not
    /// in `registry`, a reference loop that reads no input, a later-draft keyword or `$schema`.
    [[nodiscard]] static compiled_schema from_json(const nlohmann::json& schema, const schema_options& options = {}) {
        return compile(schema, "", nullptr, {}, options);
    }

    [[nodiscard]] static compiled_schema from_json(const nlohmann::json& schema, const schema_registry& registry,
                                                   const schema_options& options = {}) {
        return compile(schema, "", &registry, {}, options);
    }

    /// Reads and compiles a schema file. Relative `$ref`s resolve against its file:// URI;
    /// referenced files are loaded from its own folder and the registry's folders only.
    [[nodiscard]] static compiled_schema from_file(const std::filesystem::path& path,
                                                   const schema_options& options = {}) {
        static const schema_registry none;
        return from_file(path, none, options);
    }

    [[nodiscard]] static compiled_schema from_file(const std::filesystem::path& path, const schema_registry& registry,
                                                   const schema_options& options = {}) {
        const nlohmann::json schema = schema_registry::read_json_file(path);
        std::vector<std::filesystem::path> folders = registry.directories();
        try {
            folders.push_back(std::filesystem::weakly_canonical(std::filesystem::absolute(path)).parent_path());
        } catch (const std::filesystem::filesystem_error& e) {
            throw schema_error(std::string("cannot read schema file ") + path.string() + ": " + e.what());
        }
        return compile(schema, schema_registry::file_uri(path), &registry, std::move(folders), options);
    }

    /// The schema as it was given.
    [[nodiscard]] const nlohmann::json& document() const noexcept { return state_->document; }
    [[nodiscard]] const schema_options& options() const noexcept { return state_->options; }

    /// Validates `value`; each failure becomes a problem of `step_of_problems` whose pointer is
    /// `base_pointer` followed by the path inside `value`. Agrees with accepts() on every value.
    [[nodiscard]] problem_list validate(const nlohmann::json& value, std::string_view base_pointer,
                                        step step_of_problems, const char* code = "task.schema") const {
        if (accepts(value)) {
            return {}; // the common case: no pointer kept, no message built
        }
        detail::problem_sink sink(std::string(base_pointer), step_of_problems, code, max_listed_problems);
        static_cast<void>(validator().walk(value, state_->compiled.root, sink, 0));
        return std::move(sink).finish();
    }

    /// Whether `value` fits: stops at the first failure, allocates nothing in the common case.
    [[nodiscard]] bool accepts(const nlohmann::json& value) const {
        detail::boolean_sink sink;
        return validator().walk(value, state_->compiled.root, sink, 0);
    }

    [[nodiscard]] bool is_valid(const nlohmann::json& value) const { return accepts(value); }

private:
    struct state { // NOLINT(bugprone-exception-escape): a json destructor may throw bad_alloc, which terminates
        nlohmann::json document;
        detail::compiled_nodes compiled;
        schema_options options;
    };

    [[nodiscard]] static compiled_schema compile(const nlohmann::json& schema, const std::string& uri,
                                                 const schema_registry* registry,
                                                 std::vector<std::filesystem::path> folders,
                                                 const schema_options& options) {
        // Copying a JSON value recurses once per level: a document nested past what any schema
        // can be is refused before it is copied or walked, whatever the stack.
        if (detail::nests_deeper_than(schema, 2 * static_cast<std::size_t>(detail::max_schema_depth))) {
            throw schema_error("", "the schema nests deeper than " + std::to_string(detail::max_schema_depth) +
                                       " levels (it is more than " + std::to_string(2 * detail::max_schema_depth) +
                                       " JSON levels deep)");
        }
        auto s = std::make_shared<state>();
        s->document = schema;
        s->options = options;
        try {
            detail::schema_compiler compiler(detail::ref_resolver(s->document, uri, registry, std::move(folders)));
            s->compiled = compiler.compile(s->document);
        } catch (const std::filesystem::filesystem_error& e) {
            throw schema_error(std::string("a schema file cannot be read: ") + e.what());
        }
        compiled_schema out;
        out.state_ = std::move(s);
        return out;
    }

    [[nodiscard]] detail::schema_validator validator() const {
        return {state_->compiled.nodes, state_->options.max_pattern_subject};
    }

    compiled_schema() = default;

    std::shared_ptr<const state> state_;
};

} // namespace handoff
