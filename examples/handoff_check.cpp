// SPDX-License-Identifier: MIT
// handoff-check: runs the five-step receipt check on envelopes from files or stdin and prints
// one JSON receipt per envelope (JSON Lines). See SPEC §7 and `handoff-check --help`.

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

namespace {

constexpr int exit_ok = 0;
constexpr int exit_contract_failure = 1;
constexpr int exit_usage = 2;

constexpr const char* usage_text =
    "usage: handoff-check [--task-schema FILE] [--jsonl] [--strict] [FILE|-]...\n"
    "       handoff-check lint [--routing-fields LIST] [--money-fields LIST] SCHEMA...\n"
    "       handoff-check prompt [--task-schema FILE]\n"
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
    "2 usage error (bad flag, unreadable input, unreadable or invalid schema file)\n"
    "\n"
    "lint and prompt are subcommands when they come first (`handoff-check lint --help`);\n"
    "an envelope file of that name is `./lint`.\n";

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

int run_check(const options& opts) {
    handoff::receiver_options receiver_options;
    receiver_options.strict = opts.strict;
    std::optional<checker> check;
    try {
        check.emplace(opts.task_schema ? handoff::receiver<>(handoff::compiled_schema::from_file(*opts.task_schema),
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

// --- handoff-check lint -------------------------------------------------------------------

constexpr const char* lint_usage_text =
    "usage: handoff-check lint [--routing-fields LIST] [--routing-field NAME]\n"
    "                          [--money-fields LIST] [--money-field NAME] SCHEMA...\n"
    "\n"
    "Lints JSON Schemas as if a hostile intern will fill them (seed 004): objects without\n"
    "additionalProperties false, strings without maxLength, arrays without maxItems, a pattern\n"
    "without maxLength, free strings in fields that route, money not in integer cents,\n"
    "required names that no property defines, schemas valijson cannot compile.\n"
    "One line per finding: FILE:POINTER: code: message\n"
    "\n"
    "  SCHEMA, -               a schema file, or - for stdin\n"
    "  --routing-fields LIST   comma-separated names of fields that route (replaces the default:\n"
    "                          label,status,kind,category,severity,action,route,type,reason_code,priority)\n"
    "  --routing-field NAME    one more field that routes\n"
    "  --money-fields LIST     comma-separated names of money fields (replaces the default)\n"
    "  --money-field NAME      one more money field\n"
    "\n"
    "A schema waives a rule where it is wrong on purpose, with the reason:\n"
    "  \"x-lint-allow\": {\"lint.money_not_cents\": \"amounts are decimals as printed\"}\n"
    "\n"
    "exit status: 0 no findings, 1 findings, 2 usage error or unreadable file\n";

int lint_usage_error(const std::string& message) {
    std::cerr << "handoff-check lint: " << message << "\n\n" << lint_usage_text;
    return exit_usage;
}

std::vector<std::string> split_list(const std::string& list) {
    std::vector<std::string> out;
    std::string item;
    for (char c : list + ",") {
        if (c != ',') {
            item.push_back(c);
        } else if (!item.empty()) {
            out.push_back(item);
            item.clear();
        }
    }
    return out;
}

/// `handoff-check lint ...`; argv[0] is "lint".
int run_lint(int argc, char** argv) {
    handoff::lint_options options;
    std::vector<std::string> schemas;
    bool only_files = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (only_files || arg == "-" || arg.empty() || arg[0] != '-') {
            schemas.push_back(arg);
            continue;
        }
        if (arg == "--") {
            only_files = true;
            continue;
        }
        if (arg == "--help" || arg == "-h") {
            std::cout << lint_usage_text;
            return exit_ok;
        }
        const bool list = arg == "--routing-fields" || arg == "--money-fields";
        const bool one = arg == "--routing-field" || arg == "--money-field";
        if (!list && !one) {
            return lint_usage_error("unknown option " + handoff::detail::quote_untrusted(arg, 40));
        }
        if (i + 1 >= argc) {
            return lint_usage_error(arg + " needs a value");
        }
        const std::string value = argv[++i];
        auto& names = arg.rfind("--routing", 0) == 0 ? options.routing_names : options.money_names;
        if (list) {
            names = split_list(value);
        } else if (!value.empty()) {
            names.push_back(value);
        }
    }
    if (schemas.empty()) {
        return lint_usage_error("no schema given");
    }
    bool unreadable = false;
    std::size_t findings = 0;
    for (const std::string& path : schemas) {
        std::ifstream file;
        if (path != "-") {
            file.open(path, std::ios::binary);
            if (!file) {
                std::cerr << "handoff-check lint: cannot read " << path << "\n";
                unreadable = true;
                continue;
            }
        }
        std::istream& in = path == "-" ? std::cin : file;
        for (const auto& finding : handoff::lint_schema_text(read_bounded(in, options.limits.max_bytes), options)) {
            std::cout << handoff::format_lint_finding(path, finding) << '\n';
            ++findings;
        }
    }
    std::cout.flush();
    if (unreadable) {
        return exit_usage;
    }
    return findings > 0 ? exit_contract_failure : exit_ok;
}

// --- handoff-check prompt -----------------------------------------------------------------

constexpr const char* prompt_usage_text =
    "usage: handoff-check prompt [--task-schema FILE]\n"
    "\n"
    "Prints the worker-side instructions for the envelope, generated from the schemas the\n"
    "receiver checks: the envelope's fields, the reason codes and when each applies, the\n"
    "retry-hint vocabulary, and the task schema's fields and enums.\n"
    "\n"
    "exit status: 0 printed, 2 usage error (bad flag, unreadable or invalid schema file)\n";

int prompt_usage_error(const std::string& message) {
    std::cerr << "handoff-check prompt: " << message << "\n\n" << prompt_usage_text;
    return exit_usage;
}

/// `handoff-check prompt ...`; argv[0] is "prompt".
int run_prompt(int argc, char** argv) {
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

} // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    // Tool subcommands come as the first word (SPEC §7); anything else is the check mode.
    if (argc >= 2 && std::string_view(argv[1]) == "lint") {
        return run_lint(argc - 1, argv + 1);
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
