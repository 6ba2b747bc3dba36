// SPDX-License-Identifier: MIT
#pragma once
// handoff-check report: which prompt bug the dead letters show, one row per failure class.

#include "exit_status.hpp"

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
    "  --json          one JSON object instead of the table\n"
    "  --since TIME    only records at or after TIME (ISO-8601 UTC: 2026-11-29 or\n"
    "                  2026-11-29T21:00:00Z)\n"
    "  --until TIME    only records before TIME\n"
    "  --by day        counts per UTC day and class as well\n"
    "  --html PAGE     write one self-contained HTML page (tables and a chart per day,\n"
    "                  no script, nothing loaded from the network) to PAGE instead of\n"
    "                  printing; implies --by day\n"
    "\n"
    "exit status: 0 report printed, 2 usage error, unreadable file or unwritable PAGE\n";

/// Lines of at most `limit` + 1 bytes (the rest of a longer line is skipped), so a
/// multi-gigabyte file streams in flat memory; a longer line reaches the builder over its cap.
[[nodiscard]] inline bool next_report_line(std::istream& in, std::string& line, std::size_t limit) {
    line.clear();
    std::streambuf& buffer = *in.rdbuf();
    bool any = false;
    for (int c = buffer.sbumpc(); c != std::char_traits<char>::eof(); c = buffer.sbumpc()) {
        any = true;
        if (c == '\n') {
            break;
        }
        if (line.size() <= limit) {
            line.push_back(static_cast<char>(c));
        }
    }
    if (!line.empty() && line.back() == '\r' && line.size() <= limit) {
        line.pop_back();
    }
    return any;
}

struct report_args {
    handoff::report_options options;
    bool json = false;
    /// Where --html writes the page; empty: print instead.
    std::string html;
    std::vector<std::string> files;
};

inline int report_usage_error(std::ostream& err, const std::string& message) {
    err << "handoff-check report: " << message << "\n\n" << report_usage_text;
    return exit_usage;
}

/// Parses the command line into `out`; an exit status when the program should stop now.
inline std::optional<int> parse_report_args(const std::vector<std::string>& args, report_args& parsed,
                                            std::ostream& out, std::ostream& err) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (arg == "--help" || arg == "-h") {
            out << report_usage_text;
            return exit_ok;
        }
        if (arg == "--json") {
            parsed.json = true;
        } else if (arg == "--html") {
            if (i + 1 >= args.size() || args[i + 1].empty()) {
                return report_usage_error(err, "--html needs a file to write");
            }
            parsed.html = args[++i];
            // The chart is the page's point: without days it would have no data.
            parsed.options.by_day = true;
        } else if (arg == "--since" || arg == "--until" || arg == "--by") {
            if (i + 1 >= args.size()) {
                return report_usage_error(err, arg + " needs a value");
            }
            const std::string& value = args[++i];
            if (arg == "--by") {
                if (value != "day") {
                    return report_usage_error(err, "--by takes day");
                }
                parsed.options.by_day = true;
                continue;
            }
            const auto ms = handoff::parse_utc_time(value);
            if (!ms) {
                return report_usage_error(err, arg + " takes an ISO-8601 UTC time, got " +
                                                   handoff::detail::quote_untrusted(value, 40));
            }
            (arg == "--since" ? parsed.options.since_ms : parsed.options.until_ms) = ms;
        } else if (arg == "-" || arg.empty() || arg[0] != '-') {
            parsed.files.push_back(arg);
        } else {
            return report_usage_error(err, "unknown option " + handoff::detail::quote_untrusted(arg, 40));
        }
    }
    if (parsed.files.empty()) {
        return report_usage_error(err, "no file given");
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
        if (path != "-") {
            file.open(path, std::ios::binary);
            if (!file) {
                err << "handoff-check report: cannot read " << path << "\n";
                unreadable = true;
                continue;
            }
        }
        std::istream& source = path == "-" ? in : file;
        for (std::size_t number = 1; next_report_line(source, line, parsed.options.max_line_bytes); ++number) {
            builder.add_line(line, path + ":" + std::to_string(number));
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
