// SPDX-License-Identifier: MIT
// One receiver shared by many threads gives the same receipts as one thread, received whole or
// streamed. The task schema has patterns, formats, propertyNames and patternProperties, so every
// regex path runs (compiled regexes are shared read-only; a search keeps its state on its own).
// Every test tagged [concurrency], in this file or another, runs under ThreadSanitizer in
// `scripts/test.sh tsan`. The threads only record what they see; the main thread asserts,
// because Catch2 v2's assertions are not thread-safe (Catch2 v2.x docs/limitations.md,
// "Thread safe assertions").

#include "support/fixtures.hpp"

#include <handoff/handoff.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // max
#include <atomic>      // atomic
#include <cstddef>     // size_t
#include <cstdint>     // uint64_t
#include <string>      // string
#include <string_view> // string_view
#include <thread>      // thread
#include <vector>      // vector

namespace test_concurrency { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

using nlohmann::json;

json base_envelope() {
    return json::parse(R"({"status":"ok","reason_code":null,"partial_result":{"items":[{"sku":"ABC-1234"}]},
        "schema_ok":true,"coverage":{"items_expected":1,"items_completed":1,"unit":"items","fraction":1.0},
        "steps":{"completed":["all"],"remaining":[]}})");
}

/// Envelopes that reach every step and route: accepted, refused by each regex path, capped with
/// every reason code at several coverages (with hints that disagree), and broken JSON.
std::vector<std::string> corpus() {
    std::vector<std::string> out;
    const std::vector<json> items = {
        {{"sku", "ABC-1234"}},
        {{"sku", "ABC-1234"}, {"note", "plain words only"}, {"day", "2024-02-29"}, {"code", "ababc"}},
        {{"sku", "abc-1234"}},
        {{"sku", "ABC-12345"}},
        {{"sku", "ABC-1234"}, {"note", "punctuation!"}},
        {{"sku", "ABC-1234"}, {"note", std::string(4097, 'w')}},
        {{"sku", "ABC-1234"}, {"day", "2024-02-30"}},
        {{"sku", "ABC-1234"}, {"code", std::string(4000, 'a')}},
        {{"sku", "ABC-1234"}, {"code", std::string(3999, 'b') + "c"}},
        {{"sku", "ABC-1234"}, {"extra", 1}},
    };
    const std::vector<json> tags = {
        json::object(), {{"colour", "red"}}, {{"Colour", "red"}}, {{"snake_case", "x"}}, {{"colour", ""}},
    };
    for (const json& item : items) {
        for (const json& tag : tags) {
            json env = base_envelope();
            env["partial_result"]["items"] = json::array({item});
            env["partial_result"]["tags"] = tag;
            out.push_back(env.dump());
        }
    }
    const char* reasons[] = {"TOKEN_CAP",        "TIME_CAP",          "TOOL_CALL_CAP",
                             "CONTEXT_OVERFLOW", "DEPENDENCY_FAILED", "SCOPE_TOO_BROAD"};
    const char* hints[] = {"RESUME", "SPLIT", "NARROW", "ESCALATE", "FAIL"};
    std::size_t n = 0;
    for (const char* reason : reasons) {
        for (const std::uint64_t completed : {0U, 3U, 6U, 9U}) {
            json env = base_envelope();
            env["status"] = "capped";
            env["reason_code"] = reason;
            env["coverage"] = {{"items_expected", 10},
                               {"items_completed", completed},
                               {"unit", "items"},
                               {"fraction", static_cast<double>(completed) / 10.0}};
            env["steps"] = {{"completed", {"a"}}, {"remaining", {"b", "c"}}};
            env["retry_hint"] = {{"suggested_action", hints[n++ % 5]}, {"budget_multiplier", 3.0}};
            if (completed == 6) {
                env["partial_result"]["items"][0]["sku"] = "bad"; // a step-3 downgrade
            }
            out.push_back(env.dump());
        }
    }
    out.push_back(R"({"status": "ok", "status": "capped"})");
    out.push_back("```json\n" + base_envelope().dump(2) + "\n```\nDone.");
    out.push_back("{'status': 'ok'}");
    out.push_back(std::string(1000, '['));
    return out;
}

/// What each of `threads` threads returned from `work(t)` (a string per text), the threads
/// started together once all are made.
template <class Work>
std::vector<std::vector<std::string>> run_together(std::size_t threads, const Work& work) {
    std::vector<std::vector<std::string>> got(threads);
    std::atomic<bool> go{false};
    std::vector<std::thread> pool;
    for (std::size_t t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            while (!go.load(std::memory_order_acquire)) {
                std::this_thread::yield();
            }
            got[t] = work(t);
        });
    }
    go.store(true, std::memory_order_release);
    for (std::thread& th : pool) {
        th.join();
    }
    return got;
}

/// Every thread saw what one thread sees (asserted on the main thread: Catch2 v2 asserts there).
void check_same(const std::vector<std::vector<std::string>>& got, const std::vector<std::string>& expected) {
    for (std::size_t t = 0; t < got.size(); ++t) {
        INFO("thread " << t);
        REQUIRE(got[t].size() == expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            INFO("envelope " << i);
            CHECK(got[t][i] == expected[i]);
        }
    }
}

} // namespace

TEST_CASE("one receiver shared by 8 threads gives the same receipts as one thread", "[concurrency]") {
    handoff::disagreement_ledger ledger;
    handoff::receiver_options options;
    options.ledger = &ledger;
    const handoff::receiver<> rx(handoff_test::read_fixture_json("schemas/patterned_items.schema.json"), options);
    const std::vector<std::string> texts = corpus();

    std::vector<std::string> expected;
    for (const std::string& text : texts) {
        expected.push_back(handoff::to_json(rx.receive(text)).dump());
    }
    const std::uint64_t disagreements_once = ledger.total();
    // The corpus reaches every route and records disagreements (else the test proves little).
    for (const char* route : {"ACCEPT", "REPAIR", "RESUME", "SPLIT", "NARROW", "ESCALATE"}) {
        bool seen = false;
        for (const std::string& dump : expected) {
            seen = seen || json::parse(dump)["route"] == route;
        }
        INFO(route);
        CHECK(seen);
    }
    CHECK(disagreements_once > 0);

    constexpr std::size_t threads = 8;
    constexpr std::size_t rounds = 3;
    // Each thread walks the corpus from a different place, so different envelopes (and
    // regexes) meet at the same time.
    const auto receive_all = [&](std::size_t t) {
        std::vector<std::string> mine(texts.size());
        for (std::size_t round = 0; round < rounds; ++round) {
            for (std::size_t k = 0; k < texts.size(); ++k) {
                const std::size_t i = (k + t * texts.size() / threads) % texts.size();
                mine[i] = handoff::to_json(rx.receive(texts[i])).dump();
            }
        }
        return mine;
    };
    check_same(run_together(threads, receive_all), expected);
    CHECK(ledger.total() == disagreements_once * (1 + threads * rounds));
}

TEST_CASE("one compiled schema validates from many threads at once", "[concurrency]") {
    const handoff::compiled_schema schema =
        handoff::compiled_schema::from_json(handoff_test::read_fixture_json("schemas/patterned_items.schema.json"));
    const json good = {{"items", {{{"sku", "XYZ-0001"}, {"note", "fine words"}, {"day", "2023-12-31"}}}},
                       {"tags", {{"colour", "red"}}}};
    const json bad = {{"items", {{{"sku", "xyz"}, {"code", "aaaa"}}}}, {"tags", {{"Bad", "x"}}}};
    const std::size_t bad_problems = schema.validate(bad, "", handoff::step::task_schema).size();
    REQUIRE(bad_problems > 0);
    std::atomic<std::size_t> mismatches{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < 8; ++t) {
        pool.emplace_back([&] {
            for (int i = 0; i < 50; ++i) {
                if (!schema.is_valid(good) || schema.is_valid(bad) ||
                    schema.validate(bad, "", handoff::step::task_schema).size() != bad_problems) {
                    mismatches.fetch_add(1);
                }
            }
        });
    }
    for (std::thread& th : pool) {
        th.join();
    }
    CHECK(mismatches.load() == 0);
}

TEST_CASE("one receiver streamed by 8 threads at once gives receive's receipts", "[concurrency]") {
    // Checks on many threads share the receiver's compiled parts of the task schema; each
    // thread lends its own buffers, and runs two checks at once, fed alternately.
    const handoff::receiver<> rx(handoff_test::read_fixture_json("schemas/patterned_items.schema.json"));
    const std::vector<std::string> texts = corpus();
    std::vector<std::string> expected;
    for (const std::string& text : texts) {
        expected.push_back(handoff::to_json(rx.receive(text)).dump());
    }
    constexpr std::size_t threads = 8;
    // Every text, in pairs from the thread's own place, split in chunks of the thread's own size.
    const auto stream_all = [&](std::size_t t) {
        const std::size_t chunk = 3 + t;
        std::vector<std::string> mine(texts.size());
        for (std::size_t k = 0; k < texts.size(); k += 2) {
            const std::size_t i = (k + t * texts.size() / threads) % texts.size();
            const std::size_t j = (i + 1) % texts.size();
            handoff::stream_check<> a(rx);
            handoff::stream_check<> b(rx);
            for (std::size_t at = 0; at < std::max(texts[i].size(), texts[j].size()); at += chunk) {
                if (at < texts[i].size()) {
                    a.push(std::string_view(texts[i]).substr(at, chunk));
                }
                if (at < texts[j].size()) {
                    b.push(std::string_view(texts[j]).substr(at, chunk));
                }
            }
            mine[i] = handoff::to_json(a.finish()).dump();
            mine[j] = handoff::to_json(b.finish()).dump();
        }
        return mine;
    };
    check_same(run_together(threads, stream_all), expected);
}

} // namespace test_concurrency
