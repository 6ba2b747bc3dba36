// SPDX-License-Identifier: MIT
// <handoff/enum_names.hpp>: every enum is spelled by one list of names, and to_string,
// from_string<E> and all_values<E> derive from it. The spellings are the wire format.

#include <catch2/catch.hpp>

#include <handoff/decision_table.hpp>
#include <handoff/enums.hpp>
#include <handoff/failure_class.hpp>
#include <handoff/lint.hpp>
#include <handoff/provider.hpp>
#include <handoff/provider_schema.hpp>
#include <handoff/route_table.hpp>
#include <handoff/schema_dialect.hpp>
#include <handoff/stop_class.hpp>

#include <array>       // array
#include <string_view> // string_view
#include <vector>      // vector

namespace test_enum_names { // this file's own names: see "unity build" in tests/CMakeLists.txt

using handoff::action;
using handoff::reason_code;
using handoff::route;
using handoff::schema_dialect;

// Spelled at compile time: a constexpr caller (a static table, a static_assert) may use them.
static_assert(handoff::to_string(action::narrow) == "NARROW");
static_assert(handoff::from_string<route>("REPAIR") == route::repair);
static_assert(handoff::all_values<reason_code>().size() == handoff::reason_code_count);

template <class E>
std::vector<std::string_view> spellings() {
    std::vector<std::string_view> out;
    for (const E e : handoff::all_values<E>()) {
        out.push_back(handoff::to_string(e));
    }
    return out;
}

using names = std::vector<std::string_view>;

TEST_CASE("every enum is spelled as the wire format spells it, in declaration order", "[enum_names]") {
    CHECK(spellings<handoff::status>() == names{"ok", "capped"});
    CHECK(spellings<reason_code>() ==
          names{"TOKEN_CAP", "TIME_CAP", "TOOL_CALL_CAP", "CONTEXT_OVERFLOW", "DEPENDENCY_FAILED", "SCOPE_TOO_BROAD"});
    CHECK(spellings<action>() == names{"RESUME", "SPLIT", "NARROW", "ESCALATE", "FAIL"});
    CHECK(spellings<route>() == names{"ACCEPT", "REPAIR", "RESUME", "SPLIT", "NARROW", "ESCALATE", "FAIL"});
    CHECK(spellings<handoff::step>() == names{"parse", "envelope_schema", "task_schema", "coverage", "semantic"});
    CHECK(spellings<handoff::band>() == names{"low", "mid", "high"});
    CHECK(spellings<handoff::tolerance>() == names{"byte_order_mark", "code_fence", "leading_prose", "trailing_prose"});
    CHECK(spellings<handoff::loop_outcome>() ==
          names{"succeeded", "routed", "retries_exhausted", "truncated", "not_retryable", "refused"});
    CHECK(spellings<schema_dialect>() == names{"draft-04", "draft-06", "draft-07", "2019-09", "2020-12"});
    CHECK(spellings<handoff::provider>() ==
          names{"openai", "anthropic", "gemini", "llama_cpp", "json_schema", "gemini_openapi"});
    CHECK(spellings<handoff::stop_class>() == names{"complete", "truncated", "refused", "tool_call", "other"});
    CHECK(spellings<handoff::reply_format>() ==
          names{"anthropic_messages", "openai_chat", "openai_responses", "gemini", "llama_cpp_completion", "unknown"});
    CHECK(spellings<handoff::schema_note_kind>() ==
          names{"not_enforced", "tightened", "made_nullable", "limit_exceeded", "weakened", "near_limit"});
    CHECK(spellings<handoff::route_mismatch_kind>() ==
          names{"routes.missing_handler", "routes.unknown_value", "routes.field_not_closed"});
    CHECK(spellings<handoff::failure_class>().size() == 17);
    CHECK(spellings<handoff::lint_rule>().front() == "lint.open_object");
    CHECK(spellings<handoff::table_rule>().back() ==
          "DEPENDENCY_FAILED (a non-budget cause) may only ESCALATE or FAIL");
}

TEST_CASE("from_string reads exactly what to_string writes and nothing else", "[enum_names]") {
    CHECK(handoff::from_string<action>("SPLIT") == action::split);
    CHECK(handoff::from_string<schema_dialect>("2019-09") == schema_dialect::draft2019_09);
    CHECK_FALSE(handoff::from_string<action>("split").has_value());
    CHECK_FALSE(handoff::from_string<action>("").has_value());
    CHECK_FALSE(handoff::from_string<schema_dialect>("draft-2019-09").has_value());
    // The named parsers are the same lists.
    CHECK(handoff::reason_code_from_string("TIME_CAP") == reason_code::time_cap);
    CHECK(handoff::schema_dialect_from_string("draft-07") == schema_dialect::draft07);
    CHECK(handoff::failure_class_from_string("not_json") == handoff::failure_class::not_json);
}

TEST_CASE("a value outside its enum is spelled ?", "[enum_names]") {
    CHECK(handoff::to_string(static_cast<action>(200)) == "?");
}

} // namespace test_enum_names
