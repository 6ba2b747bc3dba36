// SPDX-License-Identifier: MIT
#pragma once

// Schema JSON -> a vector of schema_node. Each schema object is compiled once (memoised by
// address) in the dialect in force where it stands (its own `$schema`, else the last one on the
// way to it from its document's root, else the root schema's), whichever reference reaches it; its
// keywords through one keyword list (keyword -> compile function), every `$ref` resolved to a node index
// here, never at run time; a `$dynamicRef`/`$recursiveRef` keeps the targets the dynamic scope
// may choose from. Whatever would make validation wrong or endless is a schema_error naming the
// pointer: a malformed keyword value, a regex that is not ECMA-262, an unknown reference, a
// reference that loops without reading input, a later-draft keyword in an earlier dialect, a
// `$schema` naming no metaschema handoff knows.

#include <handoff/detail/schema/depth_bound.hpp>
#include <handoff/detail/schema/dialect.hpp>
#include <handoff/detail/schema/keywords.hpp>
#include <handoff/detail/schema/node.hpp>
#include <handoff/detail/schema/ref_resolver.hpp>
#include <handoff/schema_error.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>       // uint8_t, int32_t
#include <map>           // map
#include <string>        // string
#include <unordered_map> // unordered_map
#include <unordered_set> // unordered_set
#include <utility>       // move
#include <vector>        // vector

namespace handoff::detail {

/// A schema compiles to at most this many subschemas (each costs a node of some hundred bytes):
/// a million-entry "prefixItems" is a schema_error, never a gigabyte.
inline constexpr std::size_t max_schema_nodes = 100000;

struct compiled_nodes {
    std::vector<schema_node> nodes;
    node_index root = no_node;
    schema_dialect dialect = schema_dialect::draft07; // the root's
    /// For `$dynamicRef`/`$recursiveRef`: per schema resource (schema_node::resource), its
    /// `$dynamicAnchor`s by name and the root that says `"$recursiveAnchor": true`.
    bool uses_dynamic_scope = false;
    std::vector<std::map<std::string, node_index, std::less<>>> dynamic_anchors;
    std::vector<node_index> recursive_anchors;
    /// The node each schema object was compiled to, by its address (in the compiled document,
    /// or a document it refers to).
    std::unordered_map<const nlohmann::json*, node_index> node_of;
    /// Every schema object was read as the root's dialect reads it with its official
    /// vocabularies: false where a `$schema` inside (or at the root, naming a metaschema with a
    /// `$vocabulary`), or a referenced document, reads some of them otherwise.
    bool one_reading = true;
};

/// How a schema object is read: its dialect, the vocabularies in use, whether format asserts.
struct reading {
    schema_dialect dialect = schema_dialect::draft07;
    std::uint8_t vocabularies = vocab_official;
    bool assert_formats = false;
};

class schema_compiler {
public:
    schema_compiler(ref_resolver resolver, bool assert_formats)
        : resolver_(std::move(resolver)), assert_formats_(assert_formats) {}

    /// Compiles `root` (the document at the resolver's base URI), read in `dialect` unless it
    /// declares its own.
    [[nodiscard]] compiled_nodes compile(const nlohmann::json& root, schema_dialect dialect) {
        const reading around{dialect, vocab_official, assert_formats_};
        const reading inside = reading_of(root, around, resolver_.root_where(""));
        root_reading_ = inside;
        plain_reading_ = reading{inside.dialect, vocab_official, assert_formats_};
        const node_index top = compile_at(root, resolver_.root_base(), resolver_.root_where(""), 0, around);
        compile_pending();
        if (uses_dynamic_scope_) {
            compile_resources_in_scope();
        }
        check_in_place_cycles();
        if (!uses_dynamic_scope_) {
            forward_lone_refs();
        }
        find_tags();
        find_intervals();
        compiled_nodes out{std::move(nodes_), top, inside.dialect, uses_dynamic_scope_, {}, {}, {}};
        out.dynamic_anchors.resize(resources_.size());
        out.recursive_anchors.assign(resources_.size(), no_node);
        for (const auto& [key, node] : dynamic_anchors_) {
            out.dynamic_anchors[static_cast<std::size_t>(key.first)].emplace(key.second, node);
        }
        for (const auto& [resource, node] : recursive_anchors_) {
            out.recursive_anchors[static_cast<std::size_t>(resource)] = node;
        }
        out.node_of = std::move(memo_);
        out.one_reading = one_reading_;
        return out;
    }

    /// Compiles the schema at `where` (nested `depth` levels inside its document), or returns the
    /// node already compiled for it.
    [[nodiscard]] node_index compile_at(const nlohmann::json& s, const std::string& parent_base,
                                        const std::string& where, int depth, const reading& around) {
        const auto memo = memo_.find(&s);
        const bool awaiting = memo != memo_.end() && awaiting_.count(memo->second) != 0;
        if (memo != memo_.end() && !awaiting) {
            return memo->second;
        }
        if (depth > max_schema_depth) {
            throw schema_error(where, "the schema nests deeper than " + std::to_string(max_schema_depth) + " levels");
        }
        if (awaiting) {
            // A `$ref` target reached in place before its turn: read as the schema around it
            // reads it (its resource's dialect), not as the first reference to it happened to.
            awaiting_.erase(memo->second);
            fill(memo->second, s, parent_base, where, depth, around);
            return memo->second;
        }
        const node_index self = add_node(s, parent_base, where);
        if (s.is_object()) {
            fill(self, s, parent_base, where, depth, around);
        }
        return self;
    }

    [[nodiscard]] schema_node& node(node_index i) { return nodes_[static_cast<std::size_t>(i)]; }
    [[nodiscard]] std::shared_ptr<const ecma_regex> regex(const std::string& pattern, const std::string& where);

private:
    /// A `$ref` target waiting to be compiled: its node is made when the reference is read, its
    /// keywords later, from a list, so a chain of references however long never deepens the
    /// compiler's stack. A target that the walk of its own document reaches first is compiled
    /// there, in the reading of the schema around it.
    struct pending_target {
        node_index self;
        const nlohmann::json* schema;
        std::string parent_base;
        std::string where;
        reading around;
    };

    /// A new node for schema `s` (an object or a boolean), remembered by its address.
    [[nodiscard]] node_index add_node(const nlohmann::json& s, const std::string& parent_base,
                                      const std::string& where) {
        if (!s.is_object() && !s.is_boolean()) {
            throw schema_error(where, "a schema must be an object or a boolean, not " + std::string(s.type_name()));
        }
        if (nodes_.size() == max_schema_nodes) {
            throw schema_error(where, "the schema has more than " + std::to_string(max_schema_nodes) +
                                          " subschemas: handoff refuses it rather than hold them all");
        }
        const auto self = static_cast<node_index>(nodes_.size());
        nodes_.emplace_back();
        nodes_.back().where = where;
        nodes_.back().resource = resource_of(parent_base);
        if (s.is_boolean()) {
            nodes_.back().boolean = s.get<bool>();
        }
        memo_.emplace(&s, self);
        return self;
    }

    /// Compiles the keywords of schema object `s` into node `self`.
    void fill(node_index self, const nlohmann::json& s, const std::string& parent_base, const std::string& where,
              int depth, const reading& around) {
        const reading r = reading_of(s, around, where);
        one_reading_ = one_reading_ && r.dialect == plain_reading_.dialect &&
                       r.vocabularies == plain_reading_.vocabularies &&
                       r.assert_formats == plain_reading_.assert_formats;
        const std::string base = base_inside(s, parent_base, r.dialect);
        node(self).resource = resource_of(base);
        const keyword_context ctx{*this, self, s, base, where, depth, r.dialect, r.vocabularies, r.assert_formats};
        if (const auto ref = s.find("$ref"); ref != s.end() && ref_overrides_siblings(r.dialect)) {
            node(self).ref = compile_ref(ctx, *ref, "$ref"); // every sibling of $ref is ignored
            return;
        }
        compile_keywords(ctx);
        if (r.dialect == schema_dialect::draft04) {
            keywords::exclusive_bounds_of_draft04(ctx);
        }
        compile_refs(ctx);
    }

    /// The node of `$ref` target `s`: made now, its keywords compiled by compile_pending().
    [[nodiscard]] node_index defer(const nlohmann::json& s, const std::string& parent_base, const std::string& where,
                                   const reading& around) {
        if (const auto it = memo_.find(&s); it != memo_.end()) {
            return it->second;
        }
        const node_index self = add_node(s, parent_base, where);
        if (s.is_object()) {
            pending_.push_back(pending_target{self, &s, parent_base, where, around});
            awaiting_.insert(self);
        }
        return self;
    }

    /// Compiles every deferred target, and the targets they refer to, each from the top of its
    /// own nesting.
    void compile_pending() {
        while (!pending_.empty()) {
            const pending_target next = std::move(pending_.back());
            pending_.pop_back();
            if (awaiting_.erase(next.self) != 0) { // else compiled in place meanwhile
                fill(next.self, *next.schema, next.parent_base, next.where, 0, next.around);
            }
        }
    }

    /// The reading inside `s`: its `$schema`, if it has one, names the dialect (an official
    /// metaschema) or a metaschema whose `$vocabulary` says which keywords apply (core 2020-12,
    /// section 8.1.2); anything else is refused.
    [[nodiscard]] reading reading_of(const nlohmann::json& s, const reading& around, const std::string& where) {
        const auto declared = s.is_object() ? s.find("$schema") : s.end();
        if (!s.is_object() || declared == s.end()) {
            return around;
        }
        if (!declared->is_string()) {
            throw schema_error(pointer_child(where, "$schema"), "\"$schema\" must be a string");
        }
        const auto& uri = declared->get_ref<const std::string&>();
        if (const auto d = official_dialect(uri)) {
            return reading{*d, vocab_official, assert_formats_};
        }
        return reading_of_metaschema(uri, pointer_child(where, "$schema"));
    }

    [[nodiscard]] reading reading_of_metaschema(const std::string& uri, const std::string& where) {
        std::optional<schema_location> meta;
        try {
            meta = resolver_.locate(uri, "", where);
        } catch (const schema_error&) {
            meta.reset();
        }
        const auto declared =
            meta && meta->schema->is_object() ? meta->schema->find("$schema") : nlohmann::json::const_iterator{};
        const std::optional<schema_dialect> d =
            meta && meta->schema->is_object() && declared != meta->schema->end() && declared->is_string()
                ? official_dialect(declared->get_ref<const std::string&>())
                : std::nullopt;
        if (!d) {
            throw schema_error(where, "\"$schema\" names " + quote_untrusted(uri, 200) +
                                          ", which is neither the metaschema of a dialect handoff validates "
                                          "(draft-04, draft-06, draft-07, 2019-09, 2020-12) nor a registered "
                                          "metaschema written in one of them");
        }
        reading out{*d, vocab_official, assert_formats_};
        const auto vocabularies = meta->schema->find("$vocabulary");
        if (vocabularies == meta->schema->end() || !vocabularies->is_object()) {
            return out;
        }
        out.vocabularies = vocab_core;
        for (auto it = vocabularies->begin(); it != vocabularies->end(); ++it) {
            const auto* const known = std::find_if(std::begin(known_vocabularies), std::end(known_vocabularies),
                                                   [&](const vocabulary_name& v) { return v.uri == it.key(); });
            const bool required = it->is_boolean() && it->get<bool>();
            if (known == std::end(known_vocabularies)) {
                if (required) {
                    throw schema_error(where, "the metaschema " + quote_untrusted(uri, 200) +
                                                  " requires the vocabulary " + quote_untrusted(it.key(), 200) +
                                                  ", which handoff does not know");
                }
                continue;
            }
            out.vocabularies |= known->bit;
            // 2020-12's format-assertion asserts however it is listed: a vocabulary's boolean only
            // tells implementations that do not know it whether to go on (core 2020-12, section
            // 8.1.2). 2019-09's format vocabulary asserts only when required (validation 2019-09,
            // section 7.2).
            const bool format_2019 = it.key() == "https://json-schema.org/draft/2019-09/vocab/format";
            if (known->bit == vocab_format_assertion || (required && format_2019)) {
                out.assert_formats = true;
                out.vocabularies |= vocab_format_annotation;
            }
        }
        return out;
    }

    [[nodiscard]] std::int32_t resource_of(const std::string& base) {
        const auto [it, added] = resource_ids_.emplace(base, static_cast<std::int32_t>(resources_.size()));
        if (added) {
            resources_.push_back(base);
        }
        return it->second;
    }

    [[nodiscard]] node_index compile_ref(const keyword_context& ctx, const nlohmann::json& ref,
                                         std::string_view keyword) {
        if (!ref.is_string()) {
            throw schema_error(ctx.at(keyword), "\"" + std::string(keyword) + "\" must be a string");
        }
        // An unresolvable reference is reported at the schema that holds it.
        const schema_location target = resolver_.locate(ref.get_ref<const std::string&>(), ctx.base, ctx.where);
        return defer(*target.schema, target.parent_base, target.where, reading_around(target));
    }

    /// The reading around the schema at `target`, wherever the reference to it stands: the last
    /// `$schema` on the way to it from its document's root says it, or, in a document that
    /// declares none, the root schema's. So each schema object has one reading, however the
    /// compiler first reaches it.
    [[nodiscard]] reading reading_around(const schema_location& target) {
        return target.declaring != nullptr ? reading_of(*target.declaring, root_reading_, target.declaring_where)
                                           : root_reading_;
    }

    /// From 2019-09 on: `$ref` applies beside the other keywords; `$dynamicRef` (2020-12, core
    /// section 8.2.3.2) and `$recursiveRef` (2019-09, core section 8.2.4.2) start from a static
    /// target the dynamic scope may replace. Anchors are recorded for the walk to search.
    void compile_refs(const keyword_context& ctx) {
        const auto& s = ctx.schema;
        if (const auto a = s.find("$dynamicAnchor"); a != s.end() && ctx.dialect == schema_dialect::draft2020_12) {
            dynamic_anchors_.emplace(std::make_pair(node(ctx.self).resource, a->get<std::string>()), ctx.self);
        }
        if (const auto a = s.find("$recursiveAnchor");
            a != s.end() && a->is_boolean() && a->get<bool>() && ctx.dialect == schema_dialect::draft2019_09) {
            recursive_anchors_.emplace(node(ctx.self).resource, ctx.self);
        }
        if (const auto ref = s.find("$ref"); ref != s.end()) {
            const node_index to = compile_ref(ctx, *ref, "$ref");
            node(ctx.self).applied_ref = to;
            node(ctx.self).groups |= group_logic;
        }
        const bool in_2020 = ctx.dialect == schema_dialect::draft2020_12;
        const auto dynamic = s.find(in_2020 ? "$dynamicRef" : "$recursiveRef");
        if (dynamic == s.end() || (!in_2020 && ctx.dialect != schema_dialect::draft2019_09)) {
            return;
        }
        const node_index to = compile_ref(ctx, *dynamic, dynamic.key());
        schema_node& n = node(ctx.self);
        n.dynamic_target = to;
        n.groups |= group_logic;
        const std::string fragment = split_fragment(dynamic->get<std::string>()).fragment;
        const std::optional<schema_location> target =
            resolver_.locate(dynamic->get<std::string>(), ctx.base, ctx.where);
        const nlohmann::json& t = *target->schema;
        if (in_2020 && !fragment.empty() && fragment.front() != '/' && t.is_object() &&
            t.value("$dynamicAnchor", nlohmann::json()) == fragment) {
            n.dynamic = dynamic_kind::dynamic; // "bookended": the static target is itself a dynamic anchor
            n.dynamic_anchor = fragment;
            uses_dynamic_scope_ = true;
        } else if (!in_2020 && t.is_object() && t.value("$recursiveAnchor", nlohmann::json()) == true) {
            n.dynamic = dynamic_kind::recursive;
            uses_dynamic_scope_ = true;
        }
    }

    /// A resource in the dynamic scope may hold a `$dynamicAnchor` no `$ref` reached: every
    /// resource a compiled node belongs to is compiled whole.
    void compile_resources_in_scope() {
        // By index, and the URI copied: compiling a resource may add resources to resources_.
        for (std::size_t r = 0; r < resources_.size(); ++r) { // NOLINT(modernize-loop-convert)
            const std::string uri = resources_[r];
            if (uri.empty() || uri == resolver_.root_base()) {
                continue;
            }
            std::optional<schema_location> root;
            try {
                root = resolver_.locate(uri, "", "");
            } catch (const schema_error&) {
                continue; // a base URI no document holds (a relative `$id` on an anonymous root)
            }
            static_cast<void>(compile_at(*root->schema, root->parent_base, root->where, 0, reading_around(*root)));
            compile_pending();
        }
    }

    void compile_keywords(const keyword_context& ctx) {
        for (auto it = ctx.schema.begin(); it != ctx.schema.end(); ++it) {
            if (const keyword_entry* k = find_keyword(it.key())) {
                compile_keyword(*k, ctx, *it);
            }
        }
    }

    /// In-place applicators ($ref, allOf, anyOf, oneOf, not, if/then/else, schema
    /// dependencies, $dynamicRef and $recursiveRef to any target they may take) evaluate the
    /// same value again; a cycle of them never ends.
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

    /// A schema that is only a `$ref` (2019-09 on) walks as its target does: it becomes a
    /// forwarding node, as `$ref` is up to draft-07, so the walk goes straight to the target.
    /// Without a dynamic scope to keep, entering its resource changes nothing.
    void forward_lone_refs() {
        for (schema_node& n : nodes_) {
            const bool lone = n.applied_ref != no_node && n.groups == group_logic && n.types == type_any &&
                              n.all_of.empty() && n.any_of.empty() && n.one_of.empty() && n.not_schema == no_node &&
                              n.if_schema == no_node && n.then_schema == no_node && n.else_schema == no_node &&
                              n.dynamic_target == no_node;
            if (lone) {
                n.ref = n.applied_ref;
                n.applied_ref = no_node;
                n.groups = 0;
            }
        }
    }

    /// The node a walk of `i` applies keywords at: past forwarding `$ref`s (a bounded number,
    /// so a cycle of them ends too).
    [[nodiscard]] const schema_node& applied_node(node_index i) const {
        for (int hops = 0; hops < 16 && nodes_[static_cast<std::size_t>(i)].ref != no_node; ++hops) {
            i = nodes_[static_cast<std::size_t>(i)].ref;
        }
        return nodes_[static_cast<std::size_t>(i)];
    }

    /// Sets each node's tag (schema_node::has_tag): a required property whose schema has a string
    /// `const`. Either failing fails the node, whatever its other keywords say.
    void find_tags() {
        for (schema_node& n : nodes_) {
            const schema_node& applied = applied_node(static_cast<node_index>(&n - nodes_.data()));
            if (applied.ref != no_node || applied.boolean) {
                continue;
            }
            for (const property_rule& p : applied.properties) {
                if (!p.required || p.schema == no_node) {
                    continue;
                }
                const schema_node& s = applied_node(p.schema);
                if (s.ref == no_node && !s.boolean && s.const_value && s.const_value->is_string()) {
                    n.has_tag = true;
                    n.tag_name = p.name;
                    n.tag_value = s.const_value->get<std::string>();
                    break;
                }
            }
        }
    }

    /// Sets schema_node::interval where a node checks numbers by exact bounds and nothing else.
    void find_intervals() {
        for (schema_node& n : nodes_) {
            const bool bounds_only = !n.boolean && n.ref == no_node && n.groups == group_number && !n.multiple_of;
            const auto exact = [](const std::optional<number_bound>& b) { return !b || b->has_exact; };
            if (!bounds_only || !exact(n.minimum) || !exact(n.maximum) || !exact(n.exclusive_minimum) ||
                !exact(n.exclusive_maximum)) {
                continue;
            }
            number_interval r;
            // Of a closed and an open bound at one value, the open one is the tighter.
            const auto raise = [&r](const std::optional<number_bound>& b, bool open) {
                if (b && (b->exact > r.low || (b->exact == r.low && open))) {
                    r.low = b->exact;
                    r.low_open = open;
                }
            };
            const auto lower = [&r](const std::optional<number_bound>& b, bool open) {
                if (b && (b->exact < r.high || (b->exact == r.high && open))) {
                    r.high = b->exact;
                    r.high_open = open;
                }
            };
            raise(n.minimum, false);
            raise(n.exclusive_minimum, true);
            lower(n.maximum, false);
            lower(n.exclusive_maximum, true);
            n.interval = r;
        }
    }

    [[nodiscard]] std::vector<node_index> in_place_children(const schema_node& n) const {
        std::vector<node_index> out(n.all_of);
        for (const std::vector<node_index>* list : {&n.any_of, &n.one_of}) {
            for (node_index i : *list) {
                out.push_back(i);
            }
        }
        for (node_index i :
             {n.ref, n.applied_ref, n.dynamic_target, n.not_schema, n.if_schema, n.then_schema, n.else_schema}) {
            if (i != no_node) {
                out.push_back(i);
            }
        }
        for (const dependency_rule& d : n.dependencies) {
            if (d.schema != no_node) {
                out.push_back(d.schema);
            }
        }
        if (n.dynamic == dynamic_kind::dynamic) {
            for (const auto& [key, anchor] : dynamic_anchors_) {
                if (key.second == n.dynamic_anchor) {
                    out.push_back(anchor);
                }
            }
        } else if (n.dynamic == dynamic_kind::recursive) {
            for (const auto& [resource, anchor] : recursive_anchors_) {
                out.push_back(anchor);
            }
        }
        return out;
    }

    ref_resolver resolver_;
    bool assert_formats_;
    std::vector<schema_node> nodes_;
    std::unordered_map<const nlohmann::json*, node_index> memo_;
    std::vector<pending_target> pending_;
    std::unordered_set<node_index> awaiting_; // the nodes of pending_ not compiled yet
    std::unordered_map<std::string, std::shared_ptr<const ecma_regex>> regexes_;
    std::vector<std::string> resources_;
    std::map<std::string, std::int32_t> resource_ids_;
    std::map<std::pair<std::int32_t, std::string>, node_index> dynamic_anchors_;
    std::map<std::int32_t, node_index> recursive_anchors_;
    bool uses_dynamic_scope_ = false;
    /// How the root's dialect reads a schema object with its official vocabularies, and whether
    /// every object compiled so far was read so (compiled_nodes::one_reading).
    reading plain_reading_;
    bool one_reading_ = true;
    /// How the root reads (its `$schema`, else the dialect it is compiled in): how a document
    /// that declares no `$schema` reads.
    reading root_reading_;
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
    return compiler.compile_at(s, base, location, depth + 1, reading{dialect, vocabularies, assert_formats});
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
