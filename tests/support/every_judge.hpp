// SPDX-License-Identifier: MIT
#pragma once

// Every way handoff judges a task value, held to one verdict: the compiled schema's two modes
// and, for an object (partial_result is one), receive and the streaming check on a valid ok
// envelope around it.

#include "fuzz/fuzz_stream.hpp"
#include "support/fixtures.hpp"

#include <handoff/receiver.hpp>
#include <handoff/schema.hpp>

#include <nlohmann/json.hpp>

#include <cstdint> // uint8_t
#include <string>  // string

namespace handoff_test {

/// How `schema` judges `data` against the verdict `expected`: empty when every way agrees with
/// it, else the ways that did not. The stream is fed a byte at a time and in random chunks; it
/// must never be doomed unless receive fails the envelope, and must finish in receive's receipt.
inline std::string judged_wrongly(const handoff::compiled_schema& schema, const nlohmann::json& data, bool expected) {
    std::string wrong;
    wrong += schema.accepts(data) != expected ? " accepts" : "";
    wrong += schema.validate(data, "", handoff::step::task_schema).empty() != expected ? " validate" : "";
    if (!data.is_object()) {
        return wrong;
    }
    const handoff::receiver<> check(schema);
    const std::string text = envelope_around(data);
    wrong += check.receive(text).accepted() != expected ? " receive" : "";
    for (const std::uint8_t seed : {std::uint8_t{0}, std::uint8_t{5}}) {
        const std::string broke = handoff_fuzz::stream::disagreement(check, text, seed);
        wrong += broke.empty() ? "" : " stream (" + broke + ")";
    }
    return wrong;
}

} // namespace handoff_test
