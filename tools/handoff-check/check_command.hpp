// SPDX-License-Identifier: MIT
#pragma once
// handoff-check [options] [FILE|-]...: the five-step receipt check, one JSON receipt per envelope.

#include "command_line.hpp"
#include "exit_status.hpp"
#include "input.hpp"
#include "schema_dirs.hpp"

#include <handoff/detail/read_file.hpp>
#include <handoff/handoff.hpp>

#include <fstream>     // ifstream
#include <iostream>    // cin, cout, cerr
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff_cli {

constexpr const char* usage_text =
    "usage: handoff-check [--task-schema FILE [--dialect NAME] [--schema-dir DIR]...] [--from PROVIDER] [--jsonl]\n"
    "                     [--strict] [FILE|-]...\n"
    "       handoff-check lint [--dialect NAME] [--schema-dir DIR]... [--routing-fields LIST] [--money-fields LIST]\n"
    "                          SCHEMA...\n"
    "       handoff-check prompt [--task-schema FILE [--dialect NAME] [--schema-dir DIR]...]\n"
    "       handoff-check schema --for PROVIDER [--task-schema FILE [--dialect NAME]]\n"
    "       handoff-check report [--json] [--since T] [--until T] [--by day] FILE...\n"
    "       handoff-check fixtures --task-schema FILE [--dialect NAME] --out DIR\n"
    "\n"
    "Checks subagent envelopes in five steps (parse, envelope schema, task schema,\n"
    "coverage, route) and prints one JSON receipt per envelope on stdout.\n"
    "\n"
    "  FILE, -             an envelope file, or - for stdin (the default)\n"
    "  --task-schema FILE  JSON Schema for partial_result\n"
    "  --dialect NAME      its dialect when it declares no $schema: draft-04, draft-06,\n"
    "                      draft-07, 2019-09 or 2020-12\n"
    "  --schema-dir DIR    schemas its $refs may name (every *.json under DIR, by file\n"
    "                      URI); repeatable. Files beside FILE are found without it\n"
    "  --jsonl             one envelope per line instead of one per file\n"
    "  --strict            no tolerance: no code fences, prose or BOM around the JSON\n"
    "  --from PROVIDER     the replies were decoded under `handoff-check schema --for\n"
    "                      PROVIDER`: a null it made for an optional property is absent\n"
    "  --attempt N         the run's attempt number for the routing policy (default 1)\n"
    "  --split-depth N     how deep in splits the run is (default 0)\n"
    "  --help, --version\n"
    "\n"
    "exit status: 0 every envelope accepted or routed, 1 any contract failure (REPAIR),\n"
    "2 usage error (bad flag, unreadable input, unreadable or invalid schema file)\n"
    "\n"
    "lint, prompt, schema, report and fixtures are commands when they come first\n"
    "(`handoff-check lint --help`); an envelope file of that name is `./lint`.\n";

struct options {
    std::optional<std::string> task_schema;
    std::vector<std::string> schema_dirs;
    std::optional<handoff::provider> from;
    std::optional<handoff::schema_dialect> dialect;
    bool jsonl = false;
    bool strict = false;
    handoff::attempt_context context;
    std::vector<std::string> inputs;
};

/// Parses the command line (argv[0] is the program); returns an exit status when the program
/// should stop now.
inline std::optional<int> parse_args(int argc, char** argv, options& out) {
    command_line command("handoff-check", usage_text, std::cout, std::cerr);
    CLI::App& app = command.app();
    bool version = false;
    std::string from;
    std::string dialect_name;
    app.add_flag("--version", version);
    app.add_flag("--jsonl", out.jsonl);
    app.add_flag("--strict", out.strict);
    std::string task_schema;
    CLI::Option* const task_schema_option = add_value(app, "--task-schema", task_schema);
    add_repeatable(app, "--schema-dir", out.schema_dirs);
    CLI::Option* const from_option = add_value(app, "--from", from);
    CLI::Option* const dialect_option = add_dialect_option(app, dialect_name);
    add_value(app, "--attempt", out.context.attempt);
    add_value(app, "--split-depth", out.context.split_depth);
    app.add_option("FILE", out.inputs);
    if (const auto stop = command.parse(words_after_name(argc, argv))) {
        return stop;
    }
    if (task_schema_option->count() > 0) {
        out.task_schema = task_schema;
    }
    if (version) {
        std::cout << "handoff-check " << handoff::version_string << "\n";
        return exit_ok;
    }
    if (out.context.attempt == 0) {
        return command.usage_error("--attempt takes a whole number >= 1");
    }
    if (from_option->count() > 0 && !(out.from = handoff::provider_from_string(from))) {
        return command.usage_error("--from takes " + name_list<handoff::provider>() + ", not " +
                                   handoff::detail::quote_untrusted(from, 40));
    }
    if (const auto stop = read_dialect(command, *dialect_option, dialect_name, out.dialect)) {
        return stop;
    }
    if (out.inputs.empty()) {
        out.inputs.emplace_back("-");
    }
    return std::nullopt;
}

class checker {
public:
    checker(handoff::receiver<> receiver, handoff::attempt_context context)
        : receiver_(std::move(receiver)), context_(context) {}

    void check(const std::string& text, std::string_view source) {
        const auto receipt = receiver_.receive(text, context_);
        // Written directly, not through a DOM (which cost as much as checking a small
        // envelope); invalid UTF-8 in a message is replaced, never thrown about.
        line_.clear();
        handoff::append_json(line_, receipt, source);
        line_ += '\n';
        std::cout << line_;
        contract_failures_ += receipt.contract_failure() ? 1U : 0U;
    }

    [[nodiscard]] std::size_t contract_failures() const noexcept { return contract_failures_; }
    [[nodiscard]] std::size_t limit() const noexcept { return receiver_.options().limits.max_bytes; }

private:
    handoff::receiver<> receiver_;
    handoff::attempt_context context_;
    std::string line_; // reused: one allocation for the whole stream
    std::size_t contract_failures_ = 0;
};

inline int run_check(const options& opts) {
    handoff::receiver_options receiver_options;
    receiver_options.strict = opts.strict;
    receiver_options.from = opts.from;
    receiver_options.schema.dialect = opts.dialect;
    std::optional<checker> check;
    try {
        const handoff::schema_registry registry = schema_registry_of(opts.schema_dirs);
        check.emplace(opts.task_schema ? handoff::receiver<>(handoff::compiled_schema::from_file(
                                                                 *opts.task_schema, registry, receiver_options.schema),
                                                             receiver_options)
                                       : handoff::receiver<>(receiver_options),
                      opts.context);
    } catch (const handoff::schema_error& e) {
        std::cerr << "handoff-check: " << e.what() << "\n";
        return exit_usage;
    }
    bool unreadable = false;
    for (const std::string& input : opts.inputs) {
        std::ifstream file;
        std::istream* const opened = open_input(input, file, std::cin);
        if (opened == nullptr) {
            std::cerr << "handoff-check: cannot read " << input << "\n";
            unreadable = true;
            continue;
        }
        std::istream& in = *opened;
        if (!opts.jsonl) {
            // An input that cannot be read (a directory, EIO) is unreadable, not an empty reply.
            if (const auto text = handoff::detail::read_bounded(in, check->limit())) {
                check->check(*text, input);
            } else {
                std::cerr << "handoff-check: cannot read " << input << "\n";
                unreadable = true;
            }
            continue;
        }
        std::string line;
        std::string source = input + ":"; // "FILE:LINE", its prefix kept across lines
        const std::size_t prefix = source.size();
        line_reader lines(*in.rdbuf());
        for (std::size_t number = 1; lines.next(line, check->limit()); ++number) {
            if (handoff::detail::is_blank(line)) {
                continue; // JSON Lines allows no blank records; a trailing newline is not one
            }
            source.resize(prefix);
            source += std::to_string(number);
            check->check(line, source);
        }
        // The receipts of the lines read before a read error stand; the input is unreadable.
        if (const auto& error = lines.error()) {
            std::cerr << "handoff-check: cannot read " << input << ": " << *error << "\n";
            unreadable = true;
        }
    }
    std::cout.flush();
    if (unreadable) {
        return exit_usage;
    }
    return check->contract_failures() > 0 ? exit_contract_failure : exit_ok;
}

} // namespace handoff_cli
