// SPDX-License-Identifier: MIT
#pragma once

// A schema's `$dynamicRef`s and `$recursiveRef`s as the plain `$ref`s they are when the dynamic
// scope can hold one target: for readers that know `$ref` only (providers' decoders, the worker
// prompt's describer).

#include <handoff/detail/json/object_of_members.hpp>
#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/schema/ids.hpp>
#include <handoff/detail/schema/uri.hpp>
#include <handoff/schema_dialect.hpp>

#include <cstddef> // size_t
#include <map>     // map
#include <string>  // string
#include <vector>  // vector

namespace handoff::detail {

/// Calls `visit(schema, pointer)` on `node` (at `pointer`) and every schema below it, by
/// descent_of, to 1024 levels (deeper than any schema the receiver compiles).
template <class Json, class Visit>
void for_each_schema(Json& node, const std::string& pointer, const Visit& visit, int depth = 0) {
    if (!node.is_object() || depth > 1024) {
        return;
    }
    visit(node, pointer);
    for (auto item = node.begin(); item != node.end(); ++item) {
        const std::string at = pointer_child(pointer, item.key());
        const descent d = descent_of(item.key(), item.value());
        if (d == descent::value) {
            for_each_schema(item.value(), at, visit, depth + 1);
        } else if (d == descent::members) {
            for (auto child = item.value().begin(); child != item.value().end(); ++child) {
                for_each_schema(child.value(), pointer_child(at, child.key()), visit, depth + 1);
            }
        } else if (d == descent::items) {
            for (std::size_t i = 0; i < item.value().size(); ++i) {
                for_each_schema(item.value()[i], pointer_item(at, i), visit, depth + 1);
            }
        }
    }
}

/// Whether every schema of `task` reads in its root's dialect: none below the root declares
/// `$schema` (a bundled copy of another file keeps its own).
template <class Json>
[[nodiscard]] bool reads_in_one_dialect(const Json& task) {
    bool one = true;
    for_each_schema(task, "",
                    [&](const Json& s, const std::string& at) { one = one && (at.empty() || !s.contains("$schema")); });
    return one;
}

/// The task's `$dynamicRef`s (2020-12) and `$recursiveRef`s (2019-09), in the `dialect` that
/// defines them (elsewhere they are annotations), as plain `$ref`s where that changes nothing: in
/// a document with no resource embedded below its root (no `$id` there, and no `$schema` that
/// would read a part in another dialect), the dynamic scope holds that one resource, so
/// `$recursiveRef: "#"` is `$ref: "#"`, and `$dynamicRef: "#name"` is a `$ref` to the one schema
/// with `$dynamicAnchor` "name", when one has it (a pointer fragment is static anyway). Providers
/// take `$ref`: the schema sent keeps the recursion the keywords write.
template <class Json>
void dynamic_refs_as_refs(Json& task, std::optional<schema_dialect> dialect) {
    const bool recursive_refs = dialect == schema_dialect::draft2019_09;
    const bool dynamic_refs = dialect == schema_dialect::draft2020_12;
    std::map<std::string, std::vector<std::string>> anchors; // name: the pointers declaring it
    bool embedded = false;
    bool dynamic = false;
    for_each_schema(task, "", [&](const Json& s, const std::string& at) {
        embedded = embedded || (!at.empty() && (s.contains("$id") || s.contains("$schema")));
        dynamic =
            dynamic || (dynamic_refs && s.contains("$dynamicRef")) || (recursive_refs && s.contains("$recursiveRef"));
        if (const auto a = s.find("$dynamicAnchor"); a != s.end() && a->is_string()) {
            anchors[a->template get<std::string>()].push_back(at);
        }
    });
    if (!dynamic || embedded) {
        return;
    }
    for_each_schema(task, "", [&](Json& s, const std::string&) {
        const auto recursive = recursive_refs ? s.find("$recursiveRef") : s.end();
        const auto named = dynamic_refs ? s.find("$dynamicRef") : s.end();
        if (s.contains("$ref")) {
            return;
        }
        if (recursive != s.end() && *recursive == "#") {
            s = renamed(s, "$recursiveRef", "$ref");
            return;
        }
        if (named == s.end() || !named->is_string() || named->template get<std::string>().rfind('#', 0) != 0) {
            return;
        }
        const std::string name = named->template get<std::string>().substr(1);
        const auto declared = anchors.find(name);
        if (name.empty() || name.front() == '/') {
            s = renamed(s, "$dynamicRef", "$ref");
        } else if (declared != anchors.end() && declared->second.size() == 1) {
            s = renamed(s, "$dynamicRef", "$ref");
            s["$ref"] = Json("#" + pointer_fragment(declared->second.front()));
        }
    });
}

} // namespace handoff::detail
