// SPDX-License-Identifier: MIT
// The dead-letter report: every failure class from hand-written dead letters
// (fixtures/report/, written by make_fixtures.py), receipt lines, corrupt and foreign lines,
// time windows, a generated week by day, and the handoff-check report command run in process.

#include "support/catch.hpp"

#include "../tools/handoff-check/report_command.hpp"

#include <handoff/failure_class.hpp>
#include <handoff/problem_codes.hpp>
#include <handoff/report.hpp>

#include <nlohmann/json.hpp>

#include <algorithm> // any_of
#include <cstddef>   // size_t
#include <fstream>   // ifstream
#include <map>       // map
#include <sstream>   // istringstream, ostringstream
#include <string>    // string
#include <vector>    // vector

namespace test_report { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

const std::string report_fixtures = std::string(HANDOFF_FIXTURES_DIR) + "/report/";

handoff::report read_report(const std::vector<std::string>& files, handoff::report_options options = {}) {
    handoff::report_builder builder(options);
    for (const std::string& name : files) {
        std::ifstream in(report_fixtures + name, std::ios::binary);
        REQUIRE(in);
        std::string line;
        for (std::size_t number = 1; std::getline(in, line); ++number) {
            builder.add_line(line, name + ":" + std::to_string(number));
        }
    }
    return builder.result();
}

std::size_t count(const handoff::report& r, handoff::failure_class c) { return r[c].count; }

nlohmann::json attempt_with(const nlohmann::json& problems, const char* step = "task_schema") {
    return {{"attempt", 1}, {"stop_reason", "end_turn"}, {"route", "REPAIR"}, {"step", step}, {"problems", problems}};
}

// A week of dead letters: on day d (0..6) d + 1 invented labels "urgent" and one semantic failure.
std::string generated_week() {
    std::string lines;
    for (int day = 0; day < 7; ++day) {
        const std::string date = "2026-11-" + std::to_string(23 + day);
        for (int k = 0; k <= day + 1; ++k) {
            const bool semantic = k == day + 1;
            const nlohmann::json problem =
                semantic ? nlohmann::json{{"step", "semantic"},
                                          {"code", "semantic.total_mismatch"},
                                          {"pointer", "/partial_result/stated_total"},
                                          {"message", "/partial_result/stated_total: does not match"}}
                         : nlohmann::json{{"step", "task_schema"},
                                          {"code", "task.schema"},
                                          {"pointer", "/partial_result/label"},
                                          {"message", "/partial_result/label: Failed to match against any enum "
                                                      "values (got \"urgent\")"}};
            const nlohmann::json letter = {
                {"type", "handoff.dead_letter"},
                {"time", date + "T1" + std::to_string(k % 10) + ":00:00.000Z"},
                {"request_id", "week-" + date + "-" + std::to_string(k)},
                {"outcome", "retries_exhausted"},
                {"attempts", nlohmann::json::array({attempt_with(nlohmann::json::array({problem}),
                                                                 semantic ? "semantic" : "task_schema")})},
                {"problems", nlohmann::json::array({problem})}};
            lines += letter.dump() + "\n";
        }
    }
    return lines;
}

} // namespace

TEST_CASE("every failure class has a stable name that reads back", "[report]") {
    for (std::size_t i = 0; i < handoff::failure_class_count; ++i) {
        const auto c = static_cast<handoff::failure_class>(i);
        CHECK(handoff::failure_class_from_string(handoff::to_string(c)) == c);
    }
    CHECK_FALSE(handoff::failure_class_from_string("nonsense").has_value());
}

TEST_CASE("the hand-written dead letters fall into exactly the expected classes", "[report]") {
    using fc = handoff::failure_class;
    const handoff::report r = read_report({"classes.jsonl"});
    CHECK(r.total == 25);
    CHECK(r.dead_letters == 16);
    CHECK(count(r, fc::fenced) == 1);
    CHECK(count(r, fc::prose) == 1);
    CHECK(count(r, fc::comments) == 1);
    CHECK(count(r, fc::single_quotes) == 1);
    CHECK(count(r, fc::trailing_comma) == 1);
    CHECK(count(r, fc::truncated) == 2);
    CHECK(count(r, fc::refused) == 2);
    CHECK(count(r, fc::not_json) == 1);
    CHECK(count(r, fc::enum_violation) == 3);
    CHECK(count(r, fc::missing_field) == 2);
    CHECK(count(r, fc::unexpected_field) == 2);
    CHECK(count(r, fc::too_long) == 2);
    CHECK(count(r, fc::wrong_type) == 1);
    CHECK(count(r, fc::coverage) == 1);
    CHECK(count(r, fc::semantic) == 2);
    CHECK(count(r, fc::budget_exhausted) == 1);
    CHECK(count(r, fc::other) == 1);
    CHECK(r.corrupt == 0);
    CHECK(r.foreign == 0);
    // Dead letters keep no tolerances; the report reads them from the raw text.
    CHECK(r.tolerances.counts() == std::map<std::string, std::size_t>{{"code_fence", 1}, {"leading_prose", 1}});
}

TEST_CASE("enum violations count the invented values per pointer", "[report]") {
    const handoff::report r = read_report({"classes.jsonl"});
    const auto& s = r[handoff::failure_class::enum_violation];
    REQUIRE(s.values.count("/partial_result/label") == 1);
    const auto& values = s.values.at("/partial_result/label").counts();
    CHECK(values.at("urgent") == 2);
    CHECK(values.at("critical") == 1);
    CHECK(s.first_seen == "2026-11-25T10:00:00.000Z");
    CHECK(s.last_seen == "2026-11-26T11:00:00.000Z");
    CHECK(s.samples == std::vector<std::string>{"req-enum-1", "req-enum-2"});
    CHECK(r.to_text().find("/partial_result/label: 'urgent' 2 times, 'critical' 1 times") != std::string::npos);
}

TEST_CASE("missing and unexpected properties are blamed on the property, array indices fold", "[report]") {
    const handoff::report r = read_report({"classes.jsonl"});
    const auto& missing = r[handoff::failure_class::missing_field].pointers.counts();
    CHECK(missing.at("/partial_result/label") == 1);
    CHECK(missing.at("/coverage") == 1);
    const auto& extra = r[handoff::failure_class::unexpected_field].pointers.counts();
    CHECK(extra.at("/partial_result/note") == 1);
    CHECK(extra.at("/note") == 1);
    const auto& long_ones = r[handoff::failure_class::too_long].pointers.counts();
    CHECK(long_ones.at("/partial_result/citations/*") == 1);
    CHECK(r[handoff::failure_class::semantic].codes.counts().at("semantic.total_mismatch") == 1);
}

TEST_CASE("the first problem of the failed step decides, and a cut reply is truncated whatever it shows", "[report]") {
    using fc = handoff::failure_class;
    const nlohmann::json enum_then_type = attempt_with(
        {{{"step", "task_schema"},
          {"code", "task.schema"},
          {"pointer", "/partial_result/label"},
          {"message", "/partial_result/label: Failed to match against any enum values (got \"7\")"}},
         {{"step", "task_schema"},
          {"code", "task.schema"},
          {"pointer", "/partial_result/label"},
          {"message", "/partial_result/label: Value type not permitted by 'type' constraint (got \"7\")"}}});
    CHECK(handoff::classify_attempt(enum_then_type).kind == fc::enum_violation);
    REQUIRE(handoff::classify_attempt(enum_then_type).values.size() == 1);
    CHECK(handoff::classify_attempt(enum_then_type).values[0].value == "7");

    nlohmann::json semantic_listed_first =
        attempt_with({{{"step", "semantic"}, {"code", "semantic.total_mismatch"}, {"pointer", ""}, {"message", ""}},
                      {{"step", "coverage"}, {"code", "coverage.fraction_mismatch"}, {"pointer", ""}, {"message", ""}}},
                     "coverage");
    CHECK(handoff::classify_attempt(semantic_listed_first).kind == fc::coverage);
    semantic_listed_first["step"] = nullptr; // no failed step: the earliest step's problem
    CHECK(handoff::classify_attempt(semantic_listed_first).kind == fc::coverage);

    nlohmann::json cut = attempt_with(
        {{{"step", "parse"}, {"code", "parse.syntax"}, {"pointer", ""}, {"message", "(a trailing comma is not JSON)"}}},
        "parse");
    cut["stop_reason"] = "length";
    CHECK(handoff::classify_attempt(cut).kind == fc::truncated);

    const nlohmann::json envelope_enum =
        attempt_with({{{"step", "envelope_schema"},
                       {"code", "envelope.enum"},
                       {"pointer", "/status"},
                       {"message", "/status: \"done\" is not a status: use \"ok\" or \"capped\""}}},
                     "envelope_schema");
    REQUIRE(handoff::classify_attempt(envelope_enum).values.size() == 1);
    CHECK(handoff::classify_attempt(envelope_enum).values[0].value == "done");
    CHECK(handoff::classify_attempt(envelope_enum).values[0].pointer == "/status");
    CHECK(handoff::classify_attempt(nlohmann::json("not an attempt")).kind == fc::other);
}

TEST_CASE("receipt lines count only failed routes and record the tolerances they applied", "[report]") {
    using fc = handoff::failure_class;
    const handoff::report r = read_report({"receipts.jsonl"});
    CHECK(r.receipts == 4);
    CHECK(r.receipts_passed == 1);
    CHECK(r.total == 3);
    CHECK(count(r, fc::enum_violation) == 1);
    CHECK(count(r, fc::not_json) == 1);
    CHECK(count(r, fc::prose) == 1); // strict mode: the parser choked on the first character, "S"
    CHECK(r.tolerances.counts().at("code_fence") == 1);
    CHECK(r[fc::enum_violation].samples == std::vector<std::string>{"replies.jsonl:1"});
    CHECK(r[fc::enum_violation].first_seen.empty()); // receipts carry no time
}

TEST_CASE("corrupt and foreign lines are counted and named, never fatal", "[report]") {
    using fc = handoff::failure_class;
    const handoff::report r = read_report({"mixed.jsonl"});
    CHECK(r.corrupt == 4);
    CHECK(r.foreign == 1);
    CHECK(r.dead_letters == 2);
    CHECK(count(r, fc::fenced) == 1);
    CHECK(count(r, fc::not_json) == 1);
    CHECK(r.total == 2);
    REQUIRE(r.skipped_named.size() == 5);
    CHECK(r.skipped_named[0] == "mixed.jsonl:2: corrupt: not JSON");
    CHECK(r.skipped_named[1] == "mixed.jsonl:4: corrupt: not a JSON object");
    CHECK(r.skipped_named[2] == "mixed.jsonl:5: corrupt: dead letter without a valid time");
    CHECK(r.skipped_named[3] == "mixed.jsonl:6: foreign: neither a dead letter nor a receipt");
    CHECK(r.skipped_named[4] == "mixed.jsonl:8: corrupt: not JSON");
}

TEST_CASE("a line over the byte cap is corrupt and the aggregates stay capped", "[report]") {
    handoff::report_options options;
    options.max_line_bytes = 64;
    options.max_keys = 2;
    options.max_samples = 1;
    handoff::report_builder builder(options);
    builder.add_line(std::string(65, ' ') + "{}", "big:1");
    for (int i = 0; i < 5; ++i) {
        const nlohmann::json letter = {
            {"type", "handoff.dead_letter"},
            {"time", "2026-11-29T10:00:00Z"},
            {"request_id", "r" + std::to_string(i)},
            {"attempts", nlohmann::json::array({attempt_with(
                             nlohmann::json::array({{{"step", "task_schema"},
                                                     {"code", "task.schema"},
                                                     {"pointer", "/partial_result/f" + std::to_string(i)},
                                                     {"message", "x: Failed to match against any enum values (got \"v" +
                                                                     std::to_string(i) + "\")"}}}))})}};
        builder.add_record(letter, "mem:" + std::to_string(i));
    }
    const handoff::report& r = builder.result();
    CHECK(r.corrupt == 1);
    const auto& s = r[handoff::failure_class::enum_violation];
    CHECK(s.count == 5);
    CHECK(s.samples.size() == 1);
    CHECK(s.pointers.counts().size() == 3); // two named and "(more)"
    CHECK(s.pointers.counts().at("(more)") == 3);
    CHECK(s.values.size() == 3);
}

TEST_CASE("a report window of --since and --until keeps the records inside it only", "[report]") {
    using fc = handoff::failure_class;
    handoff::report_options options;
    options.since_ms = handoff::parse_utc_time("2026-11-25");
    options.until_ms = handoff::parse_utc_time("2026-11-27T00:00:00Z");
    const handoff::report r = read_report({"classes.jsonl", "receipts.jsonl"}, options);
    // 25, 26 November: req-refused (2), req-not-json (1), req-enum-1 (2), req-enum-2 (2), req-missing (2)
    CHECK(r.dead_letters == 5);
    CHECK(r.total == 9);
    CHECK(count(r, fc::refused) == 2);
    CHECK(count(r, fc::enum_violation) == 3);
    CHECK(count(r, fc::unexpected_field) == 1);
    CHECK(r.out_of_window == 11 + 4); // the other dead letters and every receipt (no time)
}

TEST_CASE("times parse as ISO-8601 UTC and nothing else", "[report]") {
    CHECK(handoff::parse_utc_time("1970-01-01") == 0);
    CHECK(handoff::parse_utc_time("1970-01-02T00:00:01.5Z") == 86401500);
    CHECK(handoff::parse_utc_time("2026-11-29T21:49:45.123Z") == handoff::parse_utc_time("2026-11-29T21:49:45.123"));
    CHECK_FALSE(handoff::parse_utc_time("2026-11-29T21:49:45+02:00").has_value());
    CHECK_FALSE(handoff::parse_utc_time("yesterday").has_value());
    CHECK_FALSE(handoff::parse_utc_time("2026-13-01").has_value());
    // A day its month has: 29 February in leap years only.
    CHECK_FALSE(handoff::parse_utc_time("2026-02-30").has_value());
    CHECK_FALSE(handoff::parse_utc_time("2026-02-29T00:00:00Z").has_value());
    CHECK_FALSE(handoff::parse_utc_time("2026-04-31").has_value());
    CHECK(handoff::parse_utc_time("2028-02-29") == handoff::parse_utc_time("2028-03-01").value() - 86400000);
    CHECK(handoff::parse_utc_time("2000-02-29").has_value());
    CHECK_FALSE(handoff::parse_utc_time("1900-02-29").has_value());
}

TEST_CASE("a generated week reports per-day counts per class", "[report]") {
    using fc = handoff::failure_class;
    handoff::report_options options;
    options.by_day = true;
    handoff::report_builder builder(options);
    std::istringstream week(generated_week());
    std::string line;
    for (std::size_t n = 1; std::getline(week, line); ++n) {
        builder.add_line(line, "week:" + std::to_string(n));
    }
    const handoff::report& r = builder.result();
    CHECK(r.total == 35); // 1+2+...+7 labels, 7 semantic
    CHECK(count(r, fc::enum_violation) == 28);
    CHECK(count(r, fc::semantic) == 7);
    CHECK(r.share(fc::enum_violation) == Approx(0.8));
    REQUIRE(r.by_day.size() == 7);
    CHECK(r.by_day.at("2026-11-23")[static_cast<std::size_t>(fc::enum_violation)] == 1);
    CHECK(r.by_day.at("2026-11-29")[static_cast<std::size_t>(fc::enum_violation)] == 7);
    CHECK(r.by_day.at("2026-11-29")[static_cast<std::size_t>(fc::semantic)] == 1);
    const nlohmann::json j = nlohmann::json::parse(r.to_json().dump());
    CHECK(j["by_day"]["2026-11-26"] == nlohmann::json({{"enum_violation", 4}, {"semantic", 1}}));
    CHECK(j["classes"]["enum_violation"]["values"]["/partial_result/label"]["urgent"] == 28);
    CHECK(j["classes"].begin().key() == "enum_violation"); // most frequent first
}

TEST_CASE("handoff-check report prints the JSON object and exits 0", "[report][cli]") {
    std::istringstream in;
    std::ostringstream out;
    std::ostringstream err;
    const int status = handoff_cli::run_report({"--json", report_fixtures + "classes.jsonl"}, in, out, err);
    CHECK(status == 0);
    const nlohmann::json j = nlohmann::json::parse(out.str());
    CHECK(j["total"] == 25);
    CHECK(j["classes"]["enum_violation"]["count"] == 3);
    CHECK(j["classes"]["enum_violation"]["share"] == Approx(0.12));
    CHECK(j["classes"]["enum_violation"]["pointers"]["/partial_result/label"] == 3);
    CHECK(j["skipped"]["corrupt"] == 0);
    CHECK(j["skipped"]["foreign"] == 0);
    CHECK(err.str().empty());
}

TEST_CASE("handoff-check report reads stdin and prints a table", "[report][cli]") {
    std::istringstream in(generated_week() + "garbage\n");
    std::ostringstream out;
    std::ostringstream err;
    CHECK(handoff_cli::run_report({"--by", "day", "-"}, in, out, err) == 0);
    const std::string text = out.str();
    CHECK(text.rfind("failed attempts: 35 (35 dead letters, 0 failed receipts of 0)\n", 0) == 0);
    CHECK(text.find("enum_violation         28   80.0%  2026-11-23T10:00:00.000Z") != std::string::npos);
    CHECK(text.find("2026-11-29: enum_violation 7 semantic 1\n") != std::string::npos);
    CHECK(text.find("-:36: corrupt: not JSON") != std::string::npos);
}

TEST_CASE("handoff-check report exits 2 on usage errors and unreadable files", "[report][cli]") {
    std::istringstream in;
    std::ostringstream out;
    std::ostringstream err;
    CHECK(handoff_cli::run_report({}, in, out, err) == 2);
    CHECK(handoff_cli::run_report({"--since", "yesterday", "x"}, in, out, err) == 2);
    CHECK(handoff_cli::run_report({"--by", "week", "x"}, in, out, err) == 2);
    CHECK(handoff_cli::run_report({"--frobnicate", "x"}, in, out, err) == 2);
    CHECK(handoff_cli::run_report({report_fixtures + "no-such-file.jsonl"}, in, out, err) == 2);
    CHECK(err.str().find("cannot read") != std::string::npos);
}

TEST_CASE("dead letters written by the invoice_extractor example classify as semantic and truncated", "[report]") {
    // Captured with build/examples/invoice_extractor --dead-letter FILE.
    using fc = handoff::failure_class;
    const handoff::report r = read_report({"invoice_extractor.jsonl"});
    CHECK(r.dead_letters == 2);
    CHECK(r.total == 3);
    CHECK(count(r, fc::semantic) == 2);
    CHECK(count(r, fc::truncated) == 1);
    CHECK(r[fc::semantic].samples == std::vector<std::string>{"invoice-INV-2042"});
    CHECK(r[fc::semantic].codes.counts().at("semantic.total_mismatch") == 2);
    CHECK(r.outcomes.counts().at("retries_exhausted") == 1);
    CHECK(r.outcomes.counts().at("truncated") == 1);
}

TEST_CASE("receipts written by handoff-check over the envelope fixtures classify by their failed step", "[report]") {
    // Captured with handoff-check tests/fixtures/envelopes/*, then --strict fenced_with_prose.md.
    using fc = handoff::failure_class;
    const handoff::report r = read_report({"envelope_receipts.jsonl"});
    CHECK(r.receipts == 17);
    CHECK(r.receipts_passed == 11);
    CHECK(r.total == 6);
    CHECK(count(r, fc::enum_violation) == 1);
    CHECK(r[fc::enum_violation].values.at("/reason_code").counts().at("RATE_LIMITED") == 1);
    CHECK(count(r, fc::missing_field) == 1);
    CHECK(count(r, fc::unexpected_field) == 1);
    CHECK(count(r, fc::coverage) == 1);
    CHECK(count(r, fc::budget_exhausted) == 1);
    CHECK(count(r, fc::prose) == 1);
}

TEST_CASE("every problem code the library emits maps to one documented class", "[report]") {
    using fc = handoff::failure_class;
    // handoff::codes::all, less dead_letter.problems_cut (a count, never decisive)
    const std::vector<std::pair<std::string, fc>> codes = {
        {"coverage.completed_exceeds_expected", fc::coverage},
        {"coverage.fraction_mismatch", fc::coverage},
        {"coverage.ok_incomplete", fc::coverage},
        {"envelope.enum", fc::enum_violation},
        {"envelope.forbidden", fc::unexpected_field},
        {"envelope.max_items", fc::too_long},
        {"envelope.max_length", fc::too_long},
        {"envelope.min_length", fc::other},
        {"envelope.range", fc::other},
        {"envelope.required", fc::missing_field},
        {"envelope.type", fc::wrong_type},
        {"envelope.unknown_field", fc::unexpected_field},
        {"parse.byte_order_mark", fc::other},
        {"parse.duplicate_key", fc::other},
        {"parse.limit.bytes", fc::too_long},
        {"parse.limit.depth", fc::too_long},
        {"parse.limit.items", fc::too_long},
        {"parse.limit.string", fc::too_long},
        {"parse.limit.values", fc::too_long},
        {"parse.no_object", fc::not_json},
        {"parse.nul_byte", fc::other},
        {"parse.number_range", fc::other},
        {"parse.syntax", fc::not_json},
        {"reply.refused", fc::other}, // the stop reason decides first
        {"reply.truncated", fc::truncated},
        {"semantic.amount_invalid", fc::semantic},
        {"semantic.amount_missing", fc::semantic},
        {"semantic.calculated_total_mismatch", fc::semantic},
        {"semantic.check", fc::semantic},
        {"semantic.check_threw", fc::semantic},
        {"semantic.quote_invalid", fc::semantic},
        {"semantic.quote_missing", fc::semantic},
        {"semantic.quote_not_in_source", fc::semantic},
        {"semantic.quote_too_short", fc::semantic},
        {"semantic.total_mismatch", fc::semantic},
        {"task.absent", fc::missing_field},
        {"task.conversion", fc::wrong_type},
        {"task.schema", fc::other}, // valijson's sentence decides; an unknown sentence is other
        {"task.self_reported_invalid", fc::other},
    };
    for (const auto& [code, expected] : codes) {
        INFO(code);
        const nlohmann::json attempt = attempt_with(
            nlohmann::json::array({{{"step", "parse"}, {"code", code}, {"pointer", ""}, {"message", "x"}}}), "parse");
        CHECK(handoff::classify_attempt(attempt).kind == expected);
    }
    for (const std::string code : handoff::codes::all) {
        INFO(code);
        const bool mapped = std::any_of(codes.begin(), codes.end(), [&](const auto& row) { return row.first == code; });
        CHECK((mapped || code == handoff::codes::dead_letter_problems_cut));
    }
}

TEST_CASE("a ticket_triage dead letter counts every invented label and the fence it tolerated", "[report]") {
    // Captured with build/examples/ticket_triage --dead-letter FILE: a fenced reply with a
    // trailing sentence and a too-short summary, then invented label and severity values.
    using fc = handoff::failure_class;
    const handoff::report r = read_report({"ticket_triage.jsonl"});
    CHECK(r.total == 2);
    CHECK(count(r, fc::other) == 1); // minLength: no class of its own
    CHECK(count(r, fc::enum_violation) == 1);
    const auto& values = r[fc::enum_violation].values;
    CHECK(values.at("/partial_result/label").counts().at("refund") == 1);
    CHECK(values.at("/partial_result/severity").counts().at("P0!!!") == 1);
    CHECK(r[fc::enum_violation].pointers.counts().size() == 1); // the decisive problem's pointer only
    CHECK(r.tolerances.counts() == std::map<std::string, std::size_t>{{"code_fence", 1}, {"trailing_prose", 1}});
}

TEST_CASE("ticket_triage dead letters in handoff's own validator's words classify the injected note and the enums",
          "[report]") {
    // Captured with build/examples/ticket_triage --dead-letter FILE after task schemas moved to
    // handoff's own validator: the first attempt's first problem is now the injected "note" at
    // its own pointer, then the invented label and severity. The valijson-era capture above
    // stays, because a week of older dead letters must still read the same.
    using fc = handoff::failure_class;
    const handoff::report r = read_report({"ticket_triage_own_validator.jsonl"});
    CHECK(r.total == 2);
    CHECK(count(r, fc::unexpected_field) == 1);
    CHECK(r[fc::unexpected_field].pointers.counts().count("/partial_result/note") == 1);
    CHECK(count(r, fc::enum_violation) == 1);
    const auto& values = r[fc::enum_violation].values;
    CHECK(values.at("/partial_result/label").counts().at("refund") == 1);
    CHECK(values.at("/partial_result/severity").counts().at("P0!!!") == 1);
}

TEST_CASE("the text report escapes and caps what the records hold: values, keys, request ids", "[report][escaping]") {
    // Receipts handoff-check wrote for replies inventing the label "bill\e[2J\e]0;owned\aing" and a
    // key "x\e[31mkey", and a dead letter whose request id holds ESC and U+202E and whose pointer
    // holds a 2000-byte key (tests/fixtures/escaping/hostile_report.jsonl).
    handoff::report_builder builder;
    std::ifstream in(std::string(HANDOFF_FIXTURES_DIR) + "/escaping/hostile_report.jsonl", std::ios::binary);
    REQUIRE(in);
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
        builder.add_line(line, "hostile\x1b[2J.jsonl:" + std::to_string(number));
    }
    builder.add_line("not json", "hostile\x1b[2J.jsonl:9");
    const handoff::report& r = builder.result();
    REQUIRE(r.total == 3);
    // The aggregate keeps the exact text: the JSON form is exact, as documented.
    const auto& values = r[handoff::failure_class::enum_violation].values;
    REQUIRE(values.count("/partial_result/label") == 1);
    CHECK(values.at("/partial_result/label").counts().count("bill\x1b[2J\x1b]0;owned\aing") == 1);

    const std::string text = r.to_text();
    INFO(text);
    for (const char raw : {'\x1b', '\x07', '\0', '\r'}) {
        CHECK(text.find(raw) == std::string::npos);
    }
    CHECK(text.find("\xE2\x80\xAE") == std::string::npos); // U+202E, a bidirectional control
    CHECK(text.find("/partial_result/label: 'bill\\u001b[2J\\u001b]0;owned\\u0007ing' 1 times") != std::string::npos);
    CHECK(text.find("/partial_result/x\\u001b[31mkey 1") != std::string::npos);
    CHECK(text.find("req\\u001b[2J\\u202e<b>") != std::string::npos);
    CHECK(text.find("hostile\\u001b[2J.jsonl:9: corrupt: not JSON") != std::string::npos);
    // The 2000-byte key is cut as a pointer at the head of a message is, with the cut marker.
    CHECK(text.find("... (") != std::string::npos);
    std::istringstream lines(text);
    while (std::getline(lines, line)) {
        CHECK(line.size() < 600);
    }
}

} // namespace test_report
