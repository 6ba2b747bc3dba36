// SPDX-License-Identifier: MIT
// The fuzz_receive harness (built into fuzz_harnesses.cpp's binary): step 1 and the whole
// receipt check, tolerant and strict, with a task schema that exercises every regex path, and
// with a 2020-12 task schema that reaches the later dialects' keywords (unevaluated*, tuples,
// $dynamicRef).
//
// Besides crashes and sanitizer reports, it aborts on a broken promise: a receipt that cannot
// be written as JSON, a message that is unsafe to log, an ACCEPT without a result, a decode
// that disagrees with itself across modes or does not survive a round trip.

#pragma once

#include "fuzz/fuzz_common.hpp"

#include <handoff/handoff.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <string>      // string
#include <string_view> // string_view

// Each harness is included once, into the binary: internal linkage, like a .cpp file's.
namespace handoff_fuzz::receive {
namespace {

nlohmann::json task_schema() { return fixture_schema("patterned_items.schema.json"); }

handoff::receiver_options strict_options() {
    handoff::receiver_options o;
    o.strict = true;
    return o;
}

/// A message must be valid UTF-8 with no control character, separator or bidi control.
void check_message(const std::string& message) {
    if (message.size() > 4096) {
        broken("message capped", std::to_string(message.size()) + " bytes");
    }
    for (std::size_t i = 0; i < message.size();) {
        const std::size_t n = handoff::detail::utf8_sequence_length(std::string_view(message).substr(i));
        if (n == 0) {
            broken("message is UTF-8", message);
        }
        const auto b = static_cast<unsigned char>(message[i]);
        if ((n == 1 && (b < 0x20U || b == 0x7FU)) ||
            (n > 1 && handoff::detail::escaped_code_point(std::string_view(message).substr(i, n)) != 0)) {
            broken("message escaped", message);
        }
        i += n;
    }
}

template <class Receipt>
void check_receipt(const Receipt& r) {
    std::string dumped;
    try {
        dumped = handoff::to_json(r).dump();
    } catch (const std::exception& e) {
        broken("receipt serialises", e.what());
    }
    for (const auto& p : r.problems) {
        check_message(p.message);
    }
    if (r.route == handoff::route::accept) {
        if (!r.envelope || !r.envelope->partial_result || !r.problems.empty() || !r.schema_ok) {
            broken("ACCEPT carries a clean, validated result", dumped);
        }
    } else if (r.route == handoff::route::repair) {
        if (r.problems.empty()) {
            broken("REPAIR says why", dumped);
        }
    } else if (!r.decision) {
        broken("a routed envelope carries its decision", dumped);
    }
}

void check_decode(const handoff::decode_result& d) {
    if (d.ok() != d.problems.empty()) {
        broken("decode: a value xor problems", std::to_string(d.problems.size()));
    }
    for (const auto& p : d.problems) {
        check_message(p.message);
    }
}

int one_input(const std::uint8_t* data, std::size_t size) {
    static const handoff::receiver<> tolerant(task_schema());
    static const handoff::receiver<> strict(task_schema(), strict_options());
    static const handoff::receiver<> plain;
    static const handoff::receiver<> dialect_2020(fixture_schema("dialect_2020.schema.json"));

    const std::string_view text(reinterpret_cast<const char*>(data), size);

    handoff::decode_options strict_decode;
    strict_decode.strict = true;
    const handoff::decode_result s = handoff::decode(text, strict_decode);
    const handoff::decode_result t = handoff::decode(text);
    check_decode(s);
    check_decode(t);
    // A text that is exactly one JSON object decodes to the same value in both modes.
    if (s.ok() && s.value->is_object() && (!t.ok() || *t.value != *s.value)) {
        broken("tolerant agrees with strict on a plain object", std::string(text.substr(0, 200)));
    }
    // What decodes survives a round trip: nothing was silently altered or dropped.
    if (s.ok()) {
        const std::string again = s.value->dump();
        if (again.size() < strict_decode.limits.max_bytes / 2) {
            const handoff::decode_result round = handoff::decode(again, strict_decode);
            if (!round.ok() || *round.value != *s.value) {
                broken("round trip", again.substr(0, 200));
            }
        }
    }

    check_receipt(tolerant.receive(text));
    check_receipt(strict.receive(text));
    check_receipt(plain.receive(text));
    check_receipt(dialect_2020.receive(text));
    return 0;
}

} // namespace
} // namespace handoff_fuzz::receive
