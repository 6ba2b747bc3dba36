// SPDX-License-Identifier: MIT
#pragma once

// Routing tables tied to the task schema: a table that routes on a task field's value ("/label"
// -> handler) must have exactly one entry per value the schema's `enum` (or `const`) allows at
// that field. A label the schema allows but the table lacks would fall through at run time; an
// entry the schema does not allow is dead code or a typo. Both are programmer mistakes, found
// when the table is built, not when the first such task arrives.
//
// The field is found by following `properties` (and `items` for an array index or "*") from
// the schema's root, through its `$ref`s, resolved as the validator resolves them (pointers,
// `$id`s; a reference to another document leads nowhere here). A value the schema lists that
// is not a string is compared in its JSON spelling (1, true, null).

#include <handoff/config.hpp>
#include <handoff/enum_names.hpp>

#include <nlohmann/json.hpp>

#include <array>       // array
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <map>         // map
#include <optional>    // optional
#include <set>         // set
#include <stdexcept>   // logic_error
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move
#include <vector>      // vector

namespace handoff {

/// What is wrong between a routing table and the schema.
enum class route_mismatch_kind : std::uint8_t {
    missing_handler, // the schema allows the value, the table has no entry for it
    unknown_value,   // the table has an entry for a value the schema does not allow
    field_not_closed // the pointer leads to no field, or to one without enum or const
};
inline constexpr std::size_t route_mismatch_kind_count = 3;
template <>
struct enum_names<route_mismatch_kind> {
    static constexpr std::array<std::string_view, route_mismatch_kind_count> names{
        "routes.missing_handler", "routes.unknown_value", "routes.field_not_closed"};
};

struct route_mismatch {
    route_mismatch_kind kind = route_mismatch_kind::missing_handler;
    /// The task field routed on, as a JSON pointer into the task ("/label").
    std::string pointer;
    /// The value at fault (empty for field_not_closed).
    std::string value;
    /// One line naming the value, the field, and which side (schema or table) lacks it.
    std::string message;
};

/// Thrown by route_table::build: a table that disagrees with its schema is a programmer
/// error found at start-up. what() names every mismatch, one per line.
class route_table_error : public std::logic_error {
public:
    explicit route_table_error(std::vector<route_mismatch> mismatches);

    [[nodiscard]] const std::vector<route_mismatch>& mismatches() const noexcept { return mismatches_; }

private:
    static std::string describe(const std::vector<route_mismatch>& mismatches);
    std::vector<route_mismatch> mismatches_;
};

namespace detail::routes {

/// The field's schema: `properties` for a name, `items` for an index or "*", every `$ref` on
/// the way followed as the validator follows it. Null when the pointer leads nowhere.
[[nodiscard]] const nlohmann::json* field_schema(const nlohmann::json& root, std::string_view pointer);

/// A value in its table spelling: a string as itself, anything else as its JSON text; nullopt
/// for a value nested past max_recursed_depth (detail/json/depth.hpp: writing it out recurses),
/// which no key names.
[[nodiscard]] std::optional<std::string> spelling(const nlohmann::json& value);

[[nodiscard]] std::string join(const std::set<std::string>& values);

} // namespace detail::routes

/// The values the schema allows at `pointer` (a pointer into the task, "/label"), in their
/// table spelling; nullopt when the pointer leads nowhere or the field has no enum or const. A
/// value nested more than 256 levels deep is left out: no key can name it (and no receiver
/// compiles a schema holding one).
[[nodiscard]] std::optional<std::set<std::string>> allowed_values(const nlohmann::json& schema,
                                                                  std::string_view pointer);

/// Every disagreement between the table's keys and the schema at `pointer`: values the table
/// lacks, then values the schema lacks, each sorted; empty when they match exactly.
[[nodiscard]] std::vector<route_mismatch> check_routes(const nlohmann::json& schema, std::string_view pointer,
                                                       const std::set<std::string>& table_values);

/// A table from the values of one task field to handlers, checked against the task schema
/// when it is built: afterwards every value the schema lets through has exactly one handler.
template <class Handler>
class route_table {
public:
    /// Throws route_table_error naming every mismatch (see check_routes).
    [[nodiscard]] static route_table build(const nlohmann::json& schema, std::string pointer,
                                           std::map<std::string, Handler> handlers) {
        std::set<std::string> keys;
        for (const auto& entry : handlers) {
            keys.insert(entry.first);
        }
        std::vector<route_mismatch> mismatches = check_routes(schema, pointer, keys);
        if (!mismatches.empty()) {
            throw route_table_error(std::move(mismatches));
        }
        return route_table(std::move(pointer), std::move(handlers));
    }

    [[nodiscard]] const std::string& pointer() const noexcept { return pointer_; }
    [[nodiscard]] const std::map<std::string, Handler>& handlers() const noexcept { return handlers_; }

    /// The handler for the task's value at pointer(); nullptr when the task lacks the field
    /// (a task that passed the schema has it whenever the schema requires it), or when the value
    /// nests more than 256 levels deep (no key names it).
    [[nodiscard]] const Handler* find(const nlohmann::json& task) const {
        const nlohmann::json::json_pointer at(pointer_);
        if (!task.is_object() || !task.contains(at)) {
            return nullptr;
        }
        const std::optional<std::string> key = detail::routes::spelling(task.at(at));
        const auto it = key ? handlers_.find(*key) : handlers_.end();
        return it == handlers_.end() ? nullptr : &it->second;
    }

private:
    route_table(std::string pointer, std::map<std::string, Handler> handlers)
        : pointer_(std::move(pointer)), handlers_(std::move(handlers)) {}

    std::string pointer_;
    std::map<std::string, Handler> handlers_;
};

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/route_table-inl.hpp>
#endif
