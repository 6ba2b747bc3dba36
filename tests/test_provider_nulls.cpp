// SPDX-License-Identifier: MIT
// <handoff/provider_nulls.hpp>: a reply decoded under OpenAI's strict schema says null for every
// optional field it leaves out; removing exactly those nulls turns it back into an envelope the
// receiver accepts, and no other null is touched.

#include "support/catch.hpp"
#include "support/fixtures.hpp"
#include "support/hang_guard.hpp"

#include <handoff/detail/provider/nulled_optionals.hpp>
#include <handoff/provider_nulls.hpp>
#include <handoff/provider_schema.hpp>
#include <handoff/receiver.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>  // sort, any_of, count
#include <cstddef>    // size_t
#include <filesystem> // directory_iterator
#include <set>        // set
#include <string>     // string
#include <tuple>      // tie
#include <utility>    // pair
#include <vector>     // vector

namespace test_provider_nulls { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

using ojson = nlohmann::ordered_json;

ojson read_schema(const std::string& path) { return ojson::parse(handoff_test::read_file(path)); }

ojson ticket_schema() { return read_schema(handoff_test::fixture_path("../../examples/schemas/ticket.schema.json")); }

using handoff::detail::nulled_places;
using closure = std::vector<std::size_t>;

/// Whether two patterns read every reply alike: from their roots, the same keys are nulled at
/// every place reached, by the same keys and items (each pair of places compared once, so a
/// recursive pattern ends).
bool same_pattern(const nulled_places& a, const nulled_places& b) {
    std::set<std::pair<closure, closure>> seen;
    std::vector<std::pair<closure, closure>> pending{{{0}, {0}}};
    while (!pending.empty()) {
        closure x = a.closure(pending.back().first);
        closure y = b.closure(pending.back().second);
        pending.pop_back();
        std::sort(x.begin(), x.end());
        std::sort(y.begin(), y.end());
        if (!seen.emplace(x, y).second) {
            continue;
        }
        std::set<std::string> nulled_x, nulled_y, keys;
        for (const auto& [pattern, at, nulled] : {std::tie(a, x, nulled_x), std::tie(b, y, nulled_y)}) {
            for (const std::size_t p : at) {
                nulled.insert(pattern.places()[p].nulled.begin(), pattern.places()[p].nulled.end());
                for (const auto& property : pattern.places()[p].properties) {
                    keys.insert(property.first);
                }
            }
        }
        if (nulled_x != nulled_y) {
            return false;
        }
        for (const std::string& key : keys) {
            pending.emplace_back(a.property_places(x, key), b.property_places(y, key));
        }
        pending.emplace_back(a.item_places(x), b.item_places(y));
    }
    return true;
}

std::size_t nulled_count(const nulled_places& pattern) {
    std::size_t n = 0;
    for (const auto& place : pattern.places()) {
        n += place.nulled.size();
    }
    return n;
}

// What a model writes under the OpenAI schema for a finished ticket: every optional envelope
// field present and null, reason_code null as the contract allows.
const std::string strict_reply = R"({"status":"ok","reason_code":null,"partial_result":{"label":"billing",)"
                                 R"("severity":"p2","summary":"Customer was charged twice for the March invoice.",)"
                                 R"("citations":["SOURCE-1"]},"schema_ok":true,"coverage":{"items_expected":1,)"
                                 R"("items_completed":1,"unit":"ticket","fraction":1},"steps":{"completed":["triage"],)"
                                 R"("remaining":[]},"retry_hint":null,"trace":null,"budget":null})";

} // namespace

TEST_CASE("an OpenAI strict reply with nulled optionals is refused as sent and accepted once they are removed",
          "[provider_nulls]") {
    const ojson task = ticket_schema();
    const auto sent = handoff::provider_schema(handoff::provider::openai, &task);
    const handoff::receiver<> receiver(nlohmann::json::parse(task.dump()));
    CHECK(receiver.receive(strict_reply).route == handoff::route::repair);
    const std::string cleaned = handoff::remove_nulled_optionals(strict_reply, sent);
    const ojson envelope = ojson::parse(cleaned);
    CHECK_FALSE(envelope.contains("retry_hint"));
    CHECK_FALSE(envelope.contains("trace"));
    CHECK_FALSE(envelope.contains("budget"));
    CHECK(envelope.contains("reason_code")); // its null is the contract's own, not the provider's
    CHECK(envelope.begin().key() == "status");
    CHECK(receiver.receive(cleaned).route == handoff::route::accept);
}

TEST_CASE("only nulls the provider schema introduced are removed, at any depth", "[provider_nulls]") {
    const ojson task = {{"type", "object"},
                        {"additionalProperties", false},
                        {"required", {"rows"}},
                        {"properties",
                         {{"rows",
                           {{"type", "array"},
                            {"items",
                             {{"type", "object"},
                              {"additionalProperties", false},
                              {"required", {"id"}},
                              {"properties", {{"id", {{"type", "string"}}}, {"note", {{"type", "string"}}}}}}}}},
                          // A key may be any string, "*" too: it is a key here, not "every item".
                          {"*", {{"type", "string"}}}}}};
    const auto sent = handoff::provider_schema(handoff::provider::openai, &task);
    ojson reply = {{"status", "ok"},
                   {"budget", {{"tokens_used", nullptr}, {"token_cap", 10}}},
                   {"partial_result",
                    {{"rows", {{{"id", "a"}, {"note", nullptr}}, {{"id", nullptr}, {"note", "x"}}}}, {"*", nullptr}}}};
    handoff::remove_nulled_optionals(reply, sent);
    CHECK(reply["budget"] == ojson{{"token_cap", 10}});
    CHECK(reply["partial_result"]["rows"][0] == ojson{{"id", "a"}});
    CHECK(reply["partial_result"]["rows"][1] == ojson{{"id", nullptr}, {"note", "x"}}); // id is required: kept
    CHECK_FALSE(reply["partial_result"].contains("*"));
}

TEST_CASE("a reply of 10,000 nulled optionals and a schema of 10,000 definitions are each read in one pass",
          "[provider_nulls]") {
    // An ordered object erased key by key, and each note matched against every definition, took
    // the square of each: seconds for a reply the receiver reads in milliseconds.
    struct nulled_reply {
        std::string reply;
        handoff::provider_schema_result sent;
    };
    const auto make = [](int count) {
        nlohmann::json properties = nlohmann::json::object(); // built in n log n: the test is not the cost
        nlohmann::json definitions = nlohmann::json::object();
        std::string reply = R"({"status": "ok", "partial_result": {"kept": "k")";
        for (int i = 0; i < count; ++i) {
            const std::string n = std::to_string(i);
            properties["p" + n] = {{"$ref", "#/$defs/d" + n}};
            definitions["d" + n] = {{"type", "object"}, {"properties", {{"n", {{"type", "string"}}}}}};
            reply += ", \"p" + n + "\": " + (i == 7 ? R"({"n": null})" : "null");
        }
        properties["kept"] = {{"type", "string"}};
        reply += "}}";
        const nlohmann::json task = {{"type", "object"}, {"properties", properties}, {"$defs", definitions}};
        return nulled_reply{reply, handoff::provider_schema(handoff::provider::openai, &task)};
    };
    const nulled_reply quarter = make(2'500);
    const nulled_reply whole = make(10'000);
    const double quarter_seconds =
        handoff_test::least_seconds_taken([&] { (void)handoff::remove_nulled_optionals(quarter.reply, quarter.sent); });
    std::string cleaned_text;
    const double whole_seconds = handoff_test::least_seconds_taken(
        [&] { cleaned_text = handoff::remove_nulled_optionals(whole.reply, whole.sent); });
    CHECK(whole_seconds < handoff_test::quadrupled_input_factor * quarter_seconds);
    const ojson cleaned = ojson::parse(cleaned_text);
    CHECK(cleaned.at("partial_result") == ojson{{"kept", "k"}, {"p7", ojson::object()}});
}

TEST_CASE("a null is removed under a copy whose $ref names its target unescaped", "[provider_nulls]") {
    // "#/properties/a~b" reads "~b" as it is; the copy's origin keeps the text, the notes
    // the escaped pointer: both are matched written the same way.
    const ojson task = {{"type", "object"},
                        {"properties",
                         {{"a~b", {{"type", "object"}, {"properties", {{"x", {{"type", "string"}}}}}}},
                          {"other", {{"$ref", "#/properties/a~b"}}}}}};
    const auto sent = handoff::provider_schema(handoff::provider::openai, &task);
    const ojson cleaned = ojson::parse(handoff::remove_nulled_optionals(
        std::string(R"({"partial_result": {"a~b": {"x": null}, "other": {"x": null}}})"), sent));
    CHECK(cleaned.at("partial_result") == ojson{{"a~b", ojson::object()}, {"other", ojson::object()}});
}

TEST_CASE("a reply that is not JSON, or a schema with nothing made nullable, comes back unchanged",
          "[provider_nulls]") {
    const ojson task = ticket_schema();
    const auto openai = handoff::provider_schema(handoff::provider::openai, &task);
    CHECK(handoff::remove_nulled_optionals("```json\n{\"budget\": null}\n```", openai) ==
          "```json\n{\"budget\": null}\n```");
    const auto anthropic = handoff::provider_schema(handoff::provider::anthropic, &task);
    CHECK(handoff::remove_nulled_optionals(strict_reply, anthropic) == strict_reply);
}

// The receiver finds the places by walking nlohmann::json with the rewrite's rules, without
// building the rewrite; remove_nulled_optionals() reads provider_schema()'s notes and the `$ref`s
// of the schema it sent. Both must read every reply alike.
TEST_CASE("the receiver's nulled places are exactly those of provider_schema()'s made_nullable notes",
          "[provider_nulls]") {
    std::vector<std::string> files = {handoff_test::fixture_path("../../examples/schemas/ticket.schema.json"),
                                      handoff_test::fixture_path("../../examples/schemas/invoice.schema.json"),
                                      handoff_test::fixture_path("provider_nulls/person.schema.json"),
                                      handoff_test::fixture_path("provider_nulls/ref_cycle.schema.json")};
    for (const auto& entry : std::filesystem::directory_iterator(handoff_test::fixture_path("schemas"))) {
        if (entry.path().extension() == ".json" && entry.path().filename() != "number_cases.json") {
            files.push_back(entry.path().string());
        }
    }
    std::size_t task_places = 0; // nulled keys beyond the envelope's own: the tasks' optionals
    for (const handoff::provider target : handoff::all_providers) {
        CAPTURE(std::string(handoff::to_string(target)));
        const auto envelope_only = handoff::detail::nulled_optional_places(target, nullptr);
        CHECK(
            same_pattern(envelope_only, handoff::detail::nulled_places_of(handoff::provider_schema(target, nullptr))));
        for (const std::string& file : files) {
            CAPTURE(file);
            const ojson ordered = read_schema(file);
            const nlohmann::json sorted = nlohmann::json::parse(ordered.dump());
            const auto places = handoff::detail::nulled_optional_places(target, &sorted);
            CHECK(same_pattern(places, handoff::detail::nulled_places_of(handoff::provider_schema(target, &ordered))));
            task_places += nulled_count(places) - nulled_count(envelope_only);
            // Read in a named dialect (a schema without $schema takes it), both walks still agree.
            for (const handoff::schema_dialect dialect :
                 {handoff::schema_dialect::draft07, handoff::schema_dialect::draft2020_12}) {
                handoff::provider_schema_options options;
                options.schema.dialect = dialect;
                CHECK(same_pattern(
                    handoff::detail::nulled_optional_places(target, &sorted, options.schema),
                    handoff::detail::nulled_places_of(handoff::provider_schema(target, &ordered, options))));
            }
        }
    }
    CHECK(task_places > 0);
}

TEST_CASE("a receiver told the reply came from OpenAI reads its nulled optionals as absent, fenced or not",
          "[provider_nulls]") {
    const nlohmann::json task = nlohmann::json::parse(ticket_schema().dump());
    handoff::receiver_options options;
    options.from = handoff::provider::openai;
    const handoff::receiver<> from_openai(task, options);
    const auto receipt = from_openai.receive(strict_reply);
    CHECK(receipt.route == handoff::route::accept);
    CHECK(receipt.problems.empty());
    CHECK_FALSE(receipt.envelope->retry_hint.has_value());
    // The tolerant decode still runs first: a fence around the reply is removed and recorded.
    const auto fenced = from_openai.receive("```json\n" + strict_reply + "\n```");
    CHECK(fenced.route == handoff::route::accept);
    CHECK(fenced.tolerances.size() == 1);
    // A null the provider schema did not introduce is still the receiver's to refuse.
    std::string bad = strict_reply;
    bad.replace(bad.find("\"severity\":\"p2\""), 15, "\"severity\":null");
    CHECK(from_openai.receive(bad).route == handoff::route::repair);
    // Told nothing, the same receiver refuses the nulls, as the contract says.
    CHECK(handoff::receiver<>(task).receive(strict_reply).route == handoff::route::repair);
}

// The receiver finds the provider's nulls on the schema as given, without writing it out: a
// schema built in code with a byte that is not UTF-8 builds a receiver with `from` set, and that
// receiver still reads the provider's null for the optional property as absent.
TEST_CASE("a schema with a byte that is not UTF-8 builds a receiver with from set that reads nulled optionals",
          "[provider_nulls]") {
    const nlohmann::json task = {
        {"type", "object"},
        {"additionalProperties", false},
        {"properties", {{"note", {{"type", "string"}, {"description", std::string("caf\xe9 in Latin-1")}}}}}};
    handoff::receiver_options options;
    options.from = handoff::provider::openai;
    const handoff::receiver<> from_openai(task, options);
    const handoff::receiver<> plain(task);
    std::string reply = strict_reply;
    const std::size_t start = reply.find("\"partial_result\":") + std::string("\"partial_result\":").size();
    const std::size_t end = reply.find(",\"schema_ok\"");
    reply.replace(start, end - start, R"({"note":null})");
    const std::string envelope_nulls = R"(,"retry_hint":null,"trace":null,"budget":null)";
    reply.erase(reply.find(envelope_nulls), envelope_nulls.size()); // only the task's null is left
    // OpenAI's null for the absent note is read as absent; told nothing, the receiver refuses it.
    const auto read = from_openai.receive(reply);
    CHECK(read.route == handoff::route::accept);
    CHECK(read.problems.empty());
    const auto refused = plain.receive(reply);
    CHECK(refused.route == handoff::route::repair);
    CHECK(std::any_of(refused.problems.begin(), refused.problems.end(),
                      [](const auto& problem) { return problem.pointer == "/partial_result/note"; }));
}

// Pydantic writes a nested model as a `$defs` definition and a `$ref` to it; OpenAI's strict
// schema makes the definition's optional properties required and nullable like any other, so
// the model's nulls for them sit wherever the definition is used: in a property, in list items,
// in an anyOf member, and at every depth of a recursive model.
namespace {

nlohmann::json person_schema() { return handoff_test::read_fixture_json("provider_nulls/person.schema.json"); }

std::string person_reply() { return handoff_test::read_fixture("provider_nulls/person_reply_openai.json"); }

/// The reply with the envelope's own optional nulls removed: what is left for the task schema.
std::string person_reply_task_nulls_only() {
    nlohmann::json reply = nlohmann::json::parse(person_reply());
    for (const char* key : {"retry_hint", "trace", "budget"}) {
        reply.erase(key);
    }
    return reply.dump();
}

std::vector<std::string> problem_pointers(const handoff::receipt<nlohmann::json>& receipt) {
    std::vector<std::string> pointers;
    for (const auto& problem : receipt.problems) {
        pointers.push_back(problem.pointer);
    }
    std::sort(pointers.begin(), pointers.end());
    return pointers;
}

} // namespace

TEST_CASE("remove_nulled_optionals removes the nulls OpenAI put in for optionals inside $defs, through every $ref",
          "[provider_nulls]") {
    const ojson task = ojson::parse(handoff_test::read_fixture("provider_nulls/person.schema.json"));
    const auto sent = handoff::provider_schema(handoff::provider::openai, &task);
    // The notes name the properties at their definitions' old places, as given.
    std::vector<std::string> noted;
    for (const auto& note : sent.notes) {
        if (note.kind == handoff::schema_note_kind::made_nullable &&
            note.pointer.rfind("/properties/partial_result", 0) == 0) {
            noted.push_back(note.pointer);
        }
    }
    std::sort(noted.begin(), noted.end());
    CHECK(noted == std::vector<std::string>{"/properties/partial_result/anyOf/0/$defs/Address/properties/zip",
                                            "/properties/partial_result/anyOf/0/$defs/Node/properties/note"});
    const std::string cleaned = handoff::remove_nulled_optionals(person_reply(), sent);
    CHECK(ojson::parse(cleaned) ==
          ojson::parse(handoff_test::read_fixture("provider_nulls/person_reply_cleaned.json")));
    // The same names elsewhere are other places: a zip beside the tree's nodes is no Address's.
    ojson elsewhere = {
        {"partial_result",
         {{"zip", nullptr},
          {"tree", {{"name", "root"}, {"zip", nullptr}, {"children", {{{"name", "leaf"}, {"note", nullptr}}}}}},
          {"home", {{"street", "1 Main St"}, {"note", nullptr}}}}}};
    handoff::remove_nulled_optionals(elsewhere, sent);
    CHECK(elsewhere == ojson{{"partial_result",
                              {{"zip", nullptr},
                               {"tree", {{"name", "root"}, {"zip", nullptr}, {"children", {{{"name", "leaf"}}}}}},
                               {"home", {{"street", "1 Main St"}, {"note", nullptr}}}}}});
}

TEST_CASE("an OpenAI reply with nulls inside $defs places is accepted from openai and refused, at each null, "
          "when the receiver is told nothing",
          "[provider_nulls]") {
    handoff::receiver_options options;
    options.from = handoff::provider::openai;
    const handoff::receiver<> from_openai(person_schema(), options);
    const handoff::receiver<> plain(person_schema());
    const auto read = from_openai.receive(person_reply());
    CHECK(read.route == handoff::route::accept);
    CHECK(read.problems.empty());
    REQUIRE(read.envelope.has_value());
    CHECK(read.envelope->partial_result == nlohmann::json::parse(handoff_test::read_fixture(
                                               "provider_nulls/person_reply_cleaned.json"))["partial_result"]);
    const auto refused = plain.receive(person_reply_task_nulls_only());
    CHECK(refused.route == handoff::route::repair);
    CHECK(refused.failed_step == handoff::step::task_schema);
    CHECK(problem_pointers(refused) ==
          std::vector<std::string>{"/partial_result/home/zip", "/partial_result/office",
                                   "/partial_result/previous/0/zip", "/partial_result/tree/children/0/children/0/note",
                                   "/partial_result/tree/children/0/note", "/partial_result/tree/note"});
}

TEST_CASE("a null where the provider schema made nothing nullable is refused with or without from, inside $defs too",
          "[provider_nulls]") {
    handoff::receiver_options options;
    options.from = handoff::provider::openai;
    const handoff::receiver<> from_openai(person_schema(), options);
    const handoff::receiver<> plain(person_schema());
    nlohmann::json reply = nlohmann::json::parse(person_reply_task_nulls_only());
    reply["partial_result"]["home"]["street"] = nullptr;                     // required in Address
    reply["partial_result"]["tree"]["children"][0]["name"] = nullptr;        // required in Node
    reply["partial_result"]["previous"][1]["zip"] = nlohmann::json::array(); // not null: a wrong type
    for (const handoff::receiver<>* receiver : {&from_openai, &plain}) {
        const auto receipt = receiver->receive(reply.dump());
        CHECK(receipt.route == handoff::route::repair);
        const auto pointers = problem_pointers(receipt);
        for (const char* pointer : {"/partial_result/home/street", "/partial_result/previous/1/zip",
                                    "/partial_result/tree/children/0/name"}) {
            CHECK(std::count(pointers.begin(), pointers.end(), pointer) == 1);
        }
    }
}

TEST_CASE("definitions that refer to each other with no step between are followed once, not for ever",
          "[provider_nulls]") {
    const ojson task = ojson::parse(handoff_test::read_fixture("provider_nulls/ref_cycle.schema.json"));
    const auto sent = handoff::provider_schema(handoff::provider::openai, &task);
    ojson reply = {{"status", "ok"},
                   {"partial_result", {{"a", {{"x", nullptr}, {"next", {{"x", nullptr}, {"next", {{"x", "end"}}}}}}}}}};
    handoff::remove_nulled_optionals(reply, sent);
    CHECK(reply["partial_result"] == ojson{{"a", {{"next", {{"next", {{"x", "end"}}}}}}}});
    // The receiver's own walk over the same schema finds the same places.
    const nlohmann::json schema = handoff_test::read_fixture_json("provider_nulls/ref_cycle.schema.json");
    nlohmann::json received = nlohmann::json::parse(
        R"({"partial_result":{"a":{"x":null,"next":{"x":null,"next":{"x":"end","next":{"x":null}}}}}})");
    handoff::detail::remove_nulls_at(received,
                                     handoff::detail::nulled_optional_places(handoff::provider::openai, &schema));
    CHECK(received == nlohmann::json::parse(R"({"partial_result":{"a":{"next":{"next":{"x":"end","next":{}}}}}})"));
}

} // namespace test_provider_nulls
