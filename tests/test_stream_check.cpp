// SPDX-License-Identifier: MIT
// <handoff/stream_check.hpp>: a reply checked as it arrives. Sound (never doomed while a
// continuation could pass steps 1 to 3; the final receipt is receive's), early (each rule's
// verdict at the byte of the value that broke it), and a cut reply keeps its complete part.

#include "support/fixtures.hpp"

#include "fuzz/fuzz_stream.hpp"

#include <handoff/detail/json/fast_reader.hpp>
#include <handoff/detail/schema/access.hpp>
#include <handoff/detail/stream/item_reader.hpp>
#include <handoff/detail/stream/lent_buffer.hpp>
#include <handoff/detail/stream/task_paths.hpp>
#include <handoff/detail/stream/unit_scan.hpp>
#include <handoff/receipt_json.hpp>
#include <handoff/receiver.hpp>
#include <handoff/schema_registry.hpp>
#include <handoff/stream_check.hpp>

#include <algorithm>   // sort, min, max, equal, all_of
#include <atomic>      // atomic
#include <cstddef>     // size_t
#include <cstdint>     // int32_t, uint8_t
#include <filesystem>  // directory_iterator
#include <memory>      // make_unique
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <thread>      // thread
#include <tuple>       // tie
#include <type_traits> // is_copy_constructible_v
#include <utility>     // pair, swap
#include <vector>      // vector

namespace test_stream_check { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace fs = std::filesystem;
using handoff_test::read_fixture;

namespace {

const handoff::receiver<>& sections_receiver() {
    static const handoff::receiver<> r(handoff_test::sections_schema());
    return r;
}

const handoff::receiver<>& records_receiver() {
    static const handoff::receiver<> r(handoff_test::records_schema());
    return r;
}

const handoff::receiver<>& strict_receiver() {
    static const handoff::receiver<> r = [] {
        handoff::receiver_options o;
        o.strict = true;
        return handoff::receiver<>(o);
    }();
    return r;
}

/// Every file of a fixture folder, by path, in a stable order.
std::vector<std::string> files_in(const std::string& folder) {
    std::vector<std::string> out;
    for (const auto& entry : fs::directory_iterator(handoff_test::fixture_path(folder))) {
        out.push_back(entry.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// The verdict after pushing `text` one byte at a time (stopping at the first verdict).
std::optional<handoff::stream_verdict> stream_bytes(const handoff::receiver<>& r, const std::string& text) {
    handoff::stream_check<> check(r);
    for (const char c : text) {
        check.push(std::string_view(&c, 1));
        if (check.doomed()) {
            break;
        }
    }
    return check.doomed();
}

/// Whether `p` is, word for word, one of the problems receive reports for `text`.
bool receive_reports(const handoff::receiver<>& r, const std::string& text, const handoff::problem& p) {
    const auto whole = r.receive(text);
    for (const handoff::problem& q : whole.problems) {
        if (q.step == p.step && q.code == p.code && q.pointer == p.pointer && q.message == p.message) {
            return true;
        }
    }
    return false;
}

/// Whether `check`, given all of `text`, finishes with receive's receipt, partial_result included.
bool finishes_as_received(handoff::stream_check<>& check, const handoff::receiver<>& r, const std::string& text) {
    const auto streamed = check.finish();
    const auto whole = r.receive(text);
    const auto result = [](const handoff::receipt<>& receipt) {
        return receipt.envelope && receipt.envelope->partial_result ? *receipt.envelope->partial_result
                                                                    : nlohmann::json();
    };
    return handoff::to_json(streamed) == handoff::to_json(whole) && result(streamed) == result(whole);
}

/// `text` with the first `from` in it written `to`.
std::string replaced_once(std::string text, const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

/// The offset of the last byte of the first `needle` in `text`.
std::size_t end_of(const std::string& text, const std::string& needle) {
    const std::size_t at = text.find(needle);
    REQUIRE(at != std::string::npos);
    return at + needle.size() - 1;
}

/// Whether `text`, streamed a byte at a time, is never doomed, and the stream keeps its
/// promises on it in random chunks too.
bool never_doomed(const handoff::receiver<>& r, const std::string& text) {
    return !stream_bytes(r, text).has_value() && handoff_fuzz::stream::disagreement(r, text, 3).empty();
}

/// The verdict on `text` streamed a byte at a time, which must come with a problem receive
/// reports for it, the stream keeping its promises in random chunks too.
handoff::stream_verdict doomed_as_received(const handoff::receiver<>& r, const std::string& text) {
    const auto verdict = stream_bytes(r, text);
    REQUIRE(verdict);
    CHECK(receive_reports(r, text, verdict->what));
    CHECK(handoff_fuzz::stream::disagreement(r, text, 3).empty());
    return *verdict;
}

struct fixture_set {
    const char* folder;
    const handoff::receiver<>& (*checker)();
};

const fixture_set fixture_sets[] = {
    {"envelopes", &sections_receiver},
    {"worked_example", &records_receiver},
    {"replies", &sections_receiver},
};

} // namespace

TEST_CASE("every fixture reply, streamed a byte at a time or in random chunks, ends in receive's receipt", "[stream]") {
    std::size_t passing = 0;
    for (const fixture_set& set : fixture_sets) {
        for (const std::string& path : files_in(set.folder)) {
            const std::string text = handoff_test::read_file(path);
            for (std::uint8_t seed = 0; seed < 6; ++seed) {
                INFO(path << " seed " << int(seed));
                CHECK(handoff_fuzz::stream::disagreement(set.checker(), text, seed).empty());
            }
            if (!handoff_fuzz::stream::fails_steps_1_to_3(set.checker().receive(text))) {
                ++passing;
                INFO(path);
                CHECK_FALSE(stream_bytes(set.checker(), text).has_value());
            }
        }
    }
    CHECK(passing >= 10); // the folders hold passing replies, and each was streamed
}

TEST_CASE("a reply cut anywhere is never doomed while the cut part could still pass", "[stream]") {
    const std::string text = read_fixture("worked_example/run1_token_cap.json");
    for (std::size_t cut = 0; cut < text.size(); cut += 7) {
        INFO("cut at " << cut);
        CHECK(handoff_fuzz::stream::disagreement(records_receiver(), text.substr(0, cut), 3).empty());
        CHECK_FALSE(stream_bytes(records_receiver(), text.substr(0, cut)).has_value());
    }
}

TEST_CASE("a JSON text of the JSONTestSuite is judged not JSON by the stream only when receive says so",
          "[stream][corpora]") {
    std::size_t files = 0;
    for (const auto& entry : fs::directory_iterator(std::string(HANDOFF_CORPORA_DIR) + "/JSONTestSuite/test_parsing")) {
        const std::string text = handoff_test::read_file(entry.path().string());
        INFO(entry.path().filename().string());
        CHECK(handoff_fuzz::stream::disagreement(strict_receiver(), text, 0).empty());
        CHECK(handoff_fuzz::stream::disagreement(records_receiver(), "{\"partial_result\": " + text + "}", 0).empty());
        CHECK(
            handoff_fuzz::stream::disagreement(records_receiver(), "{\"status\": \"ok\", \"x\": [" + text, 0).empty());
        ++files;
    }
    CHECK(files > 300);
}

TEST_CASE("prose before the object and a code fence around it are never a verdict", "[stream]") {
    const std::string text = read_fixture("envelopes/fenced_with_prose.md");
    CHECK_FALSE(stream_bytes(sections_receiver(), text).has_value());
    CHECK_FALSE(stream_bytes(sections_receiver(), "I could not finish: here it is ``` not a fence\n{").has_value());
    CHECK_FALSE(stream_bytes(sections_receiver(), "Some prose with no brace at all, for a long while").has_value());
}

TEST_CASE("a fence closed inside a string before any brace makes decode read the whole text, and the stream "
          "follows",
          "[stream]") {
    // partial_result's first item quotes a fence; no '}' came before it, so decode ignores the
    // fence it opened and reads the object from the whole text: the reply passes.
    std::string envelope = read_fixture("envelopes/ok_complete.json");
    envelope.replace(envelope.find("\"section 1\""), 11, "\"section ``` 1\"");
    const std::string text = "Here:\n```json\n" + envelope + "\n```\n";
    REQUIRE_FALSE(handoff_fuzz::stream::fails_steps_1_to_3(sections_receiver().receive(text)));
    CHECK_FALSE(stream_bytes(sections_receiver(), text).has_value());
    CHECK(handoff_fuzz::stream::disagreement(sections_receiver(), text, 2).empty());
}

TEST_CASE("a fence closed inside a string after a brace cuts the JSON short, at its third backtick", "[stream]") {
    std::string envelope = read_fixture("envelopes/ok_complete.json");
    envelope.replace(envelope.find("\"outline\""), 9, "\"out ``` line\"");
    const std::string text = "```json\n" + envelope + "\n```\n";
    const auto verdict = stream_bytes(sections_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == end_of(text, "out ```"));
    CHECK(verdict->what.step == handoff::step::parse);
    CHECK(receive_reports(sections_receiver(), text, verdict->what));
}

TEST_CASE("a brace on a fence's info line is a layout the stream leaves to the whole text", "[stream]") {
    const std::string text = "```{json}\n{\"status\": \"okay\"}\n```";
    CHECK_FALSE(stream_bytes(sections_receiver(), text).has_value());
    CHECK(handoff_fuzz::stream::disagreement(sections_receiver(), text, 0).empty());
}

TEST_CASE("a status outside its vocabulary is doomed when its closing quote arrives", "[stream]") {
    const std::string text = R"({"status": "okay", "reason_code": null, "partial_result": null})";
    const auto verdict = stream_bytes(sections_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == end_of(text, "\"okay\""));
    CHECK(verdict->what.code == handoff::codes::envelope_enum);
    CHECK(verdict->what.pointer == "/status");
    CHECK(verdict->what.message == R"(/status: "okay" is not a status: use "ok" or "capped")");
    CHECK(receive_reports(sections_receiver(), text, verdict->what));
}

TEST_CASE("an unknown reason code is doomed at its closing quote, long before the end", "[stream]") {
    const std::string text = read_fixture("envelopes/capped_unknown_reason_code.json");
    const auto verdict = stream_bytes(sections_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == end_of(text, "\"RATE_LIMITED\""));
    CHECK(verdict->what.pointer == "/reason_code");
    CHECK(receive_reports(sections_receiver(), text, verdict->what));
}

TEST_CASE("a reason code beside status ok is doomed when the second of the two arrives", "[stream]") {
    const std::string text = read_fixture("envelopes/ok_with_reason_code.json");
    const auto verdict = stream_bytes(sections_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == end_of(text, "\"TOKEN_CAP\""));
    CHECK(verdict->what.code == handoff::codes::envelope_forbidden);
    CHECK(receive_reports(sections_receiver(), text, verdict->what));
}

TEST_CASE("reason_code's rule holds whoever reads the words, and is judged again when the object closes", "[stream]") {
    // status read by the tokenizer (an escaped key), reason_code after it.
    const std::string escaped = R"({"st\u0061tus": "ok", "reason_code": "TOKEN_CAP", "partial_result": null})";
    const auto beside_ok = stream_bytes(sections_receiver(), escaped);
    REQUIRE(beside_ok);
    CHECK(beside_ok->offset == end_of(escaped, "\"TOKEN_CAP\""));
    CHECK(beside_ok->what.code == handoff::codes::envelope_forbidden);
    CHECK(receive_reports(sections_receiver(), escaped, beside_ok->what));

    // capped with a null reason code: certain once the null is read.
    const std::string null_reason = R"({"status": "capped", "reason_code": null, "partial_result": null})";
    const auto at_null = stream_bytes(sections_receiver(), null_reason);
    REQUIRE(at_null);
    CHECK(at_null->offset == end_of(null_reason, "null"));
    CHECK(at_null->what.pointer == "/reason_code");
    CHECK(receive_reports(sections_receiver(), null_reason, at_null->what));

    // capped with no reason code: a reason code might still come until the object closes.
    const std::string absent = R"({"status": "capped", "partial_result": null})";
    const auto at_close = stream_bytes(sections_receiver(), absent);
    REQUIRE(at_close);
    CHECK(at_close->offset == absent.size() - 1);
    CHECK(receive_reports(sections_receiver(), absent, at_close->what));
    CHECK(handoff_fuzz::stream::disagreement(sections_receiver(), absent, 7).empty());
}

TEST_CASE("a field of the wrong type is doomed at the end of its value, a container at its bracket", "[stream]") {
    const std::string scalar = R"({"status": "ok", "schema_ok": "yes", "coverage": {}})";
    const auto at_quote = stream_bytes(sections_receiver(), scalar);
    REQUIRE(at_quote);
    CHECK(at_quote->offset == end_of(scalar, "\"yes\""));
    CHECK(at_quote->what.message == R"(/schema_ok: expected true or false, got the string "yes")");
    CHECK(receive_reports(sections_receiver(), scalar, at_quote->what));

    const std::string container = R"({"status": "ok", "coverage": [1, 2, 3], "steps": {}})";
    const auto at_bracket = stream_bytes(sections_receiver(), container);
    REQUIRE(at_bracket);
    CHECK(at_bracket->offset == container.find('['));
    CHECK(at_bracket->what.message == "/coverage: expected an object, got an array");
    CHECK(receive_reports(sections_receiver(), container, at_bracket->what));
}

TEST_CASE("an unknown key of a closed envelope object is doomed at the key's closing quote", "[stream]") {
    const std::string text = R"({"status": "ok", "coverage": {"items_expected": 1, "percent": 100}})";
    const auto verdict = stream_bytes(sections_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == end_of(text, "\"percent\""));
    CHECK(verdict->what.code == handoff::codes::envelope_unknown_field);
    CHECK(verdict->what.pointer == "/coverage/percent");
    CHECK(receive_reports(sections_receiver(), text, verdict->what));
}

TEST_CASE("a repeated key is doomed at its second closing quote", "[stream]") {
    const std::string text = R"({"status": "ok", "schema_ok": true, "schema_ok": false})";
    const auto verdict = stream_bytes(sections_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == text.rfind("\"schema_ok\"") + std::string("\"schema_ok\"").size() - 1);
    CHECK(verdict->what.code == handoff::codes::parse_duplicate_key);
    CHECK(receive_reports(sections_receiver(), text, verdict->what));
}

TEST_CASE("a string past its maxLength is doomed at its closing quote", "[stream]") {
    const std::string unit(65, 'u');
    const std::string text = R"({"status": "ok", "coverage": {"unit": ")" + unit + R"("}, "steps": {}})";
    const auto verdict = stream_bytes(sections_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == end_of(text, unit + "\""));
    CHECK(verdict->what.code == handoff::codes::envelope_max_length);
    CHECK(verdict->what.message == "/coverage/unit: a string of 65 characters is longer than the 64 allowed");
    CHECK(receive_reports(sections_receiver(), text, verdict->what));
}

TEST_CASE("an array past its maxItems is doomed at its closing bracket", "[stream]") {
    std::string items;
    for (int i = 0; i < 257; ++i) {
        items += (i == 0 ? "\"s\"" : ", \"s\"");
    }
    const std::string text = R"({"status": "ok", "steps": {"completed": [)" + items + R"(], "remaining": []}})";
    const auto verdict = stream_bytes(sections_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == text.find(']'));
    CHECK(verdict->what.message == "/steps/completed: 257 items, at most 256 allowed");
    CHECK(receive_reports(sections_receiver(), text, verdict->what));
}

TEST_CASE("an array item that fails the task schema is doomed at the item's end, before the rest arrives", "[stream]") {
    std::string text = read_fixture("worked_example/run1_token_cap.json");
    const std::string good = "\"price\": 249.0";
    text.replace(text.find(good), good.size(), "\"price\": \"cheap\"");
    const auto verdict = stream_bytes(records_receiver(), text);
    REQUIRE(verdict);
    // The second record's closing brace: the item is whole there.
    CHECK(verdict->offset == text.find('}', text.find("\"cheap\"")));
    CHECK(verdict->what.step == handoff::step::task_schema);
    CHECK(verdict->what.pointer == "/partial_result/records/1/price");
    CHECK(verdict->offset < text.size() / 2);
    CHECK(receive_reports(records_receiver(), text, verdict->what));
}

TEST_CASE("a required member missing from a whole array item is doomed at the item's end", "[stream]") {
    std::string text = read_fixture("worked_example/run1_token_cap.json");
    const std::string name = "\"name\": \"Office chair\",";
    text.erase(text.find(name), name.size());
    const auto verdict = stream_bytes(records_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == text.find('}', text.find("\"record 2\"")));
    CHECK(verdict->what.pointer == "/partial_result/records/1");
    CHECK(receive_reports(records_receiver(), text, verdict->what));
}

TEST_CASE("a member of partial_result of the wrong type is doomed at its end", "[stream]") {
    const std::string text = read_fixture("envelopes/capped_partial_invalid.json");
    const auto verdict = stream_bytes(sections_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == end_of(text, "\"intro, pricing\""));
    CHECK(verdict->what.pointer == "/partial_result/sections");
    CHECK(receive_reports(sections_receiver(), text, verdict->what));
}

TEST_CASE("a required member missing from partial_result is doomed when partial_result closes", "[stream]") {
    const std::string text = R"({"status": "ok", "partial_result": {"sections": ["a"]}, "schema_ok": true)";
    const auto verdict = stream_bytes(sections_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == text.find('}'));
    CHECK(verdict->what.message == R"(/partial_result: misses the required property "claims")");
    const std::string whole = text + R"(, "coverage": {"items_expected": 1, "items_completed": 1, "unit": "s",
        "fraction": 1}, "steps": {"completed": [], "remaining": []}})";
    CHECK(receive_reports(sections_receiver(), whole, verdict->what));
}

TEST_CASE("a syntax error inside the object is doomed at the offending byte", "[stream]") {
    const std::string text = R"(Here you go: {"status": 'ok', "schema_ok": true})";
    const auto verdict = stream_bytes(sections_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == text.find('\''));
    CHECK(verdict->what.code == handoff::codes::parse_syntax);
    CHECK(receive_reports(sections_receiver(), text, verdict->what));
}

TEST_CASE("a brace in the prose after the object is doomed at that brace", "[stream]") {
    const std::string envelope = read_fixture("envelopes/ok_complete.json");
    const std::string text = envelope + "\nHope this helps {you}.";
    const auto verdict = stream_bytes(sections_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == text.rfind('}'));
    CHECK(verdict->what.code == handoff::codes::parse_syntax);
    CHECK(receive_reports(sections_receiver(), text, verdict->what));
    CHECK_FALSE(stream_bytes(sections_receiver(), envelope + "\nHope this helps.").has_value());
}

TEST_CASE("nesting past the depth limit is doomed at the bracket that goes too deep", "[stream]") {
    const std::string text = R"({"partial_result": {"sections": )" + std::string(70, '[');
    const auto verdict = stream_bytes(sections_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == text.find('[') + 62); // the envelope and partial_result are 2 of 64
    CHECK(verdict->what.code == handoff::codes::parse_limit_depth);
}

TEST_CASE("a reply past the byte limit is doomed at the first byte over it", "[stream]") {
    handoff::receiver_options o;
    o.limits.max_bytes = 100;
    const handoff::receiver<> small(o);
    const std::string text = R"({"status": "ok", "steps": {"completed": [")" + std::string(200, 'x');
    const auto verdict = stream_bytes(small, text);
    REQUIRE(verdict);
    CHECK(verdict->offset == 100);
    CHECK(verdict->what.code == handoff::codes::parse_limit_bytes);
    CHECK(receive_reports(small, text, verdict->what));
}

TEST_CASE("a layout the stream leaves to the whole text is still doomed at the byte limit", "[stream]") {
    handoff::receiver_options o;
    o.limits.max_bytes = 100;
    const handoff::receiver<> small(o);
    const std::string text = "```{json}\n{\"status\": \"ok\", \"x\": \"" + std::string(200, 'x');
    const auto verdict = stream_bytes(small, text);
    REQUIRE(verdict);
    CHECK(verdict->offset == 100);
    CHECK(verdict->what.code == handoff::codes::parse_limit_bytes);
    CHECK(receive_reports(small, text, verdict->what));
}

TEST_CASE("a raw NUL where the object's grammar continues dooms the reply at the NUL", "[stream]") {
    // nlohmann's parser takes a NUL for the end of its input: that must not read as a reply
    // merely cut short, which a continuation could complete.
    for (const std::string& text : {std::string("{\"status\": \"ok\"\0, \"partial_result\": null}", 41),
                                    std::string("{\"status\":\0\"ok\"}", 16)}) {
        INFO(text.size());
        const handoff::stream_verdict verdict = doomed_as_received(sections_receiver(), text);
        CHECK(verdict.offset == text.find('\0'));
        CHECK(verdict.what.code == handoff::codes::parse_syntax);
    }
    // Past the limit, the same prefix is still doomed at its NUL, not left open.
    const std::string padded = std::string("{\"status\": \"ok\"\0", 16) + std::string(2'000'000, ' ');
    const auto verdict = stream_bytes(sections_receiver(), padded);
    REQUIRE(verdict);
    CHECK(verdict->offset == padded.find('\0'));
}

TEST_CASE("envelope_status says whether a task-schema verdict stands beside ok or capped", "[stream]") {
    const auto status_at_verdict = [](const std::string& relative) {
        const std::string text = handoff_test::read_fixture(relative);
        handoff::stream_check<> check(records_receiver());
        for (std::size_t i = 0; i < text.size() && !check.doomed(); ++i) {
            check.push(text.substr(i, 1));
        }
        REQUIRE(check.doomed());
        CHECK(check.doomed()->what.step == handoff::step::task_schema);
        CHECK(check.doomed()->what.pointer == "/partial_result/records/1/price");
        return check.envelope_status();
    };
    CHECK(status_at_verdict("cli/stream_ok_bad_record.json") == handoff::status::ok);
    CHECK(status_at_verdict("cli/stream_capped_bad_record.json") == handoff::status::capped);
    CHECK_FALSE(status_at_verdict("cli/stream_capped_bad_record_status_last.json").has_value());
    // A task-schema verdict does not stop the reading: a status written after it is read.
    handoff::stream_check<> check(records_receiver());
    check.push(handoff_test::read_fixture("cli/stream_capped_bad_record_status_last.json"));
    REQUIRE(check.doomed());
    CHECK(check.doomed()->what.step == handoff::step::task_schema);
    CHECK(check.envelope_status() == handoff::status::capped);
}

TEST_CASE("a part judged on its own names the task schema's places as receive does", "[stream]") {
    // The part of "v" and the item part of "w" are compiled on their own; a message quoting a
    // place of the schema names it from the task schema's root (and file), not from the part.
    const std::string path = handoff_test::fixture_path("schemas/stream_places.schema.json");
    const handoff::receiver<> from_file(handoff::compiled_schema::from_file(path));
    const handoff::receiver<> from_json(
        handoff::compiled_schema::from_json(handoff_test::read_fixture_json("schemas/stream_places.schema.json")));
    const std::string head = R"({"status": "ok", "reason_code": null, "schema_ok": true, "partial_result": )";
    const std::string tail = R"(, "coverage": {"items_expected": 1, "items_completed": 1, "unit": "notes",)"
                             R"( "fraction": 1.0}, "steps": {"completed": ["read"], "remaining": []}})";
    for (const handoff::receiver<>* r : {&from_file, &from_json}) {
        const handoff::stream_verdict v = doomed_as_received(*r, head + R"({"v": [1]})" + tail);
        CHECK_THAT(v.what.message, Catch::Matchers::Contains("/properties/v/contains"));
        const handoff::stream_verdict w = doomed_as_received(*r, head + R"({"w": ["a", 2]})" + tail);
        CHECK_THAT(w.what.message, Catch::Matchers::Contains("/properties/w/items/not"));
    }
    // A pattern names its own place: here where a string is too long for any pattern to run.
    handoff::schema_options short_subjects;
    short_subjects.max_pattern_subject = 5;
    const handoff::receiver<> bounded(handoff::compiled_schema::from_file(path, short_subjects));
    const handoff::stream_verdict p = doomed_as_received(bounded, head + R"({"p": "abcdefgh"})" + tail);
    CHECK_THAT(p.what.message, Catch::Matchers::Contains("fails the pattern at file://"));
    CHECK_THAT(p.what.message, Catch::Matchers::EndsWith("#/properties/p/pattern"));
    const handoff::stream_verdict q = doomed_as_received(bounded, head + R"({"q": {"kkkkkkkk": "x"}})" + tail);
    CHECK_THAT(q.what.message, Catch::Matchers::EndsWith("#/properties/q/patternProperties/^k"));
}

TEST_CASE("a strict receiver dooms a byte order mark and anything after the value", "[stream]") {
    const auto bom = stream_bytes(strict_receiver(), "\xEF\xBB\xBF{}");
    REQUIRE(bom);
    CHECK(bom->offset == 2);
    CHECK(bom->what.code == handoff::codes::parse_byte_order_mark);
    const auto prose = stream_bytes(strict_receiver(), "Sure: {}");
    REQUIRE(prose);
    CHECK(prose->offset == 0);
    CHECK(prose->what.code == handoff::codes::parse_syntax);
}

TEST_CASE("a reply cut inside partial_result keeps its whole items as a salvage, never as a result", "[stream]") {
    const std::string text = read_fixture("worked_example/run1_token_cap.json");
    const std::string cut = text.substr(0, text.find("\"Standing desk\""));
    handoff::stream_check<> check(records_receiver());
    check.push(cut);
    CHECK_FALSE(check.doomed());
    const auto receipt = check.finish();
    CHECK(receipt.route == handoff::route::repair);
    CHECK(receipt.failed_step == handoff::step::parse);
    CHECK(receipt.result() == nullptr);
    const auto salvage = check.salvage();
    REQUIRE(salvage);
    CHECK(salvage->complete_items == 2);
    CHECK(salvage->largest_array == "/partial_result/records");
    const nlohmann::json records =
        handoff_test::read_fixture_json("worked_example/run1_token_cap.json").at("partial_result").at("records");
    CHECK(salvage->partial_result == nlohmann::json{{"records", {records[0], records[1]}}});
}

TEST_CASE("checks alive at once on one thread keep their own texts and member arrays", "[stream]") {
    // The thread lends its spare buffers to one check at a time: pushed alternately, chunk by
    // chunk, each check sees only its own reply, before and after another finishes or is cut.
    const std::string first = read_fixture("worked_example/run1_token_cap.json");
    const std::string second = read_fixture("worked_example/run2_time_cap.json");
    REQUIRE(first != second);
    const handoff::receiver<>& r = records_receiver();
    REQUIRE(r.receive(first).envelope.value().partial_result); // the member arrays are in the receipts
    REQUIRE(r.receive(second).envelope.value().partial_result);
    handoff::stream_check<> a(r);
    handoff::stream_check<> b(r);
    std::optional<handoff::stream_check<>> cut(r); // dropped inside its member array
    const std::string cut_text = first.substr(0, first.find("\"Standing desk\""));
    for (std::size_t at = 0; at < std::max(first.size(), second.size()); at += 16) {
        if (at < first.size()) {
            a.push(std::string_view(first).substr(at, 16));
        }
        if (at < second.size()) {
            b.push(std::string_view(second).substr(at, 16));
        }
        if (cut && at < cut_text.size()) {
            cut->push(std::string_view(cut_text).substr(at, 16));
        } else if (cut) {
            REQUIRE(cut->salvage());
            CHECK(cut->salvage()->complete_items == 2);
            cut.reset();
        }
    }
    CHECK_FALSE(cut); // it was cut, and dropped, while the others went on
    CHECK(finishes_as_received(a, r, first));
    handoff::stream_check<> c(r); // takes the buffers a check gave back, empty
    c.push(second);
    CHECK(finishes_as_received(c, r, second));
    CHECK(finishes_as_received(b, r, second));
}

TEST_CASE("a thread that streams replies for task schemas in turn judges each by its own", "[stream]") {
    // A thread keeps the parts of the last task schema it streamed for: schemas made and dropped
    // in turn on one thread (a new one may be given the address of one dropped) each judge the
    // same reply by their own parts. Under the records schema the reply's second record, whose
    // price is of the wrong type, is the verdict; the sections schema never admits its records.
    std::string bad = read_fixture("worked_example/run1_token_cap.json");
    const std::string price = "\"price\": 249.0";
    bad.replace(bad.find(price), price.size(), "\"price\": \"cheap\"");
    for (int round = 0; round < 6; ++round) {
        INFO("round " << round);
        const bool records_first = round % 2 == 0;
        const auto make = [](const nlohmann::json& schema) { return std::make_unique<handoff::receiver<>>(schema); };
        std::unique_ptr<handoff::receiver<>> records; // made in one order, then the other
        std::unique_ptr<handoff::receiver<>> sections;
        if (records_first) {
            records = make(handoff_test::records_schema());
            sections = make(handoff_test::sections_schema());
        } else {
            sections = make(handoff_test::sections_schema());
            records = make(handoff_test::records_schema());
        }
        for (const handoff::receiver<>* r : {records.get(), sections.get(), records.get()}) {
            const bool by_records = r == records.get();
            const auto verdict = stream_bytes(*r, bad);
            REQUIRE(verdict);
            CHECK((verdict->what.pointer == "/partial_result/records/1/price") == by_records);
            CHECK(receive_reports(*r, bad, verdict->what));
            handoff::stream_check<> check(*r);
            check.push(bad);
            CHECK(finishes_as_received(check, *r, bad));
        }
    }
}

TEST_CASE("a check is moved, never copied, and a moved check goes on where it was", "[stream]") {
    static_assert(!std::is_copy_constructible_v<handoff::stream_check<>>);
    static_assert(!std::is_copy_assignable_v<handoff::stream_check<>>);
    static_assert(std::is_nothrow_move_constructible_v<handoff::stream_check<>>);
    const std::string text = read_fixture("worked_example/run1_token_cap.json");
    const std::size_t middle = text.find("\"Standing desk\""); // inside a member array's item list
    REQUIRE(middle != std::string::npos);
    const handoff::receiver<>& r = records_receiver();
    handoff::stream_check<> before(r);
    before.push(std::string_view(text).substr(0, middle));
    handoff::stream_check<> after(std::move(before));
    for (std::size_t at = middle; at < text.size(); at += 32) {
        after.push(std::string_view(text).substr(at, 32));
    }
    CHECK_FALSE(after.doomed());
    REQUIRE(r.receive(text).envelope.value().partial_result);
    CHECK(finishes_as_received(after, r, text));
}

TEST_CASE("a check moved from, ended first, leaves its thread a sound buffer for the next check", "[stream]") {
    const std::string text = read_fixture("worked_example/run1_token_cap.json");
    const handoff::receiver<>& r = records_receiver();
    bool moved_finishes = false;
    bool next_finishes = false;
    // A thread of its own, whose spare buffer starts empty: the moved-from check, whose text
    // grew there, ends first and must hand its thread no capacity it no longer owns.
    std::thread([&] {
        std::optional<handoff::stream_check<>> before(std::in_place, r);
        before->push(text);
        handoff::stream_check<> after(std::move(*before));
        before.reset();
        handoff::stream_check<> next(r); // takes the thread's spare
        for (std::size_t at = 0; at < text.size(); at += 32) {
            next.push(std::string_view(text).substr(at, 32));
        }
        next_finishes = finishes_as_received(next, r, text);
        moved_finishes = finishes_as_received(after, r, text);
    }).join();
    CHECK(next_finishes);
    CHECK(moved_finishes);
}

TEST_CASE("a lent buffer takes the spare capacity of its thread up to its bound", "[stream]") {
    using buffer = handoff::detail::stream::lent_buffer<std::vector<int>, 64>;
    {
        buffer first;
        first.get().assign(40, 7);
        buffer second; // alive beside the first: a buffer of its own
        CHECK(second.get().empty());
        CHECK(second.get().capacity() == 0);
        second.get().assign(10, 1);
    } // the larger capacity is kept for the next owner
    {
        buffer next;
        CHECK(next.get().empty());
        CHECK(next.get().capacity() >= 40);
        next.get().assign(1000, 3); // past the bound: not kept
    }
    buffer last;
    CHECK(last.get().empty());
    CHECK(last.get().capacity() == 0);
}

namespace {

/// A buffer that counts the calls made on it after its destructor ran (its storage, a thread's,
/// outlives it until the thread ends): what a lent buffer must never do to its thread's spare.
struct watched_buffer {
    static inline std::atomic<int> touched_after_end{0};
    bool ended = false;
    std::size_t size = 0;
    watched_buffer() = default;
    watched_buffer(const watched_buffer&) = default;
    watched_buffer& operator=(const watched_buffer&) = default;
    ~watched_buffer() { ended = true; }
    void note() const {
        if (ended) {
            ++touched_after_end;
        }
    }
    [[nodiscard]] std::size_t capacity() const {
        note();
        return size;
    }
    void clear() { note(); }
    void swap(watched_buffer& other) noexcept {
        note();
        other.note();
        std::swap(size, other.size);
    }
};

} // namespace

TEST_CASE("a lent buffer that ends after the spare of its thread keeps its buffer to itself", "[stream]") {
    using buffer = handoff::detail::stream::lent_buffer<watched_buffer, 64>;
    std::thread([] {
        // Made before the thread's spare (which the emplace makes), so destroyed after it.
        thread_local std::optional<buffer> early;
        early.emplace();
        early->get().size = 60;
        buffer other; // gives the spare a capacity of 20 when it ends, before the thread does
        other.get().size = 20;
    }).join();
    CHECK(watched_buffer::touched_after_end.load() == 0);
}

TEST_CASE("a reply whose object closed, or cut before partial_result, has no salvage", "[stream]") {
    handoff::stream_check<> whole(records_receiver());
    whole.push(read_fixture("worked_example/run1_token_cap.json"));
    CHECK_FALSE(whole.salvage());
    handoff::stream_check<> early(records_receiver());
    early.push(R"({"status": "capped", "reason_code": "TOKEN_CAP", )");
    CHECK_FALSE(early.salvage());
}

} // namespace test_stream_check

namespace test_stream_check {
namespace {

/// The checker of `r` after `text` pushed in 32-byte chunks.
handoff::detail::stream::checker pushed(const handoff::receiver<>& r, const std::string& text) {
    handoff::detail::stream::checker state(r.options(), r.task_schema() ? &*r.task_schema() : nullptr);
    for (std::size_t at = 0; at < text.size(); at += 32) {
        state.push(std::string_view(text).substr(at, 32));
    }
    return state;
}

/// Whether finish() on `text` returns receive's receipt, partial_result included.
bool finish_is_receive(const handoff::receiver<>& r, const std::string& text) {
    handoff::stream_check<> check(r);
    for (std::size_t at = 0; at < text.size(); at += 32) {
        check.push(std::string_view(text).substr(at, 32));
    }
    return finishes_as_received(check, r, text) &&
           handoff::to_json(check.finish()) == handoff::to_json(r.receive(text)); // again, from the text
}

} // namespace

TEST_CASE("finish() builds on the envelope the stream established, and only where it is certain", "[stream]") {
    const std::string text = read_fixture("worked_example/run1_token_cap.json");
    auto state = pushed(records_receiver(), text);
    const auto reply = state.take_established();
    REQUIRE(reply.has_value());
    CHECK(reply->result_valid);
    CHECK(reply->env.partial_result == records_receiver().receive(text).envelope->partial_result);
    CHECK_FALSE(state.take_established().has_value()); // partial_result was handed over
    CHECK(finish_is_receive(records_receiver(), text));

    const std::string fenced = "Here it is:\n```json\n" + text + "\n```\nDone.";
    CHECK(pushed(records_receiver(), fenced).take_established().has_value());
    CHECK(finish_is_receive(records_receiver(), fenced));

    // Cut, doomed, or read under a provider schema: the text is received whole.
    CHECK_FALSE(pushed(records_receiver(), text.substr(0, text.size() / 2)).take_established().has_value());
    std::string wrong = text;
    wrong.replace(wrong.find("\"capped\""), 8, "\"okay\"");
    CHECK_FALSE(pushed(records_receiver(), wrong).take_established().has_value());
    CHECK(finish_is_receive(records_receiver(), wrong));
    handoff::receiver_options from_openai;
    from_openai.from = handoff::provider::openai;
    const handoff::receiver<> nulls(handoff_test::records_schema(), from_openai);
    CHECK_FALSE(pushed(nulls, text).take_established().has_value());
    CHECK(finish_is_receive(nulls, text));
}

TEST_CASE("after a task-schema verdict the stream reads on, and finish() builds on what it read", "[stream]") {
    std::string text = read_fixture("worked_example/run1_token_cap.json");
    const std::string good = "\"price\": 249.0";
    text.replace(text.find(good), good.size(), "\"price\": \"cheap\"");
    for (const bool ok : {false, true}) {
        std::string reply = text;
        if (ok) { // beside "ok" the verdict fails the reply at step 3; beside "capped" it only drops the result
            reply.replace(reply.find("\"capped\""), 8, "\"ok\"");
            reply.replace(reply.find("\"TOKEN_CAP\""), 11, "null");
        }
        INFO("status ok: " << ok);
        auto state = pushed(records_receiver(), reply);
        REQUIRE(state.doomed());
        CHECK(state.doomed()->what.step == handoff::step::task_schema);
        CHECK(state.doomed()->offset == reply.find('}', reply.find("\"cheap\""))); // the item's end, as before
        const auto established = state.take_established();
        REQUIRE(established.has_value());
        CHECK_FALSE(established->result_valid); // step 3 runs on partial_result whole
        CHECK(established->env.partial_result == nlohmann::json::parse(reply).at("partial_result"));
        CHECK(finish_is_receive(records_receiver(), reply));
        CHECK(handoff::to_json(records_receiver().receive(reply)).dump() ==
              handoff::to_json([&] {
                  handoff::stream_check<> check(records_receiver());
                  check.push(reply);
                  return check.finish();
              }())
                  .dump());
    }
    // A step 1 or 2 failure after it: the first verdict stays, and finish() reads the text whole.
    std::string broken = text;
    broken.replace(broken.find("\"unit\": \"records\""), 17, "\"unit\": 7");
    auto state = pushed(records_receiver(), broken);
    REQUIRE(state.doomed());
    CHECK(state.doomed()->what.step == handoff::step::task_schema);
    CHECK_FALSE(state.take_established().has_value());
    CHECK(finish_is_receive(records_receiver(), broken));
    CHECK(records_receiver().receive(broken).failed_step == handoff::step::envelope_schema);
}

TEST_CASE("a reply cut after a task-schema verdict salvages only what was complete before the verdict", "[stream]") {
    std::string text = read_fixture("worked_example/run1_token_cap.json");
    const std::string good = "\"price\": 249.0";
    text.replace(text.find(good), good.size(), "\"price\": \"cheap\"");
    const std::size_t verdict_at = text.find('}', text.find("\"cheap\""));
    const nlohmann::json records =
        handoff_test::read_fixture_json("worked_example/run1_token_cap.json").at("partial_result").at("records");
    const nlohmann::json before = nlohmann::json{{"records", {records[0]}}};
    // Cut at the verdict, among the items after it, and after the array and partial_result closed.
    for (const std::size_t cut :
         {verdict_at + 1, text.find("\"record 9\""), text.find("\"schema_ok\""), text.find("\"budget\"")}) {
        INFO("cut at " << cut);
        handoff::stream_check<> check(records_receiver());
        for (std::size_t at = 0; at < cut; at += 7) {
            check.push(std::string_view(text).substr(at, std::min<std::size_t>(7, cut - at)));
        }
        REQUIRE(check.doomed());
        CHECK(check.doomed()->offset == verdict_at);
        const auto salvage = check.salvage();
        REQUIRE(salvage);
        CHECK(salvage->partial_result == before);
        CHECK(salvage->complete_items == 1);
    }
    // A verdict on partial_result whole, as it closes, keeps nothing of it.
    const std::string missing =
        R"({"status": "capped", "reason_code": "TOKEN_CAP", "partial_result": {"sections": ["a"]}, )";
    handoff::stream_check<> check(sections_receiver());
    check.push(missing + R"("schema_ok": true, "coverage": {"items_expected": 1)");
    REQUIRE(check.doomed());
    CHECK(check.doomed()->offset == missing.find('}'));
    CHECK_FALSE(check.salvage());
}

TEST_CASE("a reply that says schema_ok false keeps no salvage, nor one whose brackets close after a verdict that "
          "halts the check",
          "[stream]") {
    const std::string text = read_fixture("worked_example/run1_token_cap.json");
    const auto replaced = [&](const std::string& from, const std::string& to) { return replaced_once(text, from, to); };
    const auto pushed_to = [](const std::string& t, std::size_t cut) {
        handoff::stream_check<> check(records_receiver());
        for (std::size_t at = 0; at < cut; at += 7) {
            check.push(std::string_view(t).substr(at, std::min<std::size_t>(7, cut - at)));
        }
        return check;
    };
    const std::size_t records =
        handoff_test::read_fixture_json("worked_example/run1_token_cap.json").at("partial_result").at("records").size();
    // "schema_ok" after partial_result, cut after it; then before partial_result, cut inside it.
    // receive treats partial_result as absent when the reply says false: nothing is salvaged.
    const std::string late = replaced("\"schema_ok\": true", "\"schema_ok\": false");
    CHECK_FALSE(pushed_to(late, late.find("\"budget\"")).salvage());
    const auto kept = pushed_to(text, text.find("\"budget\"")).salvage();
    REQUIRE(kept);
    CHECK(kept->complete_items == records);
    for (const char* said : {"false", "true"}) {
        std::string early = replaced("\"schema_ok\": true,", "");
        early.insert(early.find("\"status\""), std::string("\"schema_ok\": ") + said + ", ");
        const auto salvage = pushed_to(early, early.find("\"Standing desk\"")).salvage();
        CHECK(salvage.has_value() == (std::string(said) == "true"));
    }
    // A field of the wrong type (step 2) and a word JSON does not have (step 1), both after
    // partial_result: the check halts there, and knows the object closed by its brackets.
    for (const auto& [wrong, halted_at] :
         {std::pair<const char*, handoff::step>{"\"yes\"", handoff::step::envelope_schema},
          std::pair<const char*, handoff::step>{"tru", handoff::step::parse}}) {
        const std::string broken = replaced("\"schema_ok\": true", std::string("\"schema_ok\": ") + wrong);
        INFO(broken.substr(broken.find("\"schema_ok\""), 20));
        const auto whole = pushed_to(broken, broken.size());
        REQUIRE(whole.doomed());
        CHECK(whole.doomed()->what.step == halted_at);
        CHECK_FALSE(whole.salvage());
        // Cut after the verdict, inside the object: what was complete when it came.
        const auto cut = pushed_to(broken, broken.find("\"budget\""));
        REQUIRE(cut.doomed());
        const auto salvaged = cut.salvage();
        REQUIRE(salvaged);
        CHECK(salvaged->complete_items == records);
    }
}

TEST_CASE("an item that fails its part, with no key inside it a closed object refuses, is the verdict at its end, "
          "as when the item is followed key by key",
          "[stream]") {
    // No key inside these items is one a closed object refuses, so none can be a verdict before
    // the item ends: an item that fails its part is the verdict at its end, with the problem its
    // part gives, and the list pass reads on. The same schema with each array's part for all its
    // items written as `additionalItems` after an empty `items` (the same rules) has no list
    // pass: each item is read and judged alone, and one that fails is read again token by token,
    // its keys followed. The verdicts must be the same.
    const nlohmann::json list_schema = handoff_test::read_fixture_json("schemas/stream_open_items.schema.json");
    nlohmann::json followed_schema = list_schema;
    for (const char* member : {"records", "codes", "pairs", "counts"}) {
        nlohmann::json& array = followed_schema["properties"][member];
        array["additionalItems"] = array["items"];
        array["items"] = nlohmann::json::array();
    }
    nlohmann::json closed_schema = list_schema;
    closed_schema["properties"]["records"]["items"]["additionalProperties"] = false;
    closed_schema["properties"]["records"]["items"]["properties"]["seller"]["additionalProperties"] = false;
    const handoff::receiver<> listed(handoff::compiled_schema::from_json(list_schema));
    const handoff::receiver<> followed(handoff::compiled_schema::from_json(followed_schema));
    const handoff::receiver<> closed(handoff::compiled_schema::from_json(closed_schema));
    const std::string head = R"({"status": "ok", "reason_code": null, "schema_ok": true, "partial_result": )";
    const std::string tail = R"(, "coverage": {"items_expected": 3, "items_completed": 3, "unit": "items",)"
                             R"( "fraction": 1.0}, "steps": {"completed": ["read"], "remaining": []}})";
    struct reply {
        std::string result;
        std::string ends_at; // the verdict is at the last byte of its first occurrence
        std::string pointer;
    };
    const reply replies[] = {
        {R"({"records": [{"id": "a", "price": 1}, {"id": "b", "price": -1}, {"id": "c"}]})", R"("price": -1})",
         "/partial_result/records/1/price"},
        {R"({"records": [{"id": "a", "seller": {"name": "far too long"}}, {"id": "c"}]})", R"("far too long"}})",
         "/partial_result/records/0/seller/name"},
        {R"({"records": [{"id": "a"}, {"price": 2}]})", R"({"price": 2})", "/partial_result/records/1"},
        {R"({"codes": ["abc", "abcd", "x"]})", R"("abcd")", "/partial_result/codes/1"},
        {R"({"pairs": [[1], [1, 2, 3], []]})", "[1, 2, 3]", "/partial_result/pairs/1"},
        {R"({"counts": [1, -2, 3]})", "-2,", "/partial_result/counts/1"}, // a number: at the byte after it
    };
    for (const reply& r : replies) {
        const std::string text = head + r.result + tail;
        INFO(text);
        const handoff::stream_verdict at_end = doomed_as_received(listed, text);
        const handoff::stream_verdict key_by_key = doomed_as_received(followed, text);
        CHECK(at_end.offset == end_of(text, r.ends_at));
        CHECK(at_end.what.step == handoff::step::task_schema);
        CHECK(at_end.what.pointer == r.pointer);
        CHECK(at_end.offset == key_by_key.offset);
        CHECK(at_end.what.code == key_by_key.what.code);
        CHECK(at_end.what.pointer == key_by_key.what.pointer);
        CHECK(at_end.what.message == key_by_key.what.message);
        // Closed objects whose keys are all admitted change nothing.
        const handoff::stream_verdict closed_verdict = doomed_as_received(closed, text);
        CHECK(closed_verdict.offset == at_end.offset);
        CHECK(closed_verdict.what.message == at_end.what.message);
        CHECK(finish_is_receive(listed, text));
    }
    // A key a closed object refuses, inside an item that also fails otherwise: the verdict is at
    // that key, read again token by token.
    const std::string refused = head + R"({"records": [{"id": "a", "price": -1, "seller": {"nick": "x"}}]})" + tail;
    const handoff::stream_verdict at_key = doomed_as_received(closed, refused);
    CHECK(at_key.offset == end_of(refused, R"("nick")"));
    CHECK_THAT(at_key.what.message, Catch::Matchers::Contains("additionalProperties"));
}

TEST_CASE("finish() on what the stream established runs the semantic checks receive runs", "[stream]") {
    const handoff::receiver<> invoices = handoff_test::invoice_receiver();
    std::size_t established = 0;
    for (const std::string& path : files_in("replies")) {
        const std::string text = handoff_test::read_file(path);
        INFO(path);
        established += pushed(invoices, text).take_established() ? 1U : 0U;
        CHECK(finish_is_receive(invoices, text));
        handoff::stream_check<> check(invoices);
        check.push(text);
        CHECK(handoff::to_json(check.finish({}, "ACME Corp, invoice 7")) ==
              handoff::to_json(invoices.receive(text, "ACME Corp, invoice 7")));
    }
    CHECK(established > 0);
}

TEST_CASE("strings and numbers the stream reads itself are the values nlohmann's parser reads", "[stream]") {
    const std::string head = R"({"status": "ok", "partial_result": {"records": [{"id": )";
    const std::string tail = R"(, "name": "n", "price": 1.5, "currency": "EUR", "sku": "SKU-0001"}]},
        "schema_ok": true, "coverage": {"items_expected": 1, "items_completed": 1, "unit": "records", "fraction": 1.0}})";
    for (const std::string id : {R"("caf\u00e9 \ud83d\ude00")", "\"caf\xC3\xA9 \xF0\x9F\x98\x80 \xE2\x82\xAC\"",
                                 R"("say \"hi\"\n\t\/\\ \b\f\r")", "\"over\xC0\xAFlong\"", "\"lone \xED\xA0\x80\"",
                                 "\"past \xF4\x90\x80\x80\"", "\"cut \xE2\x82\""}) {
        INFO(id);
        CHECK(finish_is_receive(records_receiver(), head + id + tail));
    }
    std::string priced = head + "\"p\"" + tail;
    for (const std::string price : {"0.1", "-0.0", "1e2", "39.900000000000006", "2.2250738585072014e-308", "4.9e-324",
                                    "1e-400", "1e400", "123456789012345678901"}) {
        INFO(price);
        std::string text = priced;
        text.replace(text.find("1.5"), 3, price);
        CHECK(finish_is_receive(records_receiver(), text));
    }
}

TEST_CASE("partial_result's schema leaves out the parts its items passed, unless a reference reaches one", "[stream]") {
    const handoff::compiled_schema plain = handoff::compiled_schema::from_json(handoff_test::records_schema());
    const handoff::detail::stream::task_paths paths(plain);
    CHECK(&paths.result_schema() != &paths.root_schema());
    nlohmann::json referring = handoff_test::records_schema();
    referring["properties"]["also"] = {{"$ref", "#/properties/records/items"}};
    const handoff::detail::stream::task_paths whole(handoff::compiled_schema::from_json(referring));
    CHECK(&whole.result_schema() == &whole.root_schema());
    // Either way a record that fails dooms the reply, and finish() is receive.
    const handoff::receiver<> r(referring);
    std::string text = read_fixture("worked_example/run1_token_cap.json");
    CHECK(finish_is_receive(r, text));
    text.replace(text.find("\"SKU-0003\""), 10, "17");
    CHECK(stream_bytes(r, text).has_value());
    CHECK(finish_is_receive(r, text));
}

} // namespace test_stream_check

namespace test_stream_check {

TEST_CASE("an unknown key of a closed task object is doomed at the key's closing quote", "[stream]") {
    const std::string run = read_fixture("worked_example/run1_token_cap.json");
    // In an array item: the item's own part is closed (additionalProperties false).
    std::string text = run;
    text.insert(text.find("\"name\": \"Standing desk\""), "\"colour\": \"oak\", ");
    auto verdict = stream_bytes(records_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == end_of(text, "\"colour\""));
    CHECK(verdict->what.step == handoff::step::task_schema);
    CHECK(receive_reports(records_receiver(), text, verdict->what));
    CHECK(handoff_fuzz::stream::disagreement(records_receiver(), text, 2).empty());
    // In partial_result itself.
    text = run;
    text.insert(text.find("\"records\""), "\"notes\": [], ");
    verdict = stream_bytes(records_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == end_of(text, "\"notes\""));
    CHECK(receive_reports(records_receiver(), text, verdict->what));
    // Where patternProperties could admit the key, or the object is open, nothing is concluded
    // at the key.
    nlohmann::json patterned = handoff_test::records_schema();
    patterned["properties"]["records"]["items"]["patternProperties"] = {{"^col", true}};
    const handoff::receiver<> admitting(patterned);
    text = run;
    text.insert(text.find("\"name\": \"Standing desk\""), "\"colour\": \"oak\", ");
    CHECK_FALSE(stream_bytes(admitting, text).has_value());
    CHECK(handoff_fuzz::stream::disagreement(admitting, text, 2).empty());
    nlohmann::json open = handoff_test::records_schema();
    open["properties"]["records"]["items"].erase("additionalProperties");
    CHECK_FALSE(stream_bytes(handoff::receiver<>(open), text).has_value());
}

} // namespace test_stream_check

namespace test_stream_check {

TEST_CASE("a strict receiver's reply followed by whitespace is finished on what the stream built", "[stream]") {
    handoff::receiver_options strict;
    strict.strict = true;
    const handoff::receiver<> r(handoff_test::records_schema(), strict);
    const std::string text = "  " + read_fixture("worked_example/run2_time_cap.json") + "\n\n";
    CHECK(pushed(r, text).take_established().has_value());
    CHECK(finish_is_receive(r, text));
    CHECK_FALSE(pushed(r, text + "x").take_established().has_value());
    CHECK(finish_is_receive(r, text + "x"));
}

} // namespace test_stream_check

namespace test_stream_check {
namespace {

/// The byte count pushed (one at a time) when the verdict first came, and the verdict.
std::pair<std::size_t, std::optional<handoff::stream_verdict>> verdict_arrival(const handoff::receiver<>& r,
                                                                               const std::string& text) {
    handoff::stream_check<> check(r);
    for (std::size_t i = 0; i < text.size(); ++i) {
        check.push(std::string_view(text).substr(i, 1));
        if (check.doomed()) {
            return {i + 1, check.doomed()};
        }
    }
    return {text.size(), std::nullopt};
}

const handoff::receiver<>& referenced_receiver() {
    static const handoff::receiver<> r(handoff_test::read_fixture_json("schemas/referenced_records.schema.json"));
    return r;
}

/// The worked example's first run with `from` replaced by `to` in its second record.
std::string second_record_with(const std::string& from, const std::string& to) {
    std::string text = read_fixture("worked_example/run1_token_cap.json");
    const std::size_t at = text.find(from, text.find("\"record 2\""));
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

} // namespace

TEST_CASE("an item that refers to $defs is judged when it closes, in place in the task schema", "[stream]") {
    const std::string run = read_fixture("worked_example/run1_token_cap.json");
    CHECK_FALSE(stream_bytes(referenced_receiver(), run).has_value());
    CHECK(finish_is_receive(referenced_receiver(), run));
    // A referenced enum broken, and a key the referenced object does not admit: both found
    // when the record closes, with the problem receive reports.
    for (const std::string& text :
         {second_record_with("\"EUR\"", "\"CHF\""), second_record_with("\"sku\"", "\"colour\": \"oak\", \"sku\"")}) {
        const auto [pushed, verdict] = verdict_arrival(referenced_receiver(), text);
        REQUIRE(verdict);
        const std::size_t record_end = text.find('}', text.find("\"record 2\""));
        CHECK(verdict->offset == record_end);
        CHECK(pushed == record_end + 1);
        CHECK(verdict->what.pointer.rfind("/partial_result/records/1", 0) == 0);
        CHECK(receive_reports(referenced_receiver(), text, verdict->what));
        CHECK(handoff_fuzz::stream::disagreement(referenced_receiver(), text, 1).empty());
        CHECK(finish_is_receive(referenced_receiver(), text));
    }
}

TEST_CASE("a value nested in an item is judged with its item, at the item's end", "[stream]") {
    const std::string text = second_record_with("\"sku\"", "\"tags\": [\"ok\", \"far too long\"], \"sku\"");
    const auto [pushed, verdict] = verdict_arrival(referenced_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == text.find('}', text.find("\"record 2\"")));
    CHECK(verdict->what.pointer == "/partial_result/records/1/tags/1");
    CHECK(receive_reports(referenced_receiver(), text, verdict->what));
}

TEST_CASE("inside an item, a syntax error is doomed at its byte, found by the end of its token", "[stream]") {
    // A byte no JSON holds outside a string: the verdict at once.
    std::string text = second_record_with("249.0", "'249.0'");
    auto [pushed, verdict] = verdict_arrival(records_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == text.find('\''));
    CHECK(pushed == verdict->offset + 1);
    CHECK(verdict->what.code == handoff::codes::parse_syntax);
    CHECK(receive_reports(records_receiver(), text, verdict->what));
    // Bytes of JSON's alphabet in an order it refuses: the exact byte, told when the token ends
    // (the byte after the number), long before the item's end.
    text = second_record_with("249.0", "249.0.5");
    std::tie(pushed, verdict) = verdict_arrival(records_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == text.find("249.0.5") + 5);
    CHECK(pushed == text.find("249.0.5") + std::string_view("249.0.5").size() + 1);
    CHECK(pushed < text.find('}', text.find("\"record 2\"")));
    CHECK(receive_reports(records_receiver(), text, verdict->what));
    // A repeated key of an item: the item's end.
    text = second_record_with("\"sku\": \"SKU-0002\"", "\"sku\": \"SKU-0002\", \"sku\": \"SKU-0002\"");
    std::tie(pushed, verdict) = verdict_arrival(records_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->what.code == handoff::codes::parse_duplicate_key);
    CHECK(verdict->offset == text.find('}', text.find("\"record 2\"")));
    CHECK(receive_reports(records_receiver(), text, verdict->what));
}

TEST_CASE("a container field of the envelope is judged when it closes, its verdict at the byte that breaks it",
          "[stream]") {
    const std::string base = read_fixture("envelopes/ok_complete.json");
    CHECK_FALSE(stream_bytes(sections_receiver(), base).has_value());
    std::string text = base;
    text.replace(text.find("\"fraction\": 1.0"), 15, "\"fraction\": 1.5");
    const std::size_t coverage_end = text.find('}', text.find("\"coverage\""));
    auto [pushed, verdict] = verdict_arrival(sections_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->what.pointer == "/coverage/fraction");
    CHECK(verdict->offset == text.find("1.5") + 3); // a number ends at the byte after it
    CHECK(pushed == coverage_end + 1);              // told when coverage closes
    CHECK(receive_reports(sections_receiver(), text, verdict->what));
}

} // namespace test_stream_check

namespace test_stream_check {

TEST_CASE("a part that refers to $defs is judged in place exactly as the whole schema judges it there", "[stream]") {
    using access = handoff::detail::compiled_schema_access;
    const handoff::compiled_schema whole =
        handoff::compiled_schema::from_json(handoff_test::read_fixture_json("schemas/referenced_records.schema.json"));
    const nlohmann::json& items = whole.document().at("properties").at("records").at("items");
    const std::int32_t node = access::node_of(whole, &items);
    REQUIRE(node >= 0);
    nlohmann::json records =
        handoff_test::read_fixture_json("worked_example/run1_token_cap.json").at("partial_result").at("records");
    records.push_back({{"id", "r"}, {"name", "n"}, {"price", 1}, {"currency", "CHF"}}); // enum by $ref
    records.push_back({{"id", "r"}, {"name", "n"}, {"price", -1}});                     // minimum
    records.push_back({{"id", "r"}, {"name", "n"}, {"price", 1}, {"colour", "oak"}});   // closed
    records.push_back({{"id", "r"}, {"name", "n"}, {"price", 1}, {"tags", {"ok", "too long a tag"}}});
    std::size_t refused = 0;
    for (const nlohmann::json& record : records) {
        INFO(record.dump());
        const nlohmann::json alone = {{"records", {record}}};
        CHECK(access::accepts_at(whole, node, record) == whole.accepts(alone));
        const auto in_place = access::validate_at(whole, node, record, "/records/0", handoff::step::task_schema);
        const auto from_root = whole.validate(alone, "", handoff::step::task_schema);
        REQUIRE(in_place.size() == from_root.size());
        for (std::size_t i = 0; i < in_place.size(); ++i) {
            CHECK(in_place[i].pointer == from_root[i].pointer);
            CHECK(in_place[i].message == from_root[i].message);
        }
        refused += in_place.empty() ? 0U : 1U;
    }
    CHECK(refused == 4);
    // Where references resolve by dynamic scope, no part is judged in place.
    const handoff::compiled_schema dynamic = handoff::compiled_schema::from_json(nlohmann::json::parse(R"({
        "$schema": "https://json-schema.org/draft/2020-12/schema", "$dynamicAnchor": "node",
        "properties": {"records": {"items": {"$dynamicRef": "#node"}}}})"));
    CHECK(access::node_of(dynamic, &dynamic.document().at("properties").at("records").at("items")) < 0);
}

} // namespace test_stream_check

namespace test_stream_check {
namespace {

/// envelopes/ok_complete.json with the items of partial_result's sections written `items`.
std::string sections_with(const std::string& items) {
    std::string text = read_fixture("envelopes/ok_complete.json");
    const std::size_t open = text.find('[', text.find("\"sections\""));
    return text.replace(open + 1, text.find(']', open) - open - 1, items);
}

/// The verdict of `text` pushed a byte at a time is the one receive reports, at `offset`, and
/// arrives with the byte `told` (the last byte pushed); exactly found by every chunking too.
void check_verdict(const handoff::receiver<>& r, const std::string& text, std::size_t offset, std::size_t told) {
    const auto [pushed, verdict] = verdict_arrival(r, text);
    REQUIRE(verdict);
    CHECK(verdict->offset == offset);
    CHECK(pushed == told + 1);
    CHECK(receive_reports(r, text, verdict->what));
    CHECK(handoff_fuzz::stream::disagreement(r, text, 1).empty());
    CHECK(finish_is_receive(r, text));
}

} // namespace

TEST_CASE("a member array's items are judged one by one as each ends, the bytes between them at once", "[stream]") {
    const std::string base = sections_with(R"("intro", "body", "end")");
    CHECK_FALSE(stream_bytes(sections_receiver(), base).has_value());
    CHECK(finish_is_receive(sections_receiver(), base));
    // A string item failing its part: at its closing quote.
    std::string text = sections_with(R"("intro", "", "end")");
    check_verdict(sections_receiver(), text, text.find("\"\"") + 1, text.find("\"\"") + 1);
    // A number where a string must be: at the byte after it, as the tokenizer ends a number.
    text = sections_with(R"("intro", 12, "end")");
    check_verdict(sections_receiver(), text, text.find("12") + 2, text.find("12") + 2);
    // Between items, a trailing comma, a byte no JSON holds there, a comma first: at that byte,
    // at once. A string where a comma must be: at its quote, told at its end (the problem
    // receive reports names the string).
    const std::tuple<std::string, std::string, std::size_t> wrong[] = {{R"("intro", )", "]", 0},
                                                                       {R"("intro", x)", "x]", 0},
                                                                       {R"(, "intro")", ", \"intro", 0},
                                                                       {R"("intro" "end")", "\"end\"", 4}};
    for (const auto& [items, at, later] : wrong) {
        INFO(items);
        text = sections_with(items);
        const std::size_t bad = text.find(at, text.find("\"sections\""));
        check_verdict(sections_receiver(), text, bad, bad + later);
    }
}

TEST_CASE("a token the grammar refuses is doomed at its first byte, with the problem naming the whole token",
          "[stream]") {
    const std::string base = read_fixture("envelopes/ok_complete.json");
    // Where a comma or a colon must come: a string, a number, a literal, each told at its last
    // byte (a number at the byte after it).
    const std::tuple<std::string, std::string, std::string, std::size_t> wrong[] = {
        {"\"schema_ok\": true", "\"schema_ok\" \"yes\"", "\"yes\"", 4},
        {"\"claims\": 20", "\"claims\": 20 315", "315", 3},
        {"\"schema_ok\": true", "\"schema_ok\": true false", "false", 4}};
    for (const auto& [from, to, token, later] : wrong) {
        INFO(to);
        const std::string text = replaced_once(base, from, to);
        const std::size_t bad = text.find(to) + to.rfind(token);
        check_verdict(sections_receiver(), text, bad, bad + later);
    }
}

TEST_CASE("a member array's items stay within the parse limits, each told at the byte that exceeds one", "[stream]") {
    handoff::receiver_options o;
    o.limits.max_container_items = 3;
    const handoff::receiver<> few(handoff_test::sections_schema(), o);
    const std::string text = sections_with(R"("a", "b", "c", "d")");
    const auto verdict = stream_bytes(few, text);
    REQUIRE(verdict);
    CHECK(verdict->what.code == handoff::codes::parse_limit_items);
    check_verdict(few, text, text.find("\"d\"") + 2, text.find("\"d\"") + 2);
}

TEST_CASE("a reply cut inside a member array keeps the items that ended before the cut", "[stream]") {
    const std::string text = sections_with(R"("intro", "body", "end")");
    for (const std::string& cut :
         {text.substr(0, text.find("\"end\"") + 3), text.substr(0, text.find("\"body\"") + 6)}) {
        handoff::stream_check<> check(sections_receiver());
        check.push(cut);
        CHECK_FALSE(check.doomed());
        const auto salvage = check.salvage();
        REQUIRE(salvage);
        CHECK(salvage->largest_array == "/partial_result/sections");
        CHECK(salvage->partial_result == nlohmann::json{{"sections", {"intro", "body"}}});
    }
}

TEST_CASE("a key a closed task object never admits is told at its closing quote, however like a name it is",
          "[stream]") {
    // "rocords" and "records", "nxme" and "name": the same length, first and last byte.
    const std::string run = read_fixture("worked_example/run1_token_cap.json");
    std::string text = run;
    text.insert(text.find("\"records\""), "\"rocords\": [], ");
    check_verdict(records_receiver(), text, end_of(text, "\"rocords\""), end_of(text, "\"rocords\""));
    // In an array item, read whole when it ends: the verdict is still the key's.
    text = run;
    text.insert(text.find("\"name\": \"Standing desk\""), "\"nxme\": \"oak\", ");
    const auto verdict = stream_bytes(records_receiver(), text);
    REQUIRE(verdict);
    CHECK(verdict->offset == end_of(text, "\"nxme\""));
    CHECK(receive_reports(records_receiver(), text, verdict->what));
    CHECK(handoff_fuzz::stream::disagreement(records_receiver(), text, 2).empty());
}

/// The items list_scan finds in `text` (an array's bytes after its bracket) fed `chunk` bytes
/// at a time, each as its text (an object item read by an item_reader, as the list pass reads
/// it), then "]" when the array closed or "?" at a doubt.
std::vector<std::string> list_scan_items(const std::string& text, std::size_t chunk) {
    using handoff::detail::stream::item_reader;
    using handoff::detail::stream::list_scan;
    static const handoff::parse_limits limits;
    list_scan scan(8);
    std::vector<std::string> found;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t arrived = std::min(text.size(), at + chunk);
        list_scan::outcome what = list_scan::outcome::open;
        at += scan.feed(std::string_view(text).substr(at, arrived - at), what);
        if (what == list_scan::outcome::object) {
            const std::size_t start = at - 1;
            item_reader reader(limits, 8);
            reader.start(text[start] == '{');
            item_reader::outcome read = item_reader::outcome::open;
            while (at < text.size() && read == item_reader::outcome::open) {
                const std::size_t n =
                    reader.feed(std::string_view(text).substr(0, std::min(text.size(), at + chunk)), at, read);
                scan.read_by_caller(n, read == item_reader::outcome::closed);
                at += n;
            }
            found.push_back(read == item_reader::outcome::closed ? text.substr(start, at - start) : "?");
        } else if (what == list_scan::outcome::item) {
            found.push_back(text.substr(scan.item_start(), scan.read() - scan.item_start()));
        } else if (what != list_scan::outcome::open) {
            found.emplace_back(what == list_scan::outcome::closed ? "]" : "?");
        }
        if (!found.empty() && (found.back() == "]" || found.back() == "?")) {
            break;
        }
    }
    return found;
}

TEST_CASE("the list pass finds each item of an array where it begins and ends, however the bytes come", "[stream]") {
    const std::string text = R"("a","b" , 12,{"k":[1]},true ,[ ],-0.5e3])";
    const std::vector<std::string> items = {R"("a")", R"("b")", "12", R"({"k":[1]})", "true", "[ ]", "-0.5e3", "]"};
    for (const std::size_t chunk : {std::size_t{1}, std::size_t{2}, std::size_t{5}, text.size()}) {
        INFO(chunk);
        CHECK(list_scan_items(text, chunk) == items);
    }
    // The array's own grammar: a comma after the bracket or another comma, an item right after
    // another, a byte that begins no JSON value; and an object item's, which its reader reads (an
    // array item's the reading after the scan judges).
    for (const std::string wrong : {R"(,"a"])", R"("a",,"b"])", R"("a" "b"])", R"("a",])", R"(x])", R"({"k" 1}])"}) {
        INFO(wrong);
        CHECK(list_scan_items(wrong, wrong.size()).back() == "?");
    }
}

} // namespace test_stream_check

namespace test_stream_check {

TEST_CASE("a task schema read with other vocabularies or another dialect inside is judged whole when partial_result "
          "closes",
          "[stream]") {
    using access = handoff::detail::compiled_schema_access;
    handoff::schema_registry registry;
    registry.add_directory(handoff_test::fixture_path("schemas/vocabularies"), "https://example.com/vocabularies/");
    const auto compile = [&](const char* name) {
        return handoff::compiled_schema::from_json(
            handoff_test::read_fixture_json(std::string("schemas/vocabularies/") + name), registry);
    };
    CHECK(access::one_reading(handoff::compiled_schema::from_json(handoff_test::records_schema())));

    // Without the applicator vocabulary, additionalProperties, properties and items are no
    // keywords: an unknown key, a long array and a number item all pass.
    const handoff::compiled_schema bare = compile("records_without_applicator.schema.json");
    CHECK_FALSE(access::one_reading(bare));
    const handoff::receiver<> bare_receiver(bare);
    const std::string free_text =
        handoff_test::envelope_around(nlohmann::json::parse(R"({"notes": "kept", "records": [1, 2, 3]})"));
    REQUIRE(bare_receiver.receive(free_text).accepted());
    CHECK(never_doomed(bare_receiver, free_text));

    // A draft-07 tuple inside a 2020-12 schema: its items are not followed one by one, and a
    // third item fails partial_result when it closes, with receive's problem.
    const handoff::compiled_schema mixed = compile("draft07_pair_inside_2020.schema.json");
    CHECK_FALSE(access::one_reading(mixed));
    const handoff::receiver<> mixed_receiver(mixed);
    const std::string pair = handoff_test::envelope_around(nlohmann::json::parse(R"({"pair": [1, "a"]})"));
    REQUIRE(mixed_receiver.receive(pair).accepted());
    CHECK(never_doomed(mixed_receiver, pair));
    const std::string triple = handoff_test::envelope_around(nlohmann::json::parse(R"({"pair": [1, "a", true]})"));
    CHECK(doomed_as_received(mixed_receiver, triple).offset == end_of(triple, "true]}"));
}

} // namespace test_stream_check

namespace test_stream_check {

TEST_CASE("a task schema whose parts nest deep is followed at a cost bounded by its size, with receive's verdicts",
          "[stream][schema-safety]") {
    // Each level holds the levels below it: compiling every level's part on its own would
    // compile the square of the schema (40 levels of 200 members: some 160,000 subschemas).
    // Every level closed: its `false` for other members weighs no object, only the compile's own.
    nlohmann::json schema = {{"type", "object"}};
    for (int level = 0; level < 40; ++level) {
        nlohmann::json outer = {{"type", "object"}, {"additionalProperties", false}};
        for (int i = 0; i < 200; ++i) {
            outer["properties"]["p" + std::to_string(i)] = {{"type", "string"}, {"maxLength", 3}};
        }
        outer["properties"]["next"] = std::move(schema);
        schema = std::move(outer);
    }
    const handoff::compiled_schema compiled = handoff::compiled_schema::from_json(schema);
    const handoff::detail::stream::task_paths paths(compiled);
    CHECK(paths.alone_budget() ==
          std::max<std::size_t>(4096, handoff::detail::compiled_schema_access::node_count(compiled)));
    CHECK(paths.alone_spent() > 0);
    CHECK(paths.alone_spent() <= paths.alone_budget());

    // Parts past the budget are judged in place: a value deep down is judged when its member
    // of partial_result ends, as the whole schema judges it.
    const handoff::receiver<> r(compiled);
    const std::string valid = handoff_test::envelope_around(
        nlohmann::json::parse(R"({"p0": "a", "next": {"p1": "b", "next": {"next": {"p7": "cd"}}}})"));
    CHECK(never_doomed(r, valid));
    const std::string deep_too_long = handoff_test::envelope_around(
        nlohmann::json::parse(R"({"next": {"p1": "b", "next": {"next": {"p7": "long"}}}, "p0": "a"})"));
    CHECK(doomed_as_received(r, deep_too_long).offset < deep_too_long.find("\"p0\""));
}

} // namespace test_stream_check

namespace test_stream_check {

TEST_CASE("partial_result's schema stays whole exactly where a reference reaches a judged part, among thousands",
          "[stream][schema-safety]") {
    // Thousands of references and of judged members: each reference is looked up among the
    // judged positions, never compared with each of them.
    const auto paths_with = [](const std::string& extra_ref) {
        nlohmann::json schema = {{"type", "object"}};
        for (int i = 0; i < 2000; ++i) {
            schema["properties"]["p" + std::to_string(i)] = {{"type", "string"}, {"not", {{"const", "z"}}}};
            schema["$defs"]["d" + std::to_string(i)] = {{"$ref", "#/$defs/x"}};
        }
        schema["$defs"]["x"] = {{"type", "integer"}};
        schema["properties2"] = {{"type", "integer"}}; // no keyword: a place a reference may name
        if (!extra_ref.empty()) {
            schema["$defs"]["extra"] = {{"$ref", extra_ref}};
        }
        return std::make_unique<handoff::detail::stream::task_paths>(handoff::compiled_schema::from_json(schema));
    };
    const auto reduced = [](const handoff::detail::stream::task_paths& p) {
        return &p.result_schema() != &p.root_schema();
    };
    CHECK(reduced(*paths_with("")));
    CHECK(reduced(*paths_with("#/$defs/x")));
    CHECK(reduced(*paths_with("#/properties2")));             // beside the judged members, not above them
    CHECK_FALSE(reduced(*paths_with("#/properties/p1234")));  // a judged member
    CHECK_FALSE(reduced(*paths_with("#/properties")));        // the object holding them
    CHECK_FALSE(reduced(*paths_with("#/properties/p7/not"))); // inside a judged member
}

} // namespace test_stream_check

namespace test_stream_check {

TEST_CASE("the envelope's own fields are read whole as each ends, with the tokenizer's verdicts at their bytes",
          "[stream]") {
    const std::string base = read_fixture("envelopes/ok_complete.json");
    const auto replaced = [&](const std::string& from, const std::string& to) { return replaced_once(base, from, to); };
    // Layouts the member pass reads, or hands to the tokenizer (an escaped key, a field after
    // partial_result, status after a field), all passing, all finished as receive finishes them.
    const std::string passing[] = {
        base,
        replaced("\"status\"", "\"st\\u0061tus\""),
        replaced("\"status\": \"ok\",", "\"reason_code\" :null ,\"status\"\n:\n\"ok\"\t,"),
    };
    for (const std::string& text : passing) {
        INFO(text);
        CHECK(never_doomed(sections_receiver(), text));
        CHECK(finish_is_receive(sections_receiver(), text));
    }
    // A word outside its vocabulary: at its closing quote, told there.
    std::string text = replaced("\"ok\"", "\"okay\"");
    check_verdict(sections_receiver(), text, end_of(text, "\"okay\""), end_of(text, "\"okay\""));
    // A number where true or false must be, after partial_result: at the byte after it, as the
    // tokenizer ends a number.
    text = replaced("\"schema_ok\": true", "\"schema_ok\": 1");
    check_verdict(sections_receiver(), text, text.find("1,") + 1, text.find("1,") + 1);
    // A key no field has, a field read twice: at the key's closing quote.
    text = replaced("\"schema_ok\"", "\"extra\": 1, \"schema_ok\"");
    check_verdict(sections_receiver(), text, end_of(text, "\"extra\""), end_of(text, "\"extra\""));
    text = replaced("\"schema_ok\"", "\"status\": \"ok\", \"schema_ok\"");
    const std::size_t second = text.find("\"status\"", text.find("\"status\"") + 1) + 7;
    check_verdict(sections_receiver(), text, second, second);
    // reason_code beside ok, after it: at the reason code's closing quote.
    text = replaced("\"schema_ok\"", "\"reason_code\": \"TOKEN_CAP\", \"schema_ok\"");
    check_verdict(sections_receiver(), text, end_of(text, "\"TOKEN_CAP\""), end_of(text, "\"TOKEN_CAP\""));
    // A container of the wrong kind: at its bracket, told there.
    text = replaced("\"coverage\": {", "\"coverage\": [], \"x\": {");
    check_verdict(sections_receiver(), text, text.find("[]"), text.find("[]"));
    // A byte no JSON holds between fields: at that byte.
    text = replaced("\"schema_ok\": true,", "\"schema_ok\": true;");
    check_verdict(sections_receiver(), text, text.find(';'), text.find(';'));
    // An escape no JSON string has, in a key or a value: at its letter, told there.
    text = replaced("\"ok\"", "\"o\\k\"");
    check_verdict(sections_receiver(), text, text.find("\\k") + 1, text.find("\\k") + 1);
    text = replaced("\"schema_ok\"", "\"schema\\u00zz\"");
    check_verdict(sections_receiver(), text, text.find("zz"), text.find("zz"));
    // A literal of the wrong type: at its last letter, told there (a reply cut there is doomed).
    text = replaced("\"schema_ok\": true", "\"schema_ok\": null");
    check_verdict(sections_receiver(), text, end_of(text, "null"), end_of(text, "null"));
}

TEST_CASE("the envelope's own fields stay within the parse limits, each told at the byte that exceeds one",
          "[stream]") {
    const std::string text = sections_with(R"("intro", "end")");
    handoff::receiver_options few_items;
    few_items.limits.max_container_items = 2;
    const handoff::receiver<> narrow(handoff_test::sections_schema(), few_items);
    // The third key of the envelope's own object is one member too many (partial_result holds
    // two of each).
    const std::size_t third = end_of(text, "\"schema_ok\"");
    const auto verdict = stream_bytes(narrow, text);
    REQUIRE(verdict);
    CHECK(verdict->what.code == handoff::codes::parse_limit_items);
    check_verdict(narrow, text, third, third);

    handoff::receiver_options few_values;
    few_values.limits.max_values = 20;
    const handoff::receiver<> small(handoff_test::sections_schema(), few_values);
    const auto over = stream_bytes(small, text);
    REQUIRE(over);
    CHECK(over->what.step == handoff::step::parse);
    CHECK(receive_reports(small, text, over->what));
    CHECK(handoff_fuzz::stream::disagreement(small, text, 3).empty());
}

} // namespace test_stream_check

namespace test_stream_check {

TEST_CASE("a member judged on its own counts the depth receive's walk reaches it at, near the bound on nesting",
          "[stream]") {
    // Replies nested deeper than the default parse limit (64) allows: the walk's own bound then
    // decides.
    handoff::receiver_options deep;
    deep.limits.max_depth = 200;
    const handoff::receiver<> trees(handoff::compiled_schema::from_json(nlohmann::json::parse(
                                        handoff_test::read_fixture("schemas/stream_deep_tree.schema.json"))),
                                    deep);
    // A tree `levels` deep with a number at its deepest node, in an envelope that passes steps 1 and 2.
    const auto reply = [](int levels) {
        std::string tree = R"({"v": 1})";
        for (int i = 0; i < levels; ++i) {
            tree = R"({"c": )" + tree + "}";
        }
        return R"({"status": "ok", "partial_result": {"tree": )" + tree +
               R"(}, "schema_ok": true, "coverage": {"items_expected": 1, "items_completed": 1, "unit": "trees", )"
               R"("fraction": 1.0}, "steps": {"completed": ["grow"], "remaining": []}})";
    };
    // Within the bound: accepted, never doomed.
    const std::string within = reply(126);
    REQUIRE(trees.receive(within).accepted());
    CHECK(never_doomed(trees, within));
    handoff::stream_check<> whole(trees);
    whole.push(within);
    CHECK(finishes_as_received(whole, trees, within));
    // One level more: receive refuses it at the bound, and the stream with it (the member
    // judged from where partial_result's walk reaches it, not from a walk of its own).
    const std::string past = reply(127);
    const auto refused = trees.receive(past);
    REQUIRE_FALSE(refused.problems.empty());
    CHECK(refused.problems.front().message.find("nest deeper than 256") != std::string::npos);
    const handoff::stream_verdict verdict = doomed_as_received(trees, past);
    CHECK(verdict.what.step == handoff::step::task_schema);
    handoff::stream_check<> pushed_whole(trees);
    pushed_whole.push(past);
    CHECK(finishes_as_received(pushed_whole, trees, past));
}

} // namespace test_stream_check

namespace test_stream_check {
namespace {

/// What the list pass's item reader makes of the container at `start` in `text` when the text
/// arrives `chunk` bytes at a time: its outcome, and where it stopped.
struct item_read {
    handoff::detail::stream::item_reader::outcome what = handoff::detail::stream::item_reader::outcome::open;
    std::size_t end = 0; // the byte after the last one read
    nlohmann::json value;
    std::size_t values = 0;
};

item_read read_item(const std::string& text, std::size_t start, std::size_t chunk, const handoff::parse_limits& limits,
                    std::size_t room) {
    using handoff::detail::stream::item_reader;
    item_reader reader(limits, room);
    reader.start(text[start] == '{');
    item_read out;
    std::size_t at = start + 1;
    while (at < text.size() && out.what == item_reader::outcome::open) {
        const std::string_view arrived = std::string_view(text).substr(0, std::min(text.size(), at + chunk));
        at += reader.feed(arrived, at, out.what);
    }
    out.end = at;
    out.value = std::move(reader.value());
    out.values = reader.values();
    return out;
}

/// Whether `a` and `b` hold values of the same types throughout (and the same doubles' signs),
/// which nlohmann's == does not tell apart.
bool same_types(const nlohmann::json& a, const nlohmann::json& b) {
    if (a.type() != b.type() || a.size() != b.size() || (a.is_number_float() && a.dump() != b.dump())) {
        return false;
    }
    if (a.is_array()) {
        return std::equal(a.begin(), a.end(), b.begin(), same_types);
    }
    return !a.is_object() || std::all_of(a.items().begin(), a.items().end(), [&b](const auto& member) {
        return b.contains(member.key()) && same_types(member.value(), b.at(member.key()));
    });
}

/// The container at `start` read whole by the one-pass reader receive uses (its end found by the
/// quick pass's scan): the value and count, or nullopt where the scan or the reader gives way.
std::optional<std::pair<nlohmann::json, std::size_t>> read_whole_item(const std::string& text, std::size_t start,
                                                                      const handoff::parse_limits& limits,
                                                                      std::size_t room, std::size_t& end) {
    using handoff::detail::stream::unit_scan;
    unit_scan scan(room);
    unit_scan::outcome what = unit_scan::outcome::open;
    end = start + 1 + scan.feed(std::string_view(text).substr(start + 1), what);
    if (what != unit_scan::outcome::closed) {
        return std::nullopt;
    }
    nlohmann::json v;
    handoff::detail::fast_json in(std::string_view(text).substr(start, end - start), limits);
    if (!in.read_value(v) || !in.finish()) {
        return std::nullopt;
    }
    return std::make_pair(std::move(v), in.values());
}

} // namespace

TEST_CASE("the list pass's item reader reads a container as it arrives to what the one-pass reader reads whole",
          "[stream]") {
    // Every container of JSONTestSuite's texts (valid and not) and of the envelope fixtures, some
    // of them one byte changed: read as it arrives, in chunks of every size from one byte to the
    // whole, it closes exactly where the one-pass reader reads the container whole, with the same
    // value and count, and doubts everywhere else.
    std::vector<std::string> texts;
    for (const auto& entry : fs::directory_iterator(fs::path(HANDOFF_CORPORA_DIR) / "JSONTestSuite" / "test_parsing")) {
        texts.push_back(handoff_test::read_file(entry.path().string()));
    }
    for (const auto& entry : fs::directory_iterator(handoff_test::fixture_path("envelopes"))) {
        const std::string text = handoff_test::read_file(entry.path().string());
        texts.push_back(text);
        for (const char* changed : {"\\", "\"", "}", "]", "\x01", ",", "\xc3", "e", "t"}) {
            std::string mutated = text;
            mutated[mutated.size() / 3] = *changed;
            texts.push_back(mutated);
        }
    }
    handoff::parse_limits limits;
    limits.max_container_items = 5; // a bound the reader must give way at, as the one-pass reader does
    std::size_t closed = 0;
    std::size_t doubted = 0;
    for (const std::string& text : texts) {
        for (std::size_t start = 0; start < text.size(); ++start) {
            if (text[start] != '{' && text[start] != '[') {
                continue;
            }
            for (const std::size_t room : {std::size_t{3}, std::size_t{64}}) {
                std::size_t whole_end = 0;
                const auto whole = read_whole_item(text, start, limits, room, whole_end);
                for (const std::size_t chunk : {std::size_t{1}, std::size_t{2}, std::size_t{7}, text.size()}) {
                    const item_read read = read_item(text, start, chunk, limits, room);
                    INFO(text.substr(start, 60) << " room " << room << " chunk " << chunk);
                    if (!whole) {
                        CHECK(read.what != handoff::detail::stream::item_reader::outcome::closed);
                        doubted += read.what == handoff::detail::stream::item_reader::outcome::doubt ? 1U : 0U;
                        continue;
                    }
                    REQUIRE(read.what == handoff::detail::stream::item_reader::outcome::closed);
                    CHECK(read.end == whole_end);
                    CHECK(read.value == whole->first);
                    CHECK(same_types(read.value, whole->first)); // (== takes 1 and 1u, 0.0 and -0.0 alike)
                    CHECK(read.values == whole->second);
                    ++closed;
                }
            }
        }
    }
    // Both sides were reached, often.
    CHECK(closed > 1000);
    CHECK(doubted > 1000);
}

} // namespace test_stream_check
