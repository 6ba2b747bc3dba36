// SPDX-License-Identifier: MIT
// Routing tables tied to the task schema: built against examples/schemas/ticket.schema.json,
// a matching table, a missing label, an extra label, $ref and const, and handoff-check lint
// --routes run in process.

#include "support/catch.hpp"

#include "../tools/handoff-check/routes_command.hpp"

#include <handoff/route_table.hpp>

#include <nlohmann/json.hpp>

#include <fstream> // ifstream
#include <map>     // map
#include <set>     // set
#include <sstream> // istringstream, ostringstream
#include <string>  // string
#include <vector>  // vector

namespace test_route_table { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

const std::string routes_fixtures = std::string(HANDOFF_FIXTURES_DIR) + "/routes/";
const std::string ticket_schema_path = std::string(HANDOFF_FIXTURES_DIR) + "/../../examples/schemas/ticket.schema.json";

nlohmann::json ticket_schema() {
    std::ifstream in(ticket_schema_path);
    REQUIRE(in);
    return nlohmann::json::parse(in);
}

std::map<std::string, std::string> label_table() {
    return {{"billing", "billing-queue"}, {"outage", "sre-pager"},       {"how_to", "docs-bot"},
            {"bug", "bug-tracker"},       {"abuse", "trust-and-safety"}, {"human", "human-queue"}};
}

} // namespace

TEST_CASE("a table with one handler per label the ticket schema allows builds and routes", "[route_table]") {
    const auto table = handoff::route_table<std::string>::build(ticket_schema(), "/label", label_table());
    CHECK(table.pointer() == "/label");
    const nlohmann::json task = {{"label", "outage"}, {"severity", "p0"}};
    REQUIRE(table.find(task) != nullptr);
    CHECK(*table.find(task) == "sre-pager");
    CHECK(table.find(nlohmann::json::object()) == nullptr);
    CHECK(table.find(nlohmann::json("not an object")) == nullptr);
}

TEST_CASE("a label the schema allows but the table lacks is an error naming both", "[route_table]") {
    auto handlers = label_table();
    handlers.erase("human");
    const auto mismatches =
        handoff::check_routes(ticket_schema(), "/label", {"billing", "outage", "how_to", "bug", "abuse"});
    REQUIRE(mismatches.size() == 1);
    CHECK(mismatches[0].kind == handoff::route_mismatch_kind::missing_handler);
    CHECK(mismatches[0].value == "human");
    CHECK(mismatches[0].message ==
          "the schema allows \"human\" at /label but the table has no handler for it (table: abuse, billing, bug, "
          "how_to, outage)");
    try {
        (void)handoff::route_table<std::string>::build(ticket_schema(), "/label", handlers);
        FAIL("build accepted a table without a handler for \"human\"");
    } catch (const handoff::route_table_error& e) {
        REQUIRE(e.mismatches().size() == 1);
        CHECK(std::string(e.what()).find("/label: routes.missing_handler: the schema allows \"human\"") !=
              std::string::npos);
    }
}

TEST_CASE("a table entry the schema does not allow is an error naming both", "[route_table]") {
    auto handlers = label_table();
    handlers.emplace("spam", "spam-folder");
    try {
        (void)handoff::route_table<std::string>::build(ticket_schema(), "/label", handlers);
        FAIL("build accepted a table with a label the schema does not allow");
    } catch (const handoff::route_table_error& e) {
        REQUIRE(e.mismatches().size() == 1);
        const auto& m = e.mismatches()[0];
        CHECK(m.kind == handoff::route_mismatch_kind::unknown_value);
        CHECK(m.value == "spam");
        CHECK(m.message == "the table routes \"spam\" at /label but the schema does not allow it (schema: abuse, "
                           "billing, bug, how_to, human, outage)");
    }
}

TEST_CASE("the field's enum is found in a tuple's place, 2020-12 prefixItems or draft-07 items",
          "[route_table][dialects]") {
    const auto schema = nlohmann::json::parse(R"({"type": "object", "properties": {
        "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"enum": ["low", "high"]}]},
        "old": {"type": "array", "items": [{"const": "only"}]}}})");
    CHECK(handoff::allowed_values(schema, "/pair/1") == std::set<std::string>{"low", "high"});
    CHECK(handoff::allowed_values(schema, "/old/0") == std::set<std::string>{"only"});
    CHECK_FALSE(handoff::allowed_values(schema, "/pair/0"));
    CHECK_FALSE(handoff::allowed_values(schema, "/pair/2"));
}

TEST_CASE("a field without enum or const, or no field at all, cannot be routed on", "[route_table]") {
    const auto summary = handoff::check_routes(ticket_schema(), "/summary", {"x"});
    REQUIRE(summary.size() == 1);
    CHECK(summary[0].kind == handoff::route_mismatch_kind::field_not_closed);
    CHECK(handoff::check_routes(ticket_schema(), "/nope", {"x"}).at(0).kind ==
          handoff::route_mismatch_kind::field_not_closed);
    CHECK(handoff::check_routes(ticket_schema(), "label", {"x"}).at(0).kind ==
          handoff::route_mismatch_kind::field_not_closed); // not a JSON pointer
}

TEST_CASE("the field's enum is found through local $refs, items and const", "[route_table]") {
    const nlohmann::json schema = nlohmann::json::parse(R"({
        "type": "object",
        "properties": {
            "ticket": {"$ref": "#/definitions/ticket"},
            "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}},
            "kind": {"const": "ticket"},
            "loop": {"$ref": "#/definitions/loop"}
        },
        "definitions": {
            "ticket": {"type": "object", "properties": {"queue": {"$ref": "#/definitions/queue"}}},
            "queue": {"type": "string", "enum": ["a", "b"]},
            "loop": {"$ref": "#/definitions/loop"}
        },
        "$defs": {"tag": {"enum": ["x", 1, true]}}
    })");
    CHECK(handoff::allowed_values(schema, "/ticket/queue") == std::set<std::string>{"a", "b"});
    CHECK(handoff::allowed_values(schema, "/tags/*") == std::set<std::string>{"x", "1", "true"});
    CHECK(handoff::allowed_values(schema, "/tags/0") == std::set<std::string>{"x", "1", "true"});
    CHECK(handoff::allowed_values(schema, "/kind") == std::set<std::string>{"ticket"});
    CHECK_FALSE(handoff::allowed_values(schema, "/loop").has_value());
    CHECK(handoff::check_routes(schema, "/ticket/queue", {"a", "b"}).empty());
}

TEST_CASE("the field's enum is found through refs the validator resolves: ids, escapes, base changes",
          "[route_table]") {
    const nlohmann::json schema = nlohmann::json::parse(R"({
        "$id": "http://example.com/tickets/root.json",
        "type": "object",
        "properties": {
            "queue": {"$ref": "#queue"},
            "team": {"$ref": "#/definitions/team%20name"},
            "owner": {"$ref": "#/definitions/a~1b"},
            "site": {"$ref": "parts/site.json"}
        },
        "definitions": {
            "queue": {"$id": "#queue", "enum": ["a", "b"]},
            "team name": {"enum": ["red", "blue"]},
            "a/b": {"enum": ["me"]},
            "site": {"$id": "parts/site.json", "enum": ["north", "south"]}
        }
    })");
    CHECK(handoff::allowed_values(schema, "/queue") == std::set<std::string>{"a", "b"});
    CHECK(handoff::allowed_values(schema, "/team") == std::set<std::string>{"red", "blue"});
    CHECK(handoff::allowed_values(schema, "/owner") == std::set<std::string>{"me"});
    CHECK(handoff::allowed_values(schema, "/site") == std::set<std::string>{"north", "south"});
    CHECK(handoff::check_routes(schema, "/site", {"north", "south"}).empty());
    CHECK(handoff::check_routes(schema, "/site", {"north"}).size() == 1);
}

TEST_CASE("handoff-check lint --routes passes a matching table and names each mismatch", "[route_table][cli]") {
    std::ostringstream out;
    std::ostringstream err;
    CHECK(handoff_cli::run_lint_routes({routes_fixtures + "ticket_routes.json", ticket_schema_path}, out, err) == 0);
    CHECK(out.str().empty());

    std::ostringstream out2;
    const std::string table = routes_fixtures + "ticket_routes_mismatch.json";
    CHECK(handoff_cli::run_lint_routes({table, ticket_schema_path}, out2, err) == 1);
    CHECK(out2.str() ==
          table +
              ":/label: routes.missing_handler: the schema allows \"human\" at /label but the table has no handler for "
              "it (table: abuse, billing, bug, how_to, outage, spam)\n" +
              table +
              ":/label: routes.unknown_value: the table routes \"spam\" at /label but the schema does not allow it "
              "(schema: abuse, billing, bug, how_to, human, outage)\n");

    std::ostringstream out3;
    CHECK(handoff_cli::run_lint_routes({routes_fixtures + "ticket_routes_free_field.json", ticket_schema_path}, out3,
                                       err) == 1);
    CHECK(out3.str().find("routes.field_not_closed") != std::string::npos);
    CHECK(err.str().empty());
}

TEST_CASE("handoff-check lint --routes exits 2 on usage errors and unreadable files", "[route_table][cli]") {
    std::ostringstream out;
    std::ostringstream err;
    CHECK(handoff_cli::run_lint_routes({routes_fixtures + "ticket_routes.json"}, out, err) == 2);
    CHECK(handoff_cli::run_lint_routes({routes_fixtures + "missing.json", ticket_schema_path}, out, err) == 2);
    CHECK(handoff_cli::run_lint_routes({ticket_schema_path + ".nope", ticket_schema_path}, out, err) == 2);
    CHECK(err.str().find("cannot read") != std::string::npos);
}

TEST_CASE("handoff-check lint --routes escapes and caps the table's keys and values as lint does",
          "[route_table][cli][escaping]") {
    // Keys "/label\e[31m" and "/" + 5000 bytes + BEL, and under "/label" a value holding ESC, U+202E
    // and a newline (tests/fixtures/escaping/hostile_routes.json).
    const std::string table = std::string(HANDOFF_FIXTURES_DIR) + "/escaping/hostile_routes.json";
    std::ostringstream out;
    std::ostringstream err;
    CHECK(handoff_cli::run_lint_routes({table, ticket_schema_path}, out, err) == 1);
    const std::string text = out.str();
    INFO(text);
    for (const char raw : {'\x1b', '\x07', '\r'}) {
        CHECK(text.find(raw) == std::string::npos);
    }
    CHECK(text.find("\xE2\x80\xAE") == std::string::npos); // U+202E
    CHECK(text.find(table + ":/label\\u001b[31m: routes.field_not_closed: the table routes on /label\\u001b[31m "
                            "but the schema has no field there") != std::string::npos);
    CHECK(text.find(table +
                    ":/label: routes.unknown_value: the table routes \"bill\\u001b[2J\\u202e\\n\" at /label "
                    "but the schema does not allow it (schema: abuse, billing, bug, how_to, human, outage)\n") !=
          std::string::npos);
    // The 5000-byte key is cut as a pointer at the head of a message is (160 bytes and the marker).
    CHECK(text.find(":/" + std::string(159, 'k') + "... (5002 bytes): routes.field_not_closed") != std::string::npos);
    std::istringstream lines(text);
    std::size_t count = 0;
    for (std::string line; std::getline(lines, line); ++count) {
        CHECK(line.size() < table.size() + 600);
    }
    CHECK(count == 3);
    CHECK(err.str().empty());

    // The mismatch itself keeps the exact pointer and value; only the message is escaped.
    const auto mismatches = handoff::check_routes(ticket_schema(), "/label\x1b[31m", {"x"});
    REQUIRE(mismatches.size() == 1);
    CHECK(mismatches[0].pointer == "/label\x1b[31m");
    CHECK(mismatches[0].message.find('\x1b') == std::string::npos);
    try {
        (void)handoff::route_table<std::string>::build(ticket_schema(), "/label\x1b[31m", {{"x", "y"}});
        FAIL("build accepted a table on a pointer the schema lacks");
    } catch (const handoff::route_table_error& e) {
        CHECK(std::string(e.what()).find('\x1b') == std::string::npos);
        CHECK(std::string(e.what()).find("\n/label\\u001b[31m: routes.field_not_closed") != std::string::npos);
    }
}

} // namespace test_route_table
