// SPDX-License-Identifier: MIT
#pragma once

// Schema JSON -> a vector of schema_node. Each schema object is compiled once (memoised by
// address), its keywords through one table (keyword -> compile function), every `$ref`
// resolved to a node index here, never at run time. Whatever would make validation wrong or
// endless is a schema_error naming the pointer: a malformed keyword value, a regex that is not
// ECMA-262, an unknown reference, a reference that loops without reading input, a keyword of a
// later draft that draft-07 would silently ignore, a `$schema` other than draft-07.

#include <handoff/detail/schema/ref_resolver.hpp>
#include <handoff/detail/schema/keywords.hpp>
#include <handoff/detail/schema/node.hpp>
#include <handoff/schema_error.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>       // uint8_t
#include <string>        // string
#include <unordered_map> // unordered_map
#include <utility>       // move
#include <vector>        // vector

namespace handoff::detail {

/// Schemas (and chains of `$ref`s) nest at most this deep; deeper is a schema_error, never a
/// stack overflow.
inline constexpr int max_schema_depth = 512;

struct compiled_nodes {
    std::vector<schema_node> nodes;
    node_index root = no_node;
};

class schema_compiler {
public:
    explicit schema_compiler(ref_resolver resolver) : resolver_(std::move(resolver)) {}

    /// Compiles `root` (the document at the resolver's base URI).
    [[nodiscard]] compiled_nodes compile(const nlohmann::json& root) {
        const node_index top = compile_at(root, resolver_.root_base(), resolver_.root_where(""), 0);
        check_in_place_cycles();
        return compiled_nodes{std::move(nodes_), top};
    }

    /// Compiles the schema at `where`, or returns the node already compiled for it.
    [[nodiscard]] node_index compile_at(const nlohmann::json& s, const std::string& parent_base,
                                        const std::string& where, int depth) {
        if (const auto it = memo_.find(&s); it != memo_.end()) {
            return it->second;
        }
        if (depth > max_schema_depth) {
            throw schema_error(where, "the schema nests deeper than " + std::to_string(max_schema_depth) + " levels");
        }
        if (!s.is_object() && !s.is_boolean()) {
            throw schema_error(where, "a schema must be an object or a boolean, not " + std::string(s.type_name()));
        }
        const auto self = static_cast<node_index>(nodes_.size());
        nodes_.emplace_back();
        nodes_.back().where = where;
        memo_.emplace(&s, self);
        if (s.is_boolean()) {
            nodes_[static_cast<std::size_t>(self)].boolean = s.get<bool>();
            return self;
        }
        const keyword_context ctx{*this, self, s, base_inside(s, parent_base), where, depth};
        if (const auto ref = s.find("$ref"); ref != s.end()) {
            compile_ref(ctx, *ref); // draft-07: every sibling of $ref is ignored
            return self;
        }
        compile_keywords(ctx);
        return self;
    }

    [[nodiscard]] schema_node& node(node_index i) { return nodes_[static_cast<std::size_t>(i)]; }
    [[nodiscard]] std::shared_ptr<const ecma_regex> regex(const std::string& pattern, const std::string& where);

private:
    void compile_ref(const keyword_context& ctx, const nlohmann::json& ref) {
        if (!ref.is_string()) {
            throw schema_error(ctx.at("$ref"), "$ref must be a string");
        }
        // An unresolvable reference is reported at the schema that holds it.
        const schema_location target = resolver_.locate(ref.get_ref<const std::string&>(), ctx.base, ctx.where);
        const node_index to = compile_at(*target.schema, target.parent_base, target.where, ctx.depth + 1);
        node(ctx.self).ref = to;
    }

    void compile_keywords(const keyword_context& ctx) {
        for (auto it = ctx.schema.begin(); it != ctx.schema.end(); ++it) {
            if (const keyword_entry* k = find_keyword(it.key())) {
                compile_keyword(*k, ctx, *it);
            }
        }
    }

    /// In-place applicators ($ref, allOf, anyOf, oneOf, not, if/then/else, schema
    /// dependencies) evaluate the same value again; a cycle of them never ends.
    void check_in_place_cycles() {
        std::vector<std::uint8_t> state(nodes_.size(), 0); // 0 new, 1 on the path, 2 done
        for (std::size_t i = 0; i < nodes_.size(); ++i) {
            visit(static_cast<node_index>(i), state);
        }
    }

    void visit(node_index start, std::vector<std::uint8_t>& state) {
        // Iterative depth-first search: a long chain of schemas must not overflow the stack.
        std::vector<std::pair<node_index, std::size_t>> stack{{start, 0}};
        if (state[static_cast<std::size_t>(start)] != 0) {
            return;
        }
        state[static_cast<std::size_t>(start)] = 1;
        while (!stack.empty()) {
            auto& [at, next] = stack.back();
            const std::vector<node_index> edges = in_place_children(node(at));
            if (next == edges.size()) {
                state[static_cast<std::size_t>(at)] = 2;
                stack.pop_back();
                continue;
            }
            const node_index to = edges[next++];
            if (state[static_cast<std::size_t>(to)] == 1) {
                throw schema_error(node(to).where, "the schema refers to itself without reading any input "
                                                   "($ref, allOf, anyOf, oneOf, not or if in a loop): it "
                                                   "would never finish validating");
            }
            if (state[static_cast<std::size_t>(to)] == 0) {
                state[static_cast<std::size_t>(to)] = 1;
                stack.emplace_back(to, 0);
            }
        }
    }

    [[nodiscard]] static std::vector<node_index> in_place_children(const schema_node& n) {
        std::vector<node_index> out(n.all_of);
        for (const std::vector<node_index>* list : {&n.any_of, &n.one_of}) {
            for (node_index i : *list) {
                out.push_back(i);
            }
        }
        for (node_index i : {n.ref, n.not_schema, n.if_schema, n.then_schema, n.else_schema}) {
            if (i != no_node) {
                out.push_back(i);
            }
        }
        for (const dependency_rule& d : n.dependencies) {
            if (d.schema != no_node) {
                out.push_back(d.schema);
            }
        }
        return out;
    }

    ref_resolver resolver_;
    std::vector<schema_node> nodes_;
    std::unordered_map<const nlohmann::json*, node_index> memo_;
    std::unordered_map<std::string, std::shared_ptr<const ecma_regex>> regexes_;
};

inline std::shared_ptr<const ecma_regex> schema_compiler::regex(const std::string& pattern, const std::string& where) {
    if (const auto it = regexes_.find(pattern); it != regexes_.end()) {
        return it->second;
    }
    try {
        auto compiled = std::make_shared<const ecma_regex>(ecma_regex::compile(pattern));
        regexes_.emplace(pattern, compiled);
        return compiled;
    } catch (const regex_syntax_error& e) {
        throw schema_error(where, std::string("not an ECMA-262 regular expression: ") + e.what());
    }
}

// The keyword functions need the whole compiler (to compile subschemas); defined here, after it.
inline node_index keyword_context::sub(const nlohmann::json& s, const std::string& location) const {
    return compiler.compile_at(s, base, location, depth + 1);
}

inline schema_node& keyword_context::node() const { return compiler.node(self); }

inline std::shared_ptr<const ecma_regex> keyword_context::regex(const nlohmann::json& v,
                                                                const std::string& location) const {
    if (!v.is_string()) {
        throw schema_error(location, "a pattern must be a string");
    }
    return compiler.regex(v.get_ref<const std::string&>(), location);
}

} // namespace handoff::detail
