// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/json/count.hpp>
#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/schema/access.hpp>
#include <handoff/schema.hpp>
#include <handoff/schema_error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>     // any_of, binary_search, lower_bound, max, sort
#include <cstddef>       // size_t
#include <cstdint>       // uint64_t
#include <memory>        // shared_ptr
#include <mutex>         // mutex, lock_guard
#include <optional>      // optional
#include <string>        // string
#include <string_view>   // string_view
#include <unordered_map> // unordered_map
#include <utility>       // move
#include <vector>        // vector

namespace handoff::detail::stream {

/// A part of the task schema as the streaming check judges it: compiled on its own, or, where
/// it refers to another part, judged in place in the task schema's compiled form.
class part_judge {
public:
    explicit part_judge(compiled_schema alone) : alone_(std::move(alone)) {}
    part_judge(const compiled_schema& whole, std::int32_t node) : whole_(&whole), node_(node) {}

    /// `depth`: how deep in partial_result the value sits, the depth of the walk by which the
    /// whole schema reaches its part (each part lies below `properties` and `items` alone, one
    /// level each), which the bound on nesting counts as receive does.
    [[nodiscard]] bool accepts(const nlohmann::json& v, int depth) const {
        return compiled_schema_access::accepts_at(schema(), node(), v, depth);
    }
    [[nodiscard]] problem_list validate(const nlohmann::json& v, std::string_view base_pointer, step s,
                                        int depth) const {
        return compiled_schema_access::validate_at(schema(), node(), v, base_pointer, s, depth);
    }

private:
    [[nodiscard]] const compiled_schema& schema() const { return whole_ != nullptr ? *whole_ : *alone_; }
    [[nodiscard]] std::int32_t node() const {
        return whole_ != nullptr ? node_ : compiled_schema_access::root_node(*alone_);
    }

    std::optional<compiled_schema> alone_;
    const compiled_schema* whole_ = nullptr;
    std::int32_t node_ = -1;
};

/// The part of a task schema that must hold for one member or item on its own, whatever the
/// rest of the result holds. Only `properties`, `additionalProperties` (without
/// `patternProperties`), `items` and draft-04..2019-09's array `items`/`additionalItems` are
/// followed: each applies to its member or item unconditionally, so a value failing the part
/// fails the whole schema. A schema with a `$ref` (whose siblings draft-07 ignores) or
/// `prefixItems` (whose meaning depends on the dialect) is not followed below: nothing is
/// concluded there. A part that refers to another is judged in place (part_judge), unless the
/// task schema resolves references by dynamic scope.
///
/// The streaming check judges each member of partial_result on its own as it completes, and
/// each item of a member array, then the value holding it. So that no value is validated
/// twice, a member's part is compiled with its item part (where that is judged on its own)
/// replaced by `true`, and partial_result's schema with its judged positions replaced too
/// (result_schema): every such position holds a value that already passed its part, and `true`
/// is what a passing subschema of `properties`, `additionalProperties` or `items` contributes to
/// its parent (pass, and the member or item evaluated). Where a `$ref` could reach a replaced
/// position, partial_result's schema stays whole. The parts deeper down are compiled whole: they
/// judge a closed object's unknown key (the item values themselves are judged with their item).
/// What the parts compiled on their own hold is bounded by the task schema's size (the budget
/// below); past it, parts are judged in place where the schema allows it.
///
/// The rules above read keywords as the task schema's dialect reads them with its official
/// vocabularies. Where some subschema is read otherwise (a `$schema` inside naming another
/// dialect, a metaschema whose `$vocabulary` leaves keywords out), no part is followed:
/// partial_result is judged whole when it closes.
class task_paths {
public:
    /// Compiles every part of `root` that the rules above reach, once: the streaming checks of
    /// one task schema share them (shared_task_paths below).
    explicit task_paths(compiled_schema root)
        : root_(std::move(root)), followed_(compiled_schema_access::one_reading(root_)) {
        options_ = root_.options();
        options_.dialect = root_.dialect(); // a part read alone is read in its schema's dialect
        if (followed_) {
            alone_budget_ = std::max(min_alone_budget, compiled_schema_access::node_count(root_));
            compile_parts(&root_.document(), 0, compiled_schema_access::where_of(root_, 0)); // node 0: the root
            compile_result_schema();
        }
    }
    // Parts judged in place point at root_: the paths stay where they were made.
    task_paths(const task_paths&) = delete;
    task_paths& operator=(const task_paths&) = delete;

    /// The part that applies to member `key` of a value that `parent` applies to, or nullptr.
    [[nodiscard]] static const nlohmann::json* member(const nlohmann::json* parent, std::string_view key) {
        if (!followable(parent)) {
            return nullptr;
        }
        if (const auto props = parent->find("properties"); props != parent->end() && props->is_object()) {
            if (const auto it = props->find(key); it != props->end()) {
                return it.operator->();
            }
        }
        return extra_members(*parent);
    }

    /// Whether `part` is a closed object schema: "additionalProperties": false and no
    /// `patternProperties`, so that an object it applies to fails whatever a member its
    /// `properties` does not name holds (no other keyword of the same schema can admit what
    /// that one refuses).
    [[nodiscard]] static bool closed(const nlohmann::json* part) {
        if (!followable(part) || part->contains("patternProperties")) {
            return false;
        }
        const auto extra = part->find("additionalProperties");
        return extra != part->end() && extra->is_boolean() && !extra->get<bool>();
    }

    /// The `properties` object of `part`, or nullptr.
    [[nodiscard]] static const nlohmann::json* properties(const nlohmann::json* part) {
        const auto props = part->find("properties");
        return props != part->end() && props->is_object() ? &*props : nullptr;
    }

    /// The part that applies to item `index` of an array that `parent` applies to, or nullptr.
    [[nodiscard]] static const nlohmann::json* item(const nlohmann::json* parent, std::size_t index) {
        if (!followable(parent) || parent->contains("prefixItems")) {
            return nullptr;
        }
        const auto items = parent->find("items");
        if (items == parent->end()) {
            return nullptr;
        }
        if (!items->is_array()) {
            return items.operator->();
        }
        if (index < items->size()) {
            return &(*items)[index];
        }
        const auto extra = parent->find("additionalItems");
        return extra == parent->end() ? nullptr : extra.operator->();
    }

    /// What the streaming check reads of a part when a value it applies to opens.
    struct part_facts {
        /// closed(part).
        bool closed = false;
        /// The part of every item of an array (a single-schema `items`, without
        /// `prefixItems`), or nullptr; and closed() and properties() of that part.
        const nlohmann::json* every_item = nullptr;
        bool every_closed = false;
        const nlohmann::json* every_named = nullptr;
        /// Whether item() may find a part for some item: an array `items` (draft-04 to
        /// 2019-09's tuples), followed; false where every_item is the part of all of them.
        bool indexed_items = false;
        /// What member() reads of the part, so that a key needs one lookup: its `properties`
        /// (nullptr: none) and the part of the members they do not name (nullptr: none); both
        /// nullptr where the part is not followed.
        const nlohmann::json* named = nullptr;
        const nlohmann::json* others = nullptr;
    };

    [[nodiscard]] static part_facts facts_of(const nlohmann::json* part) {
        part_facts f;
        f.closed = closed(part);
        if (followable(part)) {
            f.named = properties(part);
            f.others = extra_members(*part);
        }
        if (part != nullptr && part->is_object() && !part->contains("prefixItems")) {
            const auto items = part->find("items");
            const bool every = items != part->end() && !items->is_array();
            f.every_item = every && item(part, 0) != nullptr ? &*items : nullptr;
            f.every_closed = f.every_item != nullptr && closed(f.every_item);
            f.every_named = f.every_closed ? properties(f.every_item) : nullptr;
            f.indexed_items = followable(part) && items != part->end() && items->is_array();
        }
        return f;
    }

    /// facts_of(part), found once for every part the walk below reaches.
    [[nodiscard]] part_facts facts(const nlohmann::json* part) const {
        const auto known = part == nullptr ? facts_.end() : facts_.find(part);
        return known == facts_.end() ? facts_of(part) : known->second;
    }

    /// member(parent, key), from the facts of `parent` where the walk below reached it.
    [[nodiscard]] const nlohmann::json* member_part(const nlohmann::json* parent, std::string_view key) const {
        const auto known = parent == nullptr ? facts_.end() : facts_.find(parent);
        if (known == facts_.end()) {
            return member(parent, key);
        }
        const part_facts& f = known->second;
        if (f.named != nullptr) {
            if (const auto it = f.named->find(key); it != f.named->end()) {
                return it.operator->();
            }
        }
        return f.others;
    }

    /// How `part` is judged (a member's part without its judged item part), or nullptr when
    /// it is not one of the parts (above), constrains nothing (true, {}), or can be judged
    /// neither alone nor in place.
    [[nodiscard]] const part_judge* compiled(const nlohmann::json* part) const {
        const auto known = part == nullptr ? parts_.end() : parts_.find(part);
        return known == parts_.end() ? nullptr : &known->second;
    }

    /// Whether `part` holds nothing an exact reading could judge: `true` or `{}`.
    [[nodiscard]] static bool constrains_nothing(const nlohmann::json& part) { return is_trivial(part); }

    [[nodiscard]] const nlohmann::json* root() const noexcept { return &root_.document(); }
    /// The part partial_result's members are followed from: the task schema, or nullptr where
    /// none is followed (above).
    [[nodiscard]] const nlohmann::json* result_part() const noexcept { return followed_ ? root() : nullptr; }
    /// The task schema whole.
    [[nodiscard]] const compiled_schema& root_schema() const noexcept { return root_; }
    /// What the parts compiled on their own weigh (their objects, and each compile's own
    /// weight), and the most they may (the budget below).
    [[nodiscard]] std::size_t alone_spent() const noexcept { return alone_spent_; }
    [[nodiscard]] std::size_t alone_budget() const noexcept { return alone_budget_; }
    /// What partial_result must pass once its members and items passed their parts.
    [[nodiscard]] const compiled_schema& result_schema() const noexcept { return result_ ? *result_ : root_; }

private:
    static bool followable(const nlohmann::json* s) { return s != nullptr && s->is_object() && !s->contains("$ref"); }

    /// additionalProperties, where it is the part of every member `properties` does not name.
    static const nlohmann::json* extra_members(const nlohmann::json& s) {
        if (s.contains("patternProperties")) {
            return nullptr;
        }
        const auto extra = s.find("additionalProperties");
        return extra == s.end() ? nullptr : extra.operator->();
    }

    /// What counts toward the budget below: a JSON object (a subschema, or a value inside one).
    static bool is_schema_object(const nlohmann::json& v) { return v.is_object(); }

    static bool is_trivial(const nlohmann::json& s) {
        return (s.is_boolean() && s.get<bool>()) || (s.is_object() && s.empty());
    }

    /// Whether a reference keyword occurs anywhere inside `s` (a property of that name too:
    /// the test only has to be conservative).
    static bool refers(const nlohmann::json& s) {
        if (s.is_array()) {
            return std::any_of(s.begin(), s.end(), [](const nlohmann::json& v) { return refers(v); });
        }
        if (!s.is_object()) {
            return false;
        }
        const auto items = s.items();
        return std::any_of(items.begin(), items.end(), [](const auto& item) {
            const std::string& k = item.key();
            return k == "$ref" || k == "$dynamicRef" || k == "$recursiveRef" || refers(item.value());
        });
    }

    /// The parts below `s` (the members' and the items' schemas), compiled deepest first, so
    /// that a member's part knows whether its item part is judged on its own; `depth` bounds
    /// the walk on a schema nested absurdly deep (0: `s` is the root, its parts the members').
    /// `where`: the place of `s` as the task schema's messages name it.
    void compile_parts(const nlohmann::json* s, std::size_t depth, const std::string& where) {
        if (s == nullptr || depth > 64) {
            return;
        }
        facts_.emplace(s, facts_of(s));
        if (!followable(s)) {
            return;
        }
        std::vector<std::pair<const nlohmann::json*, std::string>> below;
        if (const auto props = s->find("properties"); props != s->end() && props->is_object()) {
            const std::string at = pointer_child(where, "properties");
            for (const auto& p : props->items()) {
                below.emplace_back(&p.value(), pointer_child(at, p.key()));
            }
        }
        for (const char* keyword : {"additionalProperties", "items", "additionalItems"}) {
            const auto it = s->find(keyword);
            const std::string at = pointer_child(where, keyword);
            if (it != s->end() && it->is_array()) {
                for (std::size_t i = 0; i < it->size(); ++i) {
                    below.emplace_back(&(*it)[i], pointer_child(at, std::to_string(i)));
                }
            } else if (it != s->end()) {
                below.emplace_back(it.operator->(), at);
            }
        }
        for (const auto& [part, at] : below) {
            compile_parts(part, depth + 1, at);
            if (parts_.count(part) == 0 && !is_trivial(*part)) {
                compile_one(part, depth == 0, at);
            }
        }
    }

    /// Compiled on its own while the budget lasts (its objects, and the weight of a compiled
    /// schema's own state), else judged in place.
    void compile_one(const nlohmann::json* part, bool member, const std::string& where) {
        const std::size_t left = alone_budget_ - alone_spent_; // spent <= budget: a compile must fit
        const std::size_t room = left > alone_compile_weight ? left - alone_compile_weight : 0;
        const std::size_t size = count_values(*part, is_schema_object, room); // up to room + 1
        const bool affordable = size + alone_compile_weight <= left;
        const nlohmann::json alone = !affordable ? nlohmann::json() : member ? without_judged(*part, false) : *part;
        if (affordable && !refers(alone)) {
            try {
                // Its messages name the part's places as the task schema's own do.
                parts_.emplace(part, part_judge(compiled_schema_access::compile_part(alone, where, options_)));
                alone_spent_ += size + alone_compile_weight;
                return;
            } catch (const schema_error&) {
                // Judged in place, if it can be.
            }
        }
        if (const std::int32_t node = compiled_schema_access::node_of(root_, part); node >= 0) {
            parts_.emplace(part, part_judge(root_, node)); // a member's part whole, its items too
        }
    }

    /// `s` with each position whose values are judged on their own holding `true`: with
    /// `members` (partial_result's schema), its members' parts, or where one is not judged
    /// whole, its item part; else (a member's part) its item part (a single-schema `items`).
    /// `where` collects the replaced positions' pointers when given.
    nlohmann::json without_judged(const nlohmann::json& s, bool members, const std::string& at = {},
                                  std::vector<std::string>* where = nullptr) const {
        nlohmann::json out = s;
        if (!followable(&s)) {
            return out;
        }
        const auto place = [&](const nlohmann::json& part, nlohmann::json& slot, const std::string& pointer) {
            if (compiled(&part) != nullptr) {
                slot = true;
                if (where != nullptr) {
                    where->push_back(pointer);
                }
            } else if (members) {
                slot = without_judged(part, false, pointer, where);
            }
        };
        if (members) {
            if (const auto props = s.find("properties"); props != s.end() && props->is_object()) {
                for (const auto& p : props->items()) {
                    place(p.value(), out["properties"][p.key()],
                          pointer_child(pointer_child(at, "properties"), p.key()));
                }
            }
            if (const nlohmann::json* extra = extra_members(s)) {
                place(*extra, out["additionalProperties"], pointer_child(at, "additionalProperties"));
            }
            return out;
        }
        const auto items = s.find("items");
        if (items != s.end() && !items->is_array() && !s.contains("prefixItems")) {
            place(*items, out["items"], pointer_child(at, "items"));
        }
        return out;
    }

    /// partial_result's schema without its judged positions, unless a reference could reach
    /// one of them (or a schema holding one): then the whole schema stays.
    void compile_result_schema() {
        std::vector<std::string> replaced;
        nlohmann::json reduced = without_judged(root_.document(), true, {}, &replaced);
        std::sort(replaced.begin(), replaced.end());
        if (replaced.empty() || !references_avoid(root_.document(), replaced)) {
            return;
        }
        try {
            result_ =
                compiled_schema_access::compile_part(reduced, compiled_schema_access::where_of(root_, 0), options_);
        } catch (const schema_error&) {
            // The whole schema is used.
        }
    }

    /// Whether `sorted` (pointers, in order) holds `target`, a pointer above it or one below it:
    /// a lookup per segment of `target`, however many pointers there are.
    static bool overlaps(const std::vector<std::string>& sorted, const std::string& target) {
        for (std::size_t end = 0; end <= target.size(); ++end) {
            if ((end == target.size() || target[end] == '/') &&
                std::binary_search(sorted.begin(), sorted.end(), target.substr(0, end))) {
                return true;
            }
        }
        const std::string below = target + "/";
        const auto first = std::lower_bound(sorted.begin(), sorted.end(), below);
        return first != sorted.end() && first->compare(0, below.size(), below) == 0;
    }

    /// Whether every reference in `s` is a JSON pointer into the same document that neither
    /// reaches a replaced position (`replaced`, in order) nor a schema holding one (an `$id` or
    /// an anchor could make any other form reach one).
    static bool references_avoid(const nlohmann::json& s, const std::vector<std::string>& replaced) {
        if (s.is_array()) {
            return std::all_of(s.begin(), s.end(),
                               [&](const nlohmann::json& v) { return references_avoid(v, replaced); });
        }
        if (!s.is_object()) {
            return true;
        }
        const auto members = s.items();
        return std::all_of(members.begin(), members.end(),
                           [&](const auto& m) { return member_avoids(m.key(), m.value(), replaced); });
    }

    /// references_avoid for member `k` of a schema object, whose value is `v`.
    static bool member_avoids(const std::string& k, const nlohmann::json& v, const std::vector<std::string>& replaced) {
        if (k == "$dynamicRef" || k == "$recursiveRef") {
            return false;
        }
        if (k != "$ref") {
            return references_avoid(v, replaced);
        }
        // A percent-escaped pointer is judged unsafe rather than decoded.
        const std::string* ref = v.is_string() ? &v.get_ref<const std::string&>() : nullptr;
        return ref != nullptr && ref->compare(0, 2, "#/") == 0 && ref->find('%') == std::string::npos &&
               !overlaps(replaced, ref->substr(1));
    }

    /// Parts compiled on their own hold about as many schema objects as the task schema (at
    /// least min_alone_budget), each compile weighing alone_compile_weight objects more: where
    /// parts nest, each holding the parts below it, compiling every one alone would cost the
    /// square of the schema's size. Past the budget a part is judged in place, with the same
    /// verdicts (a member's items then judged again with their member), or, under dynamic scope,
    /// where nothing is judged in place, not before partial_result closes.
    static constexpr std::size_t min_alone_budget = 4096;
    static constexpr std::size_t alone_compile_weight = 32;

    compiled_schema root_;
    bool followed_;
    std::size_t alone_budget_ = 0;
    std::size_t alone_spent_ = 0;
    schema_options options_;
    std::unordered_map<const nlohmann::json*, part_judge> parts_;
    std::unordered_map<const nlohmann::json*, part_facts> facts_;
    std::optional<compiled_schema> result_;
};

/// The parts of `root`, compiled once for the last few task schemas used (each entry keeps its
/// schema alive, so an address is never another schema's), shared and immutable, so checks on
/// many threads read them at once.
[[nodiscard]] inline std::shared_ptr<const task_paths> recent_task_paths(const compiled_schema& root) {
    static std::mutex guard;
    static std::vector<std::shared_ptr<const task_paths>> recent; // most recent last
    constexpr std::size_t kept = 16;
    const std::lock_guard<std::mutex> lock(guard);
    for (auto it = recent.begin(); it != recent.end(); ++it) {
        if ((*it)->root() == &root.document()) {
            std::shared_ptr<const task_paths> found = *it;
            recent.erase(it);
            recent.push_back(found);
            return found;
        }
    }
    recent.push_back(std::make_shared<const task_paths>(root));
    if (recent.size() > kept) {
        recent.erase(recent.begin());
    }
    return recent.back();
}

/// The parts of `root` for a new streaming check. A thread keeps the last parts it was given
/// (alive, as recent_task_paths keeps them), so the checks it runs one after another on one
/// task schema take no lock.
[[nodiscard]] inline std::shared_ptr<const task_paths> shared_task_paths(const compiled_schema& root) {
    thread_local std::shared_ptr<const task_paths> last;
    if (!last || last->root() != &root.document()) {
        last = recent_task_paths(root);
    }
    return last;
}

} // namespace handoff::detail::stream
