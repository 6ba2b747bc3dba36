// SPDX-License-Identifier: MIT
// <handoff/provider_schema.hpp>: a provider schema stands alone. Every definition, however deeply
// the task nested it, is in the root $defs of the schema sent, and every $ref there resolves
// inside it: checked by walking the output for every provider over every fixture schema and the
// JSON Schema Test Suite's schemas, with a resolver written here, not the library's.

#include "support/catch.hpp"
#include "support/fixtures.hpp"
#include "support/schema_walk.hpp"

#include <handoff/provider.hpp>
#include <handoff/provider_schema.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>  // any_of
#include <cstddef>    // size_t
#include <filesystem> // recursive_directory_iterator
#include <set>        // set
#include <string>     // string
#include <vector>     // vector

namespace test_provider_schema_refs { // this file's own names: see "unity build" in tests/CMakeLists.txt

#ifndef HANDOFF_CORPORA_DIR
#error "HANDOFF_CORPORA_DIR must name tests/corpora"
#endif

namespace {

using ojson = nlohmann::ordered_json;
using handoff::provider;

/// The value at a JSON pointer (RFC 6901: ~1 is "/", ~0 is "~"), or nullptr.
const ojson* resolve(const ojson& document, const std::string& pointer) {
    const ojson* node = &document;
    std::size_t at = 0;
    while (at < pointer.size()) {
        if (pointer[at] != '/') {
            return nullptr;
        }
        const std::size_t end = std::min(pointer.find('/', at + 1), pointer.size());
        std::string token = pointer.substr(at + 1, end - at - 1);
        for (std::size_t i = 0; (i = token.find('~', i)) != std::string::npos; ++i) {
            token.replace(i, 2, token.compare(i, 2, "~1") == 0 ? "/" : "~");
        }
        at = end;
        if (node->is_object() && node->contains(token)) {
            node = &(*node)[token];
        } else if (node->is_array() && !token.empty() && token.find_first_not_of("0123456789") == std::string::npos &&
                   std::stoul(token) < node->size()) {
            node = &(*node)[std::stoul(token)];
        } else {
            return nullptr;
        }
    }
    return node;
}

/// Every way the schema sent fails to stand alone, one line each.
std::vector<std::string> standalone_problems(const ojson& sent, provider target) {
    std::vector<std::string> problems;
    handoff_test::each_subschema(sent, "", [&](const ojson& node, const std::string& pointer) {
        for (const char* keyword : {"$defs", "definitions"}) {
            if (node.contains(keyword) && (!pointer.empty() || std::string(keyword) == "definitions")) {
                problems.push_back(pointer + ": " + keyword + " below the root");
            }
        }
        const auto ref = node.find("$ref");
        if (ref == node.end()) {
            return;
        }
        const std::string text = ref->is_string() ? ref->get<std::string>() : ref->dump();
        if (target == provider::gemini_openapi) {
            problems.push_back(pointer + ": a $ref in a responseSchema: " + text);
        } else if (!ref->is_string() || text.rfind("#/$defs/", 0) != 0 || text.find('/', 8) != std::string::npos) {
            problems.push_back(pointer + ": $ref " + text + " names no whole definition of the root $defs");
        } else if (resolve(sent, text.substr(1)) == nullptr) {
            problems.push_back(pointer + ": $ref " + text + " resolves nowhere");
        }
    });
    return problems;
}

/// Every schema the repository holds: fixtures, examples, and each case group of the suite.
std::vector<ojson> every_fixture_schema() {
    std::vector<ojson> schemas;
    const auto add_file = [&](const std::filesystem::path& path, bool suite) {
        const ojson file = ojson::parse(handoff_test::read_file(path.string()), nullptr, false);
        if (file.is_discarded()) {
            return;
        }
        if (!suite) {
            schemas.push_back(file);
            return;
        }
        for (const auto& group : file) {
            if (group.is_object() && group.contains("schema")) {
                schemas.push_back(group["schema"]);
            }
        }
    };
    for (const char* folder : {"schemas", "refs", "provider_schemas"}) {
        for (const auto& entry : std::filesystem::recursive_directory_iterator(handoff_test::fixture_path(folder))) {
            if (entry.is_regular_file() && entry.path().extension() == ".json") {
                add_file(entry.path(), false);
            }
        }
    }
    for (const char* name : {"invoice.schema.json", "ticket.schema.json"}) {
        add_file(handoff_test::fixture_path(std::string("../../examples/schemas/") + name), false);
    }
    for (const char* draft : {"draft7", "draft2019-09", "draft2020-12"}) {
        const std::string folder = std::string(HANDOFF_CORPORA_DIR) + "/JSON-Schema-Test-Suite/tests/" + draft;
        for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
            if (entry.is_regular_file() && entry.path().extension() == ".json") {
                add_file(entry.path(), true);
            }
        }
    }
    return schemas;
}

/// A property as written, without OpenAI's anyOf [it, {"type": "null"}] around an optional one.
const ojson& unwrapped(const ojson& property) {
    const auto any = property.find("anyOf");
    const bool nullable = any != property.end() && any->size() == 2 && (*any)[1] == ojson{{"type", "null"}};
    return nullable ? (*any)[0] : property;
}

} // namespace

TEST_CASE("every $ref of every provider's schema names a root definition that exists, for every fixture schema",
          "[provider_schema][refs]") {
    const std::vector<ojson> schemas = every_fixture_schema();
    CHECK(schemas.size() > 1000); // fixtures, examples and the suite's case groups
    std::size_t refs_seen = 0;
    for (const ojson& task : schemas) {
        for (const provider p : handoff::all_providers) {
            if (p == provider::json_schema) {
                continue; // the merged draft-07 schema as given: definitions stay where the task put them
            }
            const auto sent = handoff::provider_schema(p, &task);
            const std::vector<std::string> problems = standalone_problems(sent.schema, p);
            if (!problems.empty()) {
                INFO(handoff::to_string(p) << " " << task.dump());
                for (const std::string& problem : problems) {
                    UNSCOPED_INFO(problem);
                }
                CHECK(problems.empty());
            }
            refs_seen += sent.schema.dump().find("\"$ref\"") != std::string::npos ? 1 : 0;
        }
    }
    CHECK(refs_seen > 300); // the check above met many refs, not none
}

TEST_CASE("nested definitions of the same name move to the root under different names, each ref to its own",
          "[provider_schema][refs]") {
    const ojson task = ojson::parse(handoff_test::read_fixture("provider_schemas/pydantic_order.schema.json"));
    for (const provider p : {provider::openai, provider::anthropic, provider::gemini, provider::llama_cpp}) {
        INFO(handoff::to_string(p));
        const auto sent = handoff::provider_schema(p, &task);
        const ojson& order = sent.schema["properties"]["partial_result"]["anyOf"][0];
        const ojson& shipping = unwrapped(order["properties"]["shipping"]);
        CHECK(shipping["properties"]["fee"]["$ref"] == "#/$defs/Money_2");
        CHECK(sent.schema["$defs"]["Money_2"]["type"] == "string");
        CHECK(sent.schema["$defs"]["Money"]["type"] == "object");
        CHECK_FALSE(shipping.contains("$defs"));
        // A ref to an $anchor becomes a ref to a definition holding the anchored schema.
        const ojson& status = unwrapped(order["properties"]["status"]);
        REQUIRE(status.contains("$ref"));
        const std::string name = status["$ref"].get<std::string>().substr(std::string("#/$defs/").size());
        CHECK(sent.schema["$defs"].value(name, ojson::object()).value("enum", ojson()) == ojson{"new", "paid", "sent"});
    }
}

TEST_CASE("a ref into a property gets a definition of its own, so making that property nullable leaves it whole",
          "[provider_schema][refs]") {
    const ojson task = {{"type", "object"},
                        {"properties",
                         {{"home", {{"type", "object"}, {"properties", {{"city", {{"type", "string"}}}}}}},
                          {"work", {{"$ref", "#/properties/home"}}}}},
                        {"required", {"work"}}};
    const auto sent = handoff::provider_schema(provider::openai, &task);
    const ojson& order = sent.schema["properties"]["partial_result"]["anyOf"][0];
    // home is optional: OpenAI wraps it in anyOf [home, null]; work still names an object schema.
    CHECK(order["properties"]["home"]["anyOf"][1] == ojson{{"type", "null"}});
    CHECK(order["properties"]["work"]["$ref"] == "#/$defs/home");
    CHECK(sent.schema["$defs"]["home"]["type"] == "object");
    CHECK(sent.schema["$defs"]["home"]["additionalProperties"] == false);
}

TEST_CASE("a ref that resolves nowhere, or outside the document, is not sent and is reported",
          "[provider_schema][refs]") {
    const ojson task = {
        {"type", "object"},
        {"properties", {{"a", {{"$ref", "#/$defs/missing"}}}, {"b", {{"$ref", "https://example.com/b.json"}}}}}};
    for (const provider p : {provider::openai, provider::gemini, provider::llama_cpp}) {
        INFO(handoff::to_string(p));
        const auto sent = handoff::provider_schema(p, &task);
        std::set<std::string> noted;
        for (const auto& note : sent.notes) {
            if (note.keyword == "$ref") {
                noted.insert(note.pointer + " " + note.value.get<std::string>());
            }
        }
        // The value is the ref as the merged schema holds it: the task's refs moved under partial_result.
        CHECK(noted ==
              std::set<std::string>{"/properties/partial_result/anyOf/0/properties/a "
                                    "#/properties/partial_result/anyOf/0/$defs/missing",
                                    "/properties/partial_result/anyOf/0/properties/b https://example.com/b.json"});
        CHECK(standalone_problems(sent.schema, p).empty());
    }
}

TEST_CASE("a recursive task is recursion through a root definition, which Anthropic refuses and OpenAI takes",
          "[provider_schema][refs]") {
    const ojson task = {{"type", "object"},
                        {"$defs",
                         {{"node",
                           {{"type", "object"},
                            {"properties", {{"children", {{"type", "array"}, {"items", {{"$ref", "#/$defs/node"}}}}}}},
                            {"required", {"children"}}}}}},
                        {"properties", {{"tree", {{"$ref", "#/$defs/node"}}}}},
                        {"required", {"tree"}}};
    const auto anthropic = handoff::provider_schema(provider::anthropic, &task);
    CHECK_FALSE(anthropic.within_limits());
    CHECK(anthropic.notes.back().keyword == "anthropic.no_recursive_schemas");
    CHECK(handoff::provider_schema(provider::openai, &task).within_limits());
    // Gemini's responseSchema has no $ref: the recursion is cut at its second level and said so.
    const auto openapi = handoff::provider_schema(provider::gemini_openapi, &task);
    const ojson& tree = openapi.schema["properties"]["partial_result"]["properties"]["tree"];
    CHECK(tree["properties"]["children"]["items"] == ojson::object());
    CHECK(std::any_of(openapi.notes.begin(), openapi.notes.end(), [](const handoff::schema_note& n) {
        return n.keyword == "$ref" && n.pointer == "/properties/partial_result/anyOf/0/$defs/node";
    }));
}

TEST_CASE("Gemini's responseSchema copies at most 4 MiB of definitions and cuts the rest, said so",
          "[provider_schema][refs][hostile]") {
    // A const used by 40 fields: each use copied whole into a schema that has no $ref.
    ojson task = ojson::parse(handoff_test::read_fixture("schemas/prompt_long_values.schema.json"));
    const auto fields_cut = [&](std::size_t const_bytes) {
        task["$defs"]["terms"]["const"] = std::string(const_bytes, 'x');
        const auto r = handoff::provider_schema(provider::gemini_openapi, &task);
        const ojson& fields = r.schema["properties"]["partial_result"]["properties"];
        std::size_t cut = 0;
        for (const auto& field : fields.items()) {
            cut += field.key()[0] == 'f' && field.value() == ojson::object() ? 1 : 0;
        }
        const bool said = std::any_of(r.notes.begin(), r.notes.end(), [](const handoff::schema_note& n) {
            return n.keyword == "$ref" && n.note.find("too large to copy again") != std::string::npos;
        });
        CHECK(said == (cut > 0));
        CHECK(r.schema.dump().size() < (std::size_t{4} << 20) + 64 * 1024);
        return cut;
    };
    // 40 copies of 64 KiB fit; 40 of 128 KiB do not: the first 31 are copied (4 MiB), the rest cut.
    CHECK(fields_cut(64 * 1024) == 0);
    CHECK(fields_cut(128 * 1024) == 9);
}

} // namespace test_provider_schema_refs
