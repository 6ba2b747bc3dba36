// SPDX-License-Identifier: MIT
// A task schema made to stand alone (detail::bundled_schema) for the writers that read one
// document: provider_schema and make_fixtures with a registry and the schema's file URI, and
// handoff-check schema --for / fixtures with --schema-dir. The fixture is
// tests/fixtures/refs/task/order.schema.json: refs to a file beside it, to one in another folder,
// by $id, under a nested $id base, with "~1" and "%20" in their pointers. The bundle must judge
// every value as the schema as given does, with every $ref a pointer inside it.

#include "support/catch.hpp"
#include "support/fixtures.hpp"
#include "support/hang_guard.hpp"
#include "support/schema_walk.hpp"
#include "support/valijson.hpp"

#include <handoff/detail/schema/bundle.hpp>
#include <handoff/detail/schema/refs.hpp>
#include <handoff/fixtures.hpp>
#include <handoff/provider_schema.hpp>
#include <handoff/schema.hpp>
#include <handoff/schema_registry.hpp>

#include <nlohmann/json.hpp>

#include <filesystem> // directory_iterator, path
#include <optional>   // optional

#include <string>  // string
#include <utility> // pair
#include <vector>  // vector

namespace test_schema_bundle { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string& order_path() {
    static const std::string path = handoff_test::fixture_path("refs/task/order.schema.json");
    return path;
}

handoff::schema_registry shared_registry() {
    handoff::schema_registry registry;
    registry.add_directory(handoff_test::fixture_path("refs/shared"));
    return registry;
}

json valid_order() {
    return json::parse(R"({"status": "open", "total": {"amount_cents": 100, "currency": "EUR"},
        "lines": [{"sku": "AB-1", "quantity": 2, "unit_price": {"amount_cents": 5, "currency": "USD"}}],
        "channel": {"kind": "web"}})");
}

/// The valid order, then one value per rule the referenced documents hold, each breaking it;
/// true where draft-07 accepts the value.
std::vector<std::pair<json, bool>> order_values() {
    std::vector<std::pair<json, bool>> out{{valid_order(), true}};
    const auto broken = [&](const std::string& pointer, const json& value) {
        json v = valid_order();
        v[json::json_pointer(pointer)] = value;
        out.emplace_back(std::move(v), false);
    };
    broken("/status", "closed");                     // common.schema.json#/definitions/status
    broken("/total/currency", "JPY");                // money -> its own #/definitions/currency
    broken("/lines/0/unit_price/currency", "JPY");   // by $id, from line.schema.json
    broken("/lines/0/sku", "ab");                    // line.schema.json#/definitions/sku~1code
    broken("/lines/0/sku", "ABCDEFGHIJKLMNOPQRSTU"); // its maxLength 20
    broken("/lines/0/quantity", 0);
    broken("/channel/kind", "fax"); // common.json#/definitions/channel%20kind, under a nested $id
    broken("/lines/0/colour", "red");
    json no_total = valid_order();
    no_total.erase("total");
    out.emplace_back(std::move(no_total), false);
    json more_lines = valid_order();
    more_lines["lines"].push_back({{"sku", "X"}, {"quantity", 1000}});
    out.emplace_back(std::move(more_lines), true);
    return out;
}

json bundled_order() {
    const handoff::schema_registry registry = shared_registry();
    const handoff::detail::ref_scope scope{&registry, handoff::schema_registry::file_uri(order_path()), {}};
    return handoff::detail::bundled_schema(json::parse(handoff_test::read_file(order_path())), scope, {});
}

} // namespace

TEST_CASE("a bundled schema judges every value as the schema with its files does, and names only itself",
          "[schema][bundle]") {
    const handoff::schema_registry registry = shared_registry();
    const auto original = handoff::compiled_schema::from_file(order_path(), registry);
    const json bundle = bundled_order();
    // Alone: no registry, no URI, so no other document could be read.
    const auto alone = handoff::compiled_schema::from_json(bundle);
    valijson::Schema oracle_schema;
    valijson::SchemaParser(valijson::SchemaParser::kDraft7)
        .populateSchema(valijson::adapters::NlohmannJsonAdapter(bundle), oracle_schema);
    valijson::Validator oracle;
    for (const auto& [value, expected] : order_values()) {
        INFO(value.dump());
        CHECK(original.accepts(value) == expected);
        CHECK(alone.accepts(value) == expected);
        CHECK(oracle.validate(oracle_schema, valijson::adapters::NlohmannJsonAdapter(value), nullptr) == expected);
    }
    std::size_t refs = 0;
    const auto ordered = nlohmann::ordered_json::parse(bundle.dump());
    handoff_test::each_subschema(ordered, "", [&](const nlohmann::ordered_json& node, const std::string& pointer) {
        if (const auto ref = node.find("$ref"); ref != node.end()) {
            ++refs;
            INFO(pointer << ": " << ref->dump());
            CHECK(ref->get<std::string>().rfind("#/", 0) == 0);
        }
        INFO(pointer);
        CHECK((pointer.empty() || !node.contains("$id")));
    });
    CHECK(refs >= 7);
    // Each referenced schema copied once (money is named from two files), named after its place
    // or its file; channel was a definition of the order already.
    std::vector<std::string> names;
    for (const auto& [name, unused] : bundle["definitions"].items()) {
        names.push_back(name);
    }
    CHECK(names == std::vector<std::string>{"channel", "channel_kind", "currency", "line", "money", "status"});
}

TEST_CASE("a schema whose refs already name their targets from the root is bundled as it is", "[schema][bundle]") {
    const json local = json::parse(R"({"type": "object",
        "properties": {"a": {"$ref": "#/definitions/x"}, "m": {"$ref": "http://json-schema.org/draft-07/schema#"}},
        "definitions": {"x": {"type": "string"}}})");
    const handoff::detail::ref_scope scope{};
    CHECK(handoff::detail::bundled_schema(local, scope, {}) == local);
    const auto ordered = nlohmann::ordered_json(local);
    CHECK(handoff::detail::bundled_schema(ordered, scope, {}) == ordered);
    // A ref by the URI of a nested $id is written from the root, and the $id goes with it.
    const json by_id = json::parse(R"({"$id": "https://example.com/a.json", "type": "object",
        "properties": {"b": {"$id": "b.json", "allOf": [{"$ref": "a.json#/definitions/x"}]}},
        "definitions": {"x": {"type": "string"}}})");
    const json bundle = handoff::detail::bundled_schema(by_id, scope, {});
    CHECK(bundle["properties"]["b"] == json::parse(R"({"allOf": [{"$ref": "#/definitions/x"}]})"));
    CHECK(bundle["$id"] == "https://example.com/a.json");
}

TEST_CASE("the suite's schemas, bundled with its remotes, judge every case alone as the suite says",
          "[schema][bundle][suite]") {
    // refRemote.json and the other groups whose refs name the suite's remotes: the bundle,
    // compiled with no registry, must give the suite's verdict on every case. Groups that
    // resolve by dynamic scope are left out: the bundle keeps no $id below its root.
    const fs::path suite = fs::path(HANDOFF_CORPORA_DIR) / "JSON-Schema-Test-Suite";
    handoff::schema_registry registry;
    registry.add_directory(suite / "remotes", "http://localhost:1234/");
    const std::pair<handoff::schema_dialect, const char*> dialects[] = {
        {handoff::schema_dialect::draft04, "draft4"},
        {handoff::schema_dialect::draft06, "draft6"},
        {handoff::schema_dialect::draft07, "draft7"},
        {handoff::schema_dialect::draft2019_09, "draft2019-09"},
        {handoff::schema_dialect::draft2020_12, "draft2020-12"}};
    std::size_t bundled_groups = 0;
    std::size_t cases = 0;
    std::string wrong;
    for (const auto& [dialect, folder] : dialects) {
        handoff::schema_options options;
        options.dialect = dialect;
        for (const auto& entry : fs::directory_iterator(suite / "tests" / folder)) {
            if (!entry.is_regular_file()) {
                continue; // optional/: cases no dialect requires
            }
            for (const json& group : json::parse(handoff_test::read_file(entry.path().string()))) {
                const json& schema = group.at("schema");
                const json bundle = handoff::detail::bundled_schema(schema, {&registry, "", dialect}, options);
                if (bundle == schema) {
                    continue;
                }
                const std::string text = bundle.dump();
                if (text.find("\"$dynamicRef\"") != std::string::npos ||
                    text.find("\"$recursiveRef\"") != std::string::npos) {
                    continue; // their dynamic scope is made of the $ids a bundle removes (see bundle.hpp)
                }
                ++bundled_groups;
                const std::string name = std::string(folder) + "/" + entry.path().filename().string() + ": " +
                                         group.at("description").get<std::string>();
                std::optional<handoff::compiled_schema> alone;
                try {
                    alone = handoff::compiled_schema::from_json(bundle, options);
                } catch (const handoff::schema_error& e) {
                    wrong += name + ": the bundle does not compile: " + e.what() + "\n";
                    continue;
                }
                for (const json& test : group.at("tests")) {
                    ++cases;
                    if (alone->accepts(test.at("data")) != test.at("valid").get<bool>()) {
                        wrong += name + " / " + test.at("description").get<std::string>() + "\n";
                    }
                }
            }
        }
    }
    INFO(wrong);
    CHECK(wrong.empty());
    CHECK(bundled_groups > 50);
    CHECK(cases > 100);
}

TEST_CASE("a bundle copies at most a bounded number of values, and leaves the schema as written past it",
          "[schema][bundle]") {
    // Nested targets copied from the deepest up repeat what they hold: the bound stops that
    // growth. Here one target alone is over it.
    json big = json::array();
    for (std::size_t i = 0; i <= (std::size_t{1} << 20); ++i) {
        big.push_back(i);
    }
    handoff::schema_registry registry;
    registry.add("https://example.com/big.json",
                 json{{"definitions", {{"big", {{"enum", std::move(big)}}}, {"small", {{"type", "integer"}}}}}});
    const json task = json::parse(R"({"type": "object", "properties": {
        "a": {"$ref": "https://example.com/big.json#/definitions/big"},
        "b": {"$ref": "https://example.com/big.json#/definitions/small"}}})");
    const json bundle = handoff::detail::bundled_schema(task, handoff::detail::ref_scope{&registry, "", {}}, {});
    CHECK(bundle == task); // left as written: the writers drop the refs and say so
}

TEST_CASE("multi-file schemas that could read differently bundled are judged alike, or left as written",
          "[schema][bundle]") {
    // Each folder under tests/fixtures/bundle/ holds a root schema, the files it refers to, and
    // values (v.json). A bundle that changes the schema must compile alone and judge every value
    // as the schema with its files does; `bundled` says which of the two the case expects.
    struct row {
        const char* folder;
        const char* root;
        bool bundled;
        const char* what;
    };
    const row rows[] = {
        {"t2", "root.json", false, "a target in a draft-07 file reads as draft-07: keywords beside $ref differ"},
        {"t3", "root.json", false, "a file read in 2020-12 under a draft-07 root: keywords beside $ref differ"},
        {"t5", "root.json", true, "a file named only beside a draft-07 $ref is never read, nor copied"},
        {"t6", "root.json", false, "$recursiveRef: its target depends on the $ids a bundle removes"},
        {"t7", "root.json", false, "$dynamicRef, likewise"},
        {"t8", "root.json", true, "a target under an unknown keyword is walked too"},
        {"t8", "root2.json", true, "... and its refs are not confused with the root's own"},
        {"t13", "root.json", false, "definitions that is no object beside a draft-07 $ref"},
        {"t16", "root.json", true, "a metaschema ref relative to a nested $id is written absolute"},
        {"t23", "order.schema.json", true, "a ref to the file itself by its name"},
        {"t25", "root.json", true, "the root's own target under an unknown keyword refers to another file"},
    };
    for (const row& r : rows) {
        const std::string folder = std::string("bundle/") + r.folder + "/";
        INFO(folder << r.root << ": " << r.what);
        const std::string path = handoff_test::fixture_path(folder + r.root);
        const json values = handoff_test::read_fixture_json(folder + "v.json");
        const handoff::schema_registry registry;
        const auto original = handoff::compiled_schema::from_file(path, registry);
        const json task = json::parse(handoff_test::read_file(path));
        const std::string uri = handoff::schema_registry::file_uri(path);
        const json bundle = handoff::detail::bundled_schema(task, {&registry, uri, {}}, {});
        CHECK((bundle != task) == r.bundled);
        if (bundle != task) {
            const auto alone = handoff::compiled_schema::from_json(bundle);
            for (const json& v : values) {
                INFO(v.dump());
                CHECK(alone.accepts(v) == original.accepts(v));
            }
        }
        for (const handoff::provider p : handoff::all_providers) {
            CHECK_NOTHROW(handoff::provider_schema(p, task, registry, uri));
        }
    }
}

TEST_CASE("a bundle that would be read in another dialect is left as written", "[schema][bundle]") {
    // A copy leaves its document's `$schema` behind, and would be read as the root is; a root
    // without `$schema`, read by its keywords, would be read by its copies' too. Each case is
    // judged as its documents say (tests), and the bundle leaves the schema as written.
    const json cases = handoff_test::read_fixture_json("bundle/readings.json");
    REQUIRE(cases.size() == 6);
    for (const json& c : cases) {
        INFO(c["description"].get<std::string>());
        handoff::schema_registry registry;
        const json documents = c["registry"];
        for (const auto& [uri, document] : documents.items()) {
            registry.add(uri, document);
        }
        const auto original = handoff::compiled_schema::from_json(c["schema"], registry);
        for (const json& t : c["tests"]) {
            INFO(t["data"].dump());
            CHECK(original.is_valid(t["data"]) == t["valid"].get<bool>());
        }
        CHECK(handoff::detail::bundled_schema(c["schema"], handoff::detail::ref_scope{&registry, "", {}}, {}) ==
              c["schema"]);
    }
}

TEST_CASE("bundling never throws: a root without a URI, text that is not UTF-8, many refs", "[schema][bundle]") {
    handoff::schema_registry registry;
    registry.add("http://ex.com/e", json{{"type", "integer"}});
    // Without a URI a location is a bare pointer, which may hold a '#'.
    const json no_uri = json::parse(R"({"properties": {"a": {"$ref": "#/definitions/a%23b"},
        "e": {"$ref": "http://ex.com/e"}}, "definitions": {"a#b": {"type": "integer"}}})");
    const json bundle = handoff::detail::bundled_schema(no_uri, {&registry, "", {}}, {});
    CHECK(bundle["properties"]["a"]["$ref"] == "#/definitions/a%23b");
    CHECK(bundle["properties"]["e"]["$ref"] == "#/definitions/e");
    CHECK_NOTHROW(handoff::provider_schema(handoff::provider::openai, no_uri, registry, ""));
    // A string that is not UTF-8 is carried as it is (no text round trip).
    const auto bad_text = nlohmann::ordered_json{{"type", "string"}, {"description", "\xff"}};
    CHECK(handoff::detail::bundled_schema(bad_text, {&registry, "", {}}, {}) == bad_text);
    CHECK_NOTHROW(handoff::provider_schema(handoff::provider::openai, bad_text, registry, ""));
    // Refs to many targets of one document, all named alike: linear, not quadratic.
    json many = {{"type", "object"}, {"properties", json::object()}};
    json target = {{"allOf", json::array()}};
    const double building = handoff_test::seconds_taken([&] {
        for (std::size_t i = 0; i < 20000; ++i) {
            target["allOf"].push_back({{"properties", {{"x", {{"type", "integer"}}}}}});
            many["properties"]["p" + std::to_string(i)] = {
                {"$ref", "http://ex.com/t#/allOf/" + std::to_string(i) + "/properties/x"}};
        }
    });
    registry.add("http://ex.com/t", target);
    json big;
    const double bundling = handoff_test::seconds_taken([&] {
        big = handoff::detail::bundled_schema(many, {&registry, "", {}}, {});
    });
    CHECK(bundling < handoff_test::linear_work_factor * building);
    CHECK(big["definitions"].size() == 20000);
    CHECK(big["definitions"].contains("x_20000"));
}

TEST_CASE("a URI fragment written for a pointer percent-encodes what a URI may not hold", "[schema][bundle]") {
    CHECK(handoff::detail::pointer_fragment("/definitions/sku~1code") == "/definitions/sku~1code");
    CHECK(handoff::detail::pointer_fragment("/definitions/channel kind") == "/definitions/channel%20kind");
    CHECK(handoff::detail::pointer_fragment("/a%b/c#d/\"e\"") == "/a%25b/c%23d/%22e%22");
    CHECK(handoff::detail::pointer_fragment("/caf\xC3\xA9") == "/caf%C3%A9");
}

TEST_CASE("provider_schema with a registry sends the documents a task schema's refs name",
          "[provider_schema][bundle]") {
    const handoff::schema_registry registry = shared_registry();
    const auto task = nlohmann::ordered_json::parse(handoff_test::read_file(order_path()));
    const std::string uri = handoff::schema_registry::file_uri(order_path());
    for (const handoff::provider p : {handoff::provider::openai, handoff::provider::anthropic,
                                      handoff::provider::gemini, handoff::provider::llama_cpp}) {
        INFO(handoff::to_string(p));
        const auto sent = handoff::provider_schema(p, task, registry, uri);
        for (const auto& note : sent.notes) {
            INFO(note.pointer << " " << note.keyword << " " << note.note);
            CHECK(note.keyword != "$ref"); // every ref resolved inside the schema sent
        }
        // The currency enum lives in common.schema.json: it reached the schema sent.
        CHECK(sent.schema.dump().find(R"(["EUR","USD","GBP"])") != std::string::npos);
        CHECK(sent.schema.dump().find(R"(["web","phone"])") != std::string::npos);
        // Without the registry, the refs are dropped and reported, as before.
        const auto alone = handoff::provider_schema(p, &task);
        CHECK(alone.schema.dump().find(R"(["EUR","USD","GBP"])") == std::string::npos);
    }
    // A task schema held as nlohmann::json (keys sorted) is bundled the same way.
    const auto from_plain =
        handoff::provider_schema(handoff::provider::openai, json::parse(task.dump()), registry, uri);
    CHECK(from_plain.schema.dump().find(R"(["EUR","USD","GBP"])") != std::string::npos);
    CHECK(from_plain.count(handoff::schema_note_kind::not_enforced) ==
          handoff::provider_schema(handoff::provider::openai, task, registry, uri)
              .count(handoff::schema_note_kind::not_enforced));
}

TEST_CASE("make_fixtures with a registry generates from the documents a task schema's refs name",
          "[fixtures][bundle]") {
    const handoff::schema_registry registry = shared_registry();
    const json task = json::parse(handoff_test::read_file(order_path()));
    const auto set = handoff::make_fixtures(task, registry, handoff::schema_registry::file_uri(order_path()));
    REQUIRE(set.ok());
    const auto original = handoff::compiled_schema::from_file(order_path(), registry);
    std::size_t accepted = 0;
    for (const handoff::fixture_file& f : set.files) {
        if (f.entry.route == handoff::route::accept) {
            ++accepted;
            CHECK(original.accepts(json::parse(f.text).at("partial_result")));
        }
    }
    CHECK(accepted == 1);
    // Without the registry the schema's refs lead nowhere: the receiver's own refusal.
    CHECK_THROWS_AS(handoff::make_fixtures(task), handoff::schema_error);
}

} // namespace test_schema_bundle
