// SPDX-License-Identifier: MIT
// The fuzz_stream harness (built into fuzz_harnesses.cpp's binary): the streaming check against
// receive on the same text, under four receivers (the worked example's task schema, tolerant
// and strict; a 2020-12 schema of the later dialects' keywords; one whose items refer to $defs).
// The first byte of an input chooses how the rest is cut into chunks; the rest is the reply.
//
// It aborts on a broken promise: a final receipt that differs from receive's, a doomed prefix
// that an extension tried here makes pass steps 1 to 3, or a verdict of a step the whole text
// passes. tests/test_stream_check.cpp runs disagreement() itself on every fixture.

#pragma once

#include "fuzz/fuzz_common.hpp"

#include <handoff/receipt_json.hpp>
#include <handoff/receiver.hpp>
#include <handoff/stream_check.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // uint8_t, uint32_t
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

// Each harness is included once, into the binary or a test: internal linkage.
namespace handoff_fuzz::stream {
namespace {

/// Whether a receipt reports a problem of steps 1 to 3: what a doomed reply always gets.
template <class Receipt>
bool fails_steps_1_to_3(const Receipt& r) {
    for (const handoff::problem& p : r.problems) {
        if (p.step == handoff::step::parse || p.step == handoff::step::envelope_schema ||
            p.step == handoff::step::task_schema) {
            return true;
        }
    }
    return false;
}

/// What completes a number or a literal cut at the end of `prefix` (outside a string).
std::string finish_token(std::string_view prefix, bool in_string) {
    const std::size_t from = prefix.find_last_not_of("0123456789+-.eEtrufalsn");
    const std::string_view tail =
        in_string ? std::string_view{} : prefix.substr(from == std::string_view::npos ? 0 : from + 1);
    if (tail.empty()) {
        return {};
    }
    for (const std::string_view w : {std::string_view("true"), std::string_view("false"), std::string_view("null")}) {
        if (tail.size() < w.size() && w.substr(0, tail.size()) == tail) {
            return std::string(w.substr(tail.size()));
        }
    }
    const char end = tail.back();
    return end == '-' || end == '+' || end == '.' || end == 'e' || end == 'E' ? "0" : "";
}

/// A suffix that makes `prefix` syntactically complete where it can: closes an open string
/// (finishing an escape), a number or literal cut short, a key without its value, then every
/// open container.
std::string closing(std::string_view prefix) {
    std::vector<char> open;
    bool in_string = false;
    bool escape = false;
    int hex_left = 0;
    char last = 0; // the last structural byte outside strings
    for (const char c : prefix) {
        if (in_string) {
            if (hex_left > 0) {
                --hex_left;
            } else if (escape) {
                escape = false;
                hex_left = c == 'u' ? 4 : 0;
            } else if (c == '\\') {
                escape = true;
            } else if (c == '"') {
                in_string = false;
                last = '"';
            }
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            open.push_back(c == '{' ? '}' : ']');
        } else if ((c == '}' || c == ']') && !open.empty()) {
            open.pop_back();
        }
        if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
            last = c;
        }
    }
    std::string out;
    if (in_string) {
        out += escape ? "n" : "";
        out.append(static_cast<std::size_t>(hex_left), '0');
        out += '"';
        last = '"';
    }
    out += finish_token(prefix, in_string);
    if (last == ':' || last == ',' || last == '[') {
        out += last == ',' && !open.empty() && open.back() == '}' ? "\"\":null" : "null";
    }
    for (auto it = open.rbegin(); it != open.rend(); ++it) {
        out += *it;
    }
    return out;
}

/// Pushes `text` in chunks whose sizes follow `seed` (1 to 16 bytes; seed 0: one byte each).
template <class Task>
void push_chunked(handoff::stream_check<Task>& check, std::string_view text, std::uint8_t seed) {
    std::uint32_t state = seed;
    for (std::size_t at = 0; at < text.size();) {
        state = state * 1103515245U + 12345U;
        const std::size_t n = seed == 0 ? 1 : 1 + (state >> 16U) % 16U;
        check.push(text.substr(at, n));
        at += n;
    }
}

/// Empty when the streaming check keeps its promises on `text`, else what it broke.
template <class Task>
std::string disagreement(const handoff::receiver<Task>& checker, std::string_view text, std::uint8_t seed) {
    handoff::stream_check<Task> check(checker);
    push_chunked(check, text, seed);
    const auto whole = checker.receive(text);
    if (handoff::to_json(check.finish()) != handoff::to_json(whole)) {
        return "the final receipt differs from receive's";
    }
    if (!check.doomed()) {
        return {};
    }
    const handoff::stream_verdict& verdict = *check.doomed();
    if (verdict.offset >= text.size()) {
        return "the verdict's offset is past the text";
    }
    const std::string_view prefix = text.substr(0, verdict.offset + 1);
    const std::string extensions[] = {std::string(text), std::string(prefix), std::string(prefix) + closing(prefix),
                                      std::string(prefix) + closing(prefix) + "\n```\n"};
    for (const std::string& extended : extensions) {
        if (!fails_steps_1_to_3(checker.receive(extended))) {
            return "doomed at " + std::to_string(verdict.offset) + " (" + verdict.what.code +
                   ") but this extension passes steps 1 to 3: " + extended;
        }
    }
    // The verdict names a step the whole text fails at, or an earlier one.
    const std::string& code = verdict.what.code;
    const bool parse_failed = whole.failed_step == handoff::step::parse;
    const bool envelope_failed = parse_failed || whole.failed_step == handoff::step::envelope_schema;
    if ((code.rfind("parse.", 0) == 0 && !parse_failed) || (code.rfind("envelope.", 0) == 0 && !envelope_failed)) {
        return "the verdict " + code + " names a step the whole text passes";
    }
    return {};
}

const handoff::receiver<>& records_receiver() {
    static const handoff::receiver<> r(fixture_schema("product_records.schema.json"));
    return r;
}

const handoff::receiver<>& strict_receiver() {
    static const handoff::receiver<> r = [] {
        handoff::receiver_options o;
        o.strict = true;
        return handoff::receiver<>(fixture_schema("product_records.schema.json"), o);
    }();
    return r;
}

/// Later dialects' keywords (unevaluated*, prefixItems, $dynamicRef, $ref beside others).
const handoff::receiver<>& dialect_2020_receiver() {
    static const handoff::receiver<> r(fixture_schema("dialect_2020.schema.json"));
    return r;
}

/// Items and members that refer to $defs, judged in place as they close.
const handoff::receiver<>& referenced_receiver() {
    static const handoff::receiver<> r(fixture_schema("referenced_records.schema.json"));
    return r;
}

[[maybe_unused]] int one_input(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
    for (const handoff::receiver<>* r :
         {&records_receiver(), &strict_receiver(), &dialect_2020_receiver(), &referenced_receiver()}) {
        const std::string why = disagreement(*r, text, data[0]);
        if (!why.empty()) {
            broken("stream agrees with receive", why);
        }
    }
    return 0;
}

} // namespace
} // namespace handoff_fuzz::stream
