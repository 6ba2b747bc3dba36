// SPDX-License-Identifier: MIT
// tools/bowtie/handoff_bowtie.cpp, handoff's harness for Bowtie, run as Bowtie runs it: requests
// of Bowtie's protocol version 1 as JSON lines on its stdin, one response per line read back.
// The required cases of the JSON Schema Test Suite in every dialect (with the remotes as Bowtie
// sends them), then lines no implementation should crash on.

#include "support/fixtures.hpp"
#include "support/process.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>  // sort
#include <cstddef>    // size_t
#include <cstdint>    // int64_t
#include <filesystem> // path, recursive_directory_iterator
#include <fstream>    // ofstream
#include <iostream>   // cout
#include <sstream>    // istringstream
#include <string>     // string
#include <vector>     // vector

namespace test_bowtie_harness { // this file's own names: see "unity build" in tests/CMakeLists.txt

#ifndef HANDOFF_BOWTIE_EXE
#error "HANDOFF_BOWTIE_EXE must name the handoff-bowtie binary"
#endif
#ifndef HANDOFF_CLI_TEMP_DIR
#error "HANDOFF_CLI_TEMP_DIR must name a folder for the test's files"
#endif

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path suite_dir = fs::path(HANDOFF_CORPORA_DIR) / "JSON-Schema-Test-Suite";

/// A dialect as Bowtie names it: its folder in the suite ("short name") and its URI.
struct dialect {
    std::string short_name;
    std::string uri;
    bool boolean_schemas;
};
const std::vector<dialect> dialects = {
    {"draft2020-12", "https://json-schema.org/draft/2020-12/schema", true},
    {"draft2019-09", "https://json-schema.org/draft/2019-09/schema", true},
    {"draft7", "http://json-schema.org/draft-07/schema#", true},
    {"draft6", "http://json-schema.org/draft-06/schema#", true},
    {"draft4", "http://json-schema.org/draft-04/schema#", false},
};

/// The remotes Bowtie sends a dialect's cases, by URI: every remotes/ file but those declaring
/// another `$schema`, those in another dialect's folder, and tree.json where schemas cannot be
/// booleans (bowtie/_suite.py, _remotes_in).
json remotes_for(const dialect& d) {
    json registry = json::object();
    for (const auto& entry : fs::recursive_directory_iterator(suite_dir / "remotes")) {
        if (entry.path().extension() != ".json") {
            continue;
        }
        const std::string relative = fs::relative(entry.path(), suite_dir / "remotes").generic_string();
        const json schema = json::parse(handoff_test::read_file(entry.path().string()));
        const bool other_schema = schema.is_object() && schema.contains("$schema") && schema["$schema"] != d.uri;
        const bool other_folder = relative.rfind("draft", 0) == 0 && relative.rfind(d.short_name, 0) != 0;
        if (!other_schema && !other_folder && (d.boolean_schemas || relative != "tree.json")) {
            registry["http://localhost:1234/" + relative] = schema;
        }
    }
    return registry;
}

/// A suite file's cases as Bowtie's run requests (bowtie/_suite.py, cases_from: "data" becomes
/// "instance"; only refRemote, dynamicRef and vocabulary carry the registry).
void add_runs(const fs::path& file, const json& remotes, std::vector<json>& requests, std::vector<json>& expected) {
    const std::string stem = file.stem().string();
    const bool with_registry = stem == "refRemote" || stem == "dynamicRef" || stem == "vocabulary";
    for (json test_case : json::parse(handoff_test::read_file(file.string()))) {
        json verdicts = json::array();
        for (json& test : test_case["tests"]) {
            verdicts.push_back(test["valid"]);
            test["instance"] = test["data"];
            test.erase("data");
        }
        test_case.erase("specification");
        if (with_registry) {
            test_case["registry"] = remotes;
        }
        const auto seq = static_cast<std::int64_t>(requests.size());
        requests.push_back({{"cmd", "run"}, {"seq", seq}, {"case", test_case}, {"output", "flag"}});
        expected.push_back(verdicts);
    }
}

struct harness_run {
    int exit_status = -1;
    std::vector<json> responses;
};

/// Runs handoff-bowtie on `lines` (one request each, written as given) and reads every line
/// it writes back as JSON.
harness_run run_harness(const std::string& name, const std::vector<std::string>& lines) {
    const std::string input = std::string(HANDOFF_CLI_TEMP_DIR) + "/" + name + ".jsonl";
    {
        std::ofstream out(input, std::ios::binary);
        for (const std::string& line : lines) {
            out << line << '\n';
        }
    }
    const auto ran = handoff_test::run_shell("'" HANDOFF_BOWTIE_EXE "' < '" + input + "'");
    harness_run result;
    result.exit_status = ran.exit_status;
    std::istringstream out(ran.out);
    for (std::string line; std::getline(out, line);) {
        json parsed = json::parse(line, nullptr, false);
        REQUIRE_FALSE(parsed.is_discarded()); // every line the harness writes is JSON
        result.responses.push_back(std::move(parsed));
    }
    return result;
}

const std::string start_line = R"({"cmd": "start", "version": 1})";
const std::string stop_line = R"({"cmd": "stop"})";

} // namespace

TEST_CASE("handoff-bowtie answers every required case of the suite in each dialect as the suite says", "[bowtie]") {
    REQUIRE(fs::is_directory(suite_dir / "tests")); // a missing corpus fails, never skips
    std::vector<std::string> lines = {start_line};
    std::vector<json> requests;
    std::vector<json> expected;
    std::vector<std::size_t> first_run_of; // per dialect, the index of its first run request
    for (const dialect& d : dialects) {
        lines.push_back(json{{"cmd", "dialect"}, {"dialect", d.uri}}.dump());
        first_run_of.push_back(requests.size());
        const json remotes = remotes_for(d);
        std::vector<fs::path> files;
        for (const auto& entry : fs::directory_iterator(suite_dir / "tests" / d.short_name)) {
            if (entry.is_regular_file()) { // optional/ holds the optional cases: its own test
                files.push_back(entry.path());
            }
        }
        std::sort(files.begin(), files.end());
        for (const fs::path& file : files) {
            const std::size_t before = requests.size();
            add_runs(file, remotes, requests, expected);
            for (std::size_t i = before; i < requests.size(); ++i) {
                lines.push_back(requests[i].dump());
            }
        }
    }
    first_run_of.push_back(requests.size());
    lines.push_back(stop_line);

    const harness_run ran = run_harness("suite", lines);
    CHECK(ran.exit_status == 0);
    // The start response, then per dialect its "ok" and one response per run request.
    REQUIRE(ran.responses.size() == 1 + dialects.size() + requests.size());
    CHECK(ran.responses[0].at("version") == 1);
    std::size_t at = 1;
    std::size_t all_wrong = 0;
    std::size_t errored_cases = 0;
    std::string failures; // the first few, shown when the test fails
    for (std::size_t k = 0; k < dialects.size(); ++k) {
        CHECK(ran.responses[at++] == json{{"ok", true}});
        std::size_t right = 0;
        std::size_t wrong = 0;
        std::size_t errored = 0;
        for (std::size_t i = first_run_of[k]; i < first_run_of[k + 1]; ++i) {
            const json& response = ran.responses[at++];
            REQUIRE(response.at("seq") == requests[i]["seq"]);
            if (response.contains("errored")) {
                if (errored_cases++ < 20) { // the first few say why; the counts say how many
                    failures += requests[i]["case"]["description"].get<std::string>() + ": " + response.dump() + "\n";
                }
                errored += expected[i].size();
                continue;
            }
            REQUIRE(response.at("results").size() == expected[i].size());
            for (std::size_t t = 0; t < expected[i].size(); ++t) {
                const bool is_right = response["results"][t] == json{{"valid", expected[i][t]}};
                (is_right ? right : wrong) += 1;
                if (!is_right && wrong <= 20) {
                    failures += requests[i]["case"]["description"].get<std::string>() + " / test " + std::to_string(t) +
                                ": " + response["results"][t].dump() + "\n";
                }
            }
        }
        std::cout << "bowtie " << dialects[k].short_name << ": " << right << " right, " << wrong << " wrong, "
                  << errored << " errored\n";
        all_wrong += wrong + errored;
    }
    INFO(failures);
    REQUIRE(all_wrong == 0);
}

TEST_CASE("handoff-bowtie's start response speaks protocol version 1 and lists the five dialects", "[bowtie]") {
    const harness_run ran = run_harness("start", {start_line, stop_line});
    CHECK(ran.exit_status == 0);
    REQUIRE(ran.responses.size() == 1);
    const json& implementation = ran.responses[0].at("implementation");
    CHECK(ran.responses[0].at("version") == 1);
    CHECK(implementation.at("name") == "handoff");
    CHECK(implementation.at("language") == "c++");
    json uris = json::array();
    for (const dialect& d : dialects) {
        uris.push_back(d.uri);
    }
    CHECK(implementation.at("dialects") == uris);
}

TEST_CASE("handoff-bowtie answers a remote $ref from the case's registry, and a refused schema as errored",
          "[bowtie]") {
    const json with_remote = {
        {"cmd", "run"},
        {"seq", "r"},
        {"case",
         {{"description", "a remote"},
          {"schema", {{"$ref", "http://localhost:1234/integer.json"}}},
          {"registry", {{"http://localhost:1234/integer.json", {{"type", "integer"}}}}},
          {"tests",
           {{{"description", "an integer"}, {"instance", 1}}, {{"description", "a string"}, {"instance", "1"}}}}}}};
    const json refused = {
        {"cmd", "run"},
        {"seq", 7},
        {"case", {{"description", "bad"}, {"schema", {{"type", 7}}}, {"tests", {{{"instance", 1}}}}}}};
    const harness_run ran = run_harness("registry", {start_line, with_remote.dump(), refused.dump(), stop_line});
    REQUIRE(ran.responses.size() == 3);
    CHECK(ran.responses[1] == json{{"seq", "r"}, {"results", {{{"valid", true}}, {{"valid", false}}}}});
    CHECK(ran.responses[2].at("seq") == 7);
    CHECK(ran.responses[2].at("errored") == true);
    CHECK(ran.responses[2].at("context").at("message").get<std::string>().rfind("handoff: schema /type: ", 0) == 0);
}

TEST_CASE("handoff-bowtie answers each line outside the protocol with one errored response and goes on", "[bowtie]") {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    const std::string run_ok =
        R"({"cmd": "run", "seq": 9, "case": {"description": "c", "schema": {"const": 37}, "tests": [{"description": "t", "instance": 37}]}})";
    const std::vector<std::string> lines = {
        R"({"cmd": "run", "seq": 1, "case": {}})", // before start
        R"({"cmd": "start", "version": 2})",       // a version this harness does not speak
        start_line, "not json", "[]", R"({"no": "cmd"})", R"({"cmd": "launch", "seq": 2})",
        R"({"cmd": "run", "seq": 3})", R"({"cmd": "run", "seq": 4, "case": {"schema": {}, "tests": 5}})", deep,
        "{\"cmd\": \"run\", \"seq\": \"\xff\"}", R"({"cmd": "run", "seq": 1e999})",
        "\xEF\xBB\xBF" + run_ok, // a byte order mark before it
        R"({"cmd": "run", "seq": 7, "seq": 8, "case": {"schema": {}, "tests": [{"instance": 1}]}})",
        R"({"cmd": "run", "seq": 5, "case": {"schema": {}, "tests": [{"description": "no instance"}]}})",
        R"({"cmd": "run", "seq": 6, "output": "annotations", "case": {"schema": {}, "tests": [{"instance": 1}]}})",
        // Past what the request reader reads, with the seq Bowtie files the answer under: a lone
        // surrogate (Python's json.dumps writes one), nesting over the bound.
        R"({"cmd": "run", "seq": 10, "case": {"schema": {}, "tests": [{"instance": "\ud800"}]}})",
        R"({"seq": {"id": [11]}, "cmd": "run", "case": {"schema": {}, "tests": [{"instance": )" + deep + "}]}}", run_ok,
        stop_line,
        run_ok, // after stop: never read
    };
    const harness_run ran = run_harness("hostile", lines);
    CHECK(ran.exit_status == 0);
    REQUIRE(ran.responses.size() == 19);
    const auto errored_with = [&](std::size_t i, const json& seq) {
        INFO(i << ": " << ran.responses[i].dump());
        CHECK(ran.responses[i].at("errored") == true);
        CHECK(ran.responses[i].value("seq", json()) == seq);
        CHECK(ran.responses[i].at("context").at("message").is_string());
    };
    errored_with(0, 1);
    errored_with(1, nullptr);
    CHECK(ran.responses[2].at("version") == 1);
    errored_with(3, nullptr);
    errored_with(4, nullptr);
    errored_with(5, nullptr);
    errored_with(6, 2);
    errored_with(7, 3);
    errored_with(8, 4);
    errored_with(9, nullptr);  // nesting over the harness's bound
    errored_with(10, nullptr); // not UTF-8
    errored_with(11, nullptr); // a number out of range
    errored_with(12, 9);       // a byte order mark: its seq found all the same
    errored_with(13, nullptr); // a repeated key: which seq is meant is not certain
    CHECK(ran.responses[14].at("seq") == 5);
    CHECK(ran.responses[14].at("results")[0].at("errored") == true);
    CHECK(
        ran.responses[15] ==
        json{{"seq", 6}, {"results", {{{"skipped", true}, {"message", "handoff reports validity, not annotations"}}}}});
    errored_with(16, 10);
    errored_with(17, json{{"id", {11}}});
    CHECK(ran.responses[18] == json{{"seq", 9}, {"results", {{{"valid", true}}}}});
}

TEST_CASE("handoff-bowtie runs a pattern on a string of any length, so the verdict is the suite's", "[bowtie]") {
    const std::string long_a(100'000, 'a');
    const auto run = [&](int seq, const json& schema) {
        return json{{"cmd", "run"},
                    {"seq", seq},
                    {"case", {{"description", "long"}, {"schema", schema}, {"tests", {{{"instance", long_a}}}}}}}
            .dump();
    };
    const harness_run ran =
        run_harness("long", {start_line, run(1, {{"pattern", "^a*$"}}), run(2, {{"not", {{"pattern", "^a*$"}}}}),
                             run(3, {{"propertyNames", {{"pattern", "^b"}}}}), stop_line});
    REQUIRE(ran.responses.size() == 4);
    CHECK(ran.responses[1] == json{{"seq", 1}, {"results", {{{"valid", true}}}}});
    CHECK(ran.responses[2] == json{{"seq", 2}, {"results", {{{"valid", false}}}}});
    CHECK(ran.responses[3] == json{{"seq", 3}, {"results", {{{"valid", true}}}}}); // not an object: no names
}

TEST_CASE("handoff-bowtie reads integers beyond 64 bits as the nearest double: the suite's optional bignum cases",
          "[bowtie]") {
    // The run requests as Bowtie sends them (tests/fixtures/bowtie/make_runs.py writes them from
    // the suite's file): integer literals with every digit, other numbers as the nearest double.
    std::vector<std::string> lines = {start_line, json{{"cmd", "dialect"}, {"dialect", dialects.front().uri}}.dump()};
    std::istringstream runs(handoff_test::read_fixture("bowtie/bignum_runs.jsonl"));
    for (std::string line; std::getline(runs, line);) {
        lines.push_back(line);
    }
    lines.push_back(stop_line);
    const json cases = json::parse(
        handoff_test::read_file((suite_dir / "tests" / "draft2020-12" / "optional" / "bignum.json").string()));
    const harness_run ran = run_harness("bignum", lines);
    CHECK(ran.exit_status == 0);
    REQUIRE(ran.responses.size() == 2 + cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const json& response = ran.responses[2 + i];
        INFO(cases[i]["description"] << ": " << response.dump());
        REQUIRE(response.at("seq") == i);
        REQUIRE(response.at("results").size() == cases[i]["tests"].size());
        for (std::size_t t = 0; t < cases[i]["tests"].size(); ++t) {
            CHECK(response["results"][t] == json{{"valid", cases[i]["tests"][t]["valid"]}});
        }
    }
}

} // namespace test_bowtie_harness
