// SPDX-License-Identifier: MIT
#pragma once
// handoff-check prompt: the worker prompt generated from the schemas.

#include "exit_status.hpp"

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

// --- handoff-check prompt -----------------------------------------------------------------

constexpr const char* prompt_usage_text =
    "usage: handoff-check prompt [--task-schema FILE]\n"
    "\n"
    "Prints the worker-side instructions for the envelope, generated from the schemas the\n"
    "receiver checks: the envelope's fields, the reason codes and when each applies, the\n"
    "retry-hint vocabulary, and the task schema's fields and enums.\n"
    "\n"
    "exit status: 0 printed, 2 usage error (bad flag, unreadable or invalid schema file)\n";

inline int prompt_usage_error(const std::string& message) {
    std::cerr << "handoff-check prompt: " << message << "\n\n" << prompt_usage_text;
    return exit_usage;
}

/// `handoff-check prompt ...`; argv[0] is "prompt".
inline int run_prompt(int argc, char** argv) {
    std::optional<std::string> task_schema;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::cout << prompt_usage_text;
            return exit_ok;
        }
        if (arg != "--task-schema") {
            return prompt_usage_error("unexpected argument " + handoff::detail::quote_untrusted(arg, 40));
        }
        if (i + 1 >= argc) {
            return prompt_usage_error("--task-schema needs a value");
        }
        task_schema = argv[++i];
    }
    if (!task_schema) {
        std::cout << handoff::worker_prompt_without_task();
        return exit_ok;
    }
    std::ifstream file(*task_schema, std::ios::binary);
    if (!file) {
        std::cerr << "handoff-check prompt: cannot read " << *task_schema << "\n";
        return exit_usage;
    }
    const std::string text = read_bounded(file, handoff::lint_options{}.limits.max_bytes);
    // The prompt keeps the author's field order (ordered_json); the receiver's checks need the
    // schema to compile, so a schema the receiver would refuse gets no prompt either.
    const auto ordered = nlohmann::ordered_json::parse(text, nullptr, false);
    const auto plain = nlohmann::json::parse(text, nullptr, false);
    if (ordered.is_discarded() || plain.is_discarded()) {
        std::cerr << "handoff-check prompt: schema file " << *task_schema << " is not valid JSON\n";
        return exit_usage;
    }
    try {
        static_cast<void>(handoff::compiled_schema::from_json(plain));
    } catch (const handoff::schema_error& e) {
        std::cerr << "handoff-check prompt: " << e.what() << " (" << *task_schema << ")\n";
        return exit_usage;
    }
    if (const auto findings = handoff::lint_schema(plain); !findings.empty()) {
        std::cerr << "handoff-check prompt: note: `handoff-check lint " << *task_schema << "` finds " << findings.size()
                  << " problem" << (findings.size() == 1 ? "" : "s") << " in the task schema\n";
    }
    std::cout << handoff::worker_prompt(ordered);
    return exit_ok;
}

} // namespace handoff_cli
