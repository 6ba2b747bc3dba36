// SPDX-License-Identifier: MIT
// handoff-check: runs the five-step receipt check on envelopes from files or stdin and prints
// one JSON receipt per envelope (JSON Lines); `handoff-check --help` says how. Tool commands
// come as the first word; anything else is the check mode. Each command reads its own command
// line with CLI11 (command_line.hpp); a new command is one header and one line in `commands`.

#include "check_command.hpp"
#include "exit_status.hpp"
#include "fixtures_command.hpp"
#include "lint_command.hpp"
#include "prompt_command.hpp"
#include "report_command.hpp"
#include "schema_command.hpp"
#include "stream_command.hpp"

#include <ios>         // ios, ios_base
#include <iostream>    // cout, cerr
#include <string_view> // string_view

namespace {

struct command {
    std::string_view name;
    int (*run)(int argc, char** argv); // argv[0] is the command's name, the rest its command line
};

constexpr command commands[] = {
    {"lint", handoff_cli::run_lint},         {"prompt", handoff_cli::run_prompt},
    {"schema", handoff_cli::run_schema},     {"report", handoff_cli::run_report},
    {"fixtures", handoff_cli::run_fixtures}, {"stream", handoff_cli::run_stream_command},
};

/// The command argv names (the check when its first word names none), run.
int run(int argc, char** argv) {
    if (argc >= 2) {
        for (const command& c : commands) {
            if (std::string_view(argv[1]) == c.name) {
                return c.run(argc - 1, argv + 1);
            }
        }
    }
    handoff_cli::options opts;
    if (const auto stop = handoff_cli::parse_args(argc, argv, opts)) {
        return *stop;
    }
    return handoff_cli::run_check(opts);
}

} // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    try {
        return run(argc, argv);
    } catch (const std::ios_base::failure& e) {
        // A backstop: each command says which input it could not read and goes on. A read()
        // that fails where none is caught (libstdc++'s filebuf throws) is still unreadable
        // input, exit 2, and the receipts already written are kept, not lost to an abort.
        std::cout.flush();
        std::cerr << "handoff-check: cannot read the input: " << e.code().message() << "\n";
        return handoff_cli::exit_usage;
    }
}
