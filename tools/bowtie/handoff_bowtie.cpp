// SPDX-License-Identifier: MIT
// handoff-bowtie: handoff's harness for Bowtie (https://github.com/bowtie-json-schema/bowtie),
// which runs the JSON Schema Test Suite against many implementations and publishes the results.
// It speaks Bowtie's protocol, version 1 (bowtie/schemas/io/v1.json and io/commands/*.json in
// that repository; docs/implementers.rst explains it): one JSON request per line on stdin, one
// JSON response per line on stdout.
//
//   {"cmd": "start", "version": 1}            -> {"version": 1, "implementation": {...}}
//   {"cmd": "dialect", "dialect": URI}         -> {"ok": true} (or false for a dialect not listed)
//   {"cmd": "run", "seq": S, "case": {...}}    -> {"seq": S, "results": [{"valid": B}, ...]}
//   {"cmd": "stop"}                            -> no response; the program exits 0
//
// A case handoff cannot compile (a schema_error) is answered {"seq": S, "errored": true,
// "context": {"message": ...}}; annotation output, which handoff does not produce, is answered
// with a skip for each test. Any line that is not a request the protocol defines is answered with
// an errored response too (with the request's seq when it has one): the program never crashes on
// its input, and reads every line with handoff's own bounded JSON reader.

#include <handoff/decode.hpp>
#include <handoff/detail/json/builder.hpp>
#include <handoff/limits.hpp>
#include <handoff/schema.hpp>
#include <handoff/schema_dialect.hpp>
#include <handoff/schema_error.hpp>
#include <handoff/schema_registry.hpp>
#include <handoff/version.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // max, min
#include <cstddef>     // size_t
#include <exception>   // exception
#include <fstream>     // ifstream
#include <iostream>    // cin, cout
#include <limits>      // numeric_limits
#include <optional>    // optional
#include <stdexcept>   // invalid_argument
#include <string>      // string, getline
#include <string_view> // string_view
#include <utility>     // pair

#ifndef HANDOFF_BOWTIE_PROJECT_URL
#define HANDOFF_BOWTIE_PROJECT_URL ""
#endif

namespace {

using nlohmann::json;

/// The protocol version this program speaks.
constexpr int protocol_version = 1;

/// Each dialect handoff validates, by the URI Bowtie names it with (its `$schema` URI).
struct dialect_uri {
    handoff::schema_dialect dialect;
    std::string_view uri;
};
constexpr dialect_uri dialect_uris[] = {
    {handoff::schema_dialect::draft2020_12, "https://json-schema.org/draft/2020-12/schema"},
    {handoff::schema_dialect::draft2019_09, "https://json-schema.org/draft/2019-09/schema"},
    {handoff::schema_dialect::draft07, "http://json-schema.org/draft-07/schema#"},
    {handoff::schema_dialect::draft06, "http://json-schema.org/draft-06/schema#"},
    {handoff::schema_dialect::draft04, "http://json-schema.org/draft-04/schema#"},
};
static_assert(sizeof(dialect_uris) / sizeof(dialect_uris[0]) == handoff::schema_dialect_count,
              "every dialect handoff validates has its Bowtie URI");

/// Bounds on one request line: wide enough for a test case with the suite's whole registry,
/// narrow enough that a hostile line is refused before it is built.
constexpr handoff::parse_limits line_limits{std::size_t{64} * 1024 * 1024, 512, std::size_t{16} * 1024 * 1024,
                                            1'000'000, 10'000'000};

/// The dialect a URI names, the empty fragment ("...schema#") or none alike.
std::optional<handoff::schema_dialect> dialect_named(std::string_view uri) {
    const auto bare = [](std::string_view u) { return u.substr(0, u.find('#')); };
    for (const dialect_uri& d : dialect_uris) {
        if (bare(d.uri) == bare(uri)) {
            return d.dialect;
        }
    }
    return std::nullopt;
}

/// A field of /etc/os-release (ID, VERSION_ID), unquoted; empty when there is none.
std::string os_release(std::string_view field) {
    std::ifstream in("/etc/os-release");
    std::string line;
    while (std::getline(in, line)) {
        if (line.size() > field.size() && line.compare(0, field.size(), field) == 0 && line[field.size()] == '=') {
            std::string value = line.substr(field.size() + 1);
            if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
                value = value.substr(1, value.size() - 2);
            }
            return value;
        }
    }
    return {};
}

json implementation_metadata() {
    json dialects = json::array();
    for (const dialect_uri& d : dialect_uris) {
        dialects.push_back(d.uri);
    }
    json out = {{"name", "handoff"},
                {"version", handoff::version_string},
                {"language", "c++"},
                {"language_version", std::to_string(__cplusplus)},
                {"dialects", dialects}};
    // Where handoff is published: given at build time (CMake's HANDOFF_BOWTIE_PROJECT_URL).
    const std::string_view url = HANDOFF_BOWTIE_PROJECT_URL;
    if (!url.empty()) {
        out["homepage"] = url;
        out["documentation"] = url;
        out["source"] = url;
        out["issues"] = std::string(url) + "/issues";
    }
    for (const auto& [key, field] : {std::pair{"os", "ID"}, std::pair{"os_version", "VERSION_ID"}}) {
        if (std::string value = os_release(field); !value.empty()) {
            out[key] = std::move(value);
        }
    }
    return out;
}

/// What the harness knows between requests.
struct session {
    bool started = false;
    std::optional<handoff::schema_dialect> implicit_dialect; // for schemas without `$schema`
};

/// The protocol's errored response, carrying the request's seq when it has one.
json errored(const json* seq, const std::string& message) {
    json out = {{"errored", true}, {"context", {{"message", message}}}};
    if (seq != nullptr) {
        out["seq"] = *seq;
    }
    return out;
}

json answer_start(const json& request, session& state) {
    const auto version = request.find("version");
    if (version == request.end() || *version != protocol_version) {
        return errored(nullptr, "handoff-bowtie speaks Bowtie's protocol version 1, not " +
                                    (version == request.end() ? std::string("none") : version->dump()));
    }
    state.started = true;
    return {{"version", protocol_version}, {"implementation", implementation_metadata()}};
}

json answer_dialect(const json& request, session& state) {
    const auto uri = request.find("dialect");
    if (uri == request.end() || !uri->is_string()) {
        return errored(nullptr, "a dialect request needs \"dialect\", a URI");
    }
    state.implicit_dialect = dialect_named(uri->get_ref<const std::string&>());
    return {{"ok", state.implicit_dialect.has_value()}};
}

/// The registry a case carries: URI -> schema, each registered as Bowtie sends it.
handoff::schema_registry registry_of(const json& test_case) {
    handoff::schema_registry registry;
    const auto documents = test_case.find("registry");
    if (documents != test_case.end() && !documents->is_null()) {
        if (!documents->is_object()) {
            throw std::invalid_argument("\"registry\" must be an object of URI -> schema");
        }
        for (const auto& [uri, document] : documents->items()) {
            registry.add(uri, document);
        }
    }
    return registry;
}

/// The results of a case's tests, each {"valid": ...}, or a per-test error for a malformed test.
json results_of(const handoff::compiled_schema& schema, const json& tests) {
    json results = json::array();
    for (const json& test : tests) {
        const auto instance = test.is_object() ? test.find("instance") : test.end();
        if (!test.is_object() || instance == test.end()) {
            results.push_back(errored(nullptr, "a test needs \"instance\""));
        } else {
            results.push_back({{"valid", schema.accepts(*instance)}});
        }
    }
    return results;
}

json answer_run(const json& request, const session& state) {
    const auto seq_at = request.find("seq");
    const json* seq = seq_at == request.end() ? nullptr : &*seq_at;
    const auto test_case = request.find("case");
    if (seq == nullptr || test_case == request.end() || !test_case->is_object() || !test_case->contains("schema") ||
        !test_case->contains("tests") || !(*test_case)["tests"].is_array()) {
        return errored(seq, "a run request needs \"seq\" and a \"case\" with \"schema\" and \"tests\" (an array)");
    }
    const json& tests = (*test_case)["tests"];
    const auto output = request.find("output");
    if (output != request.end() && *output == "annotations") {
        const json skip = {{"skipped", true}, {"message", "handoff reports validity, not annotations"}};
        return {{"seq", *seq}, {"results", json::array_t(tests.size(), skip)}};
    }
    try {
        const handoff::schema_registry registry = registry_of(*test_case);
        handoff::schema_options options;
        options.dialect = state.implicit_dialect;
        // A reply's strings are bounded before a pattern reads them; the suite's and Bowtie's
        // benchmark strings are not, and the pattern engine is linear in the string.
        options.max_pattern_subject = std::numeric_limits<decltype(options.max_pattern_subject)>::max();
        const auto schema = handoff::compiled_schema::from_json((*test_case)["schema"], registry, options);
        return {{"seq", *seq}, {"results", results_of(schema, tests)}};
    } catch (const handoff::schema_error& e) {
        return errored(seq, e.what());
    } catch (const std::exception& e) {
        return errored(seq, std::string("handoff-bowtie: ") + e.what());
    }
}

/// The top-level "seq" of a line the request reader refused (nesting, a size or a lone surrogate
/// past what it reads): Bowtie files an errored response under its seq, and has no case for one
/// without. Found by a scan that follows only strings and brackets; nullopt when there is none,
/// more than one, or its value does not read as JSON alone (or nests past a few levels).
std::optional<json> seq_of_unread(std::string_view line) {
    constexpr int max_seq_depth = 16;
    int depth = 0;
    std::string_view last_string; // the last string closed in the top-level object
    std::size_t value_start = 0;
    int value_depth = -1; // while a "seq" value is read: the deepest nesting in it
    std::optional<std::string_view> found;
    bool repeated = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (c == '"') {
            const std::size_t start = ++i;
            while (i < line.size() && line[i] != '"') {
                i += line[i] == '\\' ? 2 : 1;
            }
            last_string = line.substr(start, std::min(i, line.size()) - start);
        } else if (c == '{' || c == '[') {
            ++depth;
            value_depth = value_depth >= 0 ? std::max(value_depth, depth - 1) : value_depth;
        } else if (depth == 1 && c == ':' && last_string == "seq") {
            value_start = i + 1;
            value_depth = 0;
        } else if (depth == 1 && (c == ',' || c == '}') && value_depth >= 0) {
            repeated = repeated || found.has_value();
            found = value_depth <= max_seq_depth ? std::optional(line.substr(value_start, i - value_start))
                                                 : std::optional<std::string_view>(std::string_view{});
            value_depth = -1;
        }
        if (c == '}' || c == ']') {
            --depth;
        }
    }
    if (!found || repeated) {
        return std::nullopt;
    }
    json seq = json::parse(*found, nullptr, false);
    return seq.is_discarded() ? std::nullopt : std::optional<json>(std::move(seq));
}

/// The response to one line, or nothing for `stop` (then `stop` is set).
std::optional<json> answer(std::string_view line, session& state, bool& stop) {
    // Read as a reply is read (bounded, strict, no repeated key), but for a test's instance that
    // is an integer beyond 64 bits (the suite's optional bignum cases), kept as the nearest
    // double as every JSON reader without big numbers keeps it, where a reply's is refused.
    handoff::decode_options options;
    options.strict = true;
    options.limits = line_limits;
    handoff::decode_result located;
    const std::optional<std::string_view> text = handoff::detail::locate_json(line, options, located);
    if (!text) {
        const std::optional<json> seq = seq_of_unread(line);
        return errored(seq ? &*seq : nullptr, "not a JSON request: " + located.problems.front().message);
    }
    handoff::detail::json_builder builder = handoff::detail::json_builder::for_data(line_limits);
    if (const auto failure = handoff::detail::read_json(*text, builder)) {
        const std::optional<json> seq = seq_of_unread(*text);
        return errored(seq ? &*seq : nullptr, "not a JSON request: " + failure->message);
    }
    const json request = builder.take_value();
    const auto cmd = request.is_object() ? request.find("cmd") : request.end();
    if (cmd == request.end() || !cmd->is_string()) {
        return errored(nullptr, "a request is an object with \"cmd\"");
    }
    const std::string& name = cmd->get_ref<const std::string&>();
    if (name == "start") {
        return answer_start(request, state);
    }
    const auto seq_at = request.find("seq");
    const json* seq = seq_at == request.end() ? nullptr : &*seq_at;
    if (!state.started) {
        return errored(seq, "\"" + name + "\" before \"start\"");
    }
    if (name == "dialect") {
        return answer_dialect(request, state);
    }
    if (name == "run") {
        return answer_run(request, state);
    }
    if (name == "stop") {
        stop = true;
        return std::nullopt;
    }
    return errored(seq, "no command \"" + name + "\" in Bowtie's protocol version 1");
}

} // namespace

int main() {
    std::ios::sync_with_stdio(false);
    session state;
    std::string line;
    bool stop = false;
    while (!stop && std::getline(std::cin, line)) {
        std::optional<json> response;
        try {
            response = answer(line, state, stop);
        } catch (const std::exception& e) { // out of memory, or a bug: still one answer per line
            response = errored(nullptr, std::string("handoff-bowtie: ") + e.what());
        }
        if (response) {
            // Replace, not throw on, bytes that are not UTF-8 (a message may quote the input).
            std::cout << response->dump(-1, ' ', false, json::error_handler_t::replace) << '\n' << std::flush;
        }
    }
    return 0;
}
