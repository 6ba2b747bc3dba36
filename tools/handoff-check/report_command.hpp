// SPDX-License-Identifier: MIT
#pragma once
// handoff-check report: which prompt bug the dead letters show, one row per failure class.

#include "command_line.hpp"
#include "exit_status.hpp"
#include "input.hpp"

#include <handoff/detail/text.hpp>
#include <handoff/report.hpp>
#include <handoff/report_html.hpp>

#include <cstddef>     // size_t
#include <fstream>     // ifstream, ofstream
#include <iostream>    // cin, cout, cerr
#include <istream>     // istream
#include <optional>    // optional
#include <ostream>     // ostream
#include <string>      // string
#include <string_view> // string_view
#include <tuple>       // tuple
#include <vector>      // vector

namespace handoff_cli {

// --- handoff-check report -----------------------------------------------------------------

constexpr const char* report_usage_text =
    "usage: handoff-check report [--json | --html PAGE] [--since TIME] [--until TIME] [--by day]\n"
    "                            FILE...\n"
    "\n"
    "Reads dead letters (JSON Lines, \"type\": \"handoff.dead_letter\") and receipt lines of\n"
    "handoff-check --jsonl, and counts each failed attempt under one class: fenced, prose,\n"
    "comments, single_quotes, trailing_comma, truncated, refused, not_json, enum_violation,\n"
    "missing_field, unexpected_field, too_long, wrong_type, coverage, semantic,\n"
    "budget_exhausted, other. Corrupt and foreign lines are counted and named, never fatal.\n"
    "\n"
    "  FILE, -         a JSON Lines file, or - for stdin\n"
    "  --json          one JSON object instead of the text report\n"
    "  --since TIME    only records at or after TIME (ISO-8601 UTC: 2026-11-29 or\n"
    "                  2026-11-29T21:00:00Z)\n"
    "  --until TIME    only records before TIME\n"
    "  --by day        counts per UTC day and class as well\n"
    "  --html PAGE     write one self-contained HTML page (counts per class and\n"
    "                  pointer, a chart per day; no script, nothing loaded from the\n"
    "                  network) to PAGE instead of printing; implies --by day\n"
    "\n"
    "exit status: 0 report printed, 2 usage error, unreadable file or unwritable PAGE\n";

struct report_args {
    handoff::report_options options;
    bool json = false;
    /// Where --html writes the page; empty: print instead.
    std::string html;
    std::vector<std::string> files;
};

/// Parses the command line into `parsed`; an exit status when the program should stop now.
inline std::optional<int> parse_report_args(const std::vector<std::string>& args, report_args& parsed,
                                            std::ostream& out, std::ostream& err) {
    command_line command("handoff-check report", report_usage_text, out, err);
    CLI::App& app = command.app();
    std::string since;
    std::string until;
    std::string by;
    CLI::Option* const json_option = app.add_flag("--json", parsed.json);
    CLI::Option* const html_option = add_value(app, "--html", parsed.html);
    html_option->excludes(json_option); // one output: the usage says --json | --html PAGE
    CLI::Option* const since_option = add_value(app, "--since", since);
    CLI::Option* const until_option = add_value(app, "--until", until);
    CLI::Option* const by_option = add_value(app, "--by", by);
    app.add_option("FILE", parsed.files);
    if (const auto stop = command.parse(args)) {
        return stop;
    }
    if (html_option->count() > 0 && parsed.html.empty()) {
        return command.usage_error("--html needs a file to write");
    }
    if (by_option->count() > 0 && by != "day") {
        return command.usage_error("--by takes day");
    }
    // The chart is the page's point: without days it would have no data.
    parsed.options.by_day = by_option->count() > 0 || !parsed.html.empty();
    for (auto [option, text, into] : {std::tuple(since_option, &since, &parsed.options.since_ms),
                                      std::tuple(until_option, &until, &parsed.options.until_ms)}) {
        if (option->count() == 0) {
            continue;
        }
        *into = handoff::parse_utc_time(*text);
        if (!*into) {
            return command.usage_error(option->get_name() + " takes an ISO-8601 UTC time, got " +
                                       handoff::detail::quote_untrusted(*text, 40));
        }
    }
    if (parsed.files.empty()) {
        return command.usage_error("no file given");
    }
    return std::nullopt;
}

/// Writes the page to `path`; exit_usage when it cannot be written whole.
inline int write_report_html(const handoff::report& report, const std::string& path, std::ostream& err) {
    std::ofstream page(path, std::ios::binary | std::ios::trunc);
    if (page) {
        page << handoff::to_html(report);
        page.close();
    }
    if (!page) {
        err << "handoff-check report: cannot write " << path << "\n";
        return exit_usage;
    }
    return exit_ok;
}

/// The command with its streams passed in, so that tests run it in process.
inline int run_report(const std::vector<std::string>& args, std::istream& in, std::ostream& out, std::ostream& err) {
    report_args parsed;
    if (const auto stop = parse_report_args(args, parsed, out, err)) {
        return *stop;
    }
    handoff::report_builder builder(parsed.options);
    bool unreadable = false;
    std::string line;
    for (const std::string& path : parsed.files) {
        std::ifstream file;
        std::istream* const source = open_input(path, file, in);
        if (source == nullptr) {
            err << "handoff-check report: cannot read " << path << "\n";
            unreadable = true;
            continue;
        }
        line_reader lines(*source->rdbuf());
        for (std::size_t number = 1; lines.next(line, parsed.options.max_line_bytes); ++number) {
            builder.add_line(line, path + ":" + std::to_string(number));
        }
        if (const auto& error = lines.error()) { // a directory, EIO: not a short file
            err << "handoff-check report: cannot read " << path << ": " << *error << "\n";
            unreadable = true;
        }
    }
    if (unreadable) {
        return exit_usage;
    }
    if (!parsed.html.empty()) {
        return write_report_html(builder.result(), parsed.html, err);
    }
    if (parsed.json) {
        out << builder.result().to_json().dump() << '\n';
    } else {
        out << builder.result().to_text();
    }
    out.flush();
    return exit_ok;
}

/// `handoff-check report ...`; argv[0] is "report".
inline int run_report(int argc, char** argv) {
    return run_report(std::vector<std::string>(argv + 1, argv + argc), std::cin, std::cout, std::cerr);
}

} // namespace handoff_cli
