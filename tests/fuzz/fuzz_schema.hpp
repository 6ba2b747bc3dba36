// SPDX-License-Identifier: MIT
// The fuzz_schema harness (built into fuzz_harnesses.cpp's binary): an input is a task schema
// as a user might hand one over, and every reader of schemas gets it. The input's length
// chooses the dialect a schema without `$schema` is read in, and whether formats assert.
//
// It aborts on a broken promise:
// - compiling throws anything but schema_error;
// - a compiled schema's accepts() and validate() disagree on a value (the schema itself among
//   them, so that the values follow the schema's own shape);
// - lint, the worker prompt or fixtures disagree with the compiler on whether the schema
//   compiles (lint says lint.does_not_compile, the others throw schema_error with the
//   compiler's message, exactly when compiling throws), or throw anything else;
// - a fixture made for the schema does not route as its manifest says, or one streamed in
//   chunks breaks fuzz_stream's promises (receive's receipt; no verdict an extension passes),
//   for a schema that asks for at most 64 items or keys anywhere;
// - provider_schema throws for any target (reading the schema in the chosen dialect).
// A crash, a sanitizer report or a hang (libFuzzer's -timeout) is a finding too.

#pragma once

#include "fuzz/fuzz_common.hpp"
#include "fuzz/fuzz_stream.hpp"

#include <handoff/fixtures.hpp>
#include <handoff/lint.hpp>
#include <handoff/provider_schema.hpp>
#include <handoff/receiver.hpp>
#include <handoff/schema.hpp>
#include <handoff/schema_error.hpp>
#include <handoff/worker_prompt.hpp>

#include <nlohmann/json.hpp>

#include <algorithm> // any_of
#include <array>     // array
#include <cstddef>   // size_t
#include <cstdint>   // uint8_t
#include <exception> // exception
#include <optional>  // optional
#include <string>    // string

// Each harness is included once, into the binary or a test: internal linkage.
namespace handoff_fuzz::schema {
namespace {

/// Fixtures of one schema streamed (the first ones: the accepted result, then the routes), and
/// the longest streamed: a schema of thousands of required items makes replies too long to
/// stream in small chunks within the run's per-input timeout under the sanitizers.
constexpr std::size_t max_streamed_fixtures = 8;
constexpr std::size_t max_streamed_bytes = 16384;

/// Fixtures are made only for schemas that ask for at most this many items or keys anywhere
/// (minItems, minProperties, minContains): a valid result of thousands of unique items, received
/// once per fixture, takes longer than the run's per-input timeout under the sanitizers.
/// tests/test_testing.cpp makes such fixtures.
constexpr double max_fixture_count = 64;

/// Whether `schema` asks somewhere for more than max_fixture_count items or keys, or nests past
/// lint's depth bound (where the walk stops looking).
bool asks_for_many(const nlohmann::json& schema, std::size_t depth = 0) {
    if (depth > handoff::lint_options{}.limits.max_depth) {
        return true;
    }
    const auto many = [&](const nlohmann::json& v) { return asks_for_many(v, depth + 1); };
    if (schema.is_array()) {
        return std::any_of(schema.begin(), schema.end(), many);
    }
    if (!schema.is_object()) {
        return false;
    }
    for (const auto& member : schema.items()) {
        const bool count =
            member.key() == "minItems" || member.key() == "minProperties" || member.key() == "minContains";
        if ((count && member.value().is_number() && member.value().get<double>() > max_fixture_count) ||
            many(member.value())) {
            return true;
        }
    }
    return false;
}

/// Values every compiled schema is asked about, of every JSON type.
const std::array<nlohmann::json, 14>& probe_values() {
    static const std::array<nlohmann::json, 14> values{
        nlohmann::json(nullptr),
        nlohmann::json(true),
        nlohmann::json(0),
        nlohmann::json(-1),
        nlohmann::json(2.5),
        nlohmann::json(""),
        nlohmann::json("abc"),
        nlohmann::json("user@example.com"),
        nlohmann::json::array(),
        nlohmann::json::parse(R"([1, "a", null, [], {}])"),
        nlohmann::json::object(),
        nlohmann::json::parse(R"({"a": 1})"),
        nlohmann::json::parse(R"({"a": {"b": [1, 2]}, "c": "d"})"),
        nlohmann::json::parse(R"({"id": "x", "items": [{"name": "n", "price": 1.5}]})"),
    };
    return values;
}

/// The options the input's length chooses: a dialect (or none: the schema's keywords decide)
/// and whether formats assert.
handoff::schema_options chosen_options(std::size_t size) {
    static constexpr std::array<std::optional<handoff::schema_dialect>, 6> dialects{
        std::nullopt,
        handoff::schema_dialect::draft04,
        handoff::schema_dialect::draft06,
        handoff::schema_dialect::draft07,
        handoff::schema_dialect::draft2019_09,
        handoff::schema_dialect::draft2020_12,
    };
    handoff::schema_options options;
    options.dialect = dialects[size % dialects.size()];
    options.assert_formats = (size / dialects.size()) % 2 == 1;
    return options;
}

/// accepts() and validate() give the same verdict on `value`.
void same_verdict(const handoff::compiled_schema& compiled, const nlohmann::json& value) {
    const bool accepted = compiled.accepts(value);
    const bool valid = compiled.validate(value, "", handoff::step::task_schema).empty();
    if (accepted != valid) {
        broken("accepts and validate agree", value.dump() + (accepted ? " accepted, " : " refused, ") +
                                                 (valid ? "no problem listed" : "problems listed"));
    }
}

/// Compiles `schema`: nullopt with the message when it throws schema_error.
std::optional<handoff::compiled_schema> compile(const nlohmann::json& schema, const handoff::schema_options& options,
                                                std::string& refusal) {
    try {
        return handoff::compiled_schema::from_json(schema, options);
    } catch (const handoff::schema_error& e) {
        refusal = e.what();
    } catch (const std::exception& e) {
        broken("compiling throws only schema_error", e.what());
    }
    return std::nullopt;
}

void lint_agrees(const nlohmann::json& schema, const handoff::schema_options& options, bool compiles) {
    handoff::lint_options lint;
    lint.schema = options;
    try {
        const handoff::lint_findings findings = handoff::lint_schema(schema, lint);
        const auto has = [&](handoff::lint_rule rule) {
            return std::any_of(findings.begin(), findings.end(),
                               [&](const handoff::lint_finding& f) { return f.rule == rule; });
        };
        // Nesting past lint's depth bound is said instead of walked: nothing more is concluded.
        if (!has(handoff::lint_rule::too_deep) && has(handoff::lint_rule::does_not_compile) == compiles) {
            broken("lint.does_not_compile exactly when compiling fails", schema.dump());
        }
    } catch (const std::exception& e) {
        broken("lint never throws", e.what());
    }
}

/// `make` throws schema_error exactly when compiling does, with the compiler's message
/// (`refusal`), and nothing else.
template <class Make>
void refuses_alike(const char* reader, bool compiles, const std::string& refusal, Make&& make) {
    try {
        make();
        if (!compiles) {
            broken("refuses what the compiler refuses", reader);
        }
    } catch (const handoff::schema_error& e) {
        if (compiles) {
            broken("accepts what the compiler accepts", std::string(reader) + ": " + e.what());
        }
        if (refusal != e.what()) {
            broken("refuses with the compiler's message", std::string(reader) + ": " + e.what() + " / " + refusal);
        }
    } catch (const std::exception& e) {
        broken("throws only schema_error", std::string(reader) + ": " + e.what());
    }
}

/// The fixtures of a schema that compiles route as their manifest says (make_fixtures checks
/// that itself, and says a bug is one), and each reply streamed in chunks gets receive's receipt
/// and no verdict that an extension passes (fuzz_stream's promises, with this task schema).
void streams_agree(const handoff::fixture_set& set, const handoff::compiled_schema& compiled,
                   const handoff::receiver_options& receiving) {
    if (set.error && set.error->find("a bug in handoff") != std::string::npos) {
        broken("fixtures route as their manifest says", *set.error);
    }
    const handoff::receiver<> checker(compiled, receiving); // compiled once, with receiving.schema
    std::size_t streamed = 0;
    for (const handoff::fixture_file& f : set.files) {
        if (streamed == max_streamed_fixtures) {
            return;
        }
        if (f.text.size() > max_streamed_bytes) {
            continue;
        }
        ++streamed;
        const std::string why = stream::disagreement(checker, f.text, static_cast<std::uint8_t>(f.text.size() % 17));
        if (!why.empty()) {
            broken("stream agrees with receive", f.entry.file + ": " + why);
        }
    }
}

void providers_never_throw(const nlohmann::json& schema, const handoff::schema_options& options) {
    handoff::provider_schema_options read_as;
    read_as.schema = options;
    for (const handoff::provider target : handoff::all_providers) {
        try {
            const handoff::provider_schema_result result = handoff::provider_schema(target, &schema, read_as);
            static_cast<void>(result.within_limits());
        } catch (const std::exception& e) {
            broken("provider_schema never throws", e.what());
        }
    }
}

int one_input(const std::uint8_t* data, std::size_t size) {
    const nlohmann::json schema = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
    if (schema.is_discarded()) {
        return -1; // not JSON: not kept in the corpus
    }
    const handoff::schema_options options = chosen_options(size);
    std::string refusal;
    const std::optional<handoff::compiled_schema> compiled = compile(schema, options, refusal);
    if (compiled) {
        for (const nlohmann::json& value : probe_values()) {
            same_verdict(*compiled, value);
        }
        same_verdict(*compiled, schema);
    }
    lint_agrees(schema, options, compiled.has_value());
    handoff::worker_prompt_options prompt;
    prompt.schema = options;
    refuses_alike("worker_prompt", compiled.has_value(), refusal,
                  [&] { static_cast<void>(handoff::worker_prompt(schema, prompt)); });
    if (!asks_for_many(schema)) {
        handoff::fixture_options fixtures;
        fixtures.receiving.schema = options;
        // Nested counts multiply (64 items of 64 items of 48): results past these are refused,
        // as any receiver with these limits refuses them, before they are received many times.
        fixtures.receiving.limits.max_values = 4096;
        fixtures.receiving.limits.max_bytes = std::size_t{64} * 1024;
        refuses_alike("make_fixtures", compiled.has_value(), refusal, [&] {
            const handoff::fixture_set set = handoff::make_fixtures(schema, fixtures);
            if (compiled) { // (otherwise refuses_alike reports the set made)
                streams_agree(set, *compiled, fixtures.receiving);
            }
        });
    }
    providers_never_throw(schema, options);
    return 0;
}

} // namespace
} // namespace handoff_fuzz::schema
