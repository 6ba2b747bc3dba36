// SPDX-License-Identifier: MIT
// <handoff/provider_schema.hpp>: the envelope with a task schema inside, rewritten per provider.
// The schemas sent satisfy each provider's documented rules (checked by walking them here, not
// by trusting the rewrite), every constraint that leaves is named in a note, and documented
// limits come back as values.

#include "support/catch.hpp"
#include "support/fixtures.hpp"
#include "support/schema_walk.hpp"

#include <handoff/detail/json/object_of_members.hpp>
#include <handoff/detail/provider/listed_names.hpp>
#include <handoff/detail/provider/openapi_schema.hpp>
#include <handoff/detail/provider/schema_stats.hpp>
#include <handoff/envelope_schema.hpp>
#include <handoff/provider.hpp>
#include <handoff/provider_schema.hpp>
#include <handoff/schema.hpp>
#include <handoff/schema_dialect.hpp>

#include <nlohmann/json.hpp>

#include <algorithm> // find, count_if, any_of
#include <set>       // set
#include <string>    // string
#include <utility>   // pair
#include <vector>    // vector

namespace test_provider_schema { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

using ojson = nlohmann::ordered_json;
using handoff::provider;
using handoff::schema_note_kind;

ojson example_schema(const std::string& name) {
    return ojson::parse(handoff_test::read_fixture("../../examples/schemas/" + name));
}

bool is_object_schema(const ojson& node) {
    const auto type = node.find("type");
    const bool typed =
        type != node.end() &&
        (*type == "object" || (type->is_array() && std::find(type->begin(), type->end(), "object") != type->end()));
    return typed || node.contains("properties");
}

bool accepts_null(const ojson& node) {
    const auto type = node.find("type");
    if (type != node.end()) {
        const bool null_type =
            *type == "null" || (type->is_array() && std::find(type->begin(), type->end(), "null") != type->end());
        const auto values = node.find("enum");
        return null_type &&
               (values == node.end() || std::find(values->begin(), values->end(), nullptr) != values->end());
    }
    const auto any = node.find("anyOf");
    return any != node.end() && std::any_of(any->begin(), any->end(), [](const ojson& s) { return accepts_null(s); });
}

/// Every rule of OpenAI strict mode (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas),
/// checked on the schema as sent; returns one line per violation.
std::vector<std::string> openai_strict_violations(const ojson& schema) {
    static const std::set<std::string> allowed{"type",
                                               "properties",
                                               "required",
                                               "additionalProperties",
                                               "items",
                                               "enum",
                                               "const",
                                               "anyOf",
                                               "$ref",
                                               "$defs",
                                               "definitions",
                                               "description",
                                               "title",
                                               "pattern",
                                               "format",
                                               "multipleOf",
                                               "minimum",
                                               "maximum",
                                               "exclusiveMinimum",
                                               "exclusiveMaximum",
                                               "minItems",
                                               "maxItems"};
    std::vector<std::string> problems;
    if (schema.value("type", "") != "object" || schema.contains("anyOf")) {
        problems.push_back("the root must be an object, not anyOf");
    }
    handoff_test::each_subschema(schema, "", [&](const ojson& node, const std::string& pointer) {
        for (const auto& item : node.items()) {
            if (allowed.count(item.key()) == 0) {
                problems.push_back(pointer + ": keyword " + item.key() + " is not supported in strict mode");
            }
        }
        if (const auto ref = node.find("$ref"); ref != node.end() && ref->get<std::string>().rfind('#', 0) != 0) {
            problems.push_back(pointer + ": $ref is not local");
        }
        if (!is_object_schema(node)) {
            return;
        }
        if (node.value("additionalProperties", ojson(true)) != false) {
            problems.push_back(pointer + ": object without additionalProperties: false");
        }
        const ojson properties = node.value("properties", ojson::object());
        const ojson required = node.value("required", ojson::array());
        for (const auto& item : properties.items()) {
            if (std::find(required.begin(), required.end(), item.key()) == required.end()) {
                problems.push_back(pointer + ": property " + item.key() + " is not required");
            }
        }
        if (required.size() != properties.size()) {
            problems.push_back(pointer + ": required lists names that are not properties");
        }
    });
    return problems;
}

/// Anthropic's refused keywords
/// (https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations).
std::vector<std::string> anthropic_violations(const ojson& schema) {
    static const std::set<std::string> refused{"minimum",
                                               "maximum",
                                               "exclusiveMinimum",
                                               "exclusiveMaximum",
                                               "multipleOf",
                                               "minLength",
                                               "maxLength",
                                               "maxItems",
                                               "uniqueItems",
                                               "not",
                                               "if",
                                               "then",
                                               "else",
                                               "oneOf",
                                               "patternProperties",
                                               "dependencies"};
    std::vector<std::string> problems;
    handoff_test::each_subschema(schema, "", [&](const ojson& node, const std::string& pointer) {
        for (const auto& item : node.items()) {
            if (refused.count(item.key()) != 0) {
                problems.push_back(pointer + ": " + item.key());
            }
        }
        if (const auto min = node.find("minItems"); min != node.end() && *min != 0 && *min != 1) {
            problems.push_back(pointer + ": minItems above 1");
        }
        if (const auto extra = node.find("additionalProperties"); extra != node.end() && *extra != false) {
            problems.push_back(pointer + ": additionalProperties other than false");
        }
        if (is_object_schema(node) && !node.contains("additionalProperties")) {
            problems.push_back(pointer + ": object not closed");
        }
    });
    return problems;
}

/// Keywords present anywhere in the schema.
std::set<std::string> keywords_in(const ojson& schema) {
    std::set<std::string> found;
    handoff_test::each_subschema(schema, "", [&](const ojson& node, const std::string&) {
        for (const auto& item : node.items()) {
            found.insert(item.key());
        }
    });
    return found;
}

/// The (pointer, keyword) pairs of the notes of one kind, task part only (below partial_result).
std::set<std::pair<std::string, std::string>> task_notes(const handoff::provider_schema_result& r,
                                                         schema_note_kind kind) {
    std::set<std::pair<std::string, std::string>> out;
    const std::string task = "/properties/partial_result/anyOf/0";
    for (const auto& n : r.notes) {
        if (n.kind == kind && n.pointer.rfind(task, 0) == 0) {
            out.emplace(n.pointer.substr(task.size()), n.keyword);
        }
    }
    return out;
}

/// OpenAI's nullable form of a schema: anyOf [schema, {"type": "null"}].
bool is_null_wrapper(const ojson& node) {
    return node.is_object() && node.contains("anyOf") && node["anyOf"].size() == 2 &&
           node["anyOf"][1] == ojson{{"type", "null"}};
}

/// The node of `sent` at the pointer of the merged schema, stepping through the nullable
/// wrappers OpenAI's form adds; nullptr when absent.
const ojson* sent_node(const ojson& sent, const std::string& pointer) {
    const ojson* node = &sent;
    std::size_t at = 1;
    while (at <= pointer.size() && !pointer.empty()) {
        const std::size_t next = std::min(pointer.find('/', at), pointer.size());
        const std::string token = pointer.substr(at, next - at);
        at = next + 1;
        if (node->is_object() && !node->contains(token) && is_null_wrapper(*node)) {
            node = &(*node)["anyOf"][0];
        }
        if (node->is_object() && node->contains(token)) {
            node = &(*node)[token];
        } else if (node->is_array() && token.find_first_not_of("0123456789") == std::string::npos &&
                   std::stoul(token) < node->size()) {
            node = &(*node)[std::stoul(token)];
        } else {
            return nullptr;
        }
    }
    return node;
}

/// `keyword` is in the sent schema at the merged schema's `pointer`.
bool sent_keeps(const ojson& sent, const std::string& pointer, const std::string& keyword) {
    const ojson* node = sent_node(sent, pointer);
    if (node == nullptr) {
        return false;
    }
    return node->contains(keyword) || (is_null_wrapper(*node) && node->at("anyOf")[0].contains(keyword));
}

/// A note covers `keyword` at `pointer` when it names it, or a subschema keyword above it.
bool noted(const handoff::provider_schema_result& r, const std::string& pointer, const std::string& keyword) {
    const std::string path = pointer + "/" + keyword;
    return std::any_of(r.notes.begin(), r.notes.end(), [&](const handoff::schema_note& n) {
        const std::string named = n.pointer + "/" + n.keyword;
        return path == named || path.rfind(named + "/", 0) == 0;
    });
}

/// A task schema of `count` definitions, each an object whose "next" is the next one, the root a
/// `$ref` to the first.
nlohmann::ordered_json definition_chain(int count) {
    std::vector<std::pair<std::string, nlohmann::ordered_json>> defs;
    for (int i = 0; i < count; ++i) {
        nlohmann::ordered_json d = {{"type", "object"}, {"properties", {{"n", {{"type", "integer"}}}}}};
        if (i + 1 < count) {
            d["properties"]["next"] = {{"$ref", "#/$defs/d" + std::to_string(i + 1)}};
        }
        defs.emplace_back("d" + std::to_string(i), std::move(d));
    }
    return {{"$ref", "#/$defs/d0"}, {"$defs", handoff::detail::object_of_members(std::move(defs))}};
}

} // namespace

TEST_CASE("a note about a dropped keyword says whether the receiver checks it, and content keywords go unsaid",
          "[provider_schema]") {
    // The receiver checks what its dialect defines, a format only when formats assert and only one
    // it knows; an unknown keyword (x-...), a keyword of another dialect, or an unknown format it
    // does not check either, and a note must not say it does.
    const ojson fixture = ojson::parse(handoff_test::read_fixture("provider_schemas/receiver_reading.json"));
    for (const ojson& want : fixture["expected"]) {
        INFO(want.dump());
        handoff::provider_schema_options options;
        options.schema.assert_formats = want["assert_formats"].get<bool>();
        const ojson& task = fixture[want["task"].get<std::string>()];
        const auto sent = handoff::provider_schema(*handoff::provider_from_string(want["provider"].get<std::string>()),
                                                   &task, options);
        const auto note = std::find_if(sent.notes.begin(), sent.notes.end(), [&](const handoff::schema_note& n) {
            return n.kind == schema_note_kind::not_enforced && n.keyword == want["keyword"].get<std::string>() &&
                   (!want.contains("value") || n.value == want["value"]);
        });
        REQUIRE(note != sent.notes.end());
        const std::string ends = want["ends"].get<std::string>();
        CHECK(note->note.size() > ends.size());
        CHECK(note->note.compare(note->note.size() - std::min(ends.size(), note->note.size()), ends.size(), ends) == 0);
    }
    const ojson& task = fixture["task_2020_12"];
    for (const provider p :
         {provider::openai, provider::anthropic, provider::gemini, provider::gemini_openapi, provider::llama_cpp}) {
        INFO(handoff::to_string(p));
        const auto sent = handoff::provider_schema(p, &task);
        for (const handoff::schema_note& n : sent.notes) {
            CHECK(n.keyword.rfind("content", 0) != 0);
        }
        CHECK(sent.schema.dump().find("contentMediaType") == std::string::npos);
    }
}

TEST_CASE("a $dynamicRef or $recursiveRef that can only name one schema reaches providers as that $ref",
          "[provider_schema][dialects]") {
    const ojson fixture = ojson::parse(handoff_test::read_fixture("provider_schemas/dynamic_refs.json"));
    const auto has_note_on = [](const handoff::provider_schema_result& r, const std::string& keyword) {
        return std::any_of(r.notes.begin(), r.notes.end(),
                           [&](const handoff::schema_note& n) { return n.keyword == keyword; });
    };
    for (const char* name : {"tree_2020_12", "tree_2019_09"}) {
        INFO(name);
        const ojson& task = fixture[name];
        for (const provider p : {provider::openai, provider::anthropic, provider::gemini, provider::llama_cpp}) {
            INFO(handoff::to_string(p));
            const auto sent = handoff::provider_schema(p, &task);
            const ojson& tree = sent.schema["$defs"]["task"];
            const ojson& children = tree["properties"]["children"];
            const ojson& items = children.contains("anyOf") ? children["anyOf"][0]["items"] : children["items"];
            CHECK(items == ojson{{"$ref", "#/$defs/task"}});
            CHECK_FALSE(has_note_on(sent, "$dynamicRef"));
            CHECK_FALSE(has_note_on(sent, "$recursiveRef"));
            CHECK_FALSE(has_note_on(sent, "$recursiveAnchor")); // it marks a landing place only
        }
    }
    const ojson& embedded = fixture["embedded_2020_12"];
    const auto sent = handoff::provider_schema(provider::openai, &embedded);
    CHECK(has_note_on(sent, "$dynamicRef")); // the inner resource's anchor may be the dynamic target
    CHECK(sent.schema.dump().find("$dynamicRef") == std::string::npos);
    // A part declaring 2019-09 reads $dynamicRef as an annotation: it stays unconstraining.
    const auto declared_below = handoff::provider_schema(provider::openai, &fixture["dialect_below_root"]);
    CHECK(declared_below.schema.dump().find("#/$defs/task") == std::string::npos);
    // 2020-12 has no $recursiveRef: the receiver ignores it, so the provider must not get a $ref.
    const auto other_dialect = handoff::provider_schema(provider::openai, &fixture["recursive_ref_in_2020_12"]);
    CHECK(other_dialect.schema.dump().find("$ref") == std::string::npos);
    const auto note = std::find_if(other_dialect.notes.begin(), other_dialect.notes.end(),
                                   [](const handoff::schema_note& n) { return n.keyword == "$recursiveRef"; });
    REQUIRE(note != other_dialect.notes.end());
    CHECK(note->note.find("the receiver does not check it either") != std::string::npos);
}

TEST_CASE("provider names round-trip, and an unknown name is no provider", "[provider_schema]") {
    for (const provider p : handoff::all_providers) {
        CHECK(handoff::provider_from_string(handoff::to_string(p)) == p);
    }
    CHECK(handoff::provider_from_string("llama.cpp") == provider::llama_cpp);
    CHECK_FALSE(handoff::provider_from_string("OpenAI").has_value());
    CHECK_FALSE(handoff::provider_from_string("").has_value());
}

TEST_CASE("the json_schema target is the merged draft-07 schema, unchanged and without notes", "[provider_schema]") {
    const ojson task = example_schema("invoice.schema.json");
    const auto r = handoff::provider_schema(provider::json_schema, &task);
    CHECK(r.notes.empty());
    ojson expected_task = task;
    expected_task.erase("$schema");
    CHECK(r.schema["properties"]["partial_result"]["anyOf"][0] == expected_task);
    CHECK(r.schema["properties"]["partial_result"]["anyOf"][1] == ojson{{"type", "null"}});
    CHECK(r.schema.contains("if"));
    CHECK(r.schema["$id"].get<std::string>() == handoff::envelope_schema()["$id"].get<std::string>());
    // Property order survives as written (no provider promises to generate in it).
    CHECK(r.schema["properties"].begin().key() == "status");
}

TEST_CASE("the OpenAI schema satisfies every strict-mode rule for both bundled task schemas", "[provider_schema]") {
    for (const char* name : {"invoice.schema.json", "ticket.schema.json"}) {
        INFO(name);
        const ojson task = example_schema(name);
        const auto r = handoff::provider_schema(provider::openai, &task);
        CHECK(openai_strict_violations(r.schema).empty());
        for (const auto& v : openai_strict_violations(r.schema)) {
            UNSCOPED_INFO(v);
        }
        CHECK(r.within_limits());
        // Optional envelope fields became nullable, and each says so.
        for (const char* field : {"retry_hint", "trace", "budget"}) {
            CHECK(accepts_null(r.schema["properties"][field]));
        }
        CHECK(accepts_null(r.schema["properties"]["budget"]["anyOf"][0]["properties"]["tokens_used"]));
        CHECK(r.count(schema_note_kind::made_nullable) == 9);       // retry_hint, trace, budget, 6 budget fields
        CHECK(accepts_null(r.schema["properties"]["reason_code"])); // already nullable: unchanged
    }
}

TEST_CASE("the OpenAI dropped list names exactly the string lengths of the invoice task", "[provider_schema]") {
    const ojson task = example_schema("invoice.schema.json");
    const auto r = handoff::provider_schema(provider::openai, &task);
    const std::set<std::pair<std::string, std::string>> expected{
        {"/properties/invoice_number", "minLength"},
        {"/properties/invoice_number", "maxLength"},
        {"/properties/vendor", "minLength"},
        {"/properties/vendor", "maxLength"},
        {"/properties/vendor_quote", "minLength"},
        {"/properties/vendor_quote", "maxLength"},
        {"/properties/line_items/items/properties/description", "minLength"},
        {"/properties/line_items/items/properties/description", "maxLength"},
    };
    CHECK(task_notes(r, schema_note_kind::not_enforced) == expected);
    // The envelope's conditional (reason_code required when capped) is reported at the root.
    for (const char* keyword : {"if", "then", "else"}) {
        CHECK(std::any_of(r.notes.begin(), r.notes.end(),
                          [&](const handoff::schema_note& n) { return n.pointer.empty() && n.keyword == keyword; }));
    }
}

TEST_CASE("the Anthropic schema uses none of the refused keywords for both bundled task schemas", "[provider_schema]") {
    for (const char* name : {"invoice.schema.json", "ticket.schema.json"}) {
        INFO(name);
        const ojson task = example_schema(name);
        const auto r = handoff::provider_schema(provider::anthropic, &task);
        CHECK(anthropic_violations(r.schema).empty());
        CHECK(r.within_limits());
    }
    const ojson ticket = example_schema("ticket.schema.json");
    const auto r = handoff::provider_schema(provider::anthropic, &ticket);
    const std::set<std::pair<std::string, std::string>> expected{
        {"/properties/summary", "minLength"},
        {"/properties/summary", "maxLength"},
        {"/properties/citations", "maxItems"},
        {"/properties/citations/items", "maxLength"},
    };
    CHECK(task_notes(r, schema_note_kind::not_enforced) == expected);
    // The invoice's minItems 1 is one Anthropic takes.
    const ojson invoice = example_schema("invoice.schema.json");
    const auto ri = handoff::provider_schema(provider::anthropic, &invoice);
    CHECK(ri.schema["properties"]["partial_result"]["anyOf"][0]["properties"]["line_items"]["minItems"] == 1);
}

TEST_CASE("the Gemini schema keeps its supported keywords and drops the rest with a note", "[provider_schema]") {
    const ojson task = example_schema("invoice.schema.json");
    const auto r = handoff::provider_schema(provider::gemini, &task);
    const auto used = keywords_in(r.schema);
    for (const char* gone : {"minLength", "maxLength", "pattern", "const", "if", "then", "else", "$schema", "$id",
                             "$comment", "x-lint-allow"}) {
        CHECK(used.count(gone) == 0);
    }
    const ojson& line_items = r.schema["properties"]["partial_result"]["anyOf"][0]["properties"]["line_items"];
    CHECK(line_items["maxItems"] == 200);
    CHECK(line_items["items"]["properties"]["amount"]["maximum"] == 1000000000);
    CHECK(r.count(schema_note_kind::tightened) == 0); // Gemini leaves objects as written
}

TEST_CASE("the llama.cpp schema drops number bounds but keeps integer bounds and string lengths", "[provider_schema]") {
    const ojson task = example_schema("invoice.schema.json");
    const auto r = handoff::provider_schema(provider::llama_cpp, &task);
    const ojson& coverage = r.schema["properties"]["coverage"]["properties"];
    CHECK(coverage["items_expected"]["minimum"] == 0);
    CHECK_FALSE(coverage["fraction"].contains("minimum"));
    CHECK(coverage["unit"]["maxLength"] == 64);
    const std::set<std::pair<std::string, std::string>> expected{
        {"/properties/line_items/items/properties/amount", "minimum"},
        {"/properties/line_items/items/properties/amount", "maximum"},
        {"/properties/stated_total", "minimum"},
        {"/properties/stated_total", "maximum"},
        {"/properties/calculated_total", "minimum"},
        {"/properties/calculated_total", "maximum"},
    };
    CHECK(task_notes(r, schema_note_kind::not_enforced) == expected);
}

TEST_CASE("no provider drops a constraint without a note naming its pointer and keyword", "[provider_schema]") {
    static const std::set<std::string> annotations{"$schema",  "$id",          "$comment",    "default",
                                                   "examples", "x-lint-allow", "description", "title"};
    const ojson task = example_schema("invoice.schema.json");
    const ojson merged = handoff::provider_schema(provider::json_schema, &task).schema;
    for (const provider p : handoff::all_providers) {
        if (p == provider::gemini_openapi) {
            continue; // another shape (nullable, inlined refs): its own test below walks it
        }
        INFO(handoff::to_string(p));
        const auto r = handoff::provider_schema(p, &task);
        handoff_test::each_subschema(merged, "", [&](const ojson& node, const std::string& pointer) {
            for (const auto& item : node.items()) {
                if (annotations.count(item.key()) != 0) {
                    continue;
                }
                INFO(pointer + " " + item.key());
                CHECK((sent_keeps(r.schema, pointer, item.key()) || noted(r, pointer, item.key())));
            }
        });
    }
}

TEST_CASE("a schema over a documented limit comes back with a limit_exceeded note naming it", "[provider_schema]") {
    SECTION("OpenAI: more than 1000 enum values") {
        ojson values = ojson::array();
        for (int i = 0; i < 1001; ++i) {
            values.push_back("v" + std::to_string(i));
        }
        const ojson task = {{"type", "object"},
                            {"additionalProperties", false},
                            {"required", {"pick"}},
                            {"properties", {{"pick", {{"type", "string"}, {"enum", values}}}}}};
        const auto r = handoff::provider_schema(provider::openai, &task);
        CHECK_FALSE(r.within_limits());
        REQUIRE(r.count(schema_note_kind::limit_exceeded) == 1);
        const auto& note = r.notes.back();
        CHECK(note.keyword == "openai.max_enum_values");
        CHECK(note.value["limit"] == 1000);
        CHECK(note.value["count"].get<int>() > 1000);
        CHECK(handoff::provider_schema(provider::gemini, &task).within_limits()); // no documented limit there
    }
    SECTION("OpenAI: objects nested more than 10 deep") {
        ojson task = {{"type", "object"}, {"properties", ojson::object()}};
        for (int depth = 0; depth < 10; ++depth) {
            task = {{"type", "object"}, {"properties", {{"inner", task}}}, {"required", {"inner"}}};
        }
        const auto r = handoff::provider_schema(provider::openai, &task);
        CHECK_FALSE(r.within_limits());
        CHECK(r.notes.back().keyword == "openai.max_nesting_depth");
    }
    SECTION("Anthropic: more than 24 optional parameters") {
        ojson properties = ojson::object();
        for (int i = 0; i < 11; ++i) {
            properties["optional_" + std::to_string(i)] = {{"type", "string"}};
        }
        const ojson task = {{"type", "object"}, {"additionalProperties", false}, {"properties", properties}};
        const auto r = handoff::provider_schema(provider::anthropic, &task);
        CHECK_FALSE(r.within_limits());
        CHECK(r.notes.back().keyword == "anthropic.max_optional_parameters");
        CHECK(r.notes.back().value == ojson{{"count", 25}, {"limit", 24}});
        CHECK(handoff::provider_schema(provider::openai, &task).within_limits()); // all required there
    }
    SECTION("Anthropic: a recursive schema") {
        const ojson task = {{"type", "object"},
                            {"additionalProperties", false},
                            {"required", {"children"}},
                            {"properties", {{"children", {{"type", "array"}, {"items", {{"$ref", "#"}}}}}}}};
        const auto r = handoff::provider_schema(provider::anthropic, &task);
        CHECK_FALSE(r.within_limits());
        CHECK(r.notes.back().keyword == "anthropic.no_recursive_schemas");
        CHECK(handoff::provider_schema(provider::openai, &task).within_limits()); // OpenAI takes recursion
    }
}

TEST_CASE("a task's definitions move to the root $defs for providers, and stay in place for json_schema",
          "[provider_schema]") {
    const ojson task = {{"type", "object"},
                        {"additionalProperties", false},
                        {"required", {"item"}},
                        {"definitions", {{"item", {{"type", "string"}, {"maxLength", 10}}}}},
                        {"properties", {{"item", {{"$ref", "#/definitions/item"}}}}}};
    const auto merged = handoff::provider_schema(provider::json_schema, &task);
    CHECK(merged.schema["properties"]["partial_result"]["anyOf"][0]["properties"]["item"]["$ref"] ==
          "#/properties/partial_result/anyOf/0/definitions/item");
    // Gemini reads $defs only: a definitions ref keeps its target because the target moves too.
    for (const provider p : {provider::llama_cpp, provider::openai, provider::gemini}) {
        INFO(handoff::to_string(p));
        const auto r = handoff::provider_schema(p, &task);
        CHECK(r.schema["properties"]["partial_result"]["anyOf"][0]["properties"]["item"]["$ref"] == "#/$defs/item");
        CHECK(r.schema["$defs"]["item"]["type"] == "string");
        CHECK_FALSE(r.schema["properties"]["partial_result"]["anyOf"][0].contains("definitions"));
    }
}

TEST_CASE("patterns, formats and minItems are kept or dropped by the provider's condition", "[provider_schema]") {
    const ojson task = {{"type", "object"},
                        {"additionalProperties", false},
                        {"required", {"a", "b", "c", "d", "e"}},
                        {"properties",
                         {{"a", {{"type", "string"}, {"pattern", "^[A-Z]{3}$"}}},
                          {"b", {{"type", "string"}, {"pattern", "(\\w)\\1"}}},
                          {"c", {{"type", "string"}, {"format", "email"}}},
                          {"d", {{"type", "array"}, {"minItems", 2}, {"items", {{"type", "string"}}}}},
                          {"e", {{"type", "integer"}, {"multipleOf", 5}}}}}};
    const auto kept = [&](provider p, const char* property, const char* keyword) {
        const auto r = handoff::provider_schema(p, &task);
        return r.schema["properties"]["partial_result"]["anyOf"][0]["properties"][property].contains(keyword);
    };
    CHECK(kept(provider::anthropic, "a", "pattern"));
    CHECK_FALSE(kept(provider::anthropic, "b", "pattern")); // a backreference
    CHECK(kept(provider::llama_cpp, "a", "pattern"));
    CHECK_FALSE(kept(provider::llama_cpp, "b", "pattern")); // not anchored
    CHECK(kept(provider::anthropic, "c", "format"));
    CHECK_FALSE(kept(provider::llama_cpp, "c", "format")); // llama.cpp lacks email
    CHECK_FALSE(kept(provider::gemini, "c", "format"));
    CHECK_FALSE(kept(provider::anthropic, "d", "minItems"));
    CHECK(kept(provider::openai, "d", "minItems"));
    CHECK(kept(provider::openai, "e", "multipleOf"));
    CHECK_FALSE(kept(provider::llama_cpp, "e", "multipleOf"));
}

TEST_CASE("llama.cpp gets no anyOf beside properties in one schema, and the note says why", "[provider_schema]") {
    const ojson task = {{"type", "object"},
                        {"properties", {{"a", {{"type", "string"}}}}},
                        {"anyOf", {{{"required", {"a"}}}, {{"required", ojson::array()}}}}};
    const auto r = handoff::provider_schema(provider::llama_cpp, &task);
    CHECK_FALSE(r.schema["properties"]["partial_result"]["anyOf"][0].contains("anyOf"));
    CHECK(task_notes(r, schema_note_kind::not_enforced) ==
          std::set<std::pair<std::string, std::string>>{{"", "anyOf"}});
    CHECK(handoff::provider_schema(provider::json_schema, &task).notes.empty());
}

TEST_CASE("without a task schema, OpenAI closes partial_result and says so", "[provider_schema]") {
    const auto r = handoff::provider_schema(provider::openai, nullptr);
    CHECK(openai_strict_violations(r.schema).empty());
    CHECK(std::any_of(r.notes.begin(), r.notes.end(), [](const handoff::schema_note& n) {
        return n.kind == schema_note_kind::tightened && n.pointer == "/properties/partial_result";
    }));
    const nlohmann::json plain = {{"type", "object"}, {"properties", {{"x", {{"type", "string"}}}}}};
    const auto from_plain = handoff::provider_schema(provider::anthropic, &plain);
    CHECK(anthropic_violations(from_plain.schema).empty());
}

TEST_CASE("a malformed task schema is rewritten without an exception for every provider", "[provider_schema]") {
    const std::vector<ojson> odd{
        ojson(true),
        ojson(false),
        ojson::array({1, 2}),
        ojson("a string"),
        ojson::object(),
        {{"type", "object"}, {"required", "x"}, {"properties", {{"x", true}, {"y", false}}}},
        {{"type", "object"}, {"properties", ojson::array({1})}},
        {{"type", "object"}, {"properties", 5}, {"additionalProperties", {{"type", "string"}}}},
        {{"type", ojson::array({"object", "null"})}, {"properties", {{"a", {{"enum", 7}}}}}},
        {{"items", 3}, {"anyOf", 4}, {"enum", "x"}, {"$ref", 5}, {"pattern", 7}, {"format", 1}, {"minItems", -1}},
        {{"$ref", "#/nowhere"}, {"definitions", {{"a", {{"$ref", "#"}}}}}},
    };
    for (const ojson& task : odd) {
        INFO(task.dump());
        for (const provider p : handoff::all_providers) {
            INFO(handoff::to_string(p));
            CHECK_NOTHROW(static_cast<void>(handoff::provider_schema(p, &task)));
        }
    }
}

} // namespace test_provider_schema

namespace test_provider_schema {

namespace {

ojson pydantic_order() {
    return ojson::parse(handoff_test::read_fixture("provider_schemas/pydantic_order.schema.json"));
}

/// A property as written, without OpenAI's anyOf [it, {"type": "null"}] around an optional one.
const ojson& as_written(const ojson& property) { return is_null_wrapper(property) ? property["anyOf"][0] : property; }

/// The task's properties in the schema sent.
const ojson& task_properties(const handoff::provider_schema_result& r) {
    return r.schema["properties"]["partial_result"]["anyOf"][0]["properties"];
}

bool has_note(const handoff::provider_schema_result& r, schema_note_kind kind, const std::string& task_pointer,
              const std::string& keyword) {
    const std::string pointer = "/properties/partial_result/anyOf/0" + task_pointer;
    return std::any_of(r.notes.begin(), r.notes.end(), [&](const handoff::schema_note& n) {
        return n.kind == kind && n.pointer == pointer && n.keyword == keyword;
    });
}

} // namespace

TEST_CASE("OpenAI gets a $ref with a description as an anyOf of the $ref beside it, and no lookaround or "
          "property-escape pattern",
          "[provider_schema]") {
    const ojson task = pydantic_order();
    const auto r = handoff::provider_schema(provider::openai, &task);
    const ojson& p = task_properties(r);
    // "$ref cannot have keywords {'description'}": the ref goes one level down, the text stays.
    CHECK(p["total"] == ojson{{"anyOf", {{{"$ref", "#/$defs/Money"}}}}, {"description", "The order total."}});
    // allOf [ $ref ] (Pydantic's older form) is the same ref once the one member is merged in.
    CHECK(p["kind"] == ojson{{"anyOf", {{{"$ref", "#/$defs/Kind"}}}}, {"description", "Retail or wholesale."}});
    CHECK_FALSE(p["customer"].contains("pattern"));
    CHECK_FALSE(as_written(p["reference"]).contains("pattern"));
    CHECK(has_note(r, schema_note_kind::not_enforced, "/properties/customer", "pattern"));
    CHECK(has_note(r, schema_note_kind::not_enforced, "/properties/reference", "pattern"));
    // A pattern without either stays.
    CHECK(r.schema["$defs"]["Card"]["properties"]["last4"]["pattern"] == "^[0-9]{4}$");
    CHECK(openai_strict_violations(r.schema).empty());
}

TEST_CASE("keywords beside a $ref apply in 2019-09 and later and are sent, draft-07 ignores them, and so do we",
          "[provider_schema]") {
    const auto task = [](const char* dialect) {
        ojson schema = {{"type", "object"},
                        {"definitions", {{"code", {{"type", "string"}}}}},
                        {"required", {"code"}},
                        {"properties", {{"code", {{"$ref", "#/definitions/code"}, {"maxItems", 3}}}}}};
        if (dialect != nullptr) {
            schema["$schema"] = dialect;
        }
        return schema;
    };
    const ojson draft7 = task("http://json-schema.org/draft-07/schema#");
    const auto old = handoff::provider_schema(provider::openai, &draft7);
    CHECK(task_properties(old)["code"] == ojson{{"$ref", "#/$defs/code"}});
    CHECK_FALSE(has_note(old, schema_note_kind::not_enforced, "/properties/code", "maxItems"));
    const ojson modern = task("https://json-schema.org/draft/2020-12/schema");
    CHECK(task_properties(handoff::provider_schema(provider::openai, &modern))["code"] ==
          ojson{{"anyOf", {{{"$ref", "#/$defs/code"}}}}, {"maxItems", 3}});
    // Anthropic and llama.cpp read the $ref alone: the keyword beside it is dropped, and said so.
    const auto anthropic = handoff::provider_schema(provider::anthropic, &modern);
    CHECK(task_properties(anthropic)["code"] == ojson{{"$ref", "#/$defs/code"}});
    CHECK(has_note(anthropic, schema_note_kind::not_enforced, "/properties/code", "maxItems"));
    // Without $schema the dialect is read as the receiver reads it: only draft-07 keywords
    // (`definitions`) make this draft-07, whose $ref ignores its siblings, and so does the rewrite.
    const ojson unnamed = task(nullptr);
    REQUIRE(handoff::compiled_schema::dialect_of(nlohmann::json(unnamed)) == handoff::schema_dialect::draft07);
    CHECK(task_properties(handoff::provider_schema(provider::openai, &unnamed))["code"] ==
          ojson{{"$ref", "#/$defs/code"}});
    // The same schema with 2020-12's $defs is read as 2020-12: the keyword beside the $ref is sent.
    ojson with_defs = unnamed;
    with_defs["$defs"] = with_defs["definitions"];
    with_defs.erase("definitions");
    with_defs["properties"]["code"]["$ref"] = "#/$defs/code";
    REQUIRE(handoff::compiled_schema::dialect_of(nlohmann::json(with_defs)) == handoff::schema_dialect::draft2020_12);
    CHECK(task_properties(handoff::provider_schema(provider::openai, &with_defs))["code"] ==
          ojson{{"anyOf", {{{"$ref", "#/$defs/code"}}}}, {"maxItems", 3}});
    // A dialect named for a schema without $schema (provider_schema_options::schema, as
    // receiver_options::schema) is the one the rewrite reads it in; a declared $schema wins.
    handoff::provider_schema_options named;
    named.schema.dialect = handoff::schema_dialect::draft2020_12;
    CHECK(task_properties(handoff::provider_schema(provider::openai, &unnamed, named))["code"] ==
          ojson{{"anyOf", {{{"$ref", "#/$defs/code"}}}}, {"maxItems", 3}});
    CHECK(task_properties(handoff::provider_schema(provider::openai, &draft7, named))["code"] ==
          ojson{{"$ref", "#/$defs/code"}});
    named.schema.dialect = handoff::schema_dialect::draft07;
    CHECK(task_properties(handoff::provider_schema(provider::openai, &with_defs, named))["code"] ==
          ojson{{"$ref", "#/$defs/code"}});
}

TEST_CASE("Gemini gets const as a one-value enum, oneOf as anyOf with a note, and prefixItems as written",
          "[provider_schema]") {
    const ojson task = pydantic_order();
    const auto r = handoff::provider_schema(provider::gemini, &task);
    const ojson& p = task_properties(r);
    CHECK(r.schema["$defs"]["Money"]["properties"]["currency"] == ojson{{"title", "Currency"}, {"enum", {"EUR"}}});
    CHECK(p["payment"] == ojson{{"anyOf", {{{"$ref", "#/$defs/Card"}}, {{"$ref", "#/$defs/Transfer"}}}}});
    CHECK(has_note(r, schema_note_kind::weakened, "/properties/payment", "oneOf"));
    CHECK(r.count(schema_note_kind::weakened) == 1);
    // Only $-keywords beside a $ref: the description moves beside an anyOf around it.
    CHECK(p["total"] == ojson{{"anyOf", {{{"$ref", "#/$defs/Money"}}}}, {"description", "The order total."}});
    // 2020-12 tuples are in Gemini's list; the boolean items beside them is not.
    CHECK(p["location"]["prefixItems"] == ojson{{{"type", "number"}}, {{"type", "number"}}});
    CHECK_FALSE(p["location"].contains("items"));
    CHECK(has_note(r, schema_note_kind::not_enforced, "/properties/location", "items"));
    CHECK(r.within_limits());
}

TEST_CASE("providers without prefixItems get the tuple as items anyOf its schemas, with a note", "[provider_schema]") {
    const ojson task = {{"type", "object"},
                        {"properties",
                         {{"pair",
                           {{"type", "array"},
                            {"prefixItems", {{{"type", "number"}}, {{"type", "string"}}}},
                            {"items", {{"type", "boolean"}}}}},
                          {"closed", {{"type", "array"}, {"prefixItems", {{{"type", "number"}}}}, {"items", false}}}}}};
    for (const provider p : {provider::openai, provider::anthropic, provider::llama_cpp}) {
        INFO(handoff::to_string(p));
        const auto r = handoff::provider_schema(p, &task);
        // Every element meets one of the schemas (the order is the receiver's to check); items
        // as written would bind every element, not those after the prefix.
        CHECK(as_written(task_properties(r)["pair"])["items"] ==
              ojson{{"anyOf", {{{"type", "number"}}, {{"type", "string"}}, {{"type", "boolean"}}}}});
        CHECK(as_written(task_properties(r)["closed"])["items"] == ojson{{"anyOf", {{{"type", "number"}}}}});
        CHECK(has_note(r, schema_note_kind::weakened, "/properties/pair", "prefixItems"));
        CHECK_FALSE(as_written(task_properties(r)["pair"]).contains("prefixItems"));
    }
    const auto gemini = handoff::provider_schema(provider::gemini, &task);
    CHECK(task_properties(gemini)["pair"]["items"] == ojson{{"type", "boolean"}});
    CHECK(task_properties(gemini)["pair"]["prefixItems"].size() == 2);
}

TEST_CASE("Anthropic refuses allOf with a $ref, enum values that are objects, and large {n,m} ranges",
          "[provider_schema]") {
    const ojson task = ojson::parse(R"({
        "type": "object",
        "$defs": {"base": {"type": "object", "properties": {"id": {"type": "string"}}}},
        "required": ["both", "shape", "code", "short"],
        "properties": {
            "both": {"allOf": [{"$ref": "#/$defs/base"}, {"properties": {"extra": {"type": "string"}}}]},
            "shape": {"enum": [{"x": 1}, "plain"]},
            "code": {"type": "string", "pattern": "^[A-Z]{2,500}$"},
            "short": {"type": "string", "pattern": "^[A-Z]{2,50}$"}
        }})");
    const auto r = handoff::provider_schema(provider::anthropic, &task);
    const ojson& p = task_properties(r);
    CHECK_FALSE(p["both"].contains("allOf"));
    CHECK(has_note(r, schema_note_kind::not_enforced, "/properties/both", "allOf"));
    CHECK_FALSE(p["shape"].contains("enum"));
    CHECK(has_note(r, schema_note_kind::not_enforced, "/properties/shape", "enum"));
    CHECK_FALSE(p["code"].contains("pattern"));
    CHECK(p["short"]["pattern"] == "^[A-Z]{2,50}$");
    CHECK(anthropic_violations(r.schema).empty());
}

TEST_CASE("Anthropic's per-request limits say how much of each the envelope takes and the task has left",
          "[provider_schema]") {
    const auto envelope = handoff::provider_schema(provider::anthropic, nullptr);
    REQUIRE(envelope.limits.size() == 2);
    // The envelope's optional fields: reason_code, retry_hint (and its 3), trace (and its 3), budget
    // (and its 6) are 14 of the 24; its unions: reason_code, partial_result, and the nullable
    // fields below retry_hint, trace and budget.
    CHECK(envelope.limits[0].name == "anthropic.max_optional_parameters");
    CHECK(envelope.limits[0].envelope == 14);
    CHECK(envelope.limits[0].left_for_task() == 10);
    CHECK(envelope.limits[1].name == "anthropic.max_union_type_parameters");
    CHECK(envelope.limits[1].limit == 16);
    const ojson task = pydantic_order();
    const auto r = handoff::provider_schema(provider::anthropic, &task);
    // Order has 6 optional properties and 3 unions: note's anyOf, payment's oneOf sent as anyOf,
    // location's tuple sent as items anyOf.
    CHECK(r.limits[0].envelope == 14);
    CHECK(r.limits[0].task() == 6);
    CHECK(r.limits[1].task() == 3);
    CHECK(r.limits[1].envelope == envelope.limits[1].envelope);
    CHECK(r.within_limits());
}

TEST_CASE("llama.cpp reads allOf only of $ref, properties and enum members, and never beside properties",
          "[provider_schema]") {
    const ojson task = ojson::parse(R"({
        "type": "object",
        "$defs": {"base": {"type": "object", "properties": {"id": {"type": "string"}}}},
        "properties": {
            "joined": {"allOf": [{"$ref": "#/$defs/base"}, {"properties": {"n": {"type": "integer"}}}]},
            "numeric": {"allOf": [{"minimum": 1}, {"maximum": 5}]},
            "beside": {"properties": {"a": {"type": "string"}}, "allOf": [{"required": ["a"]}]}
        }})");
    const auto r = handoff::provider_schema(provider::llama_cpp, &task);
    const ojson& p = task_properties(r);
    CHECK(p["joined"]["allOf"].size() == 2);
    CHECK_FALSE(p["numeric"].contains("allOf"));
    CHECK(has_note(r, schema_note_kind::not_enforced, "/properties/numeric", "allOf"));
    // A one-member allOf beside properties is merged in (its required joins the properties).
    CHECK(p["beside"]["required"] == ojson{"a"});
}

TEST_CASE("llama.cpp ignores minLength and maxLength beside a pattern or a format it knows, and says so",
          "[provider_schema]") {
    const ojson task = {{"type", "object"},
                        {"properties",
                         {{"coded", {{"type", "string"}, {"pattern", "^[a-z]+$"}, {"minLength", 2}}},
                          {"dated", {{"type", "string"}, {"format", "date"}, {"maxLength", 10}}},
                          {"plain", {{"type", "string"}, {"minLength", 2}, {"maxLength", 8}}}}}};
    const auto r = handoff::provider_schema(provider::llama_cpp, &task);
    const ojson& p = task_properties(r);
    CHECK_FALSE(p["coded"].contains("minLength"));
    CHECK(has_note(r, schema_note_kind::not_enforced, "/properties/coded", "minLength"));
    CHECK_FALSE(p["dated"].contains("maxLength"));
    CHECK(p["plain"]["minLength"] == 2);
    CHECK(p["plain"]["maxLength"] == 8);
}

TEST_CASE("Anthropic and llama.cpp write required properties first, so nothing may rely on schema order",
          "[provider_schema]") {
    CHECK(handoff::provider_writes_required_first(provider::anthropic));
    CHECK(handoff::provider_writes_required_first(provider::llama_cpp));
    CHECK_FALSE(handoff::provider_writes_required_first(provider::openai));
    CHECK_FALSE(handoff::provider_writes_required_first(provider::gemini));
}

TEST_CASE("Gemini's responseSchema gets only Schema fields: one upper-case type, nullable, no $ref",
          "[provider_schema]") {
    // https://ai.google.dev/api/caching#Schema: the fields of the Schema message, and no others.
    static const std::set<std::string> fields{
        "type",      "format",    "title",      "description", "nullable",      "enum",
        "maxItems",  "minItems",  "properties", "required",    "minProperties", "maxProperties",
        "minLength", "maxLength", "pattern",    "example",     "anyOf",         "propertyOrdering",
        "default",   "items",     "minimum",    "maximum"};
    static const std::set<std::string> types{"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"};
    for (const ojson& task : {pydantic_order(), example_schema("invoice.schema.json")}) {
        const auto r = handoff::provider_schema(provider::gemini_openapi, &task);
        handoff_test::each_subschema(r.schema, "", [&](const ojson& node, const std::string& pointer) {
            for (const auto& item : node.items()) {
                INFO(pointer + " " + item.key());
                CHECK(fields.count(item.key()) == 1);
            }
            if (node.contains("type")) {
                INFO(pointer);
                CHECK(types.count(node["type"].get<std::string>()) == 1);
            }
            if (node.contains("properties")) {
                ojson order = ojson::array();
                for (const auto& item : node["properties"].items()) {
                    order.push_back(item.key());
                }
                CHECK(node["propertyOrdering"] == order);
            }
        });
    }
    const ojson task = pydantic_order();
    const auto r = handoff::provider_schema(provider::gemini_openapi, &task);
    const ojson& partial = r.schema["properties"]["partial_result"];
    CHECK(partial["nullable"] == true);
    CHECK(partial["type"] == "OBJECT");
    CHECK(partial["properties"]["total"]["properties"]["currency"] ==
          ojson{{"title", "Currency"}, {"enum", {"EUR"}}, {"type", "STRING"}});
    CHECK(partial["properties"]["note"] == ojson{{"type", "STRING"}, {"maxLength", 200}, {"nullable", true}});
    CHECK(r.schema["properties"]["reason_code"]["nullable"] == true);
}

TEST_CASE("describe_dropped writes each dropped constraint into the description the model reads", "[provider_schema]") {
    const auto plain = handoff::provider_schema(provider::openai, nullptr);
    CHECK_FALSE(plain.schema["properties"]["coverage"]["properties"]["unit"].contains("description"));
    handoff::provider_schema_options options;
    options.describe_dropped = true;
    const auto described = handoff::provider_schema(provider::openai, nullptr, options);
    CHECK(described.schema["properties"]["coverage"]["properties"]["unit"]["description"] ==
          "{minLength: 1, maxLength: 64}");
    const ojson task = {
        {"type", "object"},
        {"required", {"code"}},
        {"properties", {{"code", {{"type", "string"}, {"description", "The code."}, {"pattern", "^(?!x)[a-z]+$"}}}}}};
    const auto r = handoff::provider_schema(provider::openai, &task, options);
    CHECK(task_properties(r)["code"]["description"] == "The code.\n\n{pattern: \"^(?!x)[a-z]+$\"}");
    // The notes are the same either way: the receiver still checks every one of them.
    CHECK(r.notes.size() == handoff::provider_schema(provider::openai, &task).notes.size());
}

TEST_CASE("Gemini warns when a schema nears the size its API refuses without a published number", "[provider_schema]") {
    ojson values = ojson::array();
    for (int i = 0; i < 600; ++i) {
        values.push_back("v" + std::to_string(i));
    }
    const ojson task = {{"type", "object"}, {"properties", {{"pick", {{"type", "string"}, {"enum", values}}}}}};
    const auto r = handoff::provider_schema(provider::gemini, &task);
    REQUIRE(r.count(schema_note_kind::near_limit) == 1);
    CHECK(r.notes.back().keyword == "gemini.enum_values_warning");
    CHECK(r.notes.back().value["limit"] == 500);
    CHECK(r.within_limits()); // a warning: the request may still be taken
    CHECK(handoff::provider_schema(provider::gemini, nullptr).count(schema_note_kind::near_limit) == 0);
}

TEST_CASE("the names a required array lists are its strings, each found by name", "[provider_schema]") {
    const nlohmann::json required = nlohmann::json::parse(R"(["a", 1, "b", null, "a", ["c"]])");
    const handoff::detail::listed_names names(&required);
    CHECK(names.lists("a"));
    CHECK(names.lists("b"));
    CHECK_FALSE(names.lists("1"));
    CHECK_FALSE(names.lists("c"));
    CHECK_FALSE(names.lists(""));
    const nlohmann::ordered_json not_a_list = {{"a", true}};
    CHECK_FALSE(handoff::detail::listed_names(&not_a_list).lists("a"));
    CHECK_FALSE(handoff::detail::listed_names(static_cast<const nlohmann::json*>(nullptr)).lists("a"));
}

TEST_CASE("OpenAI's schema lists every one of thousands of properties as required, each once", "[provider_schema]") {
    nlohmann::ordered_json task = {{"type", "object"}, {"required", {"p7"}}};
    for (int i = 0; i < 5000; ++i) {
        task["properties"]["p" + std::to_string(i)] = {{"type", "string"}};
    }
    const auto r = handoff::provider_schema(provider::openai, &task);
    const nlohmann::ordered_json& sent = r.schema.at("properties").at("partial_result").at("anyOf").at(0);
    REQUIRE(sent.at("required").size() == 5000);
    CHECK(sent.at("required").at(4999) == "p4999");
    CHECK(sent.at("properties").at("p7").at("type") == "string");                                   // listed before
    CHECK(sent.at("properties").at("p8").at("type") == nlohmann::ordered_json({"string", "null"})); // made nullable
}

TEST_CASE("a chain of thousands of definitions is sent whole, in order, each $ref at its definition",
          "[provider_schema][refs]") {
    constexpr int count = 5000;
    const nlohmann::ordered_json task = definition_chain(count);
    for (const provider target : {provider::openai, provider::anthropic, provider::llama_cpp}) {
        CAPTURE(handoff::to_string(target));
        const auto r = handoff::provider_schema(target, &task);
        const nlohmann::ordered_json& sent = r.schema.at("$defs");
        REQUIRE(sent.size() == count);
        CHECK(sent.begin().key() == "d0");
        const nlohmann::ordered_json& middle = sent.at("d2500").at("properties").at("next");
        const std::string ref = middle.contains("$ref") ? middle.at("$ref").get<std::string>()
                                                        : middle.at("anyOf").at(0).at("$ref").get<std::string>();
        CHECK(ref == "#/$defs/d2501");
        REQUIRE(r.definitions.size() == count);
        CHECK(r.definitions[2500].origin == "/properties/partial_result/anyOf/0/$defs/d2500");
    }
}

TEST_CASE("definitions on a cycle are counted in one pass, a chain of any length without recursion",
          "[provider_schema][refs]") {
    using handoff::detail::vertices_on_cycles;
    CHECK(vertices_on_cycles({}) == 0);
    CHECK(vertices_on_cycles({{0}}) == 1);                  // refers to itself
    CHECK(vertices_on_cycles({{1}, {0}, {0}}) == 2);        // a pair, and one pointing into it
    CHECK(vertices_on_cycles({{1}, {2}, {}, {3, 0}}) == 1); // a chain, and one looping to itself
    std::vector<std::vector<std::size_t>> ring(200'000);
    for (std::size_t i = 0; i < ring.size(); ++i) {
        ring[i].push_back((i + 1) % ring.size());
    }
    CHECK(vertices_on_cycles(ring) == 200'000);
    ring.back().clear(); // now a chain
    CHECK(vertices_on_cycles(ring) == 0);
}

TEST_CASE("Gemini's responseSchema inlines a chain of definitions 256 deep and cuts it there, saying so",
          "[provider_schema][refs]") {
    constexpr int count = 1000;
    const nlohmann::ordered_json task = definition_chain(count);
    const auto r = handoff::provider_schema(provider::gemini_openapi, &task);
    const auto cut = std::find_if(r.notes.begin(), r.notes.end(), [](const handoff::schema_note& n) {
        return n.keyword == "$ref" && n.note.find("too deeply nested") != std::string::npos;
    });
    REQUIRE(cut != r.notes.end());
    CHECK(cut->pointer == "/properties/partial_result/anyOf/0/$defs/d256"); // the definition left out
    // The sent schema holds the chain down to the cut: no $ref, no $defs (Gemini reads neither).
    const nlohmann::ordered_json* level = &r.schema.at("properties").at("partial_result");
    int depth = 0;
    while (level->contains("properties") && level->at("properties").contains("next")) {
        level = &level->at("properties").at("next");
        ++depth;
    }
    CHECK(depth == 256);
    CHECK(r.schema.dump().find("$ref") == std::string::npos);
}

TEST_CASE("Gemini's responseSchema cuts a schema nested 1024 levels through inlined definitions",
          "[provider_schema][refs]") {
    STATIC_REQUIRE(handoff::detail::max_converted_depth == 1024);
    // 300 definitions, each nesting 60 levels before it refers to the next: 256 references deep
    // is 15,000 levels of conversion, past any stack.
    std::vector<std::pair<std::string, nlohmann::ordered_json>> defs;
    for (int i = 0; i < 300; ++i) {
        nlohmann::ordered_json inner = {{"type", "object"}};
        if (i + 1 < 300) {
            inner["properties"] = {{"next", {{"$ref", "#/$defs/d" + std::to_string(i + 1)}}}};
        }
        for (int level = 0; level < 60; ++level) {
            inner = {{"type", "object"}, {"properties", {{"p", std::move(inner)}}}};
        }
        defs.emplace_back("d" + std::to_string(i), std::move(inner));
    }
    const nlohmann::ordered_json task = {{"$ref", "#/$defs/d0"},
                                         {"$defs", handoff::detail::object_of_members(std::move(defs))}};
    const auto r = handoff::provider_schema(provider::gemini_openapi, &task);
    CHECK(std::any_of(r.notes.begin(), r.notes.end(), [](const handoff::schema_note& n) {
        return n.note.find("nested " + std::to_string(handoff::detail::max_converted_depth) + " levels deep") !=
               std::string::npos;
    }));
}

} // namespace test_provider_schema
