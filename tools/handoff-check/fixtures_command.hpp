// SPDX-License-Identifier: MIT
#pragma once
// handoff-check fixtures: fixture envelopes for every route, for the user's own tests.

#include "exit_status.hpp"

#include <handoff/fixtures.hpp>
#include <handoff/handoff.hpp>

#include <filesystem>   // create_directories, path
#include <fstream>      // ofstream
#include <iostream>     // cout, cerr
#include <optional>     // optional
#include <string>       // string
#include <string_view>  // string_view
#include <system_error> // error_code

namespace handoff_cli {

// --- handoff-check fixtures ---------------------------------------------------------------

constexpr const char* fixtures_usage_text =
    "usage: handoff-check fixtures --task-schema FILE --out DIR\n"
    "\n"
    "Writes fixture envelopes for every route into DIR, for an orchestrator's own tests: an\n"
    "accepted ok envelope whose result is generated to fit the task schema, a capped envelope\n"
    "for every reason code at 0, just below and at each band edge and 1, one contract failure\n"
    "per step (parse, envelope schema, task schema, coverage), a step-3 downgrade and a run out\n"
    "of attempts (FAIL), and DIR/manifest.jsonl: one line per file with its route, step,\n"
    "action, status, reason_code, coverage, band, attempt and description. Every fixture is\n"
    "received as it is written; one that routes otherwise than its line says is an error.\n"
    "\n"
    "exit status: 0 written, 1 no fixtures (no value fits the task schema, or a fixture did not\n"
    "route as its manifest line says), 2 usage error (bad flag, unreadable or invalid schema\n"
    "file, unwritable DIR)\n";

inline int fixtures_usage_error(const std::string& message) {
    std::cerr << "handoff-check fixtures: " << message << "\n\n" << fixtures_usage_text;
    return exit_usage;
}

/// Writes `text` to `path`; false when the file cannot be written whole.
[[nodiscard]] inline bool write_text_file(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    return static_cast<bool>(out);
}

/// Writes the files, then the manifest last: a manifest exists only beside all of its files.
inline int write_fixture_set(const handoff::fixture_set& set, const std::string& dir) {
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) {
        std::cerr << "handoff-check fixtures: cannot create " << dir << ": " << error.message() << "\n";
        return exit_usage;
    }
    for (const handoff::fixture_file& f : set.files) {
        if (!write_text_file(std::filesystem::path(dir) / f.entry.file, f.text)) {
            std::cerr << "handoff-check fixtures: cannot write " << dir << "/" << f.entry.file << "\n";
            return exit_usage;
        }
    }
    if (!write_text_file(std::filesystem::path(dir) / "manifest.jsonl", set.manifest_jsonl())) {
        std::cerr << "handoff-check fixtures: cannot write " << dir << "/manifest.jsonl\n";
        return exit_usage;
    }
    for (const handoff::fixture_file& f : set.files) {
        std::string route(handoff::to_string(f.entry.route));
        route.resize(9, ' ');
        std::cout << route << dir << "/" << f.entry.file << "\n";
    }
    std::cout << set.files.size() << " fixtures and " << dir << "/manifest.jsonl\n";
    return exit_ok;
}

/// `handoff-check fixtures ...`; argv[0] is "fixtures".
inline int run_fixtures(int argc, char** argv) {
    std::optional<std::string> task_schema;
    std::optional<std::string> out;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::cout << fixtures_usage_text;
            return exit_ok;
        }
        if (arg != "--task-schema" && arg != "--out") {
            return fixtures_usage_error("unexpected argument " + handoff::detail::quote_untrusted(arg, 40));
        }
        if (i + 1 >= argc) {
            return fixtures_usage_error(arg + " needs a value");
        }
        (arg == "--out" ? out : task_schema) = argv[++i];
    }
    if (!task_schema || !out) {
        return fixtures_usage_error(!task_schema ? "--task-schema is required" : "--out is required");
    }
    std::optional<handoff::fixture_set> set;
    try {
        set = handoff::make_fixtures(handoff::compiled_schema::from_file(*task_schema).document());
    } catch (const handoff::schema_error& e) {
        std::cerr << "handoff-check fixtures: " << e.what() << "\n";
        return exit_usage;
    }
    if (!set->ok()) {
        std::cerr << "handoff-check fixtures: " << *task_schema << ": " << *set->error << "; nothing written\n";
        return exit_contract_failure;
    }
    return write_fixture_set(*set, *out);
}

} // namespace handoff_cli
