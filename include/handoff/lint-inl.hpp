// SPDX-License-Identifier: MIT
#pragma once

// The schema linter's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/lint.hpp>

#include <handoff/decode.hpp>
#include <handoff/detail/json/depth.hpp>
#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/regex/ecma_regex.hpp>
#include <handoff/detail/schema/access.hpp>
#include <handoff/detail/schema/dialect.hpp>
#include <handoff/detail/schema/keywords.hpp>
#include <handoff/detail/schema/refs.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/limits.hpp>
#include <handoff/schema.hpp>
#include <handoff/schema_registry.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // find, any_of, all_of
#include <cctype>      // tolower
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t, uint64_t
#include <map>         // map
#include <optional>    // optional
#include <set>         // set
#include <string>      // string
#include <string_view> // string_view
#include <tuple>       // tuple, make_tuple
#include <utility>     // move, pair
#include <vector>      // vector

namespace handoff {

namespace detail {

/// "ticketType", "Ticket-Type" -> "ticket_type".
HANDOFF_INLINE std::string snake_name(std::string_view name) {
    std::string out;
    out.reserve(name.size() + 4);
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        if (c >= 'A' && c <= 'Z') {
            if (i > 0 && out.back() != '_' && !(name[i - 1] >= 'A' && name[i - 1] <= 'Z')) {
                out.push_back('_');
            }
            out.push_back(static_cast<char>(c - 'A' + 'a'));
        } else {
            out.push_back(c == '-' || c == ' ' ? '_' : c);
        }
    }
    return out;
}

/// `name` (snake_case) is `word` or ends in "_" + `word`.
HANDOFF_INLINE bool name_matches(std::string_view name, std::string_view word) {
    if (word.empty() || name.size() < word.size() || name.substr(name.size() - word.size()) != word) {
        return false;
    }
    return name.size() == word.size() || name[name.size() - word.size() - 1] == '_';
}

HANDOFF_INLINE bool name_in(std::string_view name, const std::vector<std::string>& words) {
    const std::string snake = snake_name(name);
    return std::any_of(words.begin(), words.end(),
                       [&](const std::string& w) { return name_matches(snake, snake_name(w)); });
}

class schema_linter {
public:
    using json = nlohmann::json;

    schema_linter(const json& root, ref_follower& refs, const lint_options& options, lint_findings& out)
        : root_(root), refs_(refs), options_(options), out_(out) {}

    /// `one_reading`: the schema compiles, every part of it read in the root's dialect and
    /// vocabularies, as the rules that read a keyword's meaning here take it.
    void run(bool one_reading) {
        // A metaschema of one's own may leave out the vocabulary that gives `type` its meaning.
        const auto declared = root_.is_object() ? root_.find("$schema") : root_.end();
        one_reading_ = one_reading && (declared == root_.end() || !declared->is_string() ||
                                       official_dialect(declared->get_ref<const std::string&>()));
        context top;
        top.base = refs_.document_uri();
        find_in_place_uses(root_, top.base, false, 0);
        if (root_.is_boolean()) {
            check_task_root(root_); // (no waiver stands beside a boolean root)
        }
        walk(root_, "", top);
    }

    /// The bound a pattern's maxLength should stay within: the one compiled_schema applies.
    static constexpr std::uint64_t pattern_bound = schema_options{}.max_pattern_subject;

private:
    struct context {
        bool admits = true;                  // false under if/not/propertyNames: values are tested, never admitted
        bool refines = false;                // a branch's property that its enclosing schema already declares
        bool branch = false;                 // this schema is an allOf/anyOf/oneOf/if/then/else/not/dependencies branch
        std::optional<std::string> property; // the property this schema is the value of
        std::vector<std::string> scope;      // branch: the names its enclosing schema declares
        std::vector<std::string> known;      // branch: scope and the names sibling branches declare
        std::string base;                    // the base URI around this schema, for its "$ref"
    };

    struct allowance {
        lint_rule rule;
        std::string pointer; // of the reason, for lint.unused_allow
        bool used = false;
    };

    static std::string quoted(std::string_view s) { return quote_untrusted(s, 64); }

    void emit(lint_rule rule, std::string pointer, std::string message) {
        if (waivable(rule)) {
            for (auto it = allowances_.rbegin(); it != allowances_.rend(); ++it) {
                if (it->rule == rule) {
                    it->used = true;
                    return;
                }
            }
        }
        out_.push_back(lint_finding{rule, std::move(pointer), std::move(message)});
    }

    /// The set of "type" names ("string", ...); empty when the schema does not say.
    static std::vector<std::string> types_of(const json& node) {
        std::vector<std::string> types;
        const auto it = node.find("type");
        if (it == node.end()) {
            return types;
        }
        if (it->is_string()) {
            types.push_back(it->get<std::string>());
        } else if (it->is_array()) {
            for (const auto& t : *it) {
                if (t.is_string()) {
                    types.push_back(t.get<std::string>());
                }
            }
        }
        return types;
    }

    static bool has_type(const std::vector<std::string>& types, std::string_view t) {
        return std::find(types.begin(), types.end(), t) != types.end();
    }

    /// The object schema `node` (under `base`) is or its "$ref" chain ends at; null when the
    /// chain ends nowhere or at a boolean schema.
    [[nodiscard]] ref_target resolve(const json& node, const std::string& base) const {
        ref_target target = refs_.resolve(node, base);
        if (target.schema != nullptr && !target.schema->is_object()) {
            target.schema = nullptr;
        }
        return target;
    }

    /// The schema admits only listed values: "enum", "const", every anyOf/oneOf branch does,
    /// or some allOf branch does. Each answer is kept: branches that refer to the same schema
    /// again, level after level, would otherwise be asked a count that multiplies by the branches
    /// with each level.
    [[nodiscard]] bool closed_choice(const json& schema, const std::string& base, int depth = 0) const {
        const ref_target target = resolve(schema, base);
        const json* node = target.schema;
        if (node == nullptr || depth > 16) {
            return false;
        }
        auto key = std::make_tuple(node, target.base, depth);
        if (const auto known = closed_choices_.find(key); known != closed_choices_.end()) {
            return known->second;
        }
        const bool closed = closed_choice_of(*node, target.base, depth);
        closed_choices_.emplace(std::move(key), closed);
        return closed;
    }

    /// closed_choice() of the object schema `node`, asked for the first time.
    [[nodiscard]] bool closed_choice_of(const json& node, const std::string& base, int depth) const {
        if (node.contains("enum") || node.contains("const")) {
            return true;
        }
        const auto closed = [&](const json& b) { return closed_choice(b, base, depth + 1); };
        for (const char* key : {"anyOf", "oneOf"}) {
            if (const auto it = node.find(key);
                it != node.end() && it->is_array() && !it->empty() && std::all_of(it->begin(), it->end(), closed)) {
                return true;
            }
        }
        if (const auto it = node.find("allOf"); it != node.end() && it->is_array()) {
            return std::any_of(it->begin(), it->end(), closed);
        }
        return false;
    }

    static void add_property_names(const json& node, std::vector<std::string>& names) {
        if (const auto it = node.find("properties"); it != node.end() && it->is_object()) {
            for (const auto& item : it->items()) {
                names.push_back(item.key());
            }
        }
    }

    /// The names a schema's branches declare (for "required" lists that name them); `base` is
    /// the base URI inside `node`.
    void add_branch_names(const json& node, const std::string& base, std::vector<std::string>& names) const {
        const auto add = [&](const json& branch) {
            if (const json* r = resolve(branch, base).schema) {
                add_property_names(*r, names);
            }
        };
        for (const char* key : {"allOf", "anyOf", "oneOf"}) {
            if (const auto it = node.find(key); it != node.end() && it->is_array()) {
                std::for_each(it->begin(), it->end(), add);
            }
        }
        for (const char* key : {"then", "else"}) {
            if (const auto it = node.find(key); it != node.end()) {
                add(*it);
            }
        }
    }

    /// Reads "x-lint-allow"; returns how many allowances it pushed.
    std::size_t push_allowances(const json& node, const std::string& where) {
        const auto it = node.find(std::string(lint_allow_keyword));
        if (it == node.end()) {
            return 0;
        }
        const std::string at = pointer_child(where, lint_allow_keyword);
        if (!it->is_object()) {
            out_.push_back(lint_finding{lint_rule::bad_allow, at,
                                        "must be an object of rule code -> reason, e.g. "
                                        "{\"lint.money_not_cents\": \"amounts are decimals as printed\"}"});
            return 0;
        }
        std::size_t pushed = 0;
        for (const auto& item : it->items()) {
            const std::string reason_at = pointer_child(at, item.key());
            const auto rule = lint_rule_from_string(item.key());
            if (!rule) {
                out_.push_back(lint_finding{lint_rule::bad_allow, reason_at,
                                            quoted(item.key()) + " is not a lint rule (lint.open_object, ...)"});
            } else if (!waivable(*rule)) {
                out_.push_back(lint_finding{lint_rule::bad_allow, reason_at,
                                            std::string(to_string(*rule)) + " cannot be waived: fix the schema"});
            } else if (!item.value().is_string() || is_blank(item.value().get_ref<const std::string&>())) {
                out_.push_back(
                    lint_finding{lint_rule::bad_allow, reason_at, "the value must be the reason, a non-empty string"});
            } else {
                allowances_.push_back(allowance{*rule, reason_at, false});
                ++pushed;
            }
        }
        return pushed;
    }

    void pop_allowances(std::size_t n) {
        for (; n > 0; --n) {
            const allowance a = allowances_.back();
            allowances_.pop_back();
            if (!a.used) {
                out_.push_back(lint_finding{lint_rule::unused_allow, a.pointer,
                                            std::string(to_string(a.rule)) +
                                                " is waived here but nothing below breaks it: remove the waiver"});
            }
        }
    }

    /// The checks on the schema of one named property: routing and money names.
    bool check_name_rules(const json& node, const std::string& where, const context& ctx) {
        const std::string& name = *ctx.property;
        const ref_target target = resolve(node, ctx.base);
        const json* resolved = target.schema;
        if (resolved == nullptr || closed_choice(node, ctx.base)) {
            return false;
        }
        const std::vector<std::string> types = types_of(*resolved);
        if (name_in(name, options_.routing_names) && (types.empty() || has_type(types, "string"))) {
            emit(lint_rule::free_routing_string, where,
                 quoted(name) + " routes, but a worker can write any string here: give it an \"enum\" "
                                "(or \"const\") of the values your code handles");
            return true;
        }
        const bool loose = has_type(types, "number") || has_type(types, "string");
        if (!loose) {
            return false;
        }
        const std::string snake = snake_name(name);
        if (name_matches(snake, "cents")) {
            emit(lint_rule::money_not_cents, where,
                 quoted(name) + " counts cents but is typed " + (has_type(types, "number") ? "number" : "string") +
                     ": use \"type\": \"integer\"");
            return true;
        }
        if (name_in(name, options_.money_names)) {
            emit(lint_rule::money_not_cents, where,
                 quoted(name) + " looks like money typed " + (has_type(types, "number") ? "number" : "string") +
                     ": use an integer count of minor units, e.g. \"" + escape_untrusted(snake, 64) +
                     "_cents\": {\"type\": \"integer\"}");
            return true;
        }
        return false;
    }

    /// "pattern" should have a "maxLength" within the pattern bound beside it: a longer string
    /// fails the pattern at run time anyway (schema_options::max_pattern_subject), and a
    /// maxLength tells the worker so before it writes one. A maxLength that is not an integer
    /// is the compiler's to report, not this rule's.
    bool check_pattern(const json& node, const std::string& where) {
        if (!node.contains("pattern")) {
            return false;
        }
        const auto max = node.find("maxLength");
        std::string found = "none";
        if (max != node.end()) {
            if (!max->is_number_unsigned() || max->get<std::uint64_t>() <= pattern_bound) {
                return false;
            }
            found = "maxLength " + std::to_string(max->get<std::uint64_t>());
        }
        emit(lint_rule::unbounded_pattern, pointer_child(where, "pattern"),
             "a \"pattern\" needs a \"maxLength\" of at most " + std::to_string(pattern_bound) + " beside it (found " +
                 found + "): a longer string fails the pattern unread " +
                 "(schema_options::max_pattern_subject), so say the limit to the worker with maxLength");
        return true;
    }

    void check_bounds(const json& node, const std::string& where, const context& ctx, bool reported) {
        const std::vector<std::string> types = types_of(node);
        const bool object_shaped =
            has_type(types, "object") ||
            (types.empty() && !ctx.branch && (node.contains("properties") || node.contains("patternProperties")));
        if (object_shaped && !closed_object(node)) {
            const auto ap = node.find("additionalProperties");
            if (ap == node.end()) {
                emit(lint_rule::open_object, where,
                     "an object without \"additionalProperties\": false: a worker can add any key (an extra "
                     "\"note\" is how instructions reach the next prompt)");
            } else { // not false: closed_object() took that
                emit(lint_rule::open_object, where,
                     "\"additionalProperties\" is not false: a worker can add keys nobody declared; list them "
                     "in \"properties\" and close the object");
            }
        }
        const bool choice = node.contains("enum") || node.contains("const");
        if (has_type(types, "string") && !choice && !node.contains("maxLength") && !reported) {
            emit(lint_rule::unbounded_string, where,
                 "a string without \"maxLength\": a worker can write a megabyte here; bound it (or list the "
                 "values with \"enum\")");
        }
        if (has_type(types, "array") && !choice && !node.contains("maxItems")) {
            const auto items = node.find("items");
            const auto prefix = node.find("prefixItems");
            const bool closed_tuple = // draft-07's array "items" + "additionalItems", 2020-12's "prefixItems" + "items"
                (items != node.end() && items->is_array() && is_false(node, "additionalItems")) ||
                (prefix != node.end() && prefix->is_array() && is_false(node, "items"));
            if (!closed_tuple) {
                emit(lint_rule::unbounded_array, where,
                     "an array without \"maxItems\": bound how many items a worker may return");
            }
        }
    }

    void check_required(const json& node, const std::string& where, const context& ctx) {
        const auto req = node.find("required");
        if (req == node.end() || !req->is_array()) {
            return;
        }
        std::vector<std::string> names;
        add_property_names(node, names);
        add_branch_names(node, base_inside(node, ctx.base, refs_.dialect()), names);
        if (ctx.branch) {
            names.insert(names.end(), ctx.known.begin(), ctx.known.end());
        }
        std::vector<ecma_regex> patterns; // the validator's engine: the names it would match
        if (const auto it = node.find("patternProperties"); it != node.end() && it->is_object()) {
            for (const auto& item : it->items()) {
                try {
                    patterns.push_back(ecma_regex::compile(item.key()));
                } catch (const regex_syntax_error&) {
                    // a bad regex is the compiler's to report (lint.does_not_compile)
                }
            }
        }
        for (std::size_t i = 0; i < req->size(); ++i) {
            const json& name = (*req)[i];
            if (!name.is_string()) {
                continue; // the compiler's to report
            }
            const auto& n = name.get_ref<const std::string&>();
            const bool declared = std::find(names.begin(), names.end(), n) != names.end() ||
                                  std::any_of(patterns.begin(), patterns.end(),
                                              [&](const ecma_regex& re) { return re.search(n) == regex_match::found; });
            if (!declared) {
                emit(lint_rule::required_undefined, pointer_item(pointer_child(where, "required"), i),
                     quoted(n) + " is required but no \"properties\" entry defines it (a typo, or a field "
                                 "nothing constrains)");
            }
        }
    }

    void walk(const json& node, const std::string& where, const context& ctx) {
        if (!node.is_object()) {
            return; // true/false schemas
        }
        const std::size_t pushed = push_allowances(node, where);
        if (&node == &root_) {
            check_task_root(node);
        }
        const bool ref = node.contains("$ref"); // bounds are the target's to state
        bool reported = false;
        if (ctx.admits && !ctx.refines && ctx.property) {
            reported = check_name_rules(node, where, ctx);
        }
        reported = check_pattern(node, where) || reported;
        if (ctx.admits && !ctx.refines && !ref) {
            check_bounds(node, where, ctx, reported);
        }
        check_required(node, where, ctx);
        walk_children(node, where, ctx);
        pop_allowances(pushed);
    }

    /// A task schema's root must admit an object: partial_result is a JSON object or null, and
    /// the task schema judges a non-null one.
    void check_task_root(const json& root) {
        int budget = max_root_schemas;
        if (!options_.task_schema || !one_reading_ || may_admit_object(root, refs_.document_uri(), budget)) {
            return;
        }
        emit(lint_rule::root_not_object, "",
             "the task schema admits no JSON object, but partial_result is one (or null): no reply can pass step 3; "
             "put the result under a property of an object, e.g. {\"type\": \"object\", \"properties\": "
             "{\"items\": <this schema>}, \"required\": [\"items\"], \"additionalProperties\": false}");
    }

    /// Schemas the root check looks at before it takes the root to admit an object.
    static constexpr int max_root_schemas = 256;

    /// Whether `node` (with `base` around it) may admit a JSON object: false only when its
    /// `type`, `const`, `enum`, `$ref`, `allOf`, `anyOf` or `oneOf` rule every object out. More
    /// than `budget` schemas looked at, or a `$ref` that leads nowhere, may admit one.
    bool may_admit_object(const json& node, const std::string& base, int& budget) {
        if (node.is_boolean()) {
            return node.get<bool>();
        }
        if (!node.is_object() || --budget < 0) {
            return true;
        }
        const auto ref = node.find("$ref");
        if (ref != node.end()) {
            const ref_target target = refs_.step(node, base);
            if (target.schema != nullptr && !may_admit_object(*target.schema, target.base, budget)) {
                return false;
            }
            if (!ref_siblings_apply(refs_.dialect())) {
                return true; // draft-04 to draft-07 ignore the keywords beside it
            }
        }
        if (!own_rules_admit_object(node)) {
            return false;
        }
        const std::string inside = base_inside(node, base, refs_.dialect());
        const auto admits = [&](const json& member) { return may_admit_object(member, inside, budget); };
        const auto all = node.find("allOf");
        if (all != node.end() && all->is_array() && !std::all_of(all->begin(), all->end(), admits)) {
            return false;
        }
        const auto some_branch_admits = [&](const char* key) {
            const auto some = node.find(key);
            return some == node.end() || !some->is_array() || some->empty() ||
                   std::any_of(some->begin(), some->end(), admits);
        };
        return some_branch_admits("anyOf") && some_branch_admits("oneOf");
    }

    /// Whether `node`'s own `type`, `const` and `enum` leave room for an object.
    [[nodiscard]] bool own_rules_admit_object(const json& node) const {
        if (node.contains("type") && !has_type(types_of(node), "object")) {
            return false;
        }
        const auto value = node.find("const");
        if (value != node.end() && keyword_in_dialect("const", refs_.dialect()) && !value->is_object()) {
            return false;
        }
        const auto values = node.find("enum");
        return values == node.end() || !values->is_array() ||
               std::any_of(values->begin(), values->end(), [](const json& v) { return v.is_object(); });
    }

    /// A context for a child schema that is neither a property nor a branch.
    [[nodiscard]] static context plain_child(const context& parent, const std::string& base, bool admits) {
        context c;
        c.admits = admits;
        c.refines = parent.refines;
        c.base = base;
        return c;
    }

    void walk_children(const json& node, const std::string& where, const context& ctx) {
        const std::string base = base_inside(node, ctx.base, refs_.dialect());
        walk_properties(node, where, ctx, base);
        walk_subschemas(node, where, ctx, base);
        walk_branches(node, where, ctx, base);
    }

    void walk_properties(const json& node, const std::string& where, const context& ctx, const std::string& base) {
        const auto it = node.find("properties");
        if (it == node.end() || !it->is_object()) {
            return;
        }
        for (const auto& item : it->items()) {
            context c = plain_child(ctx, base, ctx.admits);
            c.refines = ctx.refines ||
                        (ctx.branch && std::find(ctx.scope.begin(), ctx.scope.end(), item.key()) != ctx.scope.end());
            c.property = item.key();
            walk(item.value(), pointer_child(pointer_child(where, "properties"), item.key()), c);
        }
    }

    /// Every subschema but properties and branches.
    void walk_subschemas(const json& node, const std::string& where, const context& ctx, const std::string& base) {
        const context admitting = plain_child(ctx, base, ctx.admits);
        for (const char* key : {"patternProperties", "dependencies", "dependentSchemas"}) {
            if (const auto it = node.find(key); it != node.end() && it->is_object()) {
                for (const auto& item : it->items()) {
                    walk(item.value(), pointer_child(pointer_child(where, key), item.key()), admitting);
                }
            }
        }
        context definition;
        definition.base = base;
        for (const char* key : {"definitions", "$defs"}) {
            if (const auto it = node.find(key); it != node.end() && it->is_object()) {
                for (const auto& item : it->items()) {
                    walk(item.value(), pointer_child(pointer_child(where, key), item.key()), definition);
                }
            }
        }
        for (const char* key : {"additionalProperties", "additionalItems", "contains", "items", "unevaluatedProperties",
                                "unevaluatedItems"}) {
            if (const auto it = node.find(key); it != node.end() && it->is_object()) {
                walk(*it, pointer_child(where, key), admitting);
            }
        }
        for (const char* key : {"items", "prefixItems"}) {
            if (const auto it = node.find(key); it != node.end() && it->is_array()) {
                for (std::size_t i = 0; i < it->size(); ++i) {
                    walk((*it)[i], pointer_item(pointer_child(where, key), i), admitting);
                }
            }
        }
        if (const auto it = node.find("propertyNames"); it != node.end()) {
            walk(*it, pointer_child(where, "propertyNames"), plain_child(ctx, base, false));
        }
    }

    /// Branches: a branch refines what its enclosing schema declares (scope); a "required" in a
    /// branch may also name what a sibling branch declares (known).
    void walk_branches(const json& node, const std::string& where, const context& ctx, const std::string& base) {
        std::vector<std::string> scope;
        add_property_names(node, scope);
        if (ctx.branch) {
            scope.insert(scope.end(), ctx.scope.begin(), ctx.scope.end());
        }
        std::vector<std::string> known = scope;
        add_branch_names(node, base, known);
        const auto branch = [&](bool admits) {
            context c = plain_child(ctx, base, admits);
            c.branch = true;
            c.scope = scope;
            c.known = known;
            return c;
        };
        for (const char* key : {"allOf", "anyOf", "oneOf"}) {
            if (const auto it = node.find(key); it != node.end() && it->is_array()) {
                for (std::size_t i = 0; i < it->size(); ++i) {
                    walk((*it)[i], pointer_item(pointer_child(where, key), i), branch(ctx.admits));
                }
            }
        }
        for (const char* key : {"if", "then", "else", "not"}) {
            if (const auto it = node.find(key); it != node.end()) {
                const bool tests_only = std::string_view(key) == "if" || std::string_view(key) == "not";
                walk(*it, pointer_child(where, key), branch(ctx.admits && !tests_only));
            }
        }
    }

    [[nodiscard]] static bool is_false(const json& node, const char* keyword) {
        const auto it = node.find(keyword);
        return it != node.end() && it->is_boolean() && !it->get<bool>();
    }

    /// Whether the object schema `node` admits no key it does not name: "additionalProperties":
    /// false, or (2019-09 on) "unevaluatedProperties": false with no additionalProperties beside
    /// it, or a definition that says nothing of other keys and every "$ref" to which stands in one
    /// such (used_in_place_): a schema the walk also reaches in place (the root, a property) is
    /// applied open there.
    [[nodiscard]] bool closed_object(const json& node) const {
        if (is_false(node, "additionalProperties") ||
            (!node.contains("additionalProperties") && is_false(node, "unevaluatedProperties"))) {
            return true;
        }
        if (node.contains("additionalProperties") || node.contains("unevaluatedProperties") ||
            definitions_.count(&node) == 0) {
            return false;
        }
        const auto use = used_in_place_.find(&node);
        return use != used_in_place_.end() && use->second;
    }

    /// Notes, for each schema a "$ref" reaches, whether every such "$ref" stands in a schema with
    /// "unevaluatedProperties": false or in an allOf member of one (`closing_here`): applied in
    /// place there, the keys it leaves open are the closing schema's to judge, and it refuses
    /// them. Any other reference leaves the target open.
    void find_in_place_uses(const json& node, const std::string& parent_base, bool closing_here, int depth) {
        if (!node.is_object() || depth > max_lint_depth) {
            return;
        }
        const bool closes = is_false(node, "unevaluatedProperties") && !node.contains("additionalProperties");
        if (const auto ref = node.find("$ref"); ref != node.end() && ref->is_string()) {
            std::string error; // a $ref that leads nowhere is the compiler's to report
            if (const auto target = refs_.locate(ref->get_ref<const std::string&>(), parent_base, error)) {
                // The target itself, not its chain's end: a chain's links apply their own keywords.
                const auto use = used_in_place_.emplace(target->schema, true).first;
                use->second = use->second && (closes || closing_here);
            }
        }
        const std::string base = base_inside(node, parent_base, refs_.dialect());
        for_each_subschema(node, "", [&](const json& child, const std::string& at) {
            if (at.rfind("/$defs/", 0) == 0 || at.rfind("/definitions/", 0) == 0) {
                definitions_.insert(&child);
            }
            find_in_place_uses(child, base, closes && at.rfind("/allOf/", 0) == 0, depth + 1);
        });
    }

    /// Deeper than any schema the compiler takes (it reports that).
    static constexpr int max_lint_depth = 1000;

    const json& root_;
    ref_follower& refs_;
    const lint_options& options_;
    lint_findings& out_;
    std::vector<allowance> allowances_;
    /// find_in_place_uses(): by target, whether every "$ref" to it stands where it is closed;
    /// and the schemas under "$defs" or "definitions", which apply only where referred to.
    std::map<const json*, bool> used_in_place_;
    /// closed_choice()'s answers, by the schema, its base and the depth it was asked at.
    mutable std::map<std::tuple<const json*, std::string, int>, bool> closed_choices_;
    std::set<const json*> definitions_;
    bool one_reading_ = false;
};

} // namespace detail

namespace detail {

/// The validator's refusal of `schema` as a finding, or nullopt when it compiles (then
/// `one_reading`: every part of it is read in the root's dialect, compiled_schema::one_reading).
/// A refusal inside the document is at its pointer; one in another document is at "" and names
/// where.
HANDOFF_INLINE std::optional<lint_finding> compile_finding(const nlohmann::json& schema, const ref_scope& scope,
                                                           bool& one_reading) {
    std::string pointer;
    std::string reason;
    one_reading = false;
    try {
        one_reading = compiled_schema_access::one_reading(
            compiled_schema_access::compile(schema, scope.base_uri, scope.registry, scope.folders(), scope.options()));
        return std::nullopt;
    } catch (const schema_error& e) {
        pointer = e.pointer();
        reason = e.reason();
    } catch (const std::filesystem::filesystem_error& e) {
        reason = std::string("a schema file cannot be read: ") + e.what();
    }
    const std::string own = schema_registry::normalize(scope.base_uri) + "#";
    if (!scope.base_uri.empty() && pointer.rfind(own, 0) == 0) {
        pointer.erase(0, own.size());
    } else if (!pointer.empty() && pointer.front() != '/') {
        reason = "in " + pointer + ": " + reason;
        pointer.clear();
    }
    return lint_finding{lint_rule::does_not_compile, std::move(pointer),
                        "the schema (read as " +
                            std::string(to_string(compiled_schema::dialect_of(schema, scope.options()))) +
                            ") does not compile: " + plain_line(reason, 400)};
}

HANDOFF_INLINE lint_findings lint_in_scope(const nlohmann::json& schema, const ref_scope& unset_scope,
                                           const lint_options& options) {
    ref_scope scope = unset_scope;
    scope.dialect = options.schema.dialect;
    lint_findings findings;
    if (nests_deeper_than(schema, options.limits.max_depth)) {
        findings.push_back(lint_finding{lint_rule::too_deep, "",
                                        "the schema nests deeper than " + std::to_string(options.limits.max_depth) +
                                            " levels; no task schema needs that"});
        return findings;
    }
    bool one_reading = false;
    std::optional<lint_finding> refusal = compile_finding(schema, scope, one_reading);
    ref_follower refs(schema, scope);
    schema_linter(schema, refs, options, findings).run(one_reading);
    if (refusal) {
        findings.push_back(std::move(*refusal)); // (last, after the walk's findings)
    }
    return findings;
}

HANDOFF_INLINE lint_findings lint_text_in_scope(std::string_view text, const ref_scope& scope,
                                                const lint_options& options) {
    decode_options decode_opts;
    decode_opts.strict = true;
    decode_opts.limits = options.limits;
    decode_result decoded = decode(text, decode_opts);
    if (decoded.value) {
        return lint_in_scope(*decoded.value, scope, options);
    }
    lint_findings findings;
    for (problem& p : decoded.problems) {
        std::string message = std::move(p.message);
        const std::string head = message_pointer(p.pointer) + ": ";
        if (message.rfind(head, 0) == 0) {
            message.erase(0, head.size());
        }
        const lint_rule rule = p.code == codes::parse_limit_depth ? lint_rule::too_deep : lint_rule::not_json;
        findings.push_back(lint_finding{rule, std::move(p.pointer), "not a strict JSON document: " + message});
    }
    return findings;
}

} // namespace detail

/// Lints a JSON Schema document (any dialect compiled_schema reads). Never throws for any document; findings come in
/// document order (keys sorted), with lint.does_not_compile last. `$ref`s resolve inside the
/// document (and to the built-in metaschemas) only.
HANDOFF_INLINE lint_findings lint_schema(const nlohmann::json& schema, const lint_options& options) {
    return detail::lint_in_scope(schema, detail::ref_scope{}, options);
}

/// Lints a schema whose `$ref`s may name other documents, followed as compiled_schema follows
/// them: the documents of `registry`, and, when `base_uri` is the schema's file:// URI
/// (schema_registry::file_uri(path)), the files beside it and in the registry's folders.
/// `base_uri` may be "" for a schema that does not say where it lives.
HANDOFF_INLINE lint_findings lint_schema(const nlohmann::json& schema, const schema_registry& registry,
                                         std::string_view base_uri, const lint_options& options) {
    return detail::lint_in_scope(schema, detail::ref_scope{&registry, std::string(base_uri)}, options);
}

/// Parses `text` as strict JSON (no fences, no comments, no duplicate keys) within
/// options.limits, then lints it. A document that does not parse is one lint.not_json (or
/// lint.too_deep) finding.
HANDOFF_INLINE lint_findings lint_schema_text(std::string_view text, const lint_options& options) {
    return detail::lint_text_in_scope(text, detail::ref_scope{}, options);
}

/// lint_schema_text, with `$ref`s followed into `registry` and beside `base_uri` as
/// lint_schema(schema, registry, base_uri) follows them.
HANDOFF_INLINE lint_findings lint_schema_text(std::string_view text, const schema_registry& registry,
                                              std::string_view base_uri, const lint_options& options) {
    return detail::lint_text_in_scope(text, detail::ref_scope{&registry, std::string(base_uri)}, options);
}

/// One line: `FILE:POINTER: code: message` ("(document)" for the root pointer).
HANDOFF_INLINE std::string format_lint_finding(std::string_view file, const lint_finding& f) {
    std::string line(file);
    line += ':';
    line += detail::message_pointer(f.pointer, 400);
    line += ": ";
    line += f.code();
    line += ": ";
    line += f.message;
    return line;
}

} // namespace handoff
