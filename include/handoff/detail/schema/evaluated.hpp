// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>   // any_of, find, max
#include <cstddef>     // size_t
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff::detail {

/// The properties and items of one instance that keywords evaluated (core 2020-12, sections
/// 11.2-11.3): what unevaluatedProperties and unevaluatedItems leave alone.
struct evaluated {
    bool all_properties = false;
    std::vector<std::string_view> properties; // views of the instance's keys, which outlive the walk
    bool all_items = false;
    std::size_t items_prefix = 0;   // items [0, prefix) evaluated
    std::vector<std::size_t> items; // more items evaluated (by `contains`, 2020-12)

    void merge(const evaluated& o) {
        all_properties = all_properties || o.all_properties;
        properties.insert(properties.end(), o.properties.begin(), o.properties.end());
        all_items = all_items || o.all_items;
        items_prefix = std::max(items_prefix, o.items_prefix);
        items.insert(items.end(), o.items.begin(), o.items.end());
    }
    /// `key` must be a key of the same instance: keys are told apart by address, no bytes compared.
    [[nodiscard]] bool has_property(std::string_view key) const {
        return all_properties || std::any_of(properties.begin(), properties.end(),
                                             [&](std::string_view p) { return p.data() == key.data(); });
    }
    [[nodiscard]] bool has_item(std::size_t k) const {
        return all_items || k < items_prefix || std::find(items.begin(), items.end(), k) != items.end();
    }
};

} // namespace handoff::detail
