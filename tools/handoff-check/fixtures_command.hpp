// SPDX-License-Identifier: MIT
#pragma once
// handoff-check fixtures: fixture envelopes for every route, for the user's own tests.

#include "command_line.hpp"
#include "exit_status.hpp"
#include "schema_dirs.hpp"

#include <handoff/fixtures.hpp>
#include <handoff/handoff.hpp>

#include <filesystem>   // create_directories, path
#include <fstream>      // ofstream
#include <iostream>     // cout, cerr
#include <optional>     // optional
#include <string>       // string
#include <string_view>  // string_view
#include <system_error> // error_code
#include <vector>       // vector

namespace handoff_cli {

// --- handoff-check fixtures ---------------------------------------------------------------

constexpr const char* fixtures_usage_text =
    "usage: handoff-check fixtures --task-schema FILE [--dialect NAME] [--schema-dir DIR]... --out DIR\n"
    "\n"
    "Writes fixture envelopes for every route into DIR, for an orchestrator's own tests: an\n"
    "accepted ok envelope whose result is generated to fit the task schema, a capped envelope\n"
    "for every reason code at 0, just below and at each band edge and 1, one contract failure\n"
    "per step (parse, envelope schema, task schema, coverage), a step-3 downgrade and a run out\n"
    "of attempts (FAIL), and DIR/manifest.jsonl: one line per file with its route, step,\n"
    "action, status, reason_code, coverage, band, attempt and description. Every fixture is\n"
    "received as it is written; one that routes otherwise than its line says is an error.\n"
    "--dialect NAME (draft-04, draft-06, draft-07, 2019-09, 2020-12) is the task schema's\n"
    "dialect when it declares no $schema; --schema-dir DIR (repeatable) holds schemas its $refs\n"
    "may name, as for the check (files beside FILE are found without it). The schema is read as\n"
    "the check reads it, and one the check refuses is refused here with the check's message.\n"
    "\n"
    "exit status: 0 written, 1 no fixtures (no value fits the task schema, or a fixture did not\n"
    "route as its manifest line says), 2 usage error (bad flag, unreadable or invalid schema\n"
    "file, unwritable DIR)\n";

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
    command_line command("handoff-check fixtures", fixtures_usage_text, std::cout, std::cerr);
    CLI::App& app = command.app();
    std::string task_schema;
    std::string out;
    std::string dialect_name;
    CLI::Option* const task_option = add_value(app, "--task-schema", task_schema);
    CLI::Option* const out_option = add_value(app, "--out", out);
    CLI::Option* const dialect_option = add_dialect_option(app, dialect_name);
    std::vector<std::string> schema_dirs;
    add_repeatable(app, "--schema-dir", schema_dirs);
    if (const auto stop = command.parse(words_after_name(argc, argv))) {
        return *stop;
    }
    if (task_option->count() == 0 || out_option->count() == 0) {
        return command.usage_error(task_option->count() == 0 ? "--task-schema is required" : "--out is required");
    }
    // The fixtures' own receiver reads the schema as the check does: in the same dialect.
    handoff::fixture_options options;
    if (const auto stop = read_dialect(command, *dialect_option, dialect_name, options.receiving.schema.dialect)) {
        return *stop;
    }
    std::optional<handoff::fixture_set> set;
    try {
        // Read as the check reads it: beside the file and in every --schema-dir.
        const handoff::schema_registry registry = schema_registry_of(schema_dirs);
        set = handoff::make_fixtures(handoff::schema_registry::read_json_file(task_schema), registry,
                                     handoff::schema_registry::file_uri(task_schema), options);
    } catch (const handoff::schema_error& e) {
        std::cerr << "handoff-check fixtures: " << e.what() << "\n";
        return exit_usage;
    }
    if (!set->ok()) {
        std::cerr << "handoff-check fixtures: " << task_schema << ": " << *set->error << "; nothing written\n";
        return exit_contract_failure;
    }
    return write_fixture_set(*set, out);
}

} // namespace handoff_cli
