// SPDX-License-Identifier: MIT
#pragma once
// handoff-check prompt: the worker prompt generated from the schemas.

#include "command_line.hpp"
#include "exit_status.hpp"
#include "schema_dirs.hpp"

#include <handoff/detail/json/ordered_parse.hpp>
#include <handoff/handoff.hpp>

#include <iostream>    // cin, cout, cerr
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff_cli {

// --- handoff-check prompt -----------------------------------------------------------------

constexpr const char* prompt_usage_text =
    "usage: handoff-check prompt [--task-schema FILE [--dialect NAME] [--schema-dir DIR]...]\n"
    "\n"
    "Prints the worker-side instructions for the envelope, generated from the schemas the\n"
    "receiver checks: the envelope's fields, the reason codes and when each applies, the\n"
    "retry-hint vocabulary, and the task schema's fields and enums.\n"
    "\n"
    "  --task-schema FILE  JSON Schema for partial_result\n"
    "  --dialect NAME      its dialect when it declares no $schema: draft-04, draft-06,\n"
    "                      draft-07, 2019-09 or 2020-12. The schema is read as the check reads\n"
    "                      it (same --dialect, same --schema-dir): one the check refuses gets no\n"
    "                      prompt, only the check's message\n"
    "  --schema-dir DIR    schemas its $refs may name (every *.json under DIR, by file URI\n"
    "                      and $id), as the check reads them; repeatable. Files beside FILE\n"
    "                      are found without it\n"
    "\n"
    "exit status: 0 printed, 2 usage error (bad flag, unreadable or invalid schema file)\n";

struct prompt_args {
    std::optional<std::string> task_schema;
    std::vector<std::string> schema_dirs;
    handoff::schema_options options;
};

/// Parses the command line of `prompt` (argv[0] is "prompt"); returns an exit status when the
/// program should stop now.
inline std::optional<int> parse_prompt_args(int argc, char** argv, prompt_args& out) {
    command_line command("handoff-check prompt", prompt_usage_text, std::cout, std::cerr);
    CLI::App& app = command.app();
    std::string task_schema;
    std::string dialect_name;
    CLI::Option* const task_schema_option = add_value(app, "--task-schema", task_schema);
    add_repeatable(app, "--schema-dir", out.schema_dirs);
    CLI::Option* const dialect_option = add_dialect_option(app, dialect_name);
    if (const auto stop = command.parse(words_after_name(argc, argv))) {
        return stop;
    }
    if (task_schema_option->count() > 0) {
        out.task_schema = task_schema;
    }
    if (!out.task_schema && (!out.schema_dirs.empty() || dialect_option->count() > 0)) {
        return command.usage_error(out.schema_dirs.empty() ? "--dialect needs --task-schema"
                                                           : "--schema-dir needs --task-schema");
    }
    return read_dialect(command, *dialect_option, dialect_name, out.options.dialect);
}

/// The task schema file's text, whole, as the check reads it (read_task_schema_text); nullopt
/// after saying why on stderr (exit 2): unreadable, or the check's message for a file it refuses.
inline std::optional<std::string> read_prompt_schema(const std::string& path) {
    std::optional<std::string> text;
    try {
        text = read_task_schema_text(path);
    } catch (const handoff::schema_error& e) {
        std::cerr << "handoff-check prompt: " << e.what() << "\n";
        return std::nullopt;
    }
    if (!text) {
        std::cerr << "handoff-check prompt: cannot read " << path << "\n";
    }
    return text;
}

/// `handoff-check prompt ...`; argv[0] is "prompt".
inline int run_prompt(int argc, char** argv) {
    prompt_args args;
    if (const auto stop = parse_prompt_args(argc, argv, args)) {
        return *stop;
    }
    if (!args.task_schema) {
        std::cout << handoff::worker_prompt_without_task();
        return exit_ok;
    }
    const std::string& path = *args.task_schema;
    const std::optional<std::string> text = read_prompt_schema(path);
    if (!text) {
        return exit_usage;
    }
    // The schema is read as the check reads it (beside the file and in every --schema-dir, in
    // the same dialect): worker_prompt refuses a schema the receiver would refuse, with its message.
    handoff::worker_prompt_options prompt_options;
    prompt_options.schema = args.options;
    const std::string base_uri = handoff::schema_registry::file_uri(path);
    std::string prompt;
    std::optional<handoff::schema_registry> registry;
    try {
        registry.emplace(schema_registry_of(args.schema_dirs));
        // The prompt keeps the author's field order.
        prompt = handoff::worker_prompt(handoff::detail::parse_ordered(*text), *registry, base_uri, prompt_options);
    } catch (const handoff::schema_error& e) {
        std::cerr << "handoff-check prompt: " << e.what() << "\n";
        return exit_usage;
    }
    handoff::lint_options lint_options;
    lint_options.schema = args.options;
    if (const auto findings = handoff::lint_schema_text(*text, *registry, base_uri, lint_options); !findings.empty()) {
        std::cerr << "handoff-check prompt: note: `handoff-check lint " << path << "` finds " << findings.size()
                  << " problem" << (findings.size() == 1 ? "" : "s") << " in the task schema\n";
    }
    std::cout << prompt;
    return exit_ok;
}

} // namespace handoff_cli
