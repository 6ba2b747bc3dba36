// SPDX-License-Identifier: MIT
#pragma once

// Running a command as a user would (the CLI tests): through the shell, with its stdout
// captured and its exit status checked to be a normal exit.

#include "support/catch.hpp"

#include <cstdio> // popen, fread
#include <string> // string

#include <sys/wait.h> // WIFEXITED, WEXITSTATUS

namespace handoff_test {

struct shell_result {
    int exit_status = -1;
    std::string out; // everything the command wrote on stdout
};

/// Runs `command` with /bin/sh and waits for it; a crash or a signal fails the test.
inline shell_result run_shell(const std::string& command) {
    shell_result result;
    FILE* pipe = ::popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) {
        result.out.append(buffer, n);
    }
    const int status = ::pclose(pipe);
    REQUIRE(WIFEXITED(status));
    result.exit_status = WEXITSTATUS(status);
    return result;
}

} // namespace handoff_test
