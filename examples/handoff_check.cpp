// SPDX-License-Identifier: MIT
// handoff-check: runs the five-step receipt check on envelopes from files or stdin and prints
// one JSON receipt per envelope (JSON Lines). See SPEC §7 and `handoff-check --help`.

#include <handoff/handoff.hpp>

#include <cstdio>   // EOF
#include <fstream>  // ifstream
#include <iostream> // cin, cout, cerr
#include <optional> // optional
#include <string>   // string
#include <vector>   // vector

namespace {

constexpr int exit_ok = 0;
constexpr int exit_contract_failure = 1;
constexpr int exit_usage = 2;

constexpr const char* usage_text =
    "usage: handoff-check [--task-schema FILE] [--jsonl] [--strict] [FILE|-]...\n"
    "\n"
    "Checks subagent envelopes in five steps (parse, envelope schema, task schema,\n"
    "coverage, route) and prints one JSON receipt per envelope on stdout.\n"
    "\n"
    "  FILE, -             an envelope file, or - for stdin (the default)\n"
    "  --task-schema FILE  JSON Schema (draft-07) for partial_result\n"
    "  --jsonl             one envelope per line instead of one per file\n"
    "  --strict            no tolerance: no code fences, prose or BOM around the JSON\n"
    "  --attempt N         the run's attempt number for the routing policy (default 1)\n"
    "  --split-depth N     how deep in splits the run is (default 0)\n"
    "  --help, --version\n"
    "\n"
    "exit status: 0 every envelope accepted or routed, 1 any contract failure (REPAIR),\n"
    "2 usage error (bad flag, unreadable input, unreadable or invalid schema file)\n";

struct options {
    std::optional<std::string> task_schema;
    bool jsonl = false;
    bool strict = false;
    handoff::attempt_context context;
    std::vector<std::string> inputs;
};

int usage_error(const std::string& message) {
    std::cerr << "handoff-check: " << message << "\n\n" << usage_text;
    return exit_usage;
}

std::optional<std::uint32_t> parse_count(const std::string& text) {
    if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) {
        return std::nullopt;
    }
    return static_cast<std::uint32_t>(std::stoul(text));
}

/// Parses the command line; returns an exit status when the program should stop now.
std::optional<int> parse_args(int argc, char** argv, options& out) {
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
std::string read_bounded(std::istream& in, std::size_t limit) {
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

/// One line of a JSON Lines stream, keeping at most `limit` + 1 bytes of it (the rest of an
/// overlong line is skipped) so memory stays flat whatever the input. False at end of input.
bool read_bounded_line(std::streambuf& in, std::string& line, std::size_t limit) {
    line.clear();
    int c = in.sbumpc();
    if (c == EOF) {
        return false;
    }
    for (; c != EOF && c != '\n'; c = in.sbumpc()) {
        if (line.size() <= limit) {
            line.push_back(static_cast<char>(c));
        }
    }
    if (!line.empty() && line.back() == '\r') {
        line.pop_back();
    }
    return true;
}

class checker {
public:
    checker(handoff::receiver<> receiver, handoff::attempt_context context)
        : receiver_(std::move(receiver)), context_(context) {}

    void check(const std::string& text, const std::string& source) {
        const auto receipt = receiver_.receive(text, context_);
        nlohmann::json line = handoff::to_json(receipt);
        line["source"] = source;
        // Invalid UTF-8 in a message must not make dump() throw: replace it.
        std::cout << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        contract_failures_ += receipt.contract_failure() ? 1U : 0U;
    }

    [[nodiscard]] std::size_t contract_failures() const noexcept { return contract_failures_; }
    [[nodiscard]] std::size_t limit() const noexcept { return receiver_.options().limits.max_bytes; }

private:
    handoff::receiver<> receiver_;
    handoff::attempt_context context_;
    std::size_t contract_failures_ = 0;
};

int run_check(const options& opts) {
    handoff::receiver_options receiver_options;
    receiver_options.strict = opts.strict;
    std::optional<checker> check;
    try {
        check.emplace(opts.task_schema
                          ? handoff::receiver<>(handoff::compiled_schema::from_file(*opts.task_schema), receiver_options)
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
        for (std::size_t number = 1; read_bounded_line(*in.rdbuf(), line, check->limit()); ++number) {
            if (handoff::detail::is_blank(line)) {
                continue; // JSON Lines allows no blank records; a trailing newline is not one
            }
            check->check(line, input + ":" + std::to_string(number));
        }
    }
    std::cout.flush();
    if (unreadable) {
        return exit_usage;
    }
    return check->contract_failures() > 0 ? exit_contract_failure : exit_ok;
}

} // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    options opts;
    if (const auto stop = parse_args(argc, argv, opts)) {
        return *stop;
    }
    return run_check(opts);
}
