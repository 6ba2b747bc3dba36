// SPDX-License-Identifier: MIT
#pragma once
// handoff-check [options] [FILE|-]...: the five-step receipt check, one JSON receipt per envelope.

#include "exit_status.hpp"
#include "schema_dirs.hpp"

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

constexpr const char* usage_text =
    "usage: handoff-check [--task-schema FILE [--schema-dir DIR]...] [--from PROVIDER] [--jsonl] [--strict]\n"
    "                     [FILE|-]...\n"
    "       handoff-check lint [--schema-dir DIR]... [--routing-fields LIST] [--money-fields LIST] SCHEMA...\n"
    "       handoff-check prompt [--task-schema FILE [--schema-dir DIR]...]\n"
    "       handoff-check schema --for PROVIDER [--task-schema FILE]\n"
    "       handoff-check report [--json] [--since T] [--until T] [--by day] FILE...\n"
    "       handoff-check fixtures --task-schema FILE --out DIR\n"
    "\n"
    "Checks subagent envelopes in five steps (parse, envelope schema, task schema,\n"
    "coverage, route) and prints one JSON receipt per envelope on stdout.\n"
    "\n"
    "  FILE, -             an envelope file, or - for stdin (the default)\n"
    "  --task-schema FILE  JSON Schema (draft-07) for partial_result\n"
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
    bool jsonl = false;
    bool strict = false;
    handoff::attempt_context context;
    std::vector<std::string> inputs;
};

inline int usage_error(const std::string& message) {
    std::cerr << "handoff-check: " << message << "\n\n" << usage_text;
    return exit_usage;
}

inline std::optional<std::uint32_t> parse_count(const std::string& text) {
    if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) {
        return std::nullopt;
    }
    return static_cast<std::uint32_t>(std::stoul(text));
}

/// Parses the command line; returns an exit status when the program should stop now.
inline std::optional<int> parse_args(int argc, char** argv, options& out) {
    bool only_files = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto value = [&](const char* flag) -> std::optional<std::string> {
            if (i + 1 >= argc) {
                usage_error(std::string(flag) + " needs a value");
                return std::nullopt;
            }
            return std::string(argv[++i]);
        };
        if (only_files || arg == "-" || arg.empty() || arg[0] != '-') {
            out.inputs.push_back(arg);
        } else if (arg == "--") {
            only_files = true;
        } else if (arg == "--help" || arg == "-h") {
            std::cout << usage_text;
            return exit_ok;
        } else if (arg == "--version") {
            std::cout << "handoff-check " << handoff::version_string << "\n";
            return exit_ok;
        } else if (arg == "--jsonl") {
            out.jsonl = true;
        } else if (arg == "--strict") {
            out.strict = true;
        } else if (arg == "--task-schema") {
            auto v = value("--task-schema");
            if (!v) {
                return exit_usage;
            }
            out.task_schema = *v;
        } else if (arg == "--schema-dir") {
            auto v = value("--schema-dir");
            if (!v) {
                return exit_usage;
            }
            out.schema_dirs.push_back(*v);
        } else if (arg == "--from") {
            auto v = value("--from");
            if (!v) {
                return exit_usage;
            }
            out.from = handoff::provider_from_string(*v);
            if (!out.from) {
                return usage_error("--from takes openai, anthropic, gemini, llama_cpp or json_schema, not " +
                                   handoff::detail::quote_untrusted(*v, 40));
            }
        } else if (arg == "--attempt" || arg == "--split-depth") {
            auto v = value(arg.c_str());
            if (!v) {
                return exit_usage;
            }
            const auto n = parse_count(*v);
            if (!n || (arg == "--attempt" && *n == 0)) {
                return usage_error(arg + " takes a whole number" + (arg == "--attempt" ? " >= 1" : ""));
            }
            (arg == "--attempt" ? out.context.attempt : out.context.split_depth) = *n;
        } else {
            return usage_error("unknown option " + handoff::detail::quote_untrusted(arg, 40));
        }
    }
    if (out.inputs.empty()) {
        out.inputs.emplace_back("-");
    }
    return std::nullopt;
}

/// Reads at most `limit` + 1 bytes: enough for the receiver to see that the input is over its
/// byte limit, without holding a hostile multi-gigabyte file in memory.
inline std::string read_bounded(std::istream& in, std::size_t limit) {
    std::string text;
    char buffer[65536];
    while (text.size() <= limit && in.read(buffer, sizeof buffer).gcount() > 0) {
        text.append(buffer, static_cast<std::size_t>(in.gcount()));
    }
    if (text.size() > limit + 1) {
        text.resize(limit + 1);
    }
    return text;
}

/// The lines of a JSON Lines stream, read a block at a time. Each line keeps at most `limit`
/// + 1 bytes (the rest of an overlong line is skipped) so memory stays flat whatever the input.
/// A block is what the stream has at hand (one read() on a pipe), so a line is checked as soon
/// as it arrives instead of when 64 KiB have.
class line_reader {
public:
    explicit line_reader(std::streambuf& in) : in_(in) {}

    /// The next line, without its "\n" or "\r\n"; false at end of input.
    bool next(std::string& line, std::size_t limit) {
        line.clear();
        bool any = false;
        bool cut = false; // bytes past limit + 1 were dropped
        for (;;) {
            if (pos_ == end_ && !refill()) {
                if (!any) {
                    return false;
                }
                break;
            }
            any = true;
            const char* start = buffer_.data() + pos_;
            const auto* newline = static_cast<const char*>(std::memchr(start, '\n', end_ - pos_));
            const std::size_t n = newline != nullptr ? static_cast<std::size_t>(newline - start) : end_ - pos_;
            const std::size_t room = line.size() <= limit ? limit + 1 - line.size() : 0;
            line.append(start, std::min(n, room));
            cut = cut || n > room;
            pos_ += n;
            if (newline != nullptr) {
                ++pos_;
                break;
            }
        }
        // A cut line keeps limit + 1 bytes, so the receiver refuses it by size, even when the
        // byte it was cut after is a '\r'.
        if (!cut && !line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        return true;
    }

private:
    bool refill() {
        if (in_.sgetc() == EOF) { // one underflow: a single read() of what is there
            return false;
        }
        const std::streamsize ready = std::max<std::streamsize>(in_.in_avail(), 1);
        const std::streamsize got =
            in_.sgetn(buffer_.data(), std::min<std::streamsize>(ready, static_cast<std::streamsize>(buffer_.size())));
        pos_ = 0;
        end_ = static_cast<std::size_t>(std::max<std::streamsize>(got, 0));
        return end_ > 0;
    }

    std::streambuf& in_;
    std::array<char, 65536> buffer_{};
    std::size_t pos_ = 0;
    std::size_t end_ = 0;
};

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
    std::optional<checker> check;
    try {
        const handoff::schema_registry registry = schema_registry_of(opts.schema_dirs);
        check.emplace(opts.task_schema
                          ? handoff::receiver<>(handoff::compiled_schema::from_file(*opts.task_schema, registry),
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
        if (input != "-") {
            file.open(input, std::ios::binary);
            if (!file) {
                std::cerr << "handoff-check: cannot read " << input << "\n";
                unreadable = true;
                continue;
            }
        }
        std::istream& in = input == "-" ? std::cin : file;
        if (!opts.jsonl) {
            check->check(read_bounded(in, check->limit()), input);
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
    }
    std::cout.flush();
    if (unreadable) {
        return exit_usage;
    }
    return check->contract_failures() > 0 ? exit_contract_failure : exit_ok;
}

} // namespace handoff_cli
