// SPDX-License-Identifier: MIT
#pragma once

// compiled_schema's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/detail/schema/compiler.hpp>
#include <handoff/detail/schema/depth_bound.hpp>
#include <handoff/detail/schema/dialect.hpp>
#include <handoff/detail/schema/validator.hpp>
#include <handoff/schema.hpp>
#include <handoff/schema_registry.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>    // size_t
#include <filesystem> // path, filesystem_error, weakly_canonical
#include <memory>     // make_shared
#include <optional>   // optional
#include <string>     // string, to_string
#include <utility>    // move
#include <vector>     // vector

namespace handoff {
namespace detail {

struct compiled_schema_state { // NOLINT(bugprone-exception-escape): a json destructor may throw bad_alloc, which
                               // terminates
    nlohmann::json document;
    compiled_nodes compiled;
    schema_options options;
};

/// Puts `prefix` before every place the nodes' messages name in this document (a place
/// reached through an `$id` names its own URI): the nodes' and their patterns'.
HANDOFF_INLINE void put_before_places(compiled_nodes& compiled, const std::string& prefix) {
    const auto put = [&prefix](std::string& where) {
        if (where.empty() || where.front() == '/') {
            where.insert(0, prefix);
        }
    };
    for (schema_node& n : compiled.nodes) {
        put(n.where);
        if (n.pattern) {
            put(n.pattern->where);
        }
        for (pattern_property_rule& rule : n.pattern_properties) {
            put(rule.pattern.where);
        }
    }
}

[[nodiscard]] HANDOFF_INLINE schema_validator validator_of(const compiled_schema_state& state,
                                                           std::size_t remember_after) {
    return {state.compiled, state.options.max_pattern_subject, remember_after};
}

} // namespace detail

HANDOFF_INLINE compiled_schema compiled_schema::from_json(const nlohmann::json& schema, const schema_options& options) {
    return compile(schema, "", nullptr, {}, options);
}

HANDOFF_INLINE compiled_schema compiled_schema::from_json(const nlohmann::json& schema, const schema_registry& registry,
                                                          const schema_options& options) {
    return compile(schema, "", &registry, {}, options);
}

HANDOFF_INLINE compiled_schema compiled_schema::from_file(const std::filesystem::path& path,
                                                          const schema_options& options) {
    static const schema_registry none;
    return from_file(path, none, options);
}

HANDOFF_INLINE compiled_schema compiled_schema::from_file(const std::filesystem::path& path,
                                                          const schema_registry& registry,
                                                          const schema_options& options) {
    const nlohmann::json schema = schema_registry::read_json_file(path);
    std::vector<std::filesystem::path> folders = registry.directories();
    try {
        folders.push_back(std::filesystem::weakly_canonical(std::filesystem::absolute(path)).parent_path());
    } catch (const std::filesystem::filesystem_error& e) {
        throw schema_error(std::string("cannot read schema file ") + path.string() + ": " + e.what());
    }
    return compile(schema, schema_registry::file_uri(path), &registry, std::move(folders), options);
}

HANDOFF_INLINE const nlohmann::json& compiled_schema::document() const noexcept { return state_->document; }

HANDOFF_INLINE const schema_options& compiled_schema::options() const noexcept { return state_->options; }

HANDOFF_INLINE schema_dialect compiled_schema::dialect() const noexcept { return state_->compiled.dialect; }

HANDOFF_INLINE schema_dialect compiled_schema::dialect_of(const nlohmann::json& schema, const schema_options& options) {
    if (schema.is_object()) {
        if (const auto declared = schema.find("$schema"); declared != schema.end() && declared->is_string()) {
            if (const auto d = detail::official_dialect(declared->get_ref<const std::string&>())) {
                return *d;
            }
        }
    }
    return options.dialect ? *options.dialect : detail::detect_dialect(schema);
}

HANDOFF_INLINE problem_list compiled_schema::validate(const nlohmann::json& value, std::string_view base_pointer,
                                                      step step_of_problems, const char* code) const {
    return validate_at(state_->compiled.root, value, base_pointer, step_of_problems, code);
}

HANDOFF_INLINE bool compiled_schema::accepts(const nlohmann::json& value) const {
    return accepts_at(state_->compiled.root, value);
}

HANDOFF_INLINE bool compiled_schema::one_reading() const noexcept { return state_->compiled.one_reading; }

HANDOFF_INLINE std::size_t compiled_schema::node_count() const noexcept { return state_->compiled.nodes.size(); }

HANDOFF_INLINE const std::string& compiled_schema::where_of(std::int32_t node) const {
    return state_->compiled.nodes.at(static_cast<std::size_t>(node)).where;
}

HANDOFF_INLINE std::int32_t compiled_schema::node_of(const nlohmann::json* part) const {
    // $dynamicRef and $recursiveRef resolve by the path taken from the root: a walk that
    // starts below it could resolve them otherwise.
    const auto& nodes = state_->compiled;
    const auto it = nodes.uses_dynamic_scope ? nodes.node_of.end() : nodes.node_of.find(part);
    return it == nodes.node_of.end() ? detail::no_node : it->second;
}

HANDOFF_INLINE std::int32_t compiled_schema::root_node() const noexcept { return state_->compiled.root; }

HANDOFF_INLINE bool compiled_schema::accepts_at(std::int32_t node, const nlohmann::json& value, int depth,
                                                std::size_t remember_after) const {
    detail::walk_sink sink;
    const detail::schema_validator validator = detail::validator_of(*state_, remember_after);
    return validator.walk(value, node, sink, depth) && !validator.undecided();
}

HANDOFF_INLINE problem_list compiled_schema::validate_at(std::int32_t node, const nlohmann::json& value,
                                                         std::string_view base_pointer, step step_of_problems,
                                                         const char* code, int depth,
                                                         std::size_t remember_after) const {
    if (accepts_at(node, value, depth, remember_after)) {
        return {}; // the common case: no pointer kept, no message built
    }
    detail::walk_sink sink(std::string(base_pointer), step_of_problems, code, max_listed_problems);
    const detail::schema_validator validator = detail::validator_of(*state_, remember_after);
    static_cast<void>(validator.walk(value, node, sink, depth));
    if (const std::optional<std::string>& why = validator.undecided(); why && !sink.failed()) {
        // The bound's own failure was inside a not (or the like), where it listed nothing, and
        // nothing else fails: it alone refuses the value.
        sink.fail([&] {
            return *why + "; it was reached where a failure would let the value pass (not, if, oneOf or "
                          "maxContains), so the value is refused rather than passed undecided";
        });
    }
    return std::move(sink).finish();
}

HANDOFF_INLINE compiled_schema compiled_schema::compile(const nlohmann::json& schema, const std::string& uri,
                                                        const schema_registry* registry,
                                                        std::vector<std::filesystem::path> folders,
                                                        const schema_options& options,
                                                        const std::string& where_prefix) {
    // Copying a JSON value recurses once per level: a document nested past what any schema
    // can be is refused before it is copied or walked, whatever the stack.
    detail::refuse_too_deep_schema(schema);
    auto state = std::make_shared<detail::compiled_schema_state>();
    state->document = schema;
    state->options = options;
    try {
        const schema_dialect dialect = dialect_of(state->document, options);
        detail::schema_compiler compiler(
            detail::ref_resolver(state->document, uri, registry, std::move(folders), dialect), options.assert_formats);
        state->compiled = compiler.compile(state->document, dialect);
    } catch (const std::filesystem::filesystem_error& e) {
        throw schema_error(std::string("a schema file cannot be read: ") + e.what());
    }
    if (!where_prefix.empty()) {
        detail::put_before_places(state->compiled, where_prefix);
    }
    compiled_schema out;
    out.state_ = std::move(state);
    return out;
}

} // namespace handoff
