// SPDX-License-Identifier: MIT
// handoff-check: runs the five-step receipt check on envelopes from files or stdin and prints
// one JSON receipt per envelope (JSON Lines); `handoff-check --help` says how.

#include "check_command.hpp"
#include "fixtures_command.hpp"
#include "lint_command.hpp"
#include "prompt_command.hpp"

#include <ios>         // ios
#include <string_view> // string_view

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    // Tool subcommands come as the first word; anything else is the check mode.
    using namespace handoff_cli;
    if (argc >= 2 && std::string_view(argv[1]) == "lint") {
        return run_lint(argc - 1, argv + 1);
    }
    if (argc >= 2 && std::string_view(argv[1]) == "fixtures") {
        return run_fixtures(argc - 1, argv + 1);
    }
    if (argc >= 2 && std::string_view(argv[1]) == "prompt") {
        return run_prompt(argc - 1, argv + 1);
    }
    options opts;
    if (const auto stop = parse_args(argc, argv, opts)) {
        return *stop;
    }
    return run_check(opts);
}
