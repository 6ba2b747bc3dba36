// SPDX-License-Identifier: MIT
// <handoff/provider_schema.hpp>: the envelope with a task schema inside, rewritten per provider.
// The schemas sent satisfy each provider's documented rules (checked by walking them here, not
// by trusting the rewrite), every constraint that leaves is named in a note, and documented
// limits come back as values.

#include "support/catch.hpp"

#include <handoff/envelope_schema.hpp>
#include <handoff/provider.hpp>
#include <handoff/provider_schema.hpp>

#include <nlohmann/json.hpp>

#include <algorithm> // find, count_if, any_of
#include <fstream>   // ifstream
#include <set>       // set
#include <sstream>   // ostringstream
#include <stdexcept> // runtime_error
#include <string>    // string
#include <utility>   // pair
#include <vector>    // vector

namespace test_provider_schema { // this file's own names: see "unity build" in tests/CMakeLists.txt

#ifndef HANDOFF_FIXTURES_DIR
#error "HANDOFF_FIXTURES_DIR must name tests/fixtures"
#endif

namespace {

using ojson = nlohmann::ordered_json;
using handoff::provider;
using handoff::schema_note_kind;

ojson example_schema(const std::string& name) {
    const std::string path = std::string(HANDOFF_FIXTURES_DIR) + "/../../examples/schemas/" + name;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error("missing schema " + path);
    }
    std::ostringstream text;
    text << in.rdbuf();
    return ojson::parse(text.str());
}

/// Calls `visit(node, pointer)` for the schema and every subschema below it.
template <class Visit>
void walk(const ojson& node, const std::string& pointer, Visit&& visit) {
    if (!node.is_object()) {
        return;
    }
    visit(node, pointer);
    for (const auto& item : node.items()) {
        const std::string& key = item.key();
        const std::string here = pointer + "/" + key;
        if (key == "properties" || key == "$defs" || key == "definitions" || key == "patternProperties") {
            for (const auto& sub : item.value().items()) {
                walk(sub.value(), here + "/" + sub.key(), visit);
            }
        } else if ((key == "anyOf" || key == "allOf" || key == "oneOf" || key == "prefixItems") &&
                   item.value().is_array()) {
            for (std::size_t i = 0; i < item.value().size(); ++i) {
                walk(item.value()[i], here + "/" + std::to_string(i), visit);
            }
        } else if (key == "items" || key == "additionalProperties" || key == "not" || key == "if" || key == "then" ||
                   key == "else") {
            walk(item.value(), here, visit);
        }
    }
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
    walk(schema, "", [&](const ojson& node, const std::string& pointer) {
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
    walk(schema, "", [&](const ojson& node, const std::string& pointer) {
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
    walk(schema, "", [&](const ojson& node, const std::string&) {
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

} // namespace

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
    // Property order survives: providers generate in schema order, and status comes first.
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
        walk(merged, "", [&](const ojson& node, const std::string& pointer) {
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
