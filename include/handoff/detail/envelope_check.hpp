// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/text.hpp>
#include <handoff/envelope.hpp>
#include <handoff/problem.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>          // size_t
#include <cstdint>          // uint64_t
#include <initializer_list> // initializer_list
#include <optional>         // optional
#include <string>           // string
#include <string_view>      // string_view

namespace handoff::detail {

/// Step 2 without a schema interpreter: the rules of schemas/envelope.schema.json written out,
/// so that each failure gets a message a model can act on and the typed envelope is filled in
/// the same pass. tests/test_envelope_schema.cpp proves it agrees with valijson on that file.
class envelope_checker {
public:
    using json = nlohmann::json;

    explicit envelope_checker(problem_list& problems) : problems_(problems) {}

    /// The typed envelope (partial_result kept as JSON), or nullopt when any rule failed.
    std::optional<envelope<json>> check(const json& doc) {
        if (!doc.is_object()) {
            fail("envelope.type", "", "the envelope must be a JSON object, got " + describe(doc));
            return std::nullopt;
        }
        envelope<json> env;
        unknown_fields(doc, "",
                       {"status", "reason_code", "partial_result", "schema_ok", "coverage", "steps", "retry_hint",
                        "trace", "budget"});

        const json* status = required(doc, "", "status");
        if (status != nullptr) {
            if (!status->is_string()) {
                type_mismatch("/status", "the string \"ok\" or \"capped\"", *status);
                status = nullptr; // unknown status: no reason_code rule applies
            } else if (*status == "ok") {
                env.status = handoff::status::ok;
            } else if (*status == "capped") {
                env.status = handoff::status::capped;
            } else {
                fail("envelope.enum", "/status",
                     quote_untrusted(status->get_ref<const std::string&>()) +
                         " is not a status: use \"ok\" or \"capped\"");
                status = nullptr;
            }
        }
        read_reason_code(doc, status, env);

        if (const json* partial = required(doc, "", "partial_result")) {
            if (partial->is_object()) {
                env.partial_result = *partial;
            } else if (!partial->is_null()) {
                type_mismatch("/partial_result", "the task object or null", *partial);
            }
        }
        if (const json* schema_ok = required(doc, "", "schema_ok")) {
            if (schema_ok->is_boolean()) {
                env.schema_ok = schema_ok->get<bool>();
            } else {
                type_mismatch("/schema_ok", "true or false", *schema_ok);
            }
        }
        if (const json* coverage = required(doc, "", "coverage")) {
            read_coverage(*coverage, env.coverage);
        }
        if (const json* steps = required(doc, "", "steps")) {
            read_steps(*steps, env.steps);
        }
        if (const auto it = doc.find("retry_hint"); it != doc.end()) {
            env.retry_hint = read_retry_hint(*it);
        }
        if (const auto it = doc.find("trace"); it != doc.end()) {
            env.trace = read_trace(*it);
        }
        if (const auto it = doc.find("budget"); it != doc.end()) {
            env.budget = read_budget(*it);
        }
        if (failed_) {
            return std::nullopt;
        }
        return env;
    }

private:
    void fail(const char* code, std::string pointer, const std::string& message) {
        failed_ = true;
        std::string text = message_pointer(pointer) + ": " + message; // a key may hold escapes
        problems_.push_back(problem{step::envelope_schema, code, std::move(pointer), std::move(text)});
    }

    static std::string child(const std::string& parent, std::string_view key) {
        std::string p = parent;
        append_pointer_token(p, key);
        return p;
    }

    static std::string describe(const json& v) {
        switch (v.type()) {
        case json::value_t::null: return "null";
        case json::value_t::boolean: return v.get<bool>() ? "true" : "false";
        case json::value_t::string: return "the string " + quote_untrusted(v.get_ref<const std::string&>());
        case json::value_t::number_integer:
        case json::value_t::number_unsigned: return "the integer " + v.dump();
        case json::value_t::number_float: return "the number " + v.dump();
        case json::value_t::object: return "an object";
        case json::value_t::array: return "an array";
        case json::value_t::binary:
        case json::value_t::discarded: return "a non-JSON value";
        }
        return "a value";
    }

    void type_mismatch(const std::string& pointer, const std::string& expected, const json& got) {
        fail("envelope.type", pointer, "expected " + expected + ", got " + describe(got));
    }

    const json* required(const json& obj, const std::string& parent, std::string_view key) {
        const auto it = obj.find(key);
        if (it == obj.end()) {
            fail("envelope.required", child(parent, key), "required field is missing");
            return nullptr;
        }
        return &*it;
    }

    // The value of an unexpected key is never echoed: it may carry instructions meant for
    // the next prompt (seed 004's "note" field).
    void unknown_fields(const json& obj, const std::string& parent, std::initializer_list<std::string_view> allowed) {
        for (const auto& item : obj.items()) {
            bool known = false;
            for (std::string_view name : allowed) {
                known = known || item.key() == name;
            }
            if (!known) {
                std::string names;
                for (std::string_view name : allowed) {
                    names += names.empty() ? "" : ", ";
                    names += name;
                }
                fail("envelope.unknown_field", child(parent, item.key()),
                     "unexpected field " + quote_untrusted(item.key()) + "; allowed here: " + names);
            }
        }
    }

    std::optional<std::string> read_string(const json& v, const std::string& pointer, std::size_t min_length,
                                           std::size_t max_length, bool nullable) {
        if (nullable && v.is_null()) {
            return std::nullopt;
        }
        if (!v.is_string()) {
            type_mismatch(pointer, nullable ? "a string or null" : "a string", v);
            return std::nullopt;
        }
        const auto& s = v.get_ref<const std::string&>();
        const std::uint64_t length = count_code_points(s);
        if (length > max_length) {
            fail("envelope.max_length", pointer,
                 "a string of " + std::to_string(length) + " characters is longer than the " +
                     std::to_string(max_length) + " allowed");
            return std::nullopt;
        }
        if (length < min_length) {
            fail("envelope.min_length", pointer, "must not be empty");
            return std::nullopt;
        }
        return s;
    }

    /// A JSON integer >= 0. 40.0 is refused: the schema's "integer" is checked strictly.
    std::optional<std::uint64_t> read_count(const json& v, const std::string& pointer) {
        if (v.is_number_unsigned()) {
            return v.get<std::uint64_t>();
        }
        // The parser stores every non-negative integer as unsigned; a json built in code may
        // hold one as signed.
        if (v.is_number_integer() && v.get<std::int64_t>() >= 0) {
            return static_cast<std::uint64_t>(v.get<std::int64_t>());
        }
        if (v.is_number_integer()) {
            fail("envelope.range", pointer, "expected an integer >= 0, got " + v.dump());
            return std::nullopt;
        }
        type_mismatch(pointer, "an integer >= 0", v);
        return std::nullopt;
    }

    void read_reason_code(const json& doc, const json* status, envelope<json>& env) {
        const auto it = doc.find("reason_code");
        const bool capped = status != nullptr && env.status == handoff::status::capped;
        const bool ok = status != nullptr && env.status == handoff::status::ok;
        if (it == doc.end() || it->is_null()) {
            if (capped) {
                fail("envelope.required", "/reason_code",
                     "required when status is \"capped\": one of TOKEN_CAP, TIME_CAP, TOOL_CALL_CAP, "
                     "CONTEXT_OVERFLOW, DEPENDENCY_FAILED, SCOPE_TOO_BROAD");
            }
            return;
        }
        if (!it->is_string()) {
            type_mismatch("/reason_code", "a reason code string or null", *it);
            return;
        }
        const auto& text = it->get_ref<const std::string&>();
        const auto code = reason_code_from_string(text);
        if (!code) {
            fail("envelope.enum", "/reason_code",
                 quote_untrusted(text) + " is not a reason code: use one of TOKEN_CAP, TIME_CAP, "
                                         "TOOL_CALL_CAP, CONTEXT_OVERFLOW, DEPENDENCY_FAILED, "
                                         "SCOPE_TOO_BROAD");
            return;
        }
        if (ok) {
            fail("envelope.forbidden", "/reason_code",
                 "must be absent or null when status is \"ok\", got " + quote_untrusted(text));
            return;
        }
        env.reason_code = code;
    }

    void read_coverage(const json& v, coverage_info& out) {
        if (!v.is_object()) {
            type_mismatch("/coverage", "an object", v);
            return;
        }
        unknown_fields(v, "/coverage", {"items_expected", "items_completed", "unit", "fraction"});
        if (const json* e = required(v, "/coverage", "items_expected")) {
            out.items_expected = read_count(*e, "/coverage/items_expected").value_or(0);
        }
        if (const json* c = required(v, "/coverage", "items_completed")) {
            out.items_completed = read_count(*c, "/coverage/items_completed").value_or(0);
        }
        if (const json* u = required(v, "/coverage", "unit")) {
            out.unit = read_string(*u, "/coverage/unit", 1, 64, false).value_or("");
        }
        if (const json* f = required(v, "/coverage", "fraction")) {
            if (!f->is_number()) {
                type_mismatch("/coverage/fraction", "a number in [0, 1]", *f);
            } else if (const double x = f->get<double>(); !(x >= 0.0 && x <= 1.0)) {
                fail("envelope.range", "/coverage/fraction", f->dump() + " is outside [0, 1]");
            } else {
                out.fraction = x;
            }
        }
    }

    void read_string_list(const json& v, const std::string& pointer, std::vector<std::string>& out) {
        if (!v.is_array()) {
            type_mismatch(pointer, "an array of strings", v);
            return;
        }
        if (v.size() > 256) {
            fail("envelope.max_items", pointer, std::to_string(v.size()) + " items, at most 256 allowed");
            return;
        }
        out.reserve(v.size());
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (auto s = read_string(v[i], child(pointer, std::to_string(i)), 0, 512, false)) {
                out.push_back(std::move(*s));
            }
        }
    }

    void read_steps(const json& v, steps_info& out) {
        if (!v.is_object()) {
            type_mismatch("/steps", "an object", v);
            return;
        }
        unknown_fields(v, "/steps", {"completed", "remaining"});
        if (const json* c = required(v, "/steps", "completed")) {
            read_string_list(*c, "/steps/completed", out.completed);
        }
        if (const json* r = required(v, "/steps", "remaining")) {
            read_string_list(*r, "/steps/remaining", out.remaining);
        }
    }

    std::optional<retry_hint_info> read_retry_hint(const json& v) {
        if (!v.is_object()) {
            type_mismatch("/retry_hint", "an object", v);
            return std::nullopt;
        }
        retry_hint_info hint;
        unknown_fields(v, "/retry_hint", {"suggested_action", "suggested_scope", "budget_multiplier", "notes"});
        if (const json* a = required(v, "/retry_hint", "suggested_action")) {
            const auto parsed = a->is_string() ? action_from_string(a->get_ref<const std::string&>()) : std::nullopt;
            if (!a->is_string()) {
                type_mismatch("/retry_hint/suggested_action", "an action string", *a);
            } else if (!parsed) {
                fail("envelope.enum", "/retry_hint/suggested_action",
                     quote_untrusted(a->get_ref<const std::string&>()) +
                         " is not an action: use one of RESUME, SPLIT, NARROW, ESCALATE, FAIL");
            } else {
                hint.suggested_action = *parsed;
            }
        }
        if (const auto it = v.find("suggested_scope"); it != v.end()) {
            hint.suggested_scope = read_string(*it, "/retry_hint/suggested_scope", 0, 1024, true);
        }
        if (const auto it = v.find("budget_multiplier"); it != v.end() && !it->is_null()) {
            if (!it->is_number()) {
                type_mismatch("/retry_hint/budget_multiplier", "a number >= 0 or null", *it);
            } else if (!(it->get<double>() >= 0.0)) {
                fail("envelope.range", "/retry_hint/budget_multiplier", it->dump() + " is below 0");
            } else {
                hint.budget_multiplier = it->get<double>();
            }
        }
        if (const auto it = v.find("notes"); it != v.end()) {
            hint.notes = read_string(*it, "/retry_hint/notes", 0, 2048, true);
        }
        return hint;
    }

    std::optional<trace_info> read_trace(const json& v) {
        if (!v.is_object()) {
            type_mismatch("/trace", "an object", v);
            return std::nullopt;
        }
        trace_info trace;
        unknown_fields(v, "/trace", {"trace_id", "span_id", "parent_span_id"});
        if (const json* t = required(v, "/trace", "trace_id")) {
            trace.trace_id = read_string(*t, "/trace/trace_id", 1, 128, false).value_or("");
        }
        if (const json* s = required(v, "/trace", "span_id")) {
            trace.span_id = read_string(*s, "/trace/span_id", 1, 128, false).value_or("");
        }
        if (const auto it = v.find("parent_span_id"); it != v.end()) {
            trace.parent_span_id = read_string(*it, "/trace/parent_span_id", 0, 128, true);
        }
        return trace;
    }

    std::optional<budget_info> read_budget(const json& v) {
        if (!v.is_object()) {
            type_mismatch("/budget", "an object", v);
            return std::nullopt;
        }
        budget_info budget;
        unknown_fields(v, "/budget",
                       {"tokens_used", "token_cap", "elapsed_ms", "time_cap_ms", "tool_calls", "tool_call_cap"});
        const auto read = [&](const char* key, std::optional<std::uint64_t>& out) {
            if (const auto it = v.find(key); it != v.end()) {
                out = read_count(*it, child("/budget", key));
            }
        };
        read("tokens_used", budget.tokens_used);
        read("token_cap", budget.token_cap);
        read("elapsed_ms", budget.elapsed_ms);
        read("time_cap_ms", budget.time_cap_ms);
        read("tool_calls", budget.tool_calls);
        read("tool_call_cap", budget.tool_call_cap);
        return budget;
    }

    problem_list& problems_;
    bool failed_ = false;
};

} // namespace handoff::detail
