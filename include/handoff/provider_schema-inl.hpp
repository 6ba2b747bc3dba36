// SPDX-License-Identifier: MIT
#pragma once

// provider_schema()'s definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/detail/json/ordered_parse.hpp>
#include <handoff/detail/provider/hoist_defs.hpp>
#include <handoff/detail/provider/openapi_schema.hpp>
#include <handoff/detail/provider/rewrite.hpp>
#include <handoff/detail/provider/rules.hpp>
#include <handoff/detail/provider/schema_stats.hpp>
#include <handoff/detail/schema/access.hpp>
#include <handoff/detail/schema/bundle.hpp>
#include <handoff/detail/schema/depth_bound.hpp>
#include <handoff/detail/schema/dynamic_refs.hpp>
#include <handoff/detail/schema/refs.hpp>
#include <handoff/envelope_schema.hpp>
#include <handoff/provider_schema.hpp>
#include <handoff/schema_registry.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // none_of, count_if, find_if
#include <cstddef>     // size_t, nullptr_t
#include <cstdint>     // uint64_t
#include <set>         // set
#include <string>      // string, to_string
#include <string_view> // string_view
#include <tuple>       // tuple
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

HANDOFF_INLINE bool provider_writes_required_first(provider target) noexcept {
    return detail::profile_of(target).required_first;
}

namespace detail {

/// The task's part of the schema sent: its root under partial_result and the definitions that
/// came from it.
[[nodiscard]] HANDOFF_INLINE schema_stats task_stats(const nlohmann::ordered_json& sent,
                                                     const std::vector<hoisted_definition>& origins) {
    const std::string task(task_pointer);
    schema_stats total;
    const auto add = [&total](const nlohmann::ordered_json& part) {
        const schema_stats s = measure_schema(part);
        total.optional_properties += s.optional_properties;
        total.union_types += s.union_types;
    };
    const nlohmann::ordered_json::json_pointer root(task);
    if (sent.contains(root)) {
        add(sent.at(root));
    }
    std::set<std::string> from_task;
    for (const hoisted_definition& d : origins) {
        if (d.origin.rfind(task, 0) == 0) {
            from_task.insert(d.name);
        }
    }
    // One pass over the definitions: an ordered_json object finds a key by reading from the start.
    if (const auto defs = sent.find("$defs"); defs != sent.end() && defs->is_object() && !from_task.empty()) {
        for (const auto& item : defs->items()) {
            if (from_task.count(item.key()) != 0) {
                add(item.value());
            }
        }
    }
    return total;
}

HANDOFF_INLINE void check_limits(provider target, const nlohmann::ordered_json& schema,
                                 const std::vector<hoisted_definition>& origins, provider_schema_result& result) {
    const schema_stats stats = measure_schema(schema);
    const schema_stats task = task_stats(schema, origins);
    for (const schema_limit& limit : schema_limits) {
        if (limit.target != target) {
            continue;
        }
        const std::uint64_t count = stats.get(limit.counter);
        if (limit.whole_request) {
            result.limits.push_back(limit_usage{std::string(limit.name), limit.maximum, count,
                                                count - std::min(count, task.get(limit.counter))});
        }
        if (count <= limit.maximum) {
            continue;
        }
        const bool warn = limit.severity == limit_severity::warn;
        nlohmann::ordered_json value = {{"count", count}, {"limit", limit.maximum}};
        const std::string who(profile_of(target).display_name);
        const std::string numbers = " (" + std::to_string(count) + " > " + std::to_string(limit.maximum) + "); ";
        std::string note = who;
        note += warn ? " publishes no limit, but refuses schemas near this size: " : " refuses a schema over ";
        note += limit.name;
        note += numbers;
        note += source_of(limit.source).where;
        result.notes.push_back(schema_note{warn ? schema_note_kind::near_limit : schema_note_kind::limit_exceeded, "",
                                           std::string(limit.name), std::move(value), std::move(note)});
    }
}

/// Notes the walk wrote twice (a definition copied for a `$ref` is rewritten where it came from
/// too) are kept once, in their first place.
HANDOFF_INLINE void drop_repeated_notes(std::vector<schema_note>& notes) {
    std::set<std::tuple<schema_note_kind, std::string, std::string>> seen;
    std::vector<schema_note> kept;
    for (schema_note& n : notes) {
        if (seen.emplace(n.kind, n.pointer, n.keyword).second) {
            kept.push_back(std::move(n));
        }
    }
    notes = std::move(kept);
}

/// The schema sent for a task schema nested past what any schema can be: the envelope alone, and
/// a note saying why. Every step of the rewrite copies the task schema, recursively; the receiver
/// refuses it (compiled_schema throws schema_too_deep_message()).
HANDOFF_INLINE provider_schema_result too_deep_task(provider target, const provider_schema_options& options) {
    provider_schema_result result = provider_schema(target, nullptr, options);
    result.notes.insert(result.notes.begin(),
                        schema_note{schema_note_kind::not_enforced, std::string(task_pointer), "", nullptr,
                                    schema_too_deep_message() + ": the task schema is not sent, and the receiver "
                                                                "refuses it"});
    return result;
}

} // namespace detail

HANDOFF_INLINE provider_schema_result provider_schema(provider target, const nlohmann::ordered_json* task_schema,
                                                      const provider_schema_options& options) {
    if (task_schema != nullptr && detail::schema_nests_too_deep(*task_schema)) {
        return detail::too_deep_task(target, options);
    }
    provider_schema_result result;
    result.target = target;
    const auto add_note = [&result](schema_note_kind kind, const std::string& pointer, std::string_view keyword,
                                    const nlohmann::ordered_json& value, std::string text) {
        result.notes.push_back(schema_note{kind, pointer, std::string(keyword), value, std::move(text)});
    };
    const std::optional<schema_dialect> dialect = detail::task_dialect(task_schema, options.schema);
    nlohmann::ordered_json merged = detail::merged_schema(task_schema, dialect);
    const detail::provider_profile& profile = detail::profile_of(target);
    if (profile.keep_everything) {
        result.schema = std::move(merged);
        return result;
    }
    const std::vector<detail::hoisted_definition> origins = detail::hoist_definitions(merged, add_note);
    detail::rewriter<nlohmann::ordered_json, decltype(add_note)> rewrite{profile, add_note};
    rewrite.options.describe_dropped = options.describe_dropped;
    // A part in another dialect (a `$schema` below the root) is read in its own: the notes then
    // tell only what no dialect checks.
    const bool one_dialect = task_schema == nullptr || detail::reads_in_one_dialect(*task_schema);
    rewrite.options.task_reading = {one_dialect ? dialect : std::nullopt, options.schema.assert_formats};
    rewrite.options.ref_siblings_apply = detail::ref_siblings_apply(dialect);
    const detail::definition_origins origin_by_name = detail::origins_by_name(origins);
    rewrite.origin_by_name = &origin_by_name;
    result.schema = rewrite.rewrite(merged, "");
    if (profile.siblings == detail::ref_siblings::inlined) {
        result.schema = detail::openapi_schema(result.schema, origin_by_name, add_note);
    }
    detail::drop_repeated_notes(result.notes);
    detail::check_limits(target, result.schema, origins, result);
    if (result.schema.contains("$defs")) { // gemini_openapi inlines them
        result.definitions = origins;
    }
    return result;
}

HANDOFF_INLINE provider_schema_result provider_schema(provider target, std::nullptr_t,
                                                      const provider_schema_options& options) {
    return provider_schema(target, static_cast<const nlohmann::ordered_json*>(nullptr), options);
}

HANDOFF_INLINE provider_schema_result provider_schema(provider target, const nlohmann::json* task_schema,
                                                      const provider_schema_options& options) {
    if (task_schema == nullptr) {
        return provider_schema(target, static_cast<const nlohmann::ordered_json*>(nullptr), options);
    }
    if (detail::schema_nests_too_deep(*task_schema)) {
        return detail::too_deep_task(target, options);
    }
    const nlohmann::ordered_json ordered = detail::parse_ordered(task_schema->dump());
    return provider_schema(target, &ordered, options);
}

HANDOFF_INLINE provider_schema_result provider_schema(provider target, const nlohmann::ordered_json& task_schema,
                                                      const schema_registry& registry, std::string_view base_uri,
                                                      const provider_schema_options& options) {
    if (detail::schema_nests_too_deep(task_schema)) {
        return detail::too_deep_task(target, options);
    }
    const detail::ref_scope scope{&registry, std::string(base_uri), options.schema.dialect};
    const nlohmann::ordered_json bundled = detail::bundled_schema(task_schema, scope, options.schema);
    return provider_schema(target, &bundled, options);
}

HANDOFF_INLINE provider_schema_result provider_schema(provider target, const nlohmann::json& task_schema,
                                                      const schema_registry& registry, std::string_view base_uri,
                                                      const provider_schema_options& options) {
    if (detail::schema_nests_too_deep(task_schema)) {
        return detail::too_deep_task(target, options);
    }
    return provider_schema(target, nlohmann::ordered_json(task_schema), registry, base_uri, options);
}

} // namespace handoff
