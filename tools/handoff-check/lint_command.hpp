// SPDX-License-Identifier: MIT
#pragma once
// handoff-check lint: advice on task schemas, one finding per line.

#include "command_line.hpp"
#include "dialect_line.hpp"
#include "exit_status.hpp"
#include "routes_command.hpp"
#include "schema_dirs.hpp"

#include <handoff/detail/read_file.hpp>
#include <handoff/handoff.hpp>

#include <iostream>    // cin, cout, cerr
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff_cli {

// --- handoff-check lint -------------------------------------------------------------------

constexpr const char* lint_usage_text =
    "usage: handoff-check lint [--dialect NAME] [--schema-dir DIR]... [--routing-fields LIST]\n"
    "                          [--routing-field NAME] [--money-fields LIST] [--money-field NAME]\n"
    "                          [--definitions] SCHEMA...\n"
    "       handoff-check lint --routes TABLE [--dialect NAME] SCHEMA   (a routing table against the\n"
    "                          schema's enums)\n"
    "\n"
    "Lints JSON Schemas as if a hostile intern will fill them: objects without\n"
    "additionalProperties false, strings without maxLength, arrays without maxItems, a pattern\n"
    "without maxLength, free strings in fields that route, money not in integer cents,\n"
    "required names that no property defines, schemas that do not compile.\n"
    "One line per finding: FILE:POINTER: code: message. Each schema is read in the dialect the\n"
    "check reads it in, said on stderr before its findings:\n"
    "  handoff-check lint: FILE: dialect: 2020-12 (from $schema | from --dialect | from its keywords)\n"
    "\n"
    "  SCHEMA, -               a schema file, or - for stdin\n"
    "  --dialect NAME          the dialect of a schema that declares no $schema: draft-04,\n"
    "                          draft-06, draft-07, 2019-09 or 2020-12\n"
    "  --schema-dir DIR        schemas its $refs may name (every *.json under DIR, by file URI\n"
    "                          and $id), as the check reads them; repeatable. Files beside\n"
    "                          SCHEMA are found without it\n"
    "  --routing-fields LIST   comma-separated names of fields that route (replaces the default:\n"
    "                          label,status,kind,category,severity,action,route,type,reason_code,priority)\n"
    "  --routing-field NAME    one more field that routes\n"
    "  --money-fields LIST     comma-separated names of money fields (replaces the default)\n"
    "  --money-field NAME      one more money field\n"
    "  --definitions           the files hold definitions that task schemas refer to, not task\n"
    "                          schemas: their roots need not admit the JSON object partial_result\n"
    "                          is (lint.root_not_object is not judged)\n"
    "\n"
    "A schema waives a rule where it is wrong on purpose, with the reason:\n"
    "  \"x-lint-allow\": {\"lint.money_not_cents\": \"amounts are decimals as printed\"}\n"
    "\n"
    "exit status: 0 no findings, 1 findings, 2 usage error or unreadable file (with --routes:\n"
    "also a schema the check refuses, with its message)\n";

inline std::vector<std::string> split_list(const std::string& list) {
    std::vector<std::string> out;
    std::string item;
    for (char c : list + ",") {
        if (c != ',') {
            item.push_back(c);
        } else if (!item.empty()) {
            out.push_back(item);
            item.clear();
        }
    }
    return out;
}

struct lint_args {
    handoff::lint_options options;
    std::vector<std::string> schemas;
    std::vector<std::string> schema_dirs;
    /// --routes TABLE: check the routing table against the one schema instead of linting.
    std::string routes;
};

/// Parses the command line of `lint` (argv[0] is "lint"); returns an exit status when the
/// program should stop now.
inline std::optional<int> parse_lint_args(int argc, char** argv, lint_args& out) {
    command_line command("handoff-check lint", lint_usage_text, std::cout, std::cerr);
    CLI::App& app = command.app();
    // A list replaces the default names; each single name is then added to the list.
    std::string routing_list;
    std::string money_list;
    std::vector<std::string> routing_one;
    std::vector<std::string> money_one;
    CLI::Option* const routing_option = add_value(app, "--routing-fields", routing_list);
    CLI::Option* const money_option = add_value(app, "--money-fields", money_list);
    add_repeatable(app, "--routing-field", routing_one);
    add_repeatable(app, "--money-field", money_one);
    add_repeatable(app, "--schema-dir", out.schema_dirs);
    add_value(app, "--routes", out.routes);
    bool definitions = false;
    app.add_flag("--definitions", definitions);
    std::string dialect_name;
    CLI::Option* const dialect_option = add_dialect_option(app, dialect_name);
    app.add_option("SCHEMA", out.schemas);
    if (const auto stop = command.parse(words_after_name(argc, argv))) {
        return stop;
    }
    if (const auto stop = read_dialect(command, *dialect_option, dialect_name, out.options.schema.dialect)) {
        return stop;
    }
    const auto names = [](bool replaced, const std::string& list, const std::vector<std::string>& more,
                          std::vector<std::string>& into) {
        if (replaced) {
            into = split_list(list);
        }
        for (const std::string& name : more) {
            if (!name.empty()) {
                into.push_back(name);
            }
        }
    };
    names(routing_option->count() > 0, routing_list, routing_one, out.options.routing_names);
    names(money_option->count() > 0, money_list, money_one, out.options.money_names);
    out.options.task_schema = !definitions;
    if (out.schemas.empty()) {
        return command.usage_error("no schema given");
    }
    return std::nullopt;
}

/// Prints the findings of one schema file (or stdin, "-"), its `$ref`s resolved as the check
/// resolves them: beside the file and in `registry`. Returns how many, or nullopt when the
/// file cannot be read.
inline std::optional<std::size_t> lint_file(const std::string& path, const handoff::schema_registry& registry,
                                            const handoff::lint_options& options) {
    const std::size_t limit = options.limits.max_bytes;
    const std::optional<std::string> text =
        path == "-" ? handoff::detail::read_bounded(std::cin, limit) : handoff::detail::read_file(path, limit);
    if (!text) {
        std::cerr << "handoff-check lint: cannot read " << path << "\n";
        return std::nullopt;
    }
    if (const auto schema = nlohmann::json::parse(*text, nullptr, false); !schema.is_discarded()) {
        std::cerr << "handoff-check lint: " << path << ": " << dialect_line(schema, options.schema) << "\n";
    }
    const std::string base_uri = path == "-" ? std::string() : handoff::schema_registry::file_uri(path);
    const auto findings = handoff::lint_schema_text(*text, registry, base_uri, options);
    for (const auto& finding : findings) {
        std::cout << handoff::format_lint_finding(path, finding) << '\n';
    }
    return findings.size();
}

/// `handoff-check lint ...`; argv[0] is "lint".
inline int run_lint(int argc, char** argv) {
    lint_args args;
    if (const auto stop = parse_lint_args(argc, argv, args)) {
        return *stop;
    }
    if (!args.routes.empty()) {
        std::vector<std::string> files{args.routes};
        files.insert(files.end(), args.schemas.begin(), args.schemas.end());
        return run_lint_routes(files, std::cout, std::cerr, args.options.schema);
    }
    std::optional<handoff::schema_registry> registry;
    try {
        registry.emplace(schema_registry_of(args.schema_dirs));
    } catch (const handoff::schema_error& e) {
        std::cerr << "handoff-check lint: " << e.what() << "\n";
        return exit_usage;
    }
    bool unreadable = false;
    std::size_t findings = 0;
    for (const std::string& path : args.schemas) {
        const auto found = lint_file(path, *registry, args.options);
        unreadable = unreadable || !found;
        findings += found.value_or(0);
    }
    std::cout.flush();
    if (unreadable) {
        return exit_usage;
    }
    return findings > 0 ? exit_contract_failure : exit_ok;
}

} // namespace handoff_cli
