// SPDX-License-Identifier: MIT
#pragma once

// The fixture manifest's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/fixture_manifest.hpp>

#include <handoff/decision.hpp>
#include <handoff/enums.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>  // size_t
#include <cstdint>  // uint32_t, uint64_t, UINT32_MAX
#include <optional> // optional
#include <string>   // string

namespace handoff {

// Helpers of the two conversions below, kept out of the header: their bodies instantiate
// nlohmann::json accessors that a file including only the header never calls.
namespace detail {

template <class E>
[[nodiscard]] nlohmann::json name_or_null(const std::optional<E>& e) {
    return e ? nlohmann::json(std::string(to_string(*e))) : nlohmann::json(nullptr);
}

template <class T>
[[nodiscard]] nlohmann::json value_or_null(const std::optional<T>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

/// `line[key]` as an E by name, or empty for null; throws manifest_error otherwise.
template <class E>
[[nodiscard]] std::optional<E> optional_enum(const nlohmann::json& line, const char* key) {
    const auto it = line.find(key);
    if (it == line.end() || it->is_null()) {
        return std::nullopt;
    }
    if (it->is_string()) {
        if (auto e = from_string<E>(it->get_ref<const std::string&>())) {
            return e;
        }
    }
    // A container is named by its kind: writing out a value of any depth would recurse.
    const std::string shown = it->is_structured() ? std::string("an ") + it->type_name()
                                                  : it->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    throw manifest_error(std::string("\"") + key + "\" is " + shown + ", not a known name or null");
}

} // namespace detail

/// The manifest line: `{"file", "route", "step", "action", "status", "reason_code", "coverage",
/// "band", "attempt", "split_depth", "description"}`, null where a field does not apply.
HANDOFF_INLINE nlohmann::ordered_json to_json(const manifest_entry& e) {
    nlohmann::ordered_json j;
    j["file"] = e.file;
    j["route"] = std::string(to_string(e.route));
    j["step"] = detail::name_or_null(e.failed_step);
    j["action"] = detail::name_or_null(e.action);
    j["status"] = detail::value_or_null(e.status);
    j["reason_code"] = detail::value_or_null(e.reason_code);
    j["coverage"] = detail::value_or_null(e.coverage);
    j["band"] = detail::name_or_null(e.coverage_band);
    j["attempt"] = e.context.attempt;
    j["split_depth"] = e.context.split_depth;
    j["description"] = e.description;
    return j;
}

/// Reads one manifest line; throws manifest_error naming the field that is wrong.
HANDOFF_INLINE manifest_entry manifest_entry_from_json(const nlohmann::json& line) {
    if (!line.is_object()) {
        throw manifest_error("a manifest line must be a JSON object");
    }
    const auto text = [&](const char* key) {
        const auto it = line.find(key);
        if (it == line.end() || !it->is_string()) {
            throw manifest_error(std::string("\"") + key + "\" must be a string");
        }
        return it->get<std::string>();
    };
    const auto count = [&](const char* key, std::uint32_t absent) {
        const auto it = line.find(key);
        if (it == line.end()) {
            return absent;
        }
        if (!it->is_number_unsigned() || it->get<std::uint64_t>() > UINT32_MAX) {
            throw manifest_error(std::string("\"") + key + "\" must be a non-negative integer");
        }
        return static_cast<std::uint32_t>(it->get<std::uint64_t>());
    };
    manifest_entry e;
    e.file = text("file");
    e.route = detail::optional_enum<route>(line, "route").value_or(route::repair);
    if (!line.contains("route") || line.at("route").is_null()) {
        throw manifest_error("\"route\" must be one of ACCEPT, REPAIR, RESUME, SPLIT, NARROW, ESCALATE, FAIL");
    }
    e.failed_step = detail::optional_enum<step>(line, "step");
    e.action = detail::optional_enum<action>(line, "action");
    e.coverage_band = detail::optional_enum<band>(line, "band");
    for (const char* key : {"status", "reason_code"}) {
        if (line.contains(key) && !line.at(key).is_null()) {
            (std::string(key) == "status" ? e.status : e.reason_code) = text(key);
        }
    }
    if (const auto c = line.find("coverage"); c != line.end() && !c->is_null()) {
        if (!c->is_number()) {
            throw manifest_error("\"coverage\" must be a number or null");
        }
        e.coverage = c->get<double>();
    }
    e.context = attempt_context{count("attempt", 1), count("split_depth", 0)};
    e.description = line.contains("description") ? text("description") : std::string();
    return e;
}

namespace detail {

HANDOFF_INLINE std::optional<std::string> routing_mismatch(const routed_as& actual, const std::string& file,
                                                           route expected_route, std::optional<step> expected_step,
                                                           std::optional<action> expected_action) {
    std::string out;
    const auto note_mismatch = [&](const char* what, const std::string& expected, const std::string& seen) {
        if (expected != seen) {
            out += std::string(out.empty() ? "" : "; ") + what + ": expected " + expected + ", got " + seen;
        }
    };
    const auto name = [](const auto& v) { return v ? std::string(to_string(*v)) : std::string("null"); };
    note_mismatch("route", std::string(to_string(expected_route)), std::string(to_string(actual.how)));
    note_mismatch("step", name(expected_step), name(actual.failed_step));
    note_mismatch("action", name(expected_action), name(actual.decision_action));
    if (out.empty()) {
        return std::nullopt;
    }
    if (actual.first_problem != nullptr) {
        out += " (first problem: " + *actual.first_problem + ")";
    }
    return file + ": " + out;
}

} // namespace detail

} // namespace handoff
