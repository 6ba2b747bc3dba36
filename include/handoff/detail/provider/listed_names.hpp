// SPDX-License-Identifier: MIT
#pragma once

#include <string>        // string
#include <string_view>   // string_view
#include <unordered_set> // unordered_set

namespace handoff::detail {

/// The names a "required" value lists (an array; anything else lists nothing), each looked up
/// at once however many there are. It reads the value's strings in place: the value must
/// outlive it, unchanged.
class listed_names {
public:
    template <class Json>
    explicit listed_names(const Json* required) {
        if (required == nullptr || !required->is_array()) {
            return;
        }
        for (const Json& r : *required) {
            if (r.is_string()) {
                names_.insert(r.template get_ref<const std::string&>());
            }
        }
    }
    [[nodiscard]] bool lists(std::string_view name) const { return names_.count(name) != 0; }

private:
    std::unordered_set<std::string_view> names_;
};

} // namespace handoff::detail
