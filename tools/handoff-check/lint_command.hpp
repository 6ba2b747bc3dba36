// SPDX-License-Identifier: MIT
#pragma once
// handoff-check lint: advice on task schemas, one finding per line.

#include "exit_status.hpp"
#include "routes_command.hpp"
#include "schema_dirs.hpp"

#include <handoff/handoff.hpp>

#include <algorithm>   // max, min
#include <array>       // array
#include <cstdio>      // EOF
#include <cstring>     // memchr
#include <fstream>     // ifstream
#include <iostream>    // cin, cout, cerr
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff_cli {

// --- handoff-check lint -------------------------------------------------------------------

constexpr const char* lint_usage_text =
    "usage: handoff-check lint [--schema-dir DIR]... [--routing-fields LIST] [--routing-field NAME]\n"
    "                          [--money-fields LIST] [--money-field NAME] SCHEMA...\n"
    "       handoff-check lint --routes TABLE SCHEMA   (a routing table against the schema's enums)\n"
    "\n"
    "Lints JSON Schemas as if a hostile intern will fill them (seed 004): objects without\n"
    "additionalProperties false, strings without maxLength, arrays without maxItems, a pattern\n"
    "without maxLength, free strings in fields that route, money not in integer cents,\n"
    "required names that no property defines, schemas that do not compile.\n"
    "One line per finding: FILE:POINTER: code: message\n"
    "\n"
    "  SCHEMA, -               a schema file, or - for stdin\n"
    "  --schema-dir DIR        schemas its $refs may name (every *.json under DIR, by file URI\n"
    "                          and $id), as the check reads them; repeatable. Files beside\n"
    "                          SCHEMA are found without it\n"
    "  --routing-fields LIST   comma-separated names of fields that route (replaces the default:\n"
    "                          label,status,kind,category,severity,action,route,type,reason_code,priority)\n"
    "  --routing-field NAME    one more field that routes\n"
    "  --money-fields LIST     comma-separated names of money fields (replaces the default)\n"
    "  --money-field NAME      one more money field\n"
    "\n"
    "A schema waives a rule where it is wrong on purpose, with the reason:\n"
    "  \"x-lint-allow\": {\"lint.money_not_cents\": \"amounts are decimals as printed\"}\n"
    "\n"
    "exit status: 0 no findings, 1 findings, 2 usage error or unreadable file\n";

inline int lint_usage_error(const std::string& message) {
    std::cerr << "handoff-check lint: " << message << "\n\n" << lint_usage_text;
    return exit_usage;
}

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
};

/// Reads one option of `lint` and its value at argv[i]; returns an exit status when the
/// program should stop now.
inline std::optional<int> parse_lint_option(int argc, char** argv, int& i, lint_args& out) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
        std::cout << lint_usage_text;
        return exit_ok;
    }
    const bool list = arg == "--routing-fields" || arg == "--money-fields";
    const bool one = arg == "--routing-field" || arg == "--money-field";
    if (!list && !one && arg != "--schema-dir") {
        return lint_usage_error("unknown option " + handoff::detail::quote_untrusted(arg, 40));
    }
    if (i + 1 >= argc) {
        return lint_usage_error(arg + " needs a value");
    }
    const std::string value = argv[++i];
    if (arg == "--schema-dir") {
        out.schema_dirs.push_back(value);
        return std::nullopt;
    }
    auto& names = arg.rfind("--routing", 0) == 0 ? out.options.routing_names : out.options.money_names;
    if (list) {
        names = split_list(value);
    } else if (!value.empty()) {
        names.push_back(value);
    }
    return std::nullopt;
}

/// Parses the command line of `lint`; returns an exit status when the program should stop now.
inline std::optional<int> parse_lint_args(int argc, char** argv, lint_args& out) {
    bool only_files = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (only_files || arg == "-" || arg.empty() || arg[0] != '-') {
            out.schemas.push_back(arg);
        } else if (arg == "--") {
            only_files = true;
        } else if (const auto stop = parse_lint_option(argc, argv, i, out)) {
            return stop;
        }
    }
    if (out.schemas.empty()) {
        return lint_usage_error("no schema given");
    }
    return std::nullopt;
}

/// Prints the findings of one schema file (or stdin, "-"), its `$ref`s resolved as the check
/// resolves them: beside the file and in `registry`. Returns how many, or nullopt when the
/// file cannot be read.
inline std::optional<std::size_t> lint_file(const std::string& path, const handoff::schema_registry& registry,
                                            const handoff::lint_options& options) {
    std::ifstream file;
    if (path != "-") {
        file.open(path, std::ios::binary);
        if (!file) {
            std::cerr << "handoff-check lint: cannot read " << path << "\n";
            return std::nullopt;
        }
    }
    std::istream& in = path == "-" ? std::cin : file;
    const std::string base_uri = path == "-" ? std::string() : handoff::schema_registry::file_uri(path);
    const auto findings =
        handoff::lint_schema_text(read_bounded(in, options.limits.max_bytes), registry, base_uri, options);
    for (const auto& finding : findings) {
        std::cout << handoff::format_lint_finding(path, finding) << '\n';
    }
    return findings.size();
}

/// `handoff-check lint ...`; argv[0] is "lint".
inline int run_lint(int argc, char** argv) {
    if (argc >= 2 && std::string_view(argv[1]) == "--routes") {
        return run_lint_routes(argc - 1, argv + 1);
    }
    lint_args args;
    if (const auto stop = parse_lint_args(argc, argv, args)) {
        return *stop;
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
