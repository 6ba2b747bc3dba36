// SPDX-License-Identifier: MIT
#pragma once
// The command line of each handoff-check command, read with CLI11
// (https://cliutils.github.io/CLI11/book/): one parser per command, the command's own usage text
// for --help and after every usage error, exit status 2 for a usage error.

#include "exit_status.hpp"

#include <handoff/detail/text.hpp>
#include <handoff/enum_names.hpp>
#include <handoff/schema_dialect.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>   // reverse
#include <optional>    // optional
#include <ostream>     // ostream
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move
#include <vector>      // vector

namespace handoff_cli {

/// E's names joined with ", ": the accepted values an error message lists.
template <class E>
[[nodiscard]] std::string name_list() {
    std::string out;
    for (const E e : handoff::all_values<E>()) {
        out += out.empty() ? "" : ", ";
        out += handoff::to_string(e);
    }
    return out;
}

/// One command's parser: options are added to app(), then parse() reads the words after the
/// command's name. Checks CLI11 cannot state (a value's vocabulary, options that need each other)
/// run after parse() and report through usage_error().
class command_line {
public:
    /// `name` as messages lead with it ("handoff-check lint"); `usage` is printed for --help.
    command_line(std::string name, const char* usage, std::ostream& out, std::ostream& err)
        : name_(std::move(name)), usage_(usage), out_(out), err_(err) {
        app_.set_help_flag(); // --help prints `usage`, below
        app_.add_flag("-h,--help", help_, "print the usage and exit");
    }

    [[nodiscard]] CLI::App& app() noexcept { return app_; }

    /// nullopt when the command should run; otherwise the exit status to stop with: exit_ok after
    /// --help (the usage on out), exit_usage after a usage error (said on err).
    [[nodiscard]] std::optional<int> parse(std::vector<std::string> words) {
        std::reverse(words.begin(), words.end()); // CLI11 takes the words last first
        try {
            app_.parse(words);
        } catch (const CLI::ParseError& e) {
            if (help_) {
                return print_usage();
            }
            return usage_error(e.what());
        }
        if (help_) {
            return print_usage();
        }
        return std::nullopt;
    }

    /// Says `message` and the usage on err; exit_usage.
    [[nodiscard]] int usage_error(const std::string& message) const {
        err_ << name_ << ": " << message << "\n\n" << usage_;
        return exit_usage;
    }

private:
    int print_usage() const {
        out_ << usage_;
        return exit_ok;
    }

    std::string name_;
    const char* usage_;
    std::ostream& out_;
    std::ostream& err_;
    CLI::App app_;
    bool help_ = false;
};

/// An option with one value; given again, the last value counts.
template <class T>
CLI::Option* add_value(CLI::App& app, const std::string& name, T& value) {
    return app.add_option(name, value)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

/// An option that may be given any number of times, one value each time ("--schema-dir A
/// --schema-dir B"); the words after its value are not its values.
inline CLI::Option* add_repeatable(CLI::App& app, const std::string& name, std::vector<std::string>& values) {
    return app.add_option(name, values)->allow_extra_args(false);
}

/// The words after argv[0] (a command's name).
[[nodiscard]] inline std::vector<std::string> words_after_name(int argc, char** argv) {
    return argc > 1 ? std::vector<std::string>(argv + 1, argv + argc) : std::vector<std::string>{};
}

/// `--dialect NAME`: the JSON Schema dialect of a task schema that declares no `$schema`.
inline CLI::Option* add_dialect_option(CLI::App& app, std::string& dialect_name) {
    return add_value(app, "--dialect", dialect_name);
}

/// The dialect `--dialect` named (none when it was not given); a usage error for an unknown name.
[[nodiscard]] inline std::optional<int> read_dialect(const command_line& command, const CLI::Option& option,
                                                     const std::string& dialect_name,
                                                     std::optional<handoff::schema_dialect>& dialect) {
    if (option.count() == 0) {
        return std::nullopt;
    }
    dialect = handoff::from_string<handoff::schema_dialect>(dialect_name);
    if (!dialect) {
        return command.usage_error("--dialect takes " + name_list<handoff::schema_dialect>() + ", not " +
                                   handoff::detail::quote_untrusted(dialect_name, 40));
    }
    return std::nullopt;
}

} // namespace handoff_cli
