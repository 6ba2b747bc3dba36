// SPDX-License-Identifier: MIT
#pragma once

// Where a provider's strict schema put nulls that mean "absent", and their removal from a reply
// (provider_nulls.hpp tells why). The places are a pattern over the schema, not a list of reply
// paths: a place is a value the schema describes, reached from the reply's root by keys, array
// items and `$ref`s, so a recursive definition (endlessly many reply paths) is a loop here, and
// a reply is matched against it lazily, one value at a time.
//
// Two builders fill the same pattern: the receiver (receiver_options::from) walks the schema as
// given on nlohmann::json, its definitions hoisted as provider_schema() hoists them, with the
// provider rewrite's own rules (rewrite.hpp) without building the rewrite, so a file that
// receives never instantiates ordered_json or the rewriter;
// remove_nulled_optionals() reads provider_schema()'s made_nullable notes and the `$ref`s of the
// schema it sent.

#include <handoff/config.hpp>
#include <handoff/detail/json/object_of_members.hpp>
#include <handoff/detail/json/pointer.hpp>
#include <handoff/provider.hpp>
#include <handoff/schema.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <map>         // map
#include <set>         // set
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move, pair
#include <vector>      // vector

namespace handoff::detail {

/// One place of the pattern: the value the schema describes at one schema location.
struct null_place {
    static constexpr std::size_t none = static_cast<std::size_t>(-1);
    /// Property name -> the place of its value.
    std::map<std::string, std::size_t> properties;
    /// The place of every array item, or none.
    std::size_t items = none;
    /// Definitions that describe the same value (a `$ref` here, or in an anyOf/allOf member).
    std::vector<std::size_t> same_value;
    /// Properties whose null the provider schema put in for "absent".
    std::set<std::string> nulled;
};

/// The pattern: place 0 describes the reply's root.
class nulled_places {
public:
    nulled_places() : places_(1) {}

    /// A place no other reaches yet (a definition's root).
    [[nodiscard]] std::size_t add_place();
    /// The place of property `key` below `at`, made when missing.
    [[nodiscard]] std::size_t property(std::size_t at, const std::string& key);
    /// The place of the items of an array at `at`, made when missing.
    [[nodiscard]] std::size_t items(std::size_t at);
    /// The definition at `definition` describes the same value as `at`.
    void read_also(std::size_t at, std::size_t definition);
    /// A null for property `key` of the object at `at` means "absent".
    void add_nulled(std::size_t at, const std::string& key);

    /// No null is put in anywhere.
    [[nodiscard]] bool empty() const noexcept { return nulled_count_ == 0; }
    /// `at` with every place that describes the same value, each once, in a stable order.
    [[nodiscard]] std::vector<std::size_t> closure(const std::vector<std::size_t>& at) const;
    /// Whether a null for `key` below any place of the closure `at` means "absent".
    [[nodiscard]] bool nulled(const std::vector<std::size_t>& at, const std::string& key) const;
    /// The places of property `key` below the closure `at` (not closed).
    [[nodiscard]] std::vector<std::size_t> property_places(const std::vector<std::size_t>& at,
                                                           const std::string& key) const;
    /// The places of an array's items below the closure `at` (not closed).
    [[nodiscard]] std::vector<std::size_t> item_places(const std::vector<std::size_t>& at) const;
    [[nodiscard]] const std::vector<null_place>& places() const noexcept { return places_; }

private:
    std::vector<null_place> places_;
    std::size_t nulled_count_ = 0;
};

/// Follows one keyword of a schema object to the places it describes: a property to its value,
/// items to every item, an anyOf, oneOf or allOf member to the same place, a `$ref` to the
/// definition it names (`definitions`: name in the root `$defs` -> its place). `walk(child,
/// place)` is called for each subschema; other keywords describe no place where a provider puts
/// a null for an optional property (a strict schema closes every object).
template <class Json, class Walk>
void follow_keyword(const std::string& keyword, const Json& value, std::size_t at, nulled_places& places,
                    const std::map<std::string, std::size_t>& definitions, const Walk& walk) {
    if (keyword == "properties" && value.is_object()) {
        for (auto member = value.begin(); member != value.end(); ++member) {
            walk(member.value(), places.property(at, member.key()));
        }
    } else if (keyword == "items" && (value.is_object() || value.is_array())) {
        const std::size_t items = places.items(at);
        if (value.is_object()) {
            walk(value, items);
        }
        for (auto member = value.begin(); member != value.end() && value.is_array(); ++member) {
            walk(*member, items);
        }
    } else if ((keyword == "anyOf" || keyword == "oneOf" || keyword == "allOf") && value.is_array()) {
        for (const auto& member : value) {
            walk(member, at);
        }
    } else if (keyword == "$ref" && value.is_string()) {
        // Every `$ref` of a hoisted schema names a whole definition: "#/$defs/NAME".
        const auto& ref = value.template get_ref<const std::string&>();
        const std::vector<std::string> tokens = pointer_tokens(std::string_view(ref).substr(ref.empty() ? 0 : 1));
        const auto found = tokens.size() == 2 && tokens[0] == "$defs" ? definitions.find(tokens[1]) : definitions.end();
        if (found != definitions.end()) {
            places.read_also(at, found->second);
        }
    }
}

/// The pattern of the places where `target`'s schema for the envelope (with `task_schema` when
/// given) made an optional property nullable: those of provider_schema(target, task_schema)'s
/// made_nullable notes, reached through the `$ref`s of the schema it sends. `read_as`: how the
/// task schema is read (provider_schema_options::schema).
[[nodiscard]] nulled_places nulled_optional_places(provider target, const nlohmann::json* task_schema,
                                                   const schema_options& read_as = {});

/// Removes from `reply` every null that `places` reads as "absent". Iterative (a reply's depth
/// is bounded only by its parser), and each value is visited once.
template <class Json>
void remove_nulls_at(Json& reply, const nulled_places& places) {
    if (places.empty()) {
        return;
    }
    std::vector<std::pair<Json*, std::vector<std::size_t>>> pending;
    pending.emplace_back(&reply, std::vector<std::size_t>{0});
    while (!pending.empty()) {
        Json& node = *pending.back().first;
        const std::vector<std::size_t> at = places.closure(pending.back().second);
        pending.pop_back();
        if (node.is_array()) {
            const std::vector<std::size_t> items = places.item_places(at);
            for (auto it = node.begin(); it != node.end() && !items.empty(); ++it) {
                pending.emplace_back(&*it, items);
            }
            continue;
        }
        if (!node.is_object()) {
            continue;
        }
        std::vector<bool> absent;
        std::size_t absent_count = 0;
        for (auto it = node.begin(); it != node.end(); ++it) {
            absent.push_back(it.value().is_null() && places.nulled(at, it.key()));
            absent_count += absent.back() ? 1U : 0U;
        }
        if (absent_count > 0) {
            // Rebuilt once: an ordered_json object erases a key by moving every member after it.
            std::vector<std::pair<std::string, Json>> kept;
            kept.reserve(absent.size() - absent_count);
            std::size_t k = 0;
            for (auto it = node.begin(); it != node.end(); ++it, ++k) {
                if (!absent[k]) {
                    kept.emplace_back(it.key(), std::move(it.value()));
                }
            }
            node = object_of_members(std::move(kept));
        }
        for (auto it = node.begin(); it != node.end(); ++it) {
            if (it.value().is_object() || it.value().is_array()) {
                std::vector<std::size_t> below = places.property_places(at, it.key());
                if (!below.empty()) {
                    pending.emplace_back(&it.value(), std::move(below));
                }
            }
        }
    }
}

} // namespace handoff::detail

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/detail/provider/nulled_optionals-inl.hpp>
#endif
