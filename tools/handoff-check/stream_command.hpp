// SPDX-License-Identifier: MIT
#pragma once
// handoff-check stream [--task-schema FILE [--dialect NAME] [--schema-dir DIR]...] [--strict]
//                      [--sse openai|anthropic|gemini|llama_cpp]
// One reply read from stdin as it arrives, raw or as a provider's server-sent events. It stops
// at the first byte that dooms the reply to REPAIR, printing a receipt line with "doomed_at"
// (that byte's offset in the reply text) without waiting for stdin to close, so a pipeline can
// drop the connection. Otherwise, at the end of the input, the receipt handoff-check prints for
// the whole text, with "salvage" when a provider stream ended at its token cap: so for a
// task-schema failure beside a status other than "ok", which the routing table may still route.

#include "command_line.hpp"
#include "exit_status.hpp"
#include "schema_dirs.hpp"

#include <handoff/detail/text.hpp>
#include <handoff/handoff.hpp>

#include <algorithm>   // max, min
#include <array>       // array
#include <cstdio>      // EOF
#include <iostream>    // cin, cout, cerr
#include <optional>    // optional
#include <string>      // string, to_string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff_cli {

constexpr const char* stream_usage_text =
    "usage: handoff-check stream [--task-schema FILE [--dialect NAME] [--schema-dir DIR]...] [--strict]\n"
    "                            [--sse openai|anthropic|gemini|llama_cpp]\n"
    "\n"
    "Checks one reply from stdin as it arrives. Exits at the byte that dooms it (no\n"
    "continuation can pass the parse, envelope and task-schema steps) with \"doomed_at\"\n"
    "in the receipt; otherwise prints the receipt of the whole text at the end of input.\n"
    "A task-schema failure beside a status other than \"ok\" is read to the end: a\n"
    "capped reply's failure is a downgrade the routing table still routes.\n"
    "\n"
    "  --task-schema FILE  JSON Schema for partial_result\n"
    "  --dialect NAME      its dialect when it declares no $schema: draft-04, draft-06,\n"
    "                      draft-07, 2019-09 or 2020-12\n"
    "  --schema-dir DIR    schemas its $refs may name; repeatable\n"
    "  --strict            no tolerance: no code fences, prose or BOM around the JSON\n"
    "  --sse PROVIDER      stdin is the provider's streaming response (server-sent\n"
    "                      events); the receipt says how the provider ended it (\"stop\":\n"
    "                      class and stop word), and a reply cut at the token cap gets a\n"
    "                      \"salvage\"; \"stream_problem\" says what reading the events\n"
    "                      met (an event left out of the text, an error event, another\n"
    "                      choice or tool call left out)\n"
    "\n"
    "exit status: as handoff-check's (a doomed reply is 1)\n";

/// What `handoff-check stream` was asked to do, already parsed.
struct stream_options {
    std::optional<std::string> task_schema;
    std::vector<std::string> schema_dirs;
    std::optional<handoff::schema_dialect> dialect;
    std::optional<handoff::provider> sse;
    bool strict = false;
};

/// `line`, one receipt object, with the member `name` added last (untrusted text in `value`
/// written as JSON, invalid UTF-8 replaced).
inline void add_member(std::string& line, std::string_view name, const nlohmann::json& value) {
    line.insert(line.size() - 1, ",\"" + std::string(name) +
                                     "\":" + value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

/// The receipt line of a doomed reply: REPAIR at the verdict's step, its one problem, and
/// "doomed_at".
inline std::string doomed_line(const handoff::stream_verdict& verdict) {
    handoff::receipt<> receipt;
    receipt.route = handoff::route::repair;
    receipt.failed_step = verdict.what.step;
    receipt.problems.push_back(verdict.what);
    std::string line;
    handoff::append_json(line, receipt, std::string_view("-"));
    add_member(line, "doomed_at", verdict.offset);
    return line;
}

/// `line` with how the provider said the reply ended: its stop class and its own stop word. A
/// complete, valid envelope is still accepted when the provider ended it at the token cap or
/// refused it; the class says so, for the caller to act on (a refusal's text is the provider's).
inline void add_stop(std::string& line, const handoff::provider_stream& events) {
    constexpr std::size_t max_reason_bytes = 200; // a stop word is a word; the provider's text, capped
    const std::string& reason = events.stop_reason();
    const nlohmann::json stop = {
        {"class", handoff::to_string(events.stop())},
        {"reason", reason.substr(0, handoff::detail::utf8_prefix_length(reason, max_reason_bytes))}};
    add_member(line, "stop", stop);
}

/// `line` with the salvage of a reply cut at the token cap added.
inline void add_salvage(std::string& line, const handoff::stream_salvage& salvage) {
    const nlohmann::json s = {{"partial_result", salvage.partial_result},
                              {"complete_items", salvage.complete_items},
                              {"largest_array", salvage.largest_array}};
    add_member(line, "salvage", s);
}

/// `line` with what went wrong reading the provider's events, when anything did: an event left
/// out of the text (so the text checked is not all the provider sent), an error event, other
/// choices or tool calls left out. The receipt is the text's; this says what that text lacks.
inline void add_stream_problem(std::string& line, const std::optional<handoff::provider_stream>& events) {
    if (events && !events->problem().empty()) {
        add_member(line, "stream_problem", events->problem());
    }
}

/// The receiver the options describe; throws handoff::schema_error for a bad schema file.
inline handoff::receiver<> stream_receiver(const stream_options& opts) {
    handoff::receiver_options options;
    options.strict = opts.strict;
    options.schema.dialect = opts.dialect;
    if (!opts.task_schema) {
        return handoff::receiver<>(options);
    }
    const handoff::schema_registry registry = schema_registry_of(opts.schema_dirs);
    return handoff::receiver<>(handoff::compiled_schema::from_file(*opts.task_schema, registry, options.schema),
                               options);
}

/// Whether the check's verdict already decides the receipt: REPAIR. A task-schema verdict does
/// so only beside "status": "ok"; beside "capped" (or a status not read yet) the envelope may
/// still be routed, which only the whole reply says.
inline bool route_decided(const handoff::stream_check<>& check) {
    const auto& verdict = check.doomed();
    return verdict &&
           (verdict->what.step != handoff::step::task_schema || check.envelope_status() == handoff::status::ok);
}

/// Reads `in` as it arrives (one read of what the pipe has at a time), pushing each piece to
/// `check` through the provider's events when `events` is set. True when the input ended
/// before a verdict that decides the receipt.
inline bool read_until_doomed(std::streambuf& in, handoff::stream_check<>& check,
                              std::optional<handoff::provider_stream>& events) {
    std::array<char, 65536> buffer{};
    while (in.sgetc() != EOF) { // one underflow: a single read() of what is there
        const std::streamsize ready = std::max<std::streamsize>(in.in_avail(), 1);
        const std::streamsize got =
            in.sgetn(buffer.data(), std::min<std::streamsize>(ready, static_cast<std::streamsize>(buffer.size())));
        const std::string_view piece(buffer.data(), static_cast<std::size_t>(std::max<std::streamsize>(got, 0)));
        check.push(events ? std::string_view(events->push(piece)) : piece);
        if (route_decided(check)) {
            return false;
        }
    }
    if (events) {
        check.push(events->finish());
    }
    return !route_decided(check);
}

/// The stream command itself: stdin (`in`) to one receipt line on stdout.
inline int run_stream(const stream_options& opts, std::istream& in) {
    std::optional<handoff::receiver<>> receiver;
    try {
        receiver.emplace(stream_receiver(opts));
    } catch (const handoff::schema_error& e) {
        std::cerr << "handoff-check: " << e.what() << "\n";
        return exit_usage;
    }
    handoff::stream_check<> check(*receiver);
    std::optional<handoff::provider_stream> events;
    if (opts.sse) {
        events.emplace(*opts.sse);
    }
    if (!read_until_doomed(*in.rdbuf(), check, events)) {
        std::string line = doomed_line(*check.doomed());
        if (events && !events->stop_reason().empty()) { // the stream had ended before the verdict
            add_stop(line, *events);
        }
        add_stream_problem(line, events);
        std::cout << line << "\n" << std::flush;
        return exit_contract_failure;
    }
    const handoff::receipt<> receipt = check.finish();
    std::string line;
    handoff::append_json(line, receipt, std::string_view("-"));
    if (events) {
        add_stop(line, *events);
    }
    if (events && handoff::is_truncation(events->stop())) {
        if (const auto salvage = check.salvage()) {
            add_salvage(line, *salvage);
        }
    }
    add_stream_problem(line, events);
    std::cout << line << "\n" << std::flush;
    if (events && !events->problem().empty()) {
        std::cerr << "handoff-check: " << events->problem() << "\n";
    }
    return receipt.contract_failure() ? exit_contract_failure : exit_ok;
}

/// `handoff-check stream ARGS`: parses ARGS (argv[0] is "stream") into stream_options.
inline int run_stream_command(int argc, char** argv) {
    command_line command("handoff-check stream", stream_usage_text, std::cout, std::cerr);
    CLI::App& app = command.app();
    stream_options opts;
    std::string task_schema;
    std::string sse_name;
    std::string dialect_name;
    CLI::Option* const task_option = add_value(app, "--task-schema", task_schema);
    CLI::Option* const dialect_option = add_dialect_option(app, dialect_name);
    add_repeatable(app, "--schema-dir", opts.schema_dirs);
    CLI::Option* const sse_option = add_value(app, "--sse", sse_name);
    app.add_flag("--strict", opts.strict);
    if (const auto stop = command.parse(words_after_name(argc, argv))) {
        return *stop;
    }
    if (task_option->count() > 0) {
        opts.task_schema = task_schema;
    }
    if (const auto stop = read_dialect(command, *dialect_option, dialect_name, opts.dialect)) {
        return *stop;
    }
    if (sse_option->count() > 0) {
        opts.sse = handoff::provider_from_string(sse_name);
        if (!opts.sse || *opts.sse == handoff::provider::json_schema) {
            return command.usage_error("--sse takes openai, anthropic, gemini, gemini_openapi or llama_cpp, not " +
                                       handoff::detail::quote_untrusted(sse_name, 40));
        }
    }
    return run_stream(opts, std::cin);
}

} // namespace handoff_cli
