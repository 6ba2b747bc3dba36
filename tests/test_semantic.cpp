// SPDX-License-Identifier: MIT
// Layer 2: semantic checks attached to a receiver, and the two built-ins of seed 001.

#include "support/fixtures.hpp"

#include <handoff/receiver.hpp>
#include <handoff/semantic.hpp>

#include <nlohmann/json.hpp>

#include <stdexcept> // runtime_error
#include <string>    // string
#include <vector>    // vector

namespace test_semantic { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

using handoff_test::invoice_receiver;
using handoff_test::invoice_schema;
using handoff_test::reply;

/// An ok envelope around `result`, for checks that need no schema.
std::string ok_envelope(const nlohmann::json& result) {
    return nlohmann::json{
        {"status", "ok"},
        {"partial_result", result},
        {"schema_ok", true},
        {"coverage", {{"items_expected", 1}, {"items_completed", 1}, {"unit", "doc"}, {"fraction", 1.0}}},
        {"steps", {{"completed", nlohmann::json::array()}, {"remaining", nlohmann::json::array()}}}}
        .dump();
}

handoff::problem_list semantic_problems(const handoff::receipt<>& r) {
    handoff::problem_list out;
    for (const auto& p : r.problems) {
        if (p.step == handoff::step::semantic) {
            out.push_back(p);
        }
    }
    return out;
}

/// The invoice the worker read (read lazily: REQUIRE needs a running test).
const std::string& invoice_source() {
    static const std::string text = reply("invoice_source.txt");
    return text;
}

} // namespace

TEST_CASE("a fabricated total (480.00 stated, 520.00 summed) routes REPAIR as a semantic failure with schema_ok kept",
          "[semantic]") {
    const auto r = invoice_receiver().receive(reply("invoice_fabricated_total.json"), {}, invoice_source());
    CHECK(r.route == handoff::route::repair);
    REQUIRE(r.failed_step == handoff::step::semantic);
    CHECK(r.schema_ok); // the shape was right: a different class of error
    CHECK(r.envelope->schema_ok);
    CHECK(r.envelope->partial_result.has_value());
    CHECK(handoff::semantic_failure(r));
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].step == handoff::step::semantic);
    CHECK(r.problems[0].code == "semantic.total_mismatch");
    CHECK(r.problems[0].pointer == "/partial_result/stated_total");
    CHECK(r.problems[0].message == "/partial_result/stated_total: stated_total (480.00) does not match the sum of "
                                   "line_items (520.00); re-extract, correcting the discrepancy");
}

TEST_CASE("a reconciled invoice whose quote occurs in the source is accepted", "[semantic]") {
    const auto r = invoice_receiver().receive(reply("invoice_reconciled.json"), {}, invoice_source());
    CHECK(r.route == handoff::route::accept);
    CHECK_FALSE(r.failed_step.has_value());
    CHECK(r.problems.empty());
    CHECK_FALSE(handoff::semantic_failure(r));
}

TEST_CASE("a vendor quote that does not occur in the source is a provenance problem", "[semantic]") {
    const auto r = invoice_receiver().receive(reply("invoice_wrong_quote.json"), {}, invoice_source());
    CHECK(r.route == handoff::route::repair);
    CHECK(r.failed_step == handoff::step::semantic);
    CHECK(r.schema_ok);
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].code == "semantic.quote_not_in_source");
    CHECK(r.problems[0].pointer == "/partial_result/vendor_quote");
    CHECK(r.problems[0].message ==
          "/partial_result/vendor_quote: the quote \"Northwind Traders, Seattle\" does not occur in the source text "
          "(compared ignoring case and whitespace); copy the span exactly, or drop the claim");
}

TEST_CASE("receive with the source text alone reads it as a first attempt with that source", "[semantic]") {
    const auto with_source = invoice_receiver().receive(reply("invoice_wrong_quote.json"), invoice_source());
    REQUIRE(with_source.problems.size() == 1);
    CHECK(with_source.problems[0].code == "semantic.quote_not_in_source");
    CHECK(with_source.route == handoff::route::repair);
    // The right quote is found only in the source given: without it, nothing contains it.
    const auto accepted = invoice_receiver().receive(reply("invoice_reconciled.json"), invoice_source());
    CHECK(accepted.route == handoff::route::accept);
    const auto without_source = invoice_receiver().receive(reply("invoice_reconciled.json"));
    CHECK(without_source.route == handoff::route::repair);
    REQUIRE(without_source.problems.size() == 1);
    CHECK(without_source.problems[0].code == "semantic.quote_not_in_source");
}

TEST_CASE("semantic checks run only after the task schema passed", "[semantic]") {
    auto bad = nlohmann::json::parse(reply("invoice_fabricated_total.json"));
    bad["partial_result"]["currency"] = "DOGE"; // a schema failure beside the wrong total
    const auto r = invoice_receiver().receive(bad.dump(), {}, invoice_source());
    CHECK(r.failed_step == handoff::step::task_schema);
    CHECK_FALSE(r.schema_ok);
    CHECK(semantic_problems(r).empty());
}

TEST_CASE("an earlier contract failure keeps its failed_step and the semantic problems are still reported",
          "[semantic]") {
    auto env = nlohmann::json::parse(reply("invoice_fabricated_total.json"));
    env["coverage"]["fraction"] = 0.5; // step 4 fails too
    const auto r = invoice_receiver().receive(env.dump(), {}, invoice_source());
    CHECK(r.failed_step == handoff::step::coverage);
    REQUIRE(r.problems.size() == 2);
    CHECK(r.problems[0].step == handoff::step::coverage);
    CHECK(r.problems[1].code == "semantic.total_mismatch");
}

TEST_CASE("a capped envelope that fails a semantic check keeps schema_ok but its partial result is unusable",
          "[semantic]") {
    const auto r = invoice_receiver().receive(reply("batch_token_cap_wrong_quote.json"), {}, invoice_source());
    CHECK_FALSE(r.failed_step.has_value()); // not a contract failure: routed by the table
    CHECK(r.schema_ok);
    REQUIRE(r.envelope.has_value());
    CHECK(r.envelope->schema_ok);
    CHECK_FALSE(r.envelope->partial_result.has_value()); // discarded like a step-3 downgrade
    CHECK(handoff::semantic_failure(r));
    REQUIRE(r.decision.has_value());
    CHECK(r.route == handoff::route::split);
    CHECK(r.decision->usable_coverage == 0.0);
    REQUIRE(r.decision->ranges.size() == 3); // all three items again, none is usable
    CHECK(r.decision->ranges.front() == handoff::item_range{1, 1});
    CHECK(r.decision->ranges.back() == handoff::item_range{3, 3});
}

TEST_CASE("the total check skips a capped partial result unless asked to check it", "[semantic]") {
    SECTION("by default the partial sum is not compared with the document's total") {
        const auto r = invoice_receiver().receive(reply("batch_token_cap.json"), {}, invoice_source());
        CHECK(r.problems.empty());
        CHECK(r.route == handoff::route::split);
        CHECK(r.decision->ranges == std::vector<handoff::item_range>{{3, 3}});
        CHECK(r.envelope->partial_result.has_value());
    }
    SECTION("check_capped compares it and the mismatch discards the result") {
        handoff::money_options money;
        money.check_capped = true;
        handoff::receiver<> r(invoice_schema());
        r.add_check(handoff::total_matches_sum("/stated_total", "/line_items/*/amount", money, "/calculated_total"));
        const auto got = r.receive(reply("batch_token_cap.json"), {}, invoice_source());
        REQUIRE(got.problems.size() == 1);
        CHECK(got.problems[0].message == "/partial_result/stated_total: stated_total (520.00) does not match the sum "
                                         "of line_items (470.00); re-extract, correcting the discrepancy");
        CHECK(got.decision->usable_coverage == 0.0);
    }
}

TEST_CASE("the model's own calculated_total must equal the sum too", "[semantic]") {
    auto env = nlohmann::json::parse(reply("invoice_reconciled.json"));
    env["partial_result"]["calculated_total"] = 500.0;
    const auto r = invoice_receiver().receive(env.dump(), {}, invoice_source());
    REQUIRE(r.problems.size() == 1);
    CHECK(r.problems[0].code == "semantic.calculated_total_mismatch");
    CHECK(r.problems[0].pointer == "/partial_result/calculated_total");
    CHECK(r.problems[0].message == "/partial_result/calculated_total: calculated_total (500.00) is not the sum of "
                                   "line_items (520.00); add the items again");
}

TEST_CASE("decimal totals are compared in minor units, so binary floating point never mismatches", "[semantic]") {
    handoff::receiver<> r;
    r.add_check(handoff::total_matches_sum("/total", "/items/*/amount"));
    const auto sums = r.receive(ok_envelope({{"total", 0.3}, {"items", {{{"amount", 0.1}}, {{"amount", 0.2}}}}}));
    CHECK(sums.route == handoff::route::accept);

    const auto off = r.receive(ok_envelope({{"total", 520.01}, {"items", {{{"amount", 520.0}}}}}));
    REQUIRE(off.problems.size() == 1);
    CHECK(off.problems[0].message == "/partial_result/total: total (520.01) does not match the sum of items (520.00); "
                                     "re-extract, correcting the discrepancy");
}

TEST_CASE("a tolerance in minor units lets a rounding difference through and no more", "[semantic]") {
    handoff::money_options money;
    money.tolerance = 1;
    handoff::receiver<> r;
    r.add_check(handoff::total_matches_sum("/total", "/items/*/amount", money));
    CHECK(r.receive(ok_envelope({{"total", 520.01}, {"items", {{{"amount", 520.0}}}}})).route ==
          handoff::route::accept);
    CHECK(r.receive(ok_envelope({{"total", 519.99}, {"items", {{{"amount", 520.0}}}}})).route ==
          handoff::route::accept);
    CHECK(r.receive(ok_envelope({{"total", 520.02}, {"items", {{{"amount", 520.0}}}}})).route ==
          handoff::route::repair);
}

TEST_CASE("integer cents are summed exactly and a fractional cent is refused, not rounded", "[semantic]") {
    handoff::money_options cents;
    cents.format = handoff::money_format::integer_minor_units;
    handoff::receiver<> r;
    r.add_check(handoff::total_matches_sum("/total_cents", "/line_items/*/amount_cents", cents));

    const auto ok = r.receive(
        ok_envelope({{"total_cents", 52000}, {"line_items", {{{"amount_cents", 32000}}, {{"amount_cents", 20000}}}}}));
    CHECK(ok.route == handoff::route::accept);

    const auto wrong = r.receive(
        ok_envelope({{"total_cents", 48000}, {"line_items", {{{"amount_cents", 32000}}, {{"amount_cents", 20000}}}}}));
    REQUIRE(wrong.problems.size() == 1);
    CHECK(wrong.problems[0].message == "/partial_result/total_cents: total_cents (48000) does not match the sum of "
                                       "line_items (52000); re-extract, correcting the discrepancy");

    const auto fractional = r.receive(ok_envelope({{"total_cents", 100.5}, {"line_items", nlohmann::json::array()}}));
    REQUIRE(fractional.problems.size() == 1);
    CHECK(fractional.problems[0].code == "semantic.amount_invalid");
    CHECK(fractional.problems[0].message ==
          "/partial_result/total_cents: \"100.5\" is not a whole number of minor units (cents)");
}

TEST_CASE("zero-decimal currencies print without a decimal point", "[semantic]") {
    handoff::money_options yen;
    yen.decimals = 0;
    handoff::receiver<> r;
    r.add_check(handoff::total_matches_sum("/total", "/items/*/amount", yen));
    const auto got = r.receive(ok_envelope({{"total", 1000}, {"items", {{{"amount", 1200}}}}}));
    REQUIRE(got.problems.size() == 1);
    CHECK(got.problems[0].message == "/partial_result/total: total (1000) does not match the sum of items (1200); "
                                     "re-extract, correcting the discrepancy");
}

TEST_CASE("a missing or non-numeric amount is reported instead of summed as zero", "[semantic]") {
    handoff::receiver<> r;
    r.add_check(handoff::total_matches_sum("/total", "/items/*/amount"));
    const auto got = r.receive(ok_envelope({{"total", 10}, {"items", {{{"amount", "10.00"}}, {{"cost", 3}}}}}));
    REQUIRE(got.problems.size() == 2);
    CHECK(got.problems[0].code == "semantic.amount_invalid");
    CHECK(got.problems[0].message == "/partial_result/items/0/amount: expected a number, got the string \"10.00\"");
    CHECK(got.problems[1].code == "semantic.amount_missing");
    CHECK(got.problems[1].pointer == "/partial_result/items/1/amount");
}

TEST_CASE("a provenance quote matches ignoring case and runs of whitespace, including no-break spaces", "[semantic]") {
    handoff::receiver<> r;
    r.add_check(handoff::quote_in_source("/quote"));
    CHECK(r.receive(ok_envelope({{"quote", "northwind OFFICE   supply\nltd.,\t12 harbour road"}}), {}, invoice_source())
              .route == handoff::route::accept);
    CHECK(r.receive(ok_envelope({{"quote", "TOTAL\xC2\xA0"
                                           "DUE (EUR)"}}),
                    {}, invoice_source())
              .route == handoff::route::accept);
    // Punctuation is not normalised: the span must really be there.
    CHECK(r.receive(ok_envelope({{"quote", "Northwind Office Supply Ltd; 12 Harbour Road"}}), {}, invoice_source())
              .route == handoff::route::repair);
}

TEST_CASE("every quote a wildcard pattern selects is checked, each with its own pointer", "[semantic]") {
    handoff::receiver<> r;
    r.add_check(handoff::quote_in_source("/claims/*/quote"));
    const auto got = r.receive(ok_envelope({{"claims",
                                             {{{"quote", "Standing desk"}},
                                              {{"quote", "Gold-plated stapler"}},
                                              {{"quote", "Delivery and assembly"}}}}}),
                               {}, invoice_source());
    REQUIRE(got.problems.size() == 1);
    CHECK(got.problems[0].pointer == "/partial_result/claims/1/quote");
    // An empty list selects nothing: nothing to verify.
    CHECK(r.receive(ok_envelope({{"claims", nlohmann::json::array()}}), {}, invoice_source()).route ==
          handoff::route::accept);
}

TEST_CASE("empty, missing and non-string quotes are problems of their own", "[semantic]") {
    handoff::receiver<> r;
    r.add_check(handoff::quote_in_source("/quote"));
    const auto empty = r.receive(ok_envelope({{"quote", " \n "}}), {}, invoice_source());
    REQUIRE(empty.problems.size() == 1);
    CHECK(empty.problems[0].code == "semantic.quote_too_short");
    CHECK(empty.problems[0].message ==
          "/partial_result/quote: the quote \" \\n \" is empty; quote the exact span of the source");

    const auto missing = r.receive(ok_envelope({{"other", 1}}), {}, invoice_source());
    REQUIRE(missing.problems.size() == 1);
    CHECK(missing.problems[0].code == "semantic.quote_missing");

    const auto number = r.receive(ok_envelope({{"quote", 42}}), {}, invoice_source());
    REQUIRE(number.problems.size() == 1);
    CHECK(number.problems[0].code == "semantic.quote_invalid");

    handoff::quote_options optional;
    optional.allow_missing = true;
    handoff::receiver<> lenient;
    lenient.add_check(handoff::quote_in_source("/quote", optional));
    CHECK(lenient.receive(ok_envelope({{"other", 1}}), {}, invoice_source()).route == handoff::route::accept);
}

TEST_CASE("a quote cannot be verified without source text, and the message says so", "[semantic]") {
    handoff::receiver<> r;
    r.add_check(handoff::quote_in_source("/quote"));
    const auto got = r.receive(ok_envelope({{"quote", "Standing desk"}}));
    REQUIRE(got.problems.size() == 1);
    CHECK(got.problems[0].message ==
          "/partial_result/quote: the quote \"Standing desk\" cannot be verified: no source text was supplied");
}

TEST_CASE("a quote shorter than min_length proves nothing", "[semantic]") {
    handoff::quote_options options;
    options.min_length = 8;
    handoff::receiver<> r;
    r.add_check(handoff::quote_in_source("/quote", options));
    const auto got = r.receive(ok_envelope({{"quote", "desk"}}), {}, invoice_source());
    REQUIRE(got.problems.size() == 1);
    CHECK(got.problems[0].message ==
          "/partial_result/quote: the quote \"desk\" is shorter than 8 characters; quote the exact span of the source");
}

namespace {

struct line_item {
    std::string description;
    double amount = 0;
};

struct invoice {
    std::vector<line_item> line_items;
    double stated_total = 0;
};

void from_json(const nlohmann::json& j, line_item& l) {
    j.at("description").get_to(l.description);
    j.at("amount").get_to(l.amount);
}

void from_json(const nlohmann::json& j, invoice& i) {
    j.at("line_items").get_to(i.line_items);
    j.at("stated_total").get_to(i.stated_total);
}

} // namespace

TEST_CASE("a user check on a typed result gets its problems normalised to step, pointer and message prefix",
          "[semantic]") {
    handoff::receiver<invoice> r(invoice_schema());
    r.add_check([](const invoice& inv, const handoff::check_context&) {
        handoff::problem_list found;
        if (inv.line_items.size() < 4) {
            // No step, no pointer, a bare message: the runner fills them in.
            found.push_back(
                handoff::problem{handoff::step::parse, "invoice.too_few_items", "", "expected at least 4 line items"});
        }
        return found;
    });
    r.add_check(handoff::total_matches_sum("/stated_total", "/line_items/*/amount")); // built-ins work on any Task
    const auto got = r.receive(reply("invoice_fabricated_total.json"), {}, invoice_source());
    REQUIRE(got.problems.size() == 2);
    CHECK(got.problems[0].step == handoff::step::semantic);
    CHECK(got.problems[0].code == "invoice.too_few_items");
    CHECK(got.problems[0].pointer == "/partial_result");
    CHECK(got.problems[0].message == "/partial_result: expected at least 4 line items");
    CHECK(got.problems[1].code == "semantic.total_mismatch");
    CHECK(got.failed_step == handoff::step::semantic);
}

TEST_CASE("a check that throws becomes a problem, never an exception out of receive", "[semantic]") {
    handoff::receiver<> r;
    r.add_check([](const nlohmann::json&, const handoff::check_context&) -> handoff::problem_list {
        throw std::runtime_error("bug in a user check");
    });
    handoff::receipt<> got;
    REQUIRE_NOTHROW(got = r.receive(ok_envelope({{"a", 1}})));
    REQUIRE(got.problems.size() == 1);
    CHECK(got.problems[0].code == "semantic.check_threw");
    CHECK(got.problems[0].message == "/partial_result: semantic check #1 threw: \"bug in a user check\"");
    CHECK(got.route == handoff::route::repair);
}

TEST_CASE("checks see the source text and the envelope status through the check context", "[semantic]") {
    handoff::receiver<> r;
    std::string seen_source;
    handoff::status seen_status = handoff::status::capped;
    r.add_check([&](const nlohmann::json& result, const handoff::check_context& ctx) {
        seen_source = std::string(ctx.source_text);
        seen_status = ctx.status;
        CHECK(result == ctx.result);
        CHECK(ctx.base_pointer == "/partial_result");
        return handoff::problem_list{};
    });
    CHECK(r.receive(ok_envelope({{"a", 1}}), {}, "the source").route == handoff::route::accept);
    CHECK(seen_source == "the source");
    CHECK(seen_status == handoff::status::ok);
}

TEST_CASE("pointer patterns unescape RFC 6901 tokens and expand * over arrays only", "[semantic]") {
    const auto doc = nlohmann::json::parse(R"({"a/b": [{"c~d": 1}, {"c~d": 2}, {}], "o": {"*": 3}})");
    const auto all = handoff::detail::select(doc, "/a~1b/*/c~0d");
    REQUIRE(all.size() == 3);
    CHECK(all[0].pointer == "/a~1b/0/c~0d");
    CHECK(*all[1].value == 2);
    CHECK(all[2].value == nullptr);
    CHECK(all[2].pointer == "/a~1b/2/c~0d");
    const auto star_key = handoff::detail::select(doc, "/o/*"); // on an object, "*" is a key
    REQUIRE(star_key.size() == 1);
    CHECK(*star_key[0].value == 3);
    const auto missing = handoff::detail::select(doc, "/nope/x");
    REQUIRE(missing.size() == 1);
    CHECK(missing[0].value == nullptr);
    CHECK(missing[0].pointer == "/nope/x");
}

} // namespace test_semantic
