// SPDX-License-Identifier: MIT
#pragma once

// A provider schema stands alone: every `$defs` and `definitions`, wherever it is nested, moves to
// the root `$defs` under a name no other definition has, and every local `$ref` is rewritten to
// point there. llama.cpp's json-schema-to-grammar.cpp (hoist_defs_to_root) moves nested `$defs`
// to the root itself without rewriting the refs that name their old place, and then fails
// ("Error resolving ref"); Gemini takes `$defs` only; so the rewrite sends every definition at
// the one place all of them read.
//
// A `$ref` to anything else than a whole definition (the task's root, a property, an `$anchor`)
// gets a definition of its own holding a copy of its target, so that no provider rewrite of the
// place it pointed to (a property made nullable, a oneOf renamed) can leave it dangling. A `$ref`
// that resolves nowhere in the document is removed and reported: the receiver resolves it (or
// refuses the schema), the provider could not.

#include <handoff/detail/json/object_of_members.hpp>
#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/provider/keep_rules.hpp>
#include <handoff/detail/provider/schema_note.hpp>
#include <handoff/detail/provider/schema_note_kind.hpp>
#include <handoff/detail/schema/uri.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>  // size_t
#include <map>      // map
#include <optional> // optional
#include <set>      // set
#include <string>   // string
#include <utility>  // move, pair
#include <vector>   // vector

namespace handoff::detail {

/// Where the task schema sits in the merged schema (the envelope's partial_result, "or null"):
/// every other node is the envelope's, which holds no definitions.
inline constexpr std::string_view task_pointer = "/properties/partial_result/anyOf/0";

/// A definition as sent: its name under the root `$defs` and the pointer, in the schema as
/// given, of the schema it holds (notes about it point there).
using hoisted_definition = handoff::schema_definition;

/// Each hoisted definition's origin, by its name under the root `$defs`.
using definition_origins = std::map<std::string, std::string>;

[[nodiscard]] inline definition_origins origins_by_name(const std::vector<hoisted_definition>& definitions) {
    definition_origins out;
    for (const hoisted_definition& d : definitions) {
        out.emplace(d.name, d.origin);
    }
    return out;
}

/// Each copy costs the size of its target, so a schema with many refs into itself could grow
/// without bound: past this many copies a `$ref` is removed and reported instead.
inline constexpr std::size_t max_ref_copies = 256;

template <class Json, class Note>
class definition_hoister {
public:
    definition_hoister(Json& root, const Note& note) : root_(root), note_(note) {}

    /// Hoists every definition of `root_` and rewrites every `$ref`; returns the definitions in
    /// the order they are sent.
    std::vector<hoisted_definition> run() {
        collect(root_, "");
        rewrite_refs(root_, "");
        for (std::size_t i = 0; i < defs_.size(); ++i) {
            rewrite_refs(defs_[i].second, origins_[i]);
        }
        redirect(root_, "");
        for (std::size_t i = 0; i < defs_.size(); ++i) { // grows while it runs: copies get their own
            // Copies, not references: a copy made below moves both vectors.
            Json body = defs_[i].second;
            const std::string origin = origins_[i];
            redirect(body, origin);
            defs_[i].second = std::move(body);
        }
        std::vector<hoisted_definition> sent;
        if (defs_.empty()) {
            return sent;
        }
        for (std::size_t i = 0; i < defs_.size(); ++i) {
            sent.push_back(hoisted_definition{defs_[i].first, origins_[i]});
        }
        root_["$defs"] = object_of_members(std::move(defs_)); // unique_name made the names differ
        return sent;
    }

private:
    Json& root_;
    const Note& note_;
    std::vector<std::pair<std::string, Json>> defs_;
    std::vector<std::string> origins_;
    std::map<std::string, std::string> moved_;   // pointer as given -> definition name
    std::map<std::string, std::string> anchors_; // $anchor -> pointer as given
    std::map<std::string, std::string> copies_;  // pointer after the move -> definition name
    std::set<std::string> used_;

    std::string unique_name(const std::string& wanted) {
        const std::string base = plain_name(wanted);
        std::string name = base;
        for (std::size_t n = 2; used_.count(name) != 0; ++n) {
            name = base + "_" + std::to_string(n);
        }
        used_.insert(name);
        return name;
    }

    template <class Visit>
    static void each_subschema(Json& node, const std::string& pointer, Visit&& visit) {
        for (auto it = node.begin(); it != node.end(); ++it) {
            const std::string here = pointer_child(pointer, it.key());
            switch (descent_of(it.key(), it.value())) {
            case descent::members:
                for (auto m = it.value().begin(); m != it.value().end(); ++m) {
                    visit(m.value(), pointer_child(here, m.key()));
                }
                break;
            case descent::items:
                for (std::size_t i = 0; i < it.value().size(); ++i) {
                    visit(it.value()[i], pointer_item(here, i));
                }
                break;
            case descent::value: visit(it.value(), here); break;
            case descent::none: break;
            }
        }
    }

    void collect(Json& node, const std::string& pointer) {
        if (!node.is_object()) {
            return;
        }
        if (const auto anchor = node.find("$anchor"); anchor != node.end() && anchor->is_string()) {
            anchors_.emplace(anchor->template get<std::string>(), pointer);
        }
        for (const char* keyword : {"$defs", "definitions"}) {
            const auto defs = node.find(keyword);
            if (defs == node.end() || !defs->is_object()) {
                continue;
            }
            Json taken = std::move(*defs);
            node.erase(keyword);
            for (auto it = taken.begin(); it != taken.end(); ++it) {
                const std::string origin = pointer_child(pointer_child(pointer, keyword), it.key());
                const std::string name = unique_name(it.key());
                moved_.emplace(origin, name);
                Json body = std::move(it.value());
                collect(body, origin);
                defs_.emplace_back(name, std::move(body));
                origins_.push_back(origin);
            }
        }
        each_subschema(node, pointer, [this](Json& child, const std::string& at) { collect(child, at); });
    }

    /// The pointer a local `$ref` names once the definitions have moved, or nothing.
    [[nodiscard]] std::optional<std::string> moved_target(const std::string& ref) const {
        if (ref.empty() || ref.front() != '#') {
            return std::nullopt;
        }
        std::string pointer = percent_decode(ref.substr(1));
        if (!pointer.empty() && pointer.front() != '/') {
            const auto anchor = anchors_.find(pointer);
            if (anchor == anchors_.end()) {
                return std::nullopt;
            }
            pointer = anchor->second;
        }
        // The longest moved prefix wins: a definition nested in a definition moved on its own.
        for (std::string prefix = pointer;; prefix = prefix.substr(0, prefix.rfind('/'))) {
            if (const auto it = moved_.find(prefix); it != moved_.end()) {
                return pointer_child("/$defs", it->second) + pointer.substr(prefix.size());
            }
            if (prefix.empty()) {
                return pointer;
            }
        }
    }

    void drop_ref(Json& node, const std::string& pointer, const std::string& why) {
        note_(schema_note_kind::not_enforced, pointer, "$ref", node["$ref"], why + "; the receiver still checks it");
        node.erase("$ref");
    }

    void rewrite_refs(Json& node, const std::string& pointer) {
        if (!node.is_object()) {
            return;
        }
        if (const auto ref = node.find("$ref"); ref != node.end()) {
            const std::optional<std::string> target =
                ref->is_string() ? moved_target(ref->template get<std::string>()) : std::nullopt;
            if (target) {
                *ref = Json("#" + *target);
            } else {
                drop_ref(node, pointer, "a $ref that does not resolve inside the schema is not sent");
            }
        }
        each_subschema(node, pointer, [this](Json& child, const std::string& at) { rewrite_refs(child, at); });
    }

    /// The schema at `pointer` (after the move), or nullptr.
    [[nodiscard]] const Json* resolve(const std::string& pointer) const {
        const std::vector<std::string> tokens = pointer_tokens(pointer);
        const Json* node = &root_;
        std::size_t first = 0;
        if (tokens.size() >= 2 && tokens[0] == "$defs") {
            node = nullptr;
            for (const auto& def : defs_) {
                node = def.first == tokens[1] ? &def.second : node;
            }
            first = 2;
        }
        for (std::size_t i = first; i < tokens.size() && node != nullptr; ++i) {
            if (node->is_object()) {
                const auto it = node->find(tokens[i]);
                node = it == node->end() ? nullptr : &*it;
            } else if (node->is_array() && pointer_index(tokens[i]) && *pointer_index(tokens[i]) < node->size()) {
                node = &(*node)[*pointer_index(tokens[i])];
            } else {
                node = nullptr;
            }
        }
        return node;
    }

    [[nodiscard]] std::string origin_of(const std::string& pointer) const {
        const std::vector<std::string> tokens = pointer_tokens(pointer);
        if (tokens.size() < 2 || tokens[0] != "$defs") {
            return pointer;
        }
        for (std::size_t i = 0; i < defs_.size(); ++i) {
            if (defs_[i].first == tokens[1]) {
                return origins_[i] + pointer.substr(pointer_child(pointer_child("", "$defs"), tokens[1]).size());
            }
        }
        return pointer;
    }

    /// Every `$ref` below `node` names a whole definition: a ref to anything else gets a copy of
    /// its target as a definition of its own.
    void redirect(Json& node, const std::string& pointer) {
        if (!node.is_object()) {
            return;
        }
        if (const auto ref = node.find("$ref"); ref != node.end() && ref->is_string()) {
            const std::string target = ref->template get<std::string>().substr(1);
            const std::vector<std::string> tokens = pointer_tokens(target);
            const bool whole = tokens.size() == 2 && tokens[0] == "$defs" && used_.count(tokens[1]) != 0;
            if (!whole) {
                if (copies_.count(target) == 0) {
                    const Json* found = copies_.size() < max_ref_copies ? resolve(target) : nullptr;
                    if (found == nullptr) {
                        drop_ref(node, pointer, "a $ref that does not resolve inside the schema is not sent");
                        return;
                    }
                    const std::string name = unique_name(target == task_pointer ? std::string("task")
                                                         : tokens.empty()       ? std::string("root")
                                                                                : tokens.back());
                    Json copy = *found;
                    copies_.emplace(target, name);
                    defs_.emplace_back(name, std::move(copy));
                    origins_.push_back(origin_of(target));
                }
                node["$ref"] = Json("#" + pointer_child("/$defs", copies_[target]));
            }
        }
        each_subschema(node, pointer, [this](Json& child, const std::string& at) { redirect(child, at); });
    }
};

/// Hoists the definitions of `root` (see the top of this file); `note` is called as
/// note(kind, pointer, keyword, value, text) for every `$ref` removed.
template <class Json, class Note>
std::vector<hoisted_definition> hoist_definitions(Json& root, const Note& note) {
    return definition_hoister<Json, Note>(root, note).run();
}

} // namespace handoff::detail
