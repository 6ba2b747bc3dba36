// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/schema.hpp>
#include <handoff/schema_error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>     // any_of
#include <cstddef>       // size_t
#include <memory>        // shared_ptr
#include <mutex>         // mutex, lock_guard
#include <string_view>   // string_view
#include <unordered_map> // unordered_map
#include <utility>       // move
#include <vector>        // vector

namespace handoff::detail::stream {

/// The part of a task schema that must hold for one member or item on its own, whatever the
/// rest of the result holds. Only `properties`, `additionalProperties` (without
/// `patternProperties`), `items` and draft-04..2019-09's array `items`/`additionalItems` are
/// followed: each applies to its member or item unconditionally, so a value failing the part
/// fails the whole schema. A schema with a `$ref` (whose siblings draft-07 ignores),
/// `prefixItems` (whose meaning depends on the dialect) or a part that names another one is not
/// followed: nothing is concluded there.
class task_paths {
public:
    /// Compiles every part of `root` that the rules above reach, once: the streaming checks of
    /// one task schema share them (shared_task_paths below).
    explicit task_paths(compiled_schema root) : root_(std::move(root)) { compile_parts(&root_.document(), 0); }

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
        if (parent->contains("patternProperties")) {
            return nullptr;
        }
        const auto extra = parent->find("additionalProperties");
        return extra == parent->end() ? nullptr : extra.operator->();
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

    /// `part` compiled on its own, or nullptr when it is not one of the parts (above) or it
    /// cannot be compiled alone (it refers to another part) or constrains nothing (true, {}).
    [[nodiscard]] const compiled_schema* compiled(const nlohmann::json* part) const {
        const auto known = part == nullptr ? parts_.end() : parts_.find(part);
        return known == parts_.end() ? nullptr : &known->second;
    }

    [[nodiscard]] const nlohmann::json* root() const noexcept { return &root_.document(); }
    [[nodiscard]] const compiled_schema& root_schema() const noexcept { return root_; }

private:
    static bool followable(const nlohmann::json* s) { return s != nullptr && s->is_object() && !s->contains("$ref"); }

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

    /// The parts below `s` (the members' and the items' schemas), compiled; `depth` bounds the
    /// walk on a schema nested absurdly deep.
    void compile_parts(const nlohmann::json* s, std::size_t depth) {
        if (!followable(s) || depth > 64) {
            return;
        }
        std::vector<const nlohmann::json*> below;
        if (const auto props = s->find("properties"); props != s->end() && props->is_object()) {
            for (const auto& p : props->items()) {
                below.push_back(&p.value());
            }
        }
        for (const char* keyword : {"additionalProperties", "items", "additionalItems"}) {
            const auto it = s->find(keyword);
            if (it != s->end() && it->is_array()) {
                for (const nlohmann::json& item : *it) {
                    below.push_back(&item);
                }
            } else if (it != s->end()) {
                below.push_back(it.operator->());
            }
        }
        for (const nlohmann::json* part : below) {
            if (parts_.count(part) == 0 && !is_trivial(*part) && !refers(*part)) {
                compile_one(part);
            }
            compile_parts(part, depth + 1);
        }
    }

    void compile_one(const nlohmann::json* part) {
        nlohmann::json standalone = *part;
        const nlohmann::json& root = root_.document();
        if (standalone.is_object() && root.is_object() && root.contains("$schema")) {
            standalone["$schema"] = root["$schema"];
        }
        try {
            parts_.emplace(part, compiled_schema::from_json(standalone, root_.options()));
        } catch (const schema_error&) {
            // What does not compile alone is left to the whole-text check.
        }
    }

    compiled_schema root_;
    std::unordered_map<const nlohmann::json*, compiled_schema> parts_;
};

/// The parts of `root` for a new streaming check: compiled once for the last few task schemas
/// used (each entry keeps its schema alive, so an address is never another schema's), shared
/// and immutable, so checks on many threads read them at once.
[[nodiscard]] inline std::shared_ptr<const task_paths> shared_task_paths(const compiled_schema& root) {
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

} // namespace handoff::detail::stream
