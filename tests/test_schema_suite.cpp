// SPDX-License-Identifier: MIT
// The official JSON Schema Test Suite in its five dialects: every required case of every
// tests/{draft4,draft6,draft7,draft2019-09,draft2020-12}/*.json file (refRemote.json included,
// its remotes registered from disk under http://localhost:1234/) through compiled_schema's two
// modes and, as partial_result of a valid ok envelope, through receiver::receive and through
// stream_check (a byte at a time and in random chunks: never doomed unless receive fails it, and
// finished in receive's receipt). Prints one line per dialect: "<dialect> suite: N of M cases".

#include "support/every_judge.hpp"
#include "support/fixtures.hpp"

#include <handoff/detail/schema/access.hpp>
#include <handoff/detail/schema/format_check.hpp>
#include <handoff/handoff.hpp>
#include <handoff/schema_registry.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>  // sort
#include <filesystem> // directory_iterator, exists
#include <iostream>   // cout
#include <iterator>   // begin, end
#include <optional>   // optional
#include <set>        // set
#include <string>     // string
#include <vector>     // vector

namespace test_schema_suite { // this file's own names: see "unity build" in tests/CMakeLists.txt

#ifndef HANDOFF_CORPORA_DIR
#error "HANDOFF_CORPORA_DIR must name tests/corpora (tests/CMakeLists.txt defines it)"
#endif

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path suite_dir = fs::path(HANDOFF_CORPORA_DIR) / "JSON-Schema-Test-Suite";

/// "file: group / case" of the cases handoff knowingly judges differently, with the reason
/// beside each in tests/fixtures/schema_suite_deviations.json (empty: there are none).
std::set<std::string> deviations() {
    const json list = handoff_test::read_fixture_json("schema_suite_deviations.json");
    std::set<std::string> out;
    for (const auto& d : list) {
        out.insert(d.at("case").get<std::string>());
    }
    return out;
}

struct suite_dialect {
    handoff::schema_dialect dialect;
    const char* folder;         // under tests/
    std::size_t cases;          // every required case of the folder, refRemote.json's included
    std::size_t optional_cases; // every case of optional/*.json
    std::size_t format_cases;   // every case of optional/format/ of the asserted formats and unknown.json
};

/// The five dialects of the suite, and how many required cases each has.
const suite_dialect suite_dialects[] = {
    {handoff::schema_dialect::draft04, "draft4", 618, 100, 219},
    {handoff::schema_dialect::draft06, "draft6", 839, 106, 325},
    {handoff::schema_dialect::draft07, "draft7", 927, 118, 656},
    {handoff::schema_dialect::draft2019_09, "draft2019-09", 1259, 158, 737},
    {handoff::schema_dialect::draft2020_12, "draft2020-12", 1299, 162, 744},
};

std::vector<fs::path> suite_files(const std::string& folder) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(suite_dir / "tests" / folder)) {
        if (entry.path().extension() == ".json") {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

handoff::schema_registry suite_registry() {
    handoff::schema_registry registry;
    registry.add_directory(suite_dir / "remotes", "http://localhost:1234/");
    return registry;
}

struct tally {
    std::size_t passed = 0;
    std::size_t failed = 0;
    std::string wrong;           // one line per case judged wrongly
    std::size_t known_wrong = 0; // cases of `known` judged wrongly, as they are known to be
};

/// Judges every case of `files` (a dialect's folder, or its optional/) by every judge, a case
/// named "FOLDER/FILE: group / case" in `known` counting as passed.
tally judge_files(const suite_dialect& d, const std::vector<fs::path>& files, const std::set<std::string>& known,
                  bool assert_formats = false) {
    const handoff::schema_registry registry = suite_registry();
    handoff::schema_options options;
    options.dialect = d.dialect;
    options.assert_formats = assert_formats;
    tally t;
    for (const fs::path& file : files) {
        const std::string folder = fs::relative(file.parent_path(), suite_dir / "tests").generic_string();
        for (const json& group : json::parse(handoff_test::read_file(file.string()))) {
            const std::string name =
                folder + "/" + file.filename().string() + ": " + group.at("description").get<std::string>();
            std::optional<handoff::compiled_schema> schema;
            std::string refused;
            try {
                schema = handoff::compiled_schema::from_json(group.at("schema"), registry, options);
            } catch (const handoff::schema_error& e) {
                refused = e.what();
            }
            for (const json& test : group.at("tests")) {
                const std::string id = name + " / " + test.at("description").get<std::string>();
                const json& data = test.at("data");
                const std::string why = schema
                                            ? handoff_test::judged_wrongly(*schema, data, test.at("valid").get<bool>())
                                            : " refused: " + refused;
                if (why.empty() || known.count(id) != 0) {
                    ++t.passed;
                    t.known_wrong += why.empty() ? 0 : 1;
                } else {
                    ++t.failed;
                    t.wrong += id + ":" + why + "\n";
                }
            }
        }
    }
    return t;
}

} // namespace

TEST_CASE("every required case of the JSON Schema Test Suite is judged as the suite says, in every dialect",
          "[schema][suite]") {
    const suite_dialect& d = GENERATE(from_range(std::begin(suite_dialects), std::end(suite_dialects)));
    REQUIRE(fs::is_directory(suite_dir / "tests" / d.folder)); // a missing corpus fails, never skips
    const tally t = judge_files(d, suite_files(d.folder), deviations());
    std::cout << to_string(d.dialect) << " suite: " << t.passed << " of " << t.passed + t.failed << " cases\n";
    CHECK(t.passed + t.failed == d.cases);
    INFO(t.wrong);
    REQUIRE(t.failed == 0);
}

TEST_CASE("the suite's optional cases, formats aside, are judged as the suite says but for three documented readings",
          "[schema][suite]") {
    // Optional: what a dialect allows an implementation to leave out. handoff reads three things
    // otherwise (docs/json-schema.md): draft-07's contentEncoding and contentMediaType are
    // annotations, as from 2019-09 on (the content is not decoded); draft-04's "integer" holds
    // 1.0 as every later dialect does, where draft-04 says an integer has no fraction; and a
    // 2019-09/2020-12 keyword in a draft-07 document is refused, not ignored.
    const std::set<std::string> left_out = {
        "draft2019-09/optional/cross-draft.json: refs to historic drafts are processed as historic drafts / missing "
        "bar is valid",
        "draft7/optional/content.json: validation of string-encoded content based on media type / an invalid JSON "
        "document",
        "draft7/optional/content.json: validation of binary string-encoding / an invalid base64 string (% is not a "
        "valid character)",
        "draft7/optional/content.json: validation of binary-encoded media type documents / a validly-encoded invalid "
        "JSON document",
        "draft7/optional/content.json: validation of binary-encoded media type documents / an invalid base64 string "
        "that is valid JSON",
        "draft4/optional/zeroTerminatedFloats.json: some languages do not distinguish between different types of "
        "numeric value / a float is not an integer even without fractional part",
    };
    const suite_dialect& d = GENERATE(from_range(std::begin(suite_dialects), std::end(suite_dialects)));
    const std::string folder = std::string(d.folder) + "/optional";
    const std::vector<fs::path> files = suite_files(folder);
    REQUIRE(files.size() >= 6); // a missing corpus fails, never skips
    const tally t = judge_files(d, files, left_out);
    std::cout << to_string(d.dialect) << " optional: " << t.passed << " of " << t.passed + t.failed << " cases\n";
    CHECK(t.passed + t.failed == d.optional_cases);
    INFO(t.wrong);
    REQUIRE(t.failed == 0);
    const auto listed_here = std::count_if(left_out.begin(), left_out.end(),
                                           [&](const std::string& id) { return id.rfind(folder + "/", 0) == 0; });
    CHECK(t.known_wrong == static_cast<std::size_t>(listed_here)); // each is still left out, none stale
}

TEST_CASE("the suite's optional format cases of every format handoff asserts pass when formats assert",
          "[schema][suite][format]") {
    // Each format of the table the validator asserts from, and "unknown" (any other name passes).
    const suite_dialect& d = GENERATE(from_range(std::begin(suite_dialects), std::end(suite_dialects)));
    const fs::path folder = suite_dir / "tests" / d.folder / "optional" / "format";
    std::vector<fs::path> files;
    for (const auto& row : handoff::detail::asserted_formats) {
        if (fs::exists(folder / (std::string(row.name) + ".json"))) {
            files.push_back(folder / (std::string(row.name) + ".json"));
        }
    }
    files.push_back(folder / "unknown.json");
    REQUIRE(files.size() >= 3); // date-time, ipv4 and ipv6 exist from draft-04 on
    const tally t = judge_files(d, files, {}, true);
    std::cout << to_string(d.dialect) << " optional formats: " << t.passed << " of " << t.passed + t.failed
              << " cases\n";
    CHECK(t.passed + t.failed == d.format_cases);
    INFO(t.wrong);
    REQUIRE(t.failed == 0);
}

TEST_CASE("a suite schema without $schema is read in the dialect of its folder only when told", "[schema][suite]") {
    // additionalItems and an array "items" mean the same in draft-04 to 2019-09; prefixItems is
    // 2020-12's: detected, the two schemas are read as their authors meant.
    const json tuple = json::parse(R"({"items": [{"type": "integer"}], "additionalItems": false})");
    const json prefix = json::parse(R"({"prefixItems": [{"type": "integer"}], "items": false})");
    CHECK(handoff::compiled_schema::from_json(tuple).dialect() == handoff::schema_dialect::draft07);
    CHECK(handoff::compiled_schema::from_json(prefix).dialect() == handoff::schema_dialect::draft2020_12);
    CHECK_FALSE(handoff::compiled_schema::from_json(prefix).accepts(json::parse("[1, 2]")));
    CHECK(handoff::compiled_schema::from_json(prefix).accepts(json::parse("[1]")));
}

TEST_CASE("the two modes agree on every value of the suite, whatever the schema", "[schema][suite]") {
    const suite_dialect& d = GENERATE(from_range(std::begin(suite_dialects), std::end(suite_dialects)));
    REQUIRE(fs::is_directory(suite_dir / "tests" / d.folder));
    const handoff::schema_registry registry = suite_registry();
    handoff::schema_options options;
    options.dialect = d.dialect;
    std::vector<json> values;
    std::vector<handoff::compiled_schema> schemas;
    for (const fs::path& file : suite_files(d.folder)) {
        for (const json& group : json::parse(handoff_test::read_file(file.string()))) {
            try { // a schema refused is a case the test above fails; here only values matter
                schemas.push_back(handoff::compiled_schema::from_json(group.at("schema"), registry, options));
            } catch (const handoff::schema_error&) {
            }
            for (const json& test : group.at("tests")) {
                values.push_back(test.at("data"));
            }
        }
    }
    std::size_t disagreements = 0;
    for (const auto& schema : schemas) {
        for (const json& value : values) {
            disagreements += schema.accepts(value) != schema.validate(value, "", handoff::step::task_schema).empty();
        }
    }
    REQUIRE(disagreements == 0);
}

} // namespace test_schema_suite

namespace test_schema_suite {

TEST_CASE("a judgment that remembers its walks from the first one judges every schema and value of the suite as one "
          "that makes them all",
          "[schema][suite]") {
    // Every schema of a dialect's folder and its optional/ against every value there: the memory
    // answers a walk made again from what the walk recorded the first time, which must be what
    // making it again records (the answer, each problem listed, what it evaluated, its depth).
    using access = handoff::detail::compiled_schema_access;
    const suite_dialect& d = GENERATE(from_range(std::begin(suite_dialects), std::end(suite_dialects)));
    const handoff::schema_registry registry = suite_registry();
    handoff::schema_options options;
    options.dialect = d.dialect;
    std::vector<json> values;
    std::vector<handoff::compiled_schema> schemas;
    std::vector<fs::path> files = suite_files(d.folder);
    const std::vector<fs::path> optional = suite_files(std::string(d.folder) + "/optional");
    files.insert(files.end(), optional.begin(), optional.end());
    for (const fs::path& file : files) {
        for (const json& group : json::parse(handoff_test::read_file(file.string()))) {
            try {
                schemas.push_back(handoff::compiled_schema::from_json(group.at("schema"), registry, options));
            } catch (const handoff::schema_error&) {
            }
            for (const json& test : group.at("tests")) {
                values.push_back(test.at("data"));
            }
        }
    }
    REQUIRE(schemas.size() > 100);
    std::size_t judged = 0;
    std::size_t refused = 0;
    for (const auto& schema : schemas) {
        for (const json& value : values) {
            const bool accepted = schema.accepts(value);
            REQUIRE(access::accepts_remembering(schema, value) == accepted);
            if (!accepted) {
                const handoff::problem_list once = schema.validate(value, "", handoff::step::task_schema);
                const handoff::problem_list remembered = access::validate_remembering(schema, value);
                REQUIRE(remembered.size() == once.size());
                for (std::size_t k = 0; k < once.size(); ++k) {
                    REQUIRE(remembered[k].pointer == once[k].pointer);
                    REQUIRE(remembered[k].message == once[k].message);
                }
                ++refused;
            }
            ++judged;
        }
    }
    CHECK(refused > 1000); // the problems were compared, not only the answers
    CHECK(refused < judged);
}

} // namespace test_schema_suite
