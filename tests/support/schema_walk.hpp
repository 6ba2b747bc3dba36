// SPDX-License-Identifier: MIT
#pragma once

// Shared by the tests that check a provider schema node by node: a walk over a JSON Schema and
// every subschema below it, as the subschema keywords of draft-04 to 2020-12 place them
// (JSON Schema core 2020-12, section 10; validation draft-07, section 6).

#include <nlohmann/json.hpp>

#include <cstddef> // size_t
#include <set>     // set
#include <string>  // string, to_string

namespace handoff_test {

/// Calls `visit(node, pointer)` for `node` and every subschema below it that is an object.
template <class Visit>
void each_subschema(const nlohmann::ordered_json& node, const std::string& pointer, Visit&& visit) {
    static const std::set<std::string> single{"items",
                                              "additionalProperties",
                                              "additionalItems",
                                              "not",
                                              "if",
                                              "then",
                                              "else",
                                              "contains",
                                              "propertyNames",
                                              "unevaluatedItems",
                                              "unevaluatedProperties",
                                              "contentSchema"};
    static const std::set<std::string> list{"anyOf", "allOf", "oneOf", "prefixItems", "items"};
    static const std::set<std::string> map{"properties", "patternProperties", "$defs", "definitions",
                                           "dependentSchemas"};
    if (!node.is_object()) {
        return;
    }
    visit(node, pointer);
    for (const auto& item : node.items()) {
        const std::string here = pointer + "/" + item.key();
        if (map.count(item.key()) != 0 && item.value().is_object()) {
            for (const auto& sub : item.value().items()) {
                each_subschema(sub.value(), here + "/" + sub.key(), visit);
            }
        } else if (list.count(item.key()) != 0 && item.value().is_array()) {
            for (std::size_t i = 0; i < item.value().size(); ++i) {
                each_subschema(item.value()[i], here + "/" + std::to_string(i), visit);
            }
        } else if (single.count(item.key()) != 0) {
            each_subschema(item.value(), here, visit);
        }
    }
}

} // namespace handoff_test
