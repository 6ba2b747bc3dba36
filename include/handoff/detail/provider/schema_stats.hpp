// SPDX-License-Identifier: MIT
#pragma once

// The sizes providers limit, counted over a schema in one walk (rules.hpp names the
// limits). Counts are taken on the schema that is sent, after the rewrite, because that is
// the one the provider measures.

#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/provider/keep_rules.hpp>
#include <handoff/detail/provider/listed_names.hpp>
#include <handoff/detail/provider/rules.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // find, max, min
#include <cstddef>     // size_t
#include <cstdint>     // uint64_t
#include <map>         // map
#include <set>         // set
#include <string>      // string, to_string
#include <string_view> // string_view
#include <utility>     // pair
#include <vector>      // vector

namespace handoff::detail {

struct schema_stats {
    std::uint64_t object_properties = 0;
    std::uint64_t nesting_depth = 0;
    std::uint64_t enum_values = 0;
    std::uint64_t schema_string_length = 0;
    std::uint64_t large_enum_length = 0;
    std::uint64_t optional_properties = 0;
    std::uint64_t union_types = 0;
    std::uint64_t recursive_refs = 0;
    std::uint64_t max_items_sum = 0;
    std::uint64_t schema_depth = 0;

    [[nodiscard]] std::uint64_t get(schema_counter c) const noexcept {
        switch (c) {
        case schema_counter::object_properties: return object_properties;
        case schema_counter::nesting_depth: return nesting_depth;
        case schema_counter::enum_values: return enum_values;
        case schema_counter::schema_string_length: return schema_string_length;
        case schema_counter::large_enum_length: return large_enum_length;
        case schema_counter::optional_properties: return optional_properties;
        case schema_counter::union_types: return union_types;
        case schema_counter::recursive_refs: return recursive_refs;
        case schema_counter::max_items_sum: return max_items_sum;
        case schema_counter::schema_depth: return schema_depth;
        }
        return 0;
    }
};

inline void count_enum(const nlohmann::ordered_json& values, schema_stats& stats) {
    if (!values.is_array()) {
        return;
    }
    std::uint64_t length = 0;
    for (const auto& v : values) {
        if (v.is_string()) {
            length += v.get_ref<const std::string&>().size();
        }
    }
    stats.enum_values += values.size();
    stats.schema_string_length += length;
    if (values.size() > 250) {
        stats.large_enum_length = std::max(stats.large_enum_length, length);
    }
}

inline void count_properties(const nlohmann::ordered_json& node, schema_stats& stats) {
    const auto properties = node.find("properties");
    if (properties == node.end() || !properties->is_object()) {
        return;
    }
    const auto required = node.find("required");
    const listed_names names(required != node.end() ? &*required : nullptr);
    for (const auto& item : properties->items()) {
        ++stats.object_properties;
        stats.schema_string_length += item.key().size();
        if (!names.lists(item.key())) {
            ++stats.optional_properties;
        }
    }
}

/// A local $ref whose target contains the reference itself: the schema recurses.
[[nodiscard]] inline bool refers_to_ancestor(const nlohmann::ordered_json& node, const std::string& pointer) {
    const auto ref = node.find("$ref");
    if (ref == node.end() || !ref->is_string() || ref->get_ref<const std::string&>().rfind('#', 0) != 0) {
        return false;
    }
    const std::string target = ref->get<std::string>().substr(1);
    return target.empty() || pointer == target || pointer.rfind(target + "/", 0) == 0;
}

/// The counts of one schema object, without its subschemas.
inline void count_node(const nlohmann::ordered_json& node, const std::string& pointer, schema_stats& stats) {
    count_properties(node, stats);
    if (const auto e = node.find("enum"); e != node.end()) {
        count_enum(*e, stats);
    }
    if (const auto c = node.find("const"); c != node.end() && c->is_string()) {
        stats.schema_string_length += c->get_ref<const std::string&>().size();
    }
    const auto type = node.find("type");
    if (node.contains("anyOf") || (type != node.end() && type->is_array())) {
        ++stats.union_types;
    }
    if (refers_to_ancestor(node, pointer)) {
        ++stats.recursive_refs;
    }
    if (const auto m = node.find("maxItems"); m != node.end() && m->is_number_unsigned()) {
        const std::uint64_t value = m->get<std::uint64_t>();
        stats.max_items_sum = value > UINT64_MAX - stats.max_items_sum ? UINT64_MAX : stats.max_items_sum + value;
    }
}

/// Counts `node` (at `pointer`) and everything below it; `depth` is the number of object
/// schemas above it.
inline void count_schema(const nlohmann::ordered_json& node, std::uint64_t depth, const std::string& pointer,
                         schema_stats& stats, std::uint64_t schemas_above = 0) {
    if (!node.is_object()) {
        return;
    }
    const std::uint64_t here = is_object_schema(node) ? depth + 1 : depth;
    stats.nesting_depth = std::max(stats.nesting_depth, here);
    stats.schema_depth = std::max(stats.schema_depth, schemas_above + 1);
    count_node(node, pointer, stats);
    for (const auto& item : node.items()) {
        const std::string& key = item.key();
        const auto& value = item.value();
        const std::string below = pointer_child(pointer, key);
        if (key == "properties" || key == "$defs" || key == "definitions") {
            for (const auto& sub : value.items()) {
                if (key != "properties") {
                    stats.schema_string_length += sub.key().size();
                }
                count_schema(sub.value(), here, pointer_child(below, sub.key()), stats, schemas_above + 1);
            }
        } else if (key == "enum" || key == "const" || key == "required") {
            continue;
        } else if (value.is_array()) {
            for (std::size_t i = 0; i < value.size(); ++i) {
                count_schema(value[i], here, pointer_item(below, i), stats, schemas_above + 1);
            }
        } else {
            count_schema(value, here, below, stats, schemas_above + 1);
        }
    }
}

/// The names of the root definitions every `$ref` below `node` names ("#/$defs/NAME").
inline void referenced_definitions(const nlohmann::ordered_json& node, std::set<std::string>& names) {
    if (node.is_object()) {
        const auto ref = node.find("$ref");
        if (ref != node.end() && ref->is_string()) {
            const std::vector<std::string> tokens = pointer_tokens(ref->get<std::string>().substr(1));
            if (tokens.size() == 2 && tokens[0] == "$defs") {
                names.insert(tokens[1]);
            }
        }
    }
    if (node.is_structured()) {
        for (const auto& child : node) {
            referenced_definitions(child, names);
        }
    }
}

/// How many vertices of the graph `edges` (each vertex's successors) lie on a cycle: in a
/// strongly connected component of two or more, or with an edge to itself. Tarjan's algorithm,
/// with its own stack so that a chain of any length leaves the thread's stack alone; linear time.
[[nodiscard]] inline std::uint64_t vertices_on_cycles(const std::vector<std::vector<std::size_t>>& edges) {
    constexpr auto unvisited = static_cast<std::size_t>(-1);
    std::vector<std::size_t> index(edges.size(), unvisited);
    std::vector<std::size_t> low(edges.size(), 0);
    std::vector<bool> on_stack(edges.size(), false);
    std::vector<std::size_t> component;                  // Tarjan's stack
    std::vector<std::pair<std::size_t, std::size_t>> at; // the search path: vertex, next edge
    std::size_t counter = 0;
    std::uint64_t cyclic = 0;
    const auto enter = [&](std::size_t v) {
        index[v] = low[v] = counter++;
        component.push_back(v);
        on_stack[v] = true;
        at.emplace_back(v, 0);
    };
    for (std::size_t root = 0; root < edges.size(); ++root) {
        if (index[root] == unvisited) {
            enter(root);
        }
        while (!at.empty()) {
            const std::size_t v = at.back().first;
            if (at.back().second < edges[v].size()) {
                const std::size_t w = edges[v][at.back().second++];
                if (index[w] == unvisited) {
                    enter(w);
                } else if (on_stack[w]) {
                    low[v] = std::min(low[v], index[w]);
                }
                continue;
            }
            at.pop_back();
            if (!at.empty()) {
                low[at.back().first] = std::min(low[at.back().first], low[v]);
            }
            if (low[v] != index[v]) {
                continue;
            }
            std::uint64_t size = 0;
            for (std::size_t w = unvisited; w != v; ++size) {
                w = component.back();
                component.pop_back();
                on_stack[w] = false;
            }
            const bool self_loop = std::find(edges[v].begin(), edges[v].end(), v) != edges[v].end();
            cyclic += size > 1 || self_loop ? size : 0;
        }
    }
    return cyclic;
}

/// How many root definitions reach themselves through `$ref`s: a definition hoisted to the root
/// (hoist_defs.hpp) recurses through its name, not through an ancestor's pointer.
[[nodiscard]] inline std::uint64_t cyclic_definitions(const nlohmann::ordered_json& schema) {
    const auto defs = schema.find("$defs");
    if (defs == schema.end() || !defs->is_object()) {
        return 0;
    }
    std::map<std::string, std::size_t> vertex_of;
    for (const auto& item : defs->items()) {
        vertex_of.emplace(item.key(), vertex_of.size());
    }
    std::vector<std::vector<std::size_t>> edges(vertex_of.size());
    for (const auto& item : defs->items()) {
        std::set<std::string> names;
        referenced_definitions(item.value(), names);
        for (const std::string& name : names) {
            if (const auto to = vertex_of.find(name); to != vertex_of.end()) {
                edges[vertex_of.at(item.key())].push_back(to->second);
            }
        }
    }
    return vertices_on_cycles(edges);
}

[[nodiscard]] inline schema_stats measure_schema(const nlohmann::ordered_json& schema) {
    schema_stats stats;
    count_schema(schema, 0, "", stats);
    stats.recursive_refs = std::max(stats.recursive_refs, cyclic_definitions(schema));
    return stats;
}

} // namespace handoff::detail
