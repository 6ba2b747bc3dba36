// SPDX-License-Identifier: MIT
#pragma once

// provider_schema()'s definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/detail/provider/rewrite.hpp>
#include <handoff/detail/provider/rules.hpp>
#include <handoff/detail/provider/schema_stats.hpp>
#include <handoff/envelope_schema.hpp>
#include <handoff/provider_schema.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // none_of, count_if
#include <cstddef>     // size_t, nullptr_t
#include <cstdint>     // uint64_t
#include <string>      // string, to_string
#include <string_view> // string_view
#include <utility>     // move
#include <vector>      // vector

namespace handoff {

HANDOFF_INLINE bool provider_schema_result::within_limits() const {
    return std::none_of(notes.begin(), notes.end(),
                        [](const schema_note& n) { return n.kind == schema_note_kind::limit_exceeded; });
}

HANDOFF_INLINE std::size_t provider_schema_result::count(schema_note_kind kind) const {
    return static_cast<std::size_t>(
        std::count_if(notes.begin(), notes.end(), [kind](const schema_note& n) { return n.kind == kind; }));
}

namespace detail {

HANDOFF_INLINE void check_limits(provider target, const nlohmann::ordered_json& schema,
                                 std::vector<schema_note>& notes) {
    const schema_stats stats = measure_schema(schema);
    for (const schema_limit& limit : schema_limits) {
        const std::uint64_t count = stats.get(limit.counter);
        if (limit.target != target || count <= limit.maximum) {
            continue;
        }
        nlohmann::ordered_json value = {{"count", count}, {"limit", limit.maximum}};
        notes.push_back(schema_note{schema_note_kind::limit_exceeded, "", std::string(limit.name), std::move(value),
                                    std::string(profile_of(target).display_name) + " refuses a schema over " +
                                        std::string(limit.name) + " (" + std::to_string(count) + " > " +
                                        std::to_string(limit.maximum) + "); " +
                                        std::string(profile_of(target).docs_url)});
    }
}

} // namespace detail

HANDOFF_INLINE provider_schema_result provider_schema(provider target, const nlohmann::ordered_json* task_schema) {
    provider_schema_result result;
    result.target = target;
    const nlohmann::ordered_json merged = detail::merged_schema(task_schema);
    const auto add_note = [&result](schema_note_kind kind, const std::string& pointer, std::string_view keyword,
                                    const nlohmann::ordered_json& value, std::string text) {
        result.notes.push_back(schema_note{kind, pointer, std::string(keyword), value, std::move(text)});
    };
    const detail::rewriter<nlohmann::ordered_json, decltype(add_note)> rewrite{detail::profile_of(target), add_note};
    result.schema = rewrite.rewrite(merged, "");
    detail::check_limits(target, result.schema, result.notes);
    return result;
}

HANDOFF_INLINE provider_schema_result provider_schema(provider target, std::nullptr_t) {
    return provider_schema(target, static_cast<const nlohmann::ordered_json*>(nullptr));
}

HANDOFF_INLINE provider_schema_result provider_schema(provider target, const nlohmann::json* task_schema) {
    if (task_schema == nullptr) {
        return provider_schema(target, static_cast<const nlohmann::ordered_json*>(nullptr));
    }
    const nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(task_schema->dump());
    return provider_schema(target, &ordered);
}

} // namespace handoff
