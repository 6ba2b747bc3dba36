// SPDX-License-Identifier: MIT
// Layer 3: the bounded feedback loop, driven by scripted model replies.

#include "support/fixtures.hpp"

#include <handoff/dead_letter.hpp>
#include <handoff/provider_model_reply.hpp>
#include <handoff/receiver.hpp>
#include <handoff/repair_loop.hpp>
#include <handoff/semantic.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>  // size_t
#include <optional> // optional
#include <string>   // string
#include <vector>   // vector

namespace test_repair_loop { // this file's own names: see "unity build" in tests/CMakeLists.txt

using Catch::Matchers::ContainsSubstring;

namespace {

using handoff_test::invoice_receiver;
using handoff_test::invoice_schema;
using handoff_test::reply;

handoff::repair_request invoice_request() {
    handoff::repair_request request;
    request.prompt = "Extract the invoice below as a handoff envelope.\n\n" + reply("invoice_source.txt");
    request.source_text = reply("invoice_source.txt");
    request.request_id = "inv-2041";
    request.trace_id = "trace-abc";
    request.span_id = "span-1";
    return request;
}

/// A model that plays back a script and remembers every prompt it was sent.
struct scripted_model {
    std::vector<handoff::model_reply> script;
    std::vector<std::string> prompts;

    handoff::model_reply operator()(std::string_view prompt) {
        prompts.emplace_back(prompt);
        REQUIRE(prompts.size() <= script.size()); // the loop called more often than it may
        return script[prompts.size() - 1];
    }
};

handoff::model_reply done(const std::string& text) { return {text, "end_turn"}; }
handoff::model_reply cut(const std::string& text) { return {text, "max_tokens"}; }

std::size_t count(const std::string& haystack, const std::string& needle) {
    std::size_t n = 0;
    for (auto at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) {
        ++n;
    }
    return n;
}

} // namespace

TEST_CASE("a fabricated total is caught by layer 2 and reconciled on the one repair retry", "[repair_loop]") {
    const auto receiver = invoice_receiver();
    scripted_model model{{done(reply("invoice_fabricated_total.json")), done(reply("invoice_reconciled.json"))}, {}};
    const auto result = handoff::repair_loop<>(receiver).run(invoice_request(), model);

    CHECK(result.outcome == handoff::loop_outcome::succeeded);
    CHECK(result.succeeded());
    CHECK(result.attempts == 2); // "passed only after a retry" is visible
    CHECK(result.retried());
    CHECK_FALSE(result.dead_letter_due);
    REQUIRE(result.value() != nullptr);
    CHECK((*result.value())["stated_total"] == 520.0);
    REQUIRE(model.prompts.size() == 2);
    CHECK(model.prompts[0] == invoice_request().prompt);
    CHECK_THAT(model.prompts[1], ContainsSubstring("- /partial_result/stated_total: stated_total (480.00) does not "
                                                   "match the sum of line_items (520.00); re-extract, correcting "
                                                   "the discrepancy\n"));
    CHECK(result.history[1].prompt == model.prompts[1]);
    CHECK(result.history[0].checked->failed_step == handoff::step::semantic);
}

TEST_CASE("a first-time-right reply takes one attempt and no repair prompt", "[repair_loop]") {
    const auto receiver = invoice_receiver();
    scripted_model model{{done(reply("invoice_reconciled.json"))}, {}};
    const auto result = handoff::repair_loop<>(receiver).run(invoice_request(), model);
    CHECK(result.succeeded());
    CHECK(result.attempts == 1);
    CHECK_FALSE(result.retried());
    CHECK(result.problems.empty());
    CHECK(result.reason == "accepted on attempt 1");
}

TEST_CASE("a persistent mismatch exhausts the default budget of one retry and is dead-lettered", "[repair_loop]") {
    const auto receiver = invoice_receiver();
    handoff::memory_dead_letter_sink sink;
    handoff::repair_options options;
    options.dead_letters = &sink;
    scripted_model model{{done(reply("invoice_fabricated_total.json")), done(reply("invoice_fabricated_total.json")),
                          done(reply("invoice_reconciled.json"))},
                         {}};
    const auto result = handoff::repair_loop<>(receiver, options).run(invoice_request(), model);

    CHECK(result.outcome == handoff::loop_outcome::retries_exhausted);
    CHECK(result.attempts == 2);
    CHECK(model.prompts.size() == 2); // bounded: the third scripted reply is never asked for
    CHECK(result.value() == nullptr);
    REQUIRE(result.problems.size() == 1);
    CHECK(result.problems[0].code == "semantic.total_mismatch");
    CHECK(result.reason == "still rejected after 2 attempts (1 repair allowed)");
    CHECK(result.dead_letter_due);
    CHECK(result.dead_letter_written);
    REQUIRE(sink.lines().size() == 1);
    const auto record = nlohmann::json::parse(sink.lines()[0]);
    CHECK(record["outcome"] == "retries_exhausted");
    CHECK(record["request_id"] == "inv-2041");
    CHECK(record["attempts"].size() == 2);
}

TEST_CASE("max_retries bounds the calls whatever the model sends", "[repair_loop]") {
    const auto receiver = invoice_receiver();
    const std::uint32_t retries = GENERATE(0U, 1U, 3U);
    handoff::repair_options options;
    options.max_retries = retries;
    scripted_model model{std::vector<handoff::model_reply>(6, done("not json at all")), {}};
    const auto result = handoff::repair_loop<>(receiver, options).run(invoice_request(), model);
    CHECK(result.outcome == handoff::loop_outcome::retries_exhausted);
    CHECK(result.attempts == retries + 1);
    CHECK(model.prompts.size() == retries + 1);
}

TEST_CASE("only the last failed attempt is in the repair prompt, earlier ones never pile up", "[repair_loop]") {
    const auto receiver = invoice_receiver();
    auto first = nlohmann::json::parse(reply("invoice_fabricated_total.json"));
    first["partial_result"]["line_items"][0]["description"] = "ATTEMPT-ONE-MARKER";
    auto second = nlohmann::json::parse(reply("invoice_wrong_quote.json"));
    second["partial_result"]["line_items"][0]["description"] = "ATTEMPT-TWO-MARKER";
    handoff::repair_options options;
    options.max_retries = 2;
    scripted_model model{{done(first.dump()), done(second.dump()), done(reply("invoice_reconciled.json"))}, {}};
    const auto result = handoff::repair_loop<>(receiver, options).run(invoice_request(), model);

    CHECK(result.succeeded());
    CHECK(result.attempts == 3);
    REQUIRE(model.prompts.size() == 3);
    CHECK_THAT(model.prompts[1], ContainsSubstring("ATTEMPT-ONE-MARKER"));
    CHECK_THAT(model.prompts[2], ContainsSubstring("ATTEMPT-TWO-MARKER"));
    CHECK_FALSE(model.prompts[2].find("ATTEMPT-ONE-MARKER") != std::string::npos);
    // Attempt 1's problem is gone from the third prompt; attempt 2's is there.
    CHECK_FALSE(model.prompts[2].find("stated_total (480.00)") != std::string::npos);
    CHECK_THAT(model.prompts[2],
               ContainsSubstring("- /partial_result/vendor_quote: the quote \"Northwind Traders, Seattle\""));
    CHECK(count(model.prompts[2], "Your previous reply (attempt") == 1);
    CHECK_THAT(model.prompts[2], ContainsSubstring("Your previous reply (attempt 2) was rejected."));
    // Every repair prompt starts with the original prompt, unchanged.
    CHECK(model.prompts[1].rfind(invoice_request().prompt, 0) == 0);
    CHECK(model.prompts[2].rfind(invoice_request().prompt, 0) == 0);
}

TEST_CASE("a max_tokens truncation is not retried on the same budget", "[repair_loop]") {
    const auto receiver = invoice_receiver();
    handoff::memory_dead_letter_sink sink;
    handoff::repair_options options;
    options.max_retries = 3; // retries are available, yet none is spent on the same budget
    options.dead_letters = &sink;
    const std::string partial = reply("invoice_truncated.txt");
    scripted_model model{{cut(partial), done(reply("invoice_reconciled.json"))}, {}};
    const auto result = handoff::repair_loop<>(receiver, options).run(invoice_request(), model);

    CHECK(result.outcome == handoff::loop_outcome::truncated);
    CHECK(result.attempts == 1);
    CHECK(model.prompts.size() == 1);
    CHECK(result.partial_text() == partial);
    CHECK(result.last_receipt() == nullptr); // a cut-off reply is not checked
    REQUIRE(result.problems.size() == 1);
    CHECK(result.problems[0].code == "reply.truncated");
    CHECK(result.problems[0].message == "the reply stopped at the output cap (stop_reason \"max_tokens\") after 300 "
                                        "bytes; a retry on the same budget would be cut off at the same place");
    CHECK(result.reason ==
          "the reply of attempt 1 was cut off at the output cap (max_tokens) and the cap was not raised");
    REQUIRE(sink.lines().size() == 1);
    CHECK(nlohmann::json::parse(sink.lines()[0])["outcome"] == "truncated");
}

TEST_CASE("a truncation is retried once the caller's policy raised the cap, and the prompt says it was cut off",
          "[repair_loop]") {
    const auto receiver = invoice_receiver();
    std::size_t cap = 100;
    std::vector<handoff::truncation_event> events;
    handoff::repair_options options;
    options.raise_cap = [&](const handoff::truncation_event& e) {
        events.push_back(e);
        cap *= 4;
        return true;
    };
    std::vector<std::size_t> caps_seen;
    scripted_model script{{cut(reply("invoice_truncated.txt")), done(reply("invoice_reconciled.json"))}, {}};
    auto model = [&](std::string_view prompt) {
        caps_seen.push_back(cap);
        return script(prompt);
    };
    const auto result = handoff::repair_loop<>(receiver, options).run(invoice_request(), model);

    CHECK(result.succeeded());
    CHECK(result.attempts == 2);
    CHECK(result.problems.empty()); // the truncation of attempt 1 no longer matters
    CHECK(caps_seen == std::vector<std::size_t>{100, 400});
    REQUIRE(events.size() == 1);
    CHECK(events[0].attempt == 1);
    CHECK(events[0].reply_bytes == 300);
    CHECK(events[0].stop_reason == "max_tokens");
    CHECK(events[0].raises_so_far == 0);
    CHECK_THAT(script.prompts[1], ContainsSubstring("Your previous reply (attempt 1) was cut off at the output limit "
                                                    "(stop_reason \"max_tokens\") after 300 bytes"));
    CHECK(result.history[0].truncated);
}

TEST_CASE("a cap policy that declines stops the loop with the partial text", "[repair_loop]") {
    const auto receiver = invoice_receiver();
    int asked = 0;
    handoff::repair_options options;
    options.raise_cap = [&](const handoff::truncation_event&) {
        ++asked;
        return false;
    };
    scripted_model model{{cut("{\"status\": \"ok\", \"partial_re")}, {}};
    const auto result = handoff::repair_loop<>(receiver, options).run(invoice_request(), model);
    CHECK(result.outcome == handoff::loop_outcome::truncated);
    CHECK(asked == 1);
    CHECK(result.partial_text() == "{\"status\": \"ok\", \"partial_re");
}

TEST_CASE("a truncation on the last allowed attempt ends as truncated without asking to raise the cap",
          "[repair_loop]") {
    const auto receiver = invoice_receiver();
    int asked = 0;
    handoff::repair_options options;
    options.raise_cap = [&](const handoff::truncation_event&) {
        ++asked;
        return true;
    };
    scripted_model model{{done(reply("invoice_fabricated_total.json")), cut(reply("invoice_truncated.txt"))}, {}};
    const auto result = handoff::repair_loop<>(receiver, options).run(invoice_request(), model);
    CHECK(result.outcome == handoff::loop_outcome::truncated);
    CHECK(result.attempts == 2);
    CHECK(asked == 0);
    CHECK(result.reason == "the reply of attempt 2 was cut off at the output cap (max_tokens) and no retry is left "
                           "to raise it");
}

TEST_CASE("other stop reasons can be declared truncation, such as OpenAI's length", "[repair_loop]") {
    const auto receiver = invoice_receiver();
    handoff::repair_options options;
    options.truncation_stop_reasons = {"max_tokens", "length"};
    scripted_model model{{{reply("invoice_truncated.txt"), "length"}}, {}};
    const auto result = handoff::repair_loop<>(receiver, options).run(invoice_request(), model);
    CHECK(result.outcome == handoff::loop_outcome::truncated);
}

TEST_CASE("one budget covers every layer: parse, truncation and semantic failures share the retries", "[repair_loop]") {
    const auto receiver = invoice_receiver();
    handoff::repair_options options;
    options.max_retries = 2;
    options.raise_cap = [](const handoff::truncation_event&) { return true; };
    scripted_model model{{done("{'status': 'ok'}"), cut(reply("invoice_truncated.txt")),
                          done(reply("invoice_fabricated_total.json")), done(reply("invoice_reconciled.json"))},
                         {}};
    const auto result = handoff::repair_loop<>(receiver, options).run(invoice_request(), model);
    CHECK(result.outcome == handoff::loop_outcome::retries_exhausted);
    CHECK(result.attempts == 3);
    CHECK(model.prompts.size() == 3);
    CHECK(result.history[0].checked->failed_step == handoff::step::parse);
    CHECK(result.history[1].truncated);
    CHECK(result.history[2].checked->failed_step == handoff::step::semantic);
}

TEST_CASE("a DEPENDENCY_FAILED envelope is not retryable and ends the loop at once", "[repair_loop]") {
    const auto receiver = invoice_receiver();
    handoff::memory_dead_letter_sink sink;
    handoff::repair_options options;
    options.max_retries = 3;
    options.dead_letters = &sink;
    scripted_model model{{done(reply("dependency_failed.json")), done(reply("invoice_reconciled.json"))}, {}};
    const auto result = handoff::repair_loop<>(receiver, options).run(invoice_request(), model);

    CHECK(result.outcome == handoff::loop_outcome::not_retryable);
    CHECK(result.attempts == 1);
    CHECK(model.prompts.size() == 1);
    REQUIRE(result.last_receipt() != nullptr);
    CHECK(result.last_receipt()->route == handoff::route::escalate);
    CHECK(result.reason ==
          "not retryable: DEPENDENCY_FAILED at usable coverage 0.00 (low band): the table says ESCALATE");
    REQUIRE(sink.lines().size() == 1);
    const auto record = nlohmann::json::parse(sink.lines()[0]);
    CHECK(record["outcome"] == "not_retryable");
    CHECK(record["attempts"][0]["route"] == "ESCALATE");
    CHECK(record["attempts"][0]["worker_trace"]["trace_id"] == "4bf92f3577b34da6a3ce929d0e0e4736");
}

TEST_CASE("a capped envelope the table routes to FAIL by policy is not retryable either", "[repair_loop]") {
    handoff::receiver_options opts;
    opts.policy.max_attempts = 1; // the first attempt already exhausts the orchestrator's policy
    const handoff::receiver<> receiver(invoice_schema(), opts);
    scripted_model model{{done(reply("batch_token_cap.json"))}, {}};
    const auto result = handoff::repair_loop<>(receiver).run(invoice_request(), model);
    CHECK(result.outcome == handoff::loop_outcome::not_retryable);
    CHECK(result.last_receipt()->route == handoff::route::fail);
}

TEST_CASE("a valid capped envelope is routed, not repaired", "[repair_loop]") {
    const auto receiver = invoice_receiver();
    scripted_model model{{done(reply("batch_token_cap.json"))}, {}};
    const auto result = handoff::repair_loop<>(receiver).run(invoice_request(), model);
    CHECK(result.outcome == handoff::loop_outcome::routed);
    CHECK(result.attempts == 1);
    CHECK_FALSE(result.dead_letter_due);
    CHECK(result.value() == nullptr); // a partial result is not "the" value
    REQUIRE(result.last_receipt()->decision.has_value());
    CHECK(result.last_receipt()->decision->action == handoff::action::split);
}

TEST_CASE("one receiver checks every attempt, its semantic checks included", "[repair_loop]") {
    handoff::receiver<> receiver(invoice_schema());
    int checked = 0;
    receiver.add_check([&](const nlohmann::json&, const handoff::check_context&) {
        ++checked;
        return handoff::problem_list{};
    });
    receiver.add_check(handoff::total_matches_sum("/stated_total", "/line_items/*/amount"));
    scripted_model model{{done(reply("invoice_fabricated_total.json")), done(reply("invoice_reconciled.json"))}, {}};
    const handoff::repair_loop<> loop(receiver);
    CHECK(loop.options().max_retries == 1); // the default: seed 004's one repair retry
    const auto result = loop.run(invoice_request(), model);
    CHECK(result.succeeded());
    CHECK(checked == 2);
    CHECK_THAT(model.prompts[1], ContainsSubstring("The schema has not changed."));
}

TEST_CASE("the fallback hook gets the next repair prompt when the budget is spent", "[repair_loop]") {
    const auto receiver = invoice_receiver();
    handoff::memory_dead_letter_sink sink;
    handoff::repair_options options;
    options.dead_letters = &sink;
    std::string fallback_prompt;
    std::uint32_t fallback_attempts = 0;

    SECTION("a stronger model's reply is checked by the same receiver and can succeed") {
        options.on_exhausted = [&](const handoff::fallback_request& f) -> std::optional<handoff::model_reply> {
            fallback_prompt = std::string(f.prompt);
            fallback_attempts = f.attempts;
            CHECK(f.request.request_id == "inv-2041");
            CHECK(f.problems.size() == 1);
            return done(reply("invoice_reconciled.json"));
        };
        scripted_model model{
            {done(reply("invoice_fabricated_total.json")), done(reply("invoice_fabricated_total.json"))}, {}};
        const auto result = handoff::repair_loop<>(receiver, options).run(invoice_request(), model);
        CHECK(result.succeeded());
        CHECK(result.fallback_used);
        CHECK(result.attempts == 3);
        CHECK(result.history.back().from_fallback);
        CHECK(fallback_attempts == 2);
        CHECK_THAT(fallback_prompt, ContainsSubstring("Your previous reply (attempt 2) was rejected."));
        CHECK(sink.lines().empty());
    }
    SECTION("a human queue takes the request: still exhausted, and dead-lettered") {
        options.on_exhausted = [&](const handoff::fallback_request&) -> std::optional<handoff::model_reply> {
            return std::nullopt;
        };
        scripted_model model{
            {done(reply("invoice_fabricated_total.json")), done(reply("invoice_fabricated_total.json"))}, {}};
        const auto result = handoff::repair_loop<>(receiver, options).run(invoice_request(), model);
        CHECK(result.outcome == handoff::loop_outcome::retries_exhausted);
        CHECK(result.fallback_used);
        CHECK(result.attempts == 2);
        CHECK(result.reason == "still rejected after 2 attempts (1 repair allowed); the fallback took the request");
        CHECK(sink.lines().size() == 1);
    }
    SECTION("a fallback reply that fails too leaves the outcome exhausted") {
        options.on_exhausted = [&](const handoff::fallback_request&) -> std::optional<handoff::model_reply> {
            return done("still not json");
        };
        scripted_model model{
            {done(reply("invoice_fabricated_total.json")), done(reply("invoice_fabricated_total.json"))}, {}};
        const auto result = handoff::repair_loop<>(receiver, options).run(invoice_request(), model);
        CHECK(result.outcome == handoff::loop_outcome::retries_exhausted);
        CHECK(result.attempts == 3);
        REQUIRE(result.problems.size() == 1);
        CHECK(result.problems[0].step == handoff::step::parse);
        REQUIRE(sink.lines().size() == 1);
        CHECK(nlohmann::json::parse(sink.lines()[0])["attempts"].size() == 3);
    }
}

TEST_CASE("expected outcomes never throw, whatever the model sends", "[repair_loop]") {
    const auto receiver = invoice_receiver();
    const std::vector<handoff::model_reply> replies = {
        done(""),
        done("\xff\xfe garbage"),
        {"", ""},
        cut(""),
        done("```json\n{}\n```"),
        done("[1,2,3]"),
        done(std::string(2 * 1024 * 1024, '{')),
    };
    for (const auto& r : replies) {
        scripted_model model{{r, r}, {}};
        handoff::memory_dead_letter_sink sink;
        handoff::repair_options options;
        options.dead_letters = &sink;
        REQUIRE_NOTHROW(handoff::repair_loop<>(receiver, options).run(invoice_request(), model));
        CHECK(sink.lines().size() == 1);
    }
}

TEST_CASE("loop outcomes have stable names", "[repair_loop]") {
    STATIC_REQUIRE(handoff::to_string(handoff::loop_outcome::succeeded) == "succeeded");
    STATIC_REQUIRE(handoff::to_string(handoff::loop_outcome::routed) == "routed");
    STATIC_REQUIRE(handoff::to_string(handoff::loop_outcome::retries_exhausted) == "retries_exhausted");
    STATIC_REQUIRE(handoff::to_string(handoff::loop_outcome::truncated) == "truncated");
    STATIC_REQUIRE(handoff::to_string(handoff::loop_outcome::not_retryable) == "not_retryable");
}

TEST_CASE("a refusal ends the loop as refused: never read as an envelope, never re-prompted, dead-lettered",
          "[repair_loop][refusal]") {
    const auto receiver = invoice_receiver();
    handoff::memory_dead_letter_sink sink;
    handoff::repair_options options;
    options.max_retries = 3; // retries are available, yet a refusal spends none
    options.dead_letters = &sink;
    const std::string words = "I can't help with extracting this document.";
    scripted_model model{{{words, "refusal"}, done(reply("invoice_reconciled.json"))}, {}};
    const auto result = handoff::repair_loop<>(receiver, options).run(invoice_request(), model);

    CHECK(result.outcome == handoff::loop_outcome::refused);
    CHECK(result.attempts == 1);
    CHECK(model.prompts.size() == 1);
    CHECK(result.last_receipt() == nullptr); // not parsed
    REQUIRE(result.history.size() == 1);
    CHECK(result.history[0].refused);
    REQUIRE(result.problems.size() == 1);
    CHECK(result.problems[0].code == "reply.refused");
    CHECK_THAT(result.problems[0].message, ContainsSubstring(words));
    CHECK(result.reason == "attempt 1 was refused (stop_reason \"refusal\"); not re-prompted");
    REQUIRE(sink.lines().size() == 1);
    const auto record = nlohmann::json::parse(sink.lines()[0]);
    CHECK(record["outcome"] == "refused");
    CHECK(record["attempts"][0]["raw_text"] == words);
    CHECK(record["attempts"][0]["problems"][0]["code"] == "reply.refused");
}

TEST_CASE("every provider's refusal and safety stop is a refusal, and its truncation a truncation, by default",
          "[repair_loop][refusal]") {
    const auto receiver = invoice_receiver();
    const handoff::repair_loop<> loop(receiver);
    for (const char* word : {"refusal", "content_filter", "SAFETY", "RECITATION", "PROHIBITED_CONTENT"}) {
        scripted_model model{{{"{}", word}}, {}};
        CHECK(loop.run(invoice_request(), model).outcome == handoff::loop_outcome::refused);
    }
    for (const char* word : {"max_tokens", "length", "MAX_TOKENS", "max_output_tokens", "limit"}) {
        scripted_model model{{{"{\"status\": \"ok\", ", word}}, {}};
        CHECK(loop.run(invoice_request(), model).outcome == handoff::loop_outcome::truncated);
    }
    // A refusal message sent apart from the text is a refusal whatever the stop word.
    scripted_model model{{{"", "stop", "I won't do that."}}, {}};
    const auto result = loop.run(invoice_request(), model);
    CHECK(result.outcome == handoff::loop_outcome::refused);
    CHECK_THAT(result.problems[0].message, ContainsSubstring("I won't do that."));
}

TEST_CASE("an OpenAI refusal read from its response body ends the loop as refused, its words in the dead letter",
          "[repair_loop][refusal]") {
    const auto receiver = invoice_receiver();
    handoff::memory_dead_letter_sink sink;
    handoff::repair_options options;
    options.dead_letters = &sink;
    const handoff::model_reply refused =
        handoff::model_reply_from_body(handoff_test::read_fixture("providers/openai_chat/refusal.json"));
    REQUIRE_FALSE(refused.refusal.empty());
    scripted_model model{{refused}, {}};
    const auto result = handoff::repair_loop<>(receiver, options).run(invoice_request(), model);
    CHECK(result.outcome == handoff::loop_outcome::refused);
    REQUIRE(sink.lines().size() == 1);
    CHECK(nlohmann::json::parse(sink.lines()[0])["attempts"][0]["refusal"] == refused.refusal);
}

} // namespace test_repair_loop
