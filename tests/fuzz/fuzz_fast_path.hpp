// SPDX-License-Identifier: MIT
// The fuzz_fast_path harness (built into fuzz_harnesses.cpp's binary): the receiver's fast path
// may give way at any doubt, but:
//
// - whatever fast_json accepts, decode() (strict) accepts, with the same value and types;
// - whatever envelope_reader accepts, decode() + envelope_checker accept, with an equal
//   envelope;
// - compiled_schema's boolean mode (accepts) and its collecting mode (validate) agree on every
//   value, and agree with valijson wherever valijson reads the value right (no integer above
//   INT64_MAX, no 1.0 as an integer, no NUL in a string).

#pragma once

#include "fuzz/fuzz_common.hpp"

#include <handoff/detail/envelope/check.hpp>
#include <handoff/detail/envelope/reader.hpp>
#include <handoff/detail/json/fast_reader.hpp>
#include <handoff/handoff.hpp>

#include "support/valijson.hpp"

#include <nlohmann/json.hpp>

#include <cmath>       // floor
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

// Each harness is included once, into the binary: internal linkage, like a .cpp file's.
namespace handoff_fuzz::fast_path {
namespace {

using nlohmann::json;

bool same(const json& a, const json& b) {
    if (a.type() != b.type()) {
        return false;
    }
    if (a.is_object() || a.is_array()) {
        if (a.size() != b.size()) {
            return false;
        }
        for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
            if ((a.is_object() && ia.key() != ib.key()) || !same(*ia, *ib)) {
                return false;
            }
        }
        return true;
    }
    return a == b && a.dump() == b.dump();
}

/// One task schema, compiled by handoff and by valijson (the oracle).
struct task_schema {
    task_schema(const json& document, bool oracle_safe)
        : handoff(handoff::compiled_schema::from_json(document)), compare_with_oracle(oracle_safe) {
        valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
        const valijson::adapters::NlohmannJsonAdapter adapter(document);
        parser.populateSchema(adapter, oracle);
    }
    handoff::compiled_schema handoff;
    valijson::Schema oracle;
    bool compare_with_oracle; // false where valijson's std::regex backtracks exponentially
};

/// valijson's Schema cannot be copied or moved: each lives where it is built.
std::vector<const task_schema*> task_schemas() {
    static const task_schema records(fixture_schema("product_records.schema.json"), true);
    static const task_schema patterned(fixture_schema("patterned_items.schema.json"), false);
    return {&records, &patterned};
}

/// Whether valijson 1.0 reads `v` as JSON says: it wraps integers above INT64_MAX, calls 1.0
/// a non-integer, stops strings at a NUL, and its std::regex recurses per character.
bool oracle_reads_right(const json& v) {
    switch (v.type()) {
    case json::value_t::number_unsigned: return v.get<std::uint64_t>() <= 9223372036854775807ULL;
    case json::value_t::number_float: return std::floor(v.get<double>()) != v.get<double>();
    case json::value_t::string:
        return v.get_ref<const std::string&>().find('\0') == std::string::npos &&
               v.get_ref<const std::string&>().size() < 256;
    case json::value_t::array:
    case json::value_t::object:
        for (const auto& item : v) {
            if (!oracle_reads_right(item)) {
                return false;
            }
        }
        for (auto it = v.begin(); v.is_object() && it != v.end(); ++it) {
            if (it.key().find('\0') != std::string::npos || it.key().size() >= 256) {
                return false;
            }
        }
        return true;
    default: return true;
    }
}

void check_task_schema(const json& value) {
    const bool oracle_usable = oracle_reads_right(value);
    for (const task_schema* schema : task_schemas()) {
        const task_schema& s = *schema;
        const bool fast = s.handoff.accepts(value);
        const auto problems = s.handoff.validate(value, "/partial_result", handoff::step::task_schema);
        if (fast != problems.empty()) {
            broken("the two modes agree", value.dump().substr(0, 200));
        }
        if (oracle_usable && s.compare_with_oracle) {
            thread_local valijson::Validator validator;
            const valijson::adapters::NlohmannJsonAdapter target(value);
            if (validator.validate(s.oracle, target, nullptr) != fast) {
                broken("compiled_schema agrees with valijson", value.dump().substr(0, 200));
            }
        }
    }
}

bool same_hint(const std::optional<handoff::retry_hint_info>& a, const std::optional<handoff::retry_hint_info>& b) {
    return a.has_value() == b.has_value() &&
           (!a || (a->suggested_action == b->suggested_action && a->suggested_scope == b->suggested_scope &&
                   a->budget_multiplier == b->budget_multiplier && a->notes == b->notes));
}

bool same_trace(const std::optional<handoff::trace_info>& a, const std::optional<handoff::trace_info>& b) {
    return a.has_value() == b.has_value() &&
           (!a || (a->trace_id == b->trace_id && a->span_id == b->span_id && a->parent_span_id == b->parent_span_id));
}

bool same_budget(const std::optional<handoff::budget_info>& a, const std::optional<handoff::budget_info>& b) {
    return a.has_value() == b.has_value() &&
           (!a || (a->tokens_used == b->tokens_used && a->token_cap == b->token_cap && a->elapsed_ms == b->elapsed_ms &&
                   a->time_cap_ms == b->time_cap_ms && a->tool_calls == b->tool_calls &&
                   a->tool_call_cap == b->tool_call_cap));
}

int one_input(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    // A third of the inputs meet tight limits, so that inputs of fuzzing size reach every
    // limit (the defaults need a 64 KiB string or 10,000 items). max_bytes stays: the receiver
    // checks it before either path reads a byte.
    handoff::parse_limits limits{};
    if (size % 3 == 0) {
        limits.max_depth = 4;
        limits.max_string_bytes = 24;
        limits.max_container_items = 6;
        limits.max_values = 40;
    }
    handoff::decode_options strict;
    strict.strict = true;
    strict.limits = limits;
    // The oracle of both fast readers, and the values the task schema is tried on.
    const handoff::decode_result decoded = handoff::decode(text, strict);

    handoff::detail::fast_json in(text, limits);
    json fast_value;
    if (in.read_value(fast_value) && in.finish()) {
        if (!decoded.ok()) {
            broken("fast_json accepts only what decode accepts", decoded.problems.front().message);
        }
        if (!same(fast_value, *decoded.value)) {
            broken("fast_json reads what decode reads", fast_value.dump() + " vs " + decoded.value->dump());
        }
    }

    if (const auto env = handoff::detail::read_envelope(text, limits)) {
        if (!decoded.ok()) {
            broken("envelope_reader accepts only what decode accepts", decoded.problems.front().message);
        }
        handoff::problem_list problems;
        const auto checked = handoff::detail::envelope_checker(problems).check(*decoded.value);
        if (!checked) {
            broken("envelope_reader accepts only what envelope_checker accepts", problems.front().message);
        }
        const bool equal =
            env->status == checked->status && env->reason_code == checked->reason_code &&
            env->partial_result.has_value() == checked->partial_result.has_value() &&
            (!env->partial_result || same(*env->partial_result, *checked->partial_result)) &&
            env->schema_ok == checked->schema_ok && env->coverage.items_expected == checked->coverage.items_expected &&
            env->coverage.items_completed == checked->coverage.items_completed &&
            env->coverage.unit == checked->coverage.unit && env->coverage.fraction == checked->coverage.fraction &&
            env->steps.completed == checked->steps.completed && env->steps.remaining == checked->steps.remaining &&
            same_hint(env->retry_hint, checked->retry_hint) && same_trace(env->trace, checked->trace) &&
            same_budget(env->budget, checked->budget);
        if (!equal) {
            broken("envelope_reader reads the envelope envelope_checker reads", std::string(text.substr(0, 200)));
        }
    }

    // The task schema: on any JSON value the fuzzer makes, and on its partial_result.
    if (decoded.ok()) {
        check_task_schema(*decoded.value);
        if (decoded.value->is_object() && decoded.value->contains("partial_result")) {
            check_task_schema(decoded.value->at("partial_result"));
        }
    }
    return 0;
}

} // namespace
} // namespace handoff_fuzz::fast_path
