// SPDX-License-Identifier: MIT
#pragma once
// handoff-check schema: the envelope schema (with a task schema inside) as one provider's
// constrained decoder takes it, and every constraint that provider will not enforce.

#include "command_line.hpp"
#include "dialect_line.hpp"
#include "exit_status.hpp"
#include "schema_dirs.hpp"

#include <handoff/detail/json/ordered_parse.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/provider.hpp>
#include <handoff/provider_schema.hpp>
#include <handoff/schema.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <iostream>    // cout, cerr
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff_cli {

constexpr const char* schema_usage_text =
    "usage: handoff-check schema --for PROVIDER [--task-schema FILE [--dialect NAME] [--schema-dir DIR]...]\n"
    "                             [--describe-dropped]\n"
    "\n"
    "Prints the envelope schema, with the task schema at partial_result, rewritten into what\n"
    "PROVIDER's constrained decoding accepts (openai, anthropic, gemini, gemini_openapi for\n"
    "Gemini's older responseSchema, llama_cpp, or json_schema for the merged draft-07 schema as\n"
    "it is). Every constraint the provider will not enforce is listed on stderr, with why and\n"
    "whether the receiver checks it (it does for every keyword of the schema's dialect).\n"
    "--describe-dropped also writes each of them into the description the model reads.\n"
    "\n"
    "The task schema is first compiled as the check compiles it (--task-schema FILE, same\n"
    "--dialect and --schema-dir): a schema the check refuses is refused here with the check's\n"
    "message. Every document its $refs name (a file beside it, a file under a --schema-dir) is\n"
    "copied into its definitions, so the schema sent stands alone. Its dialect is said on\n"
    "stderr before the notes:\n"
    "  handoff-check schema: FILE: dialect: 2020-12 (from $schema | from --dialect | from its keywords)\n"
    "\n"
    "  --dialect NAME    the dialect of a task schema that declares no $schema: draft-04,\n"
    "                    draft-06, draft-07, 2019-09 or 2020-12\n"
    "  --schema-dir DIR  schemas its $refs may name (every *.json under DIR, by file URI and\n"
    "                    $id), as the check reads them; repeatable. Files beside FILE are\n"
    "                    found without it\n"
    "\n"
    "exit status: 0 printed, 1 the schema is over a documented limit of PROVIDER (named on\n"
    "stderr), 2 usage error (bad flag, unknown provider, unreadable or invalid schema file, a\n"
    "schema the check refuses)\n";

/// A task schema file is refused above this size: no provider takes a schema near it.
inline constexpr std::size_t schema_file_limit = std::size_t{4} << 20;

/// One stderr line per note, led by the pointer into the merged draft-07 schema.
inline void print_schema_note(const handoff::schema_note& note, std::string_view target) {
    // The schema's keys and values are untrusted text: escaped and capped as lint's are.
    const std::string pointer = note.pointer.empty() ? "(root)" : handoff::detail::message_pointer(note.pointer);
    // A null value is a keyword the original schema did not have (an object closed by default).
    const std::string value =
        note.value.is_null()
            ? std::string("(absent)")
            : handoff::detail::escape_untrusted(
                  note.value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace), 160);
    const std::string keyword = handoff::detail::escape_untrusted(note.keyword, 64);
    switch (note.kind) {
    case handoff::schema_note_kind::not_enforced:
        // The note says why, and whether the receiver checks the keyword (not an unknown one).
        std::cerr << pointer << ": " << keyword << " " << value << " not enforced by " << target << ": " << note.note
                  << "\n";
        return;
    case handoff::schema_note_kind::tightened:
        std::cerr << pointer << ": " << keyword << " " << value << " tightened by " << target << ": " << note.note
                  << "\n";
        return;
    case handoff::schema_note_kind::made_nullable:
        std::cerr << pointer << ": made nullable for " << target << ": " << note.note << "\n";
        return;
    case handoff::schema_note_kind::limit_exceeded:
        std::cerr << "handoff-check schema: over the " << target << " limit " << keyword << ": " << value << "\n";
        return;
    case handoff::schema_note_kind::weakened:
        std::cerr << pointer << ": " << keyword << " weakened for " << target << ": " << note.note << "\n";
        return;
    case handoff::schema_note_kind::near_limit:
        std::cerr << "handoff-check schema: warning: near the " << target << " size " << keyword << ": " << value
                  << "\n";
        return;
    }
}

/// The task schema file, parsed; nullopt after printing why (a usage error). A file that is not
/// valid JSON gets the check's message (read_task_schema_text).
inline std::optional<nlohmann::ordered_json> read_task_schema(const std::string& path) {
    std::optional<std::string> text;
    try {
        text = read_task_schema_text(path, schema_file_limit);
    } catch (const handoff::schema_error& e) {
        std::cerr << "handoff-check schema: " << e.what() << "\n";
        return std::nullopt;
    }
    if (!text) {
        std::cerr << "handoff-check schema: cannot read " << path << "\n";
        return std::nullopt;
    }
    if (text->size() > schema_file_limit) {
        std::cerr << "handoff-check schema: schema file " << path << " is over " << schema_file_limit << " bytes\n";
        return std::nullopt;
    }
    // Valid JSON by now (the check parsed it): only its type can be wrong.
    auto schema = handoff::detail::parse_ordered(*text);
    if (schema.is_discarded() || !schema.is_object()) {
        std::cerr << "handoff-check schema: schema file " << path << " is not a JSON Schema object\n";
        return std::nullopt;
    }
    return schema;
}

/// Whether the task schema file compiles as the check compiles it, with `registry` and `options`:
/// said on stderr, the dialect it is read in when it does, the check's own message when it does not.
[[nodiscard]] inline bool compiles_as_checked(const std::string& path, const handoff::schema_registry& registry,
                                              const handoff::schema_options& options) {
    try {
        const auto compiled = handoff::compiled_schema::from_file(path, registry, options);
        std::cerr << "handoff-check schema: " << path << ": " << dialect_line(compiled.document(), options) << "\n";
        return true;
    } catch (const handoff::schema_error& e) {
        std::cerr << "handoff-check schema: " << e.what() << "\n";
        return false;
    }
}

/// The schema on stdout, its notes and limits on stderr; the exit status.
inline int print_provider_schema(const handoff::provider_schema_result& result) {
    std::cout << result.schema.dump(2) << "\n";
    for (const auto& note : result.notes) {
        print_schema_note(note, handoff::to_string(result.target));
    }
    for (const auto& limit : result.limits) {
        std::cerr << "handoff-check schema: " << limit.name << ": the envelope uses " << limit.envelope << " of "
                  << limit.limit << ", the task " << limit.task() << "; " << limit.left_for_task()
                  << " left for the task and any other strict tool in the request\n";
    }
    return result.within_limits() ? exit_ok : exit_contract_failure;
}

/// `handoff-check schema ...`; argv[0] is "schema".
inline int run_schema(int argc, char** argv) {
    command_line command("handoff-check schema", schema_usage_text, std::cout, std::cerr);
    CLI::App& app = command.app();
    std::string provider_name;
    std::string task_path;
    CLI::Option* const for_option = add_value(command.app(), "--for", provider_name);
    CLI::Option* const task_option = add_value(app, "--task-schema", task_path);
    handoff::provider_schema_options options;
    app.add_flag("--describe-dropped", options.describe_dropped);
    std::string dialect_name;
    CLI::Option* const dialect_option = add_dialect_option(app, dialect_name);
    std::vector<std::string> schema_dirs;
    add_repeatable(app, "--schema-dir", schema_dirs);
    if (const auto stop = command.parse(words_after_name(argc, argv))) {
        return *stop;
    }
    if (const auto stop = read_dialect(command, *dialect_option, dialect_name, options.schema.dialect)) {
        return *stop;
    }
    if ((dialect_option->count() > 0 || !schema_dirs.empty()) && task_option->count() == 0) {
        return command.usage_error(schema_dirs.empty() ? "--dialect needs --task-schema"
                                                       : "--schema-dir needs --task-schema");
    }
    if (for_option->count() == 0) {
        return command.usage_error("--for PROVIDER is required");
    }
    const std::optional<handoff::provider> target = handoff::provider_from_string(provider_name);
    if (!target) {
        return command.usage_error("unknown provider " + handoff::detail::quote_untrusted(provider_name, 40) + " (" +
                                   name_list<handoff::provider>() + ")");
    }
    std::optional<nlohmann::ordered_json> task;
    if (task_option->count() > 0 && !(task = read_task_schema(task_path))) {
        return exit_usage;
    }
    std::optional<handoff::schema_registry> registry;
    try {
        registry.emplace(schema_registry_of(schema_dirs));
    } catch (const handoff::schema_error& e) {
        std::cerr << "handoff-check schema: " << e.what() << "\n";
        return exit_usage;
    }
    if (task && !compiles_as_checked(task_path, *registry, options.schema)) {
        return exit_usage;
    }
    return print_provider_schema(task ? handoff::provider_schema(*target, *task, *registry,
                                                                 handoff::schema_registry::file_uri(task_path), options)
                                      : handoff::provider_schema(*target, nullptr, options));
}

} // namespace handoff_cli
