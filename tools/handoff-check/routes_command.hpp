// SPDX-License-Identifier: MIT
#pragma once
// handoff-check lint --routes TABLE SCHEMA: a routing table kept as JSON,
// {"/label": {"billing": "billing-queue", ...}} (the task field's pointer, then value ->
// handler name), checked against the task schema's enum or const at each pointer.

#include "exit_status.hpp"

#include <handoff/detail/read_file.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/route_table.hpp>
#include <handoff/schema.hpp>

#include <nlohmann/json.hpp>

#include <iostream> // cout, cerr
#include <optional> // optional
#include <ostream>  // ostream
#include <set>      // set
#include <string>   // string
#include <vector>   // vector

namespace handoff_cli {

/// The file as JSON; nullopt (and a line on `err`) when it cannot be read or parsed.
inline std::optional<nlohmann::json> read_json_file(const std::string& path, std::ostream& err) {
    const std::optional<std::string> text = handoff::detail::read_file(path);
    if (!text) {
        err << "handoff-check lint: cannot read " << path << "\n";
        return std::nullopt;
    }
    nlohmann::json value = nlohmann::json::parse(*text, nullptr, false);
    if (value.is_discarded()) {
        err << "handoff-check lint: " << path << " is not JSON\n";
        return std::nullopt;
    }
    return value;
}

/// One line per mismatch, FILE:POINTER: code: message (the pointer escaped and capped as lint's
/// are); exit 1 on any, 0 when the routing table matches, 2 for a usage error, an unreadable or
/// malformed file, or a schema the check refuses when read with `schema_options` (its message
/// said as the check says it).
inline int run_lint_routes(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                           const handoff::schema_options& schema_options = {}) {
    if (args.size() != 2) {
        err << "handoff-check lint: usage: handoff-check lint --routes TABLE SCHEMA\n";
        return exit_usage;
    }
    const auto routing_table = read_json_file(args[0], err);
    const auto schema = read_json_file(args[1], err);
    if (!routing_table || !schema) {
        return exit_usage;
    }
    if (!routing_table->is_object() || !schema->is_object()) {
        err << "handoff-check lint: " << (routing_table->is_object() ? args[1] : args[0]) << " must be a JSON object\n";
        return exit_usage;
    }
    try {
        static_cast<void>(handoff::compiled_schema::from_file(args[1], schema_options));
    } catch (const handoff::schema_error& e) {
        err << "handoff-check lint: " << e.what() << "\n";
        return exit_usage;
    }
    std::size_t findings = 0;
    for (const auto& [pointer, routes] : routing_table->items()) {
        if (!routes.is_object()) {
            err << "handoff-check lint: " << args[0] << ": " << handoff::detail::message_pointer(pointer)
                << " must map values to handler names\n";
            return exit_usage;
        }
        std::set<std::string> values;
        for (const auto& route : routes.items()) {
            values.insert(route.key());
        }
        for (const handoff::route_mismatch& m : handoff::check_routes(*schema, pointer, values)) {
            // The table's key is untrusted text: escaped and capped as lint's pointers are.
            out << args[0] << ":" << handoff::detail::message_pointer(m.pointer) << ": " << to_string(m.kind) << ": "
                << m.message << '\n';
            ++findings;
        }
    }
    out.flush();
    return findings > 0 ? exit_contract_failure : exit_ok;
}

} // namespace handoff_cli
