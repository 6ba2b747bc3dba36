// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/schema.hpp>
#include <handoff/schema_error.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>       // size_t
#include <memory>        // shared_ptr
#include <optional>      // optional
#include <string_view>   // string_view
#include <unordered_map> // unordered_map

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
    explicit task_paths(const compiled_schema& root) : root_(&root) {}

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

    /// `part` compiled on its own, in the root's dialect and options; nullptr when it cannot
    /// be (it refers to another part) or it constrains nothing (true, {}).
    [[nodiscard]] const compiled_schema* compiled(const nlohmann::json* part) {
        if (part == nullptr) {
            return nullptr;
        }
        const auto known = cache_.find(part);
        if (known != cache_.end()) {
            return known->second ? &*known->second : nullptr;
        }
        std::optional<compiled_schema>& slot = cache_[part];
        if (!is_trivial(*part) && !refers(*part)) {
            nlohmann::json standalone = *part;
            const nlohmann::json& root = root_->document();
            if (standalone.is_object() && root.is_object() && root.contains("$schema")) {
                standalone["$schema"] = root["$schema"];
            }
            try {
                slot = compiled_schema::from_json(standalone, root_->options());
            } catch (const schema_error&) {
                slot.reset(); // what does not compile alone is left to the whole-text check
            }
        }
        return slot ? &*slot : nullptr;
    }

    [[nodiscard]] const nlohmann::json* root() const noexcept { return &root_->document(); }
    [[nodiscard]] const compiled_schema& root_schema() const noexcept { return *root_; }

private:
    static bool followable(const nlohmann::json* s) { return s != nullptr && s->is_object() && !s->contains("$ref"); }

    static bool is_trivial(const nlohmann::json& s) {
        return (s.is_boolean() && s.get<bool>()) || (s.is_object() && s.empty());
    }

    /// Whether a reference keyword occurs anywhere inside `s` (a property of that name too:
    /// the test only has to be conservative).
    static bool refers(const nlohmann::json& s) {
        if (s.is_array()) {
            for (const nlohmann::json& v : s) {
                if (refers(v)) {
                    return true;
                }
            }
            return false;
        }
        if (!s.is_object()) {
            return false;
        }
        for (const auto& item : s.items()) {
            const std::string& k = item.key();
            if (k == "$ref" || k == "$dynamicRef" || k == "$recursiveRef" || refers(item.value())) {
                return true;
            }
        }
        return false;
    }

    const compiled_schema* root_;
    std::unordered_map<const nlohmann::json*, std::optional<compiled_schema>> cache_;
};

} // namespace handoff::detail::stream
