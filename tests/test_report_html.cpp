// SPDX-License-Identifier: MIT
// The dead-letter report as an HTML page: its structure (class rows, bars, legend, pointers,
// invented values), that it loads nothing and runs no script, that model-written text appears
// only escaped, and handoff-check report --html run in process.

#include "support/catch.hpp"

#include "../tools/handoff-check/report_command.hpp"

#include <handoff/failure_class.hpp>
#include <handoff/report.hpp>
#include <handoff/report_html.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>  // size_t
#include <cstdio>   // remove
#include <fstream>  // ifstream
#include <iterator> // istreambuf_iterator
#include <sstream>  // istringstream, ostringstream
#include <string>   // string
#include <vector>   // vector

namespace test_report_html { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

const std::string report_fixtures = std::string(HANDOFF_FIXTURES_DIR) + "/report/";

void feed(handoff::report_builder& builder, const std::string& name) {
    std::ifstream in(report_fixtures + name, std::ios::binary);
    REQUIRE(in);
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
        builder.add_line(line, name + ":" + std::to_string(number));
    }
}

std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) {
        ++n;
    }
    return n;
}

// A dead letter of one enum violation on `date`, with the given request id and invented value.
std::string enum_letter(const std::string& date, const std::string& request_id, const std::string& value) {
    const nlohmann::json problem = {
        {"step", "task_schema"},
        {"code", "task.schema"},
        {"pointer", "/partial_result/label"},
        {"message", "/partial_result/label: Failed to match against any enum values (got \"" + value + "\")"}};
    const nlohmann::json attempt = {{"attempt", 1},
                                    {"stop_reason", "end_turn"},
                                    {"route", "REPAIR"},
                                    {"step", "task_schema"},
                                    {"problems", {problem}}};
    const nlohmann::json letter = {{"type", "handoff.dead_letter"}, {"time", date + "T10:00:00.000Z"},
                                   {"request_id", request_id},      {"outcome", "retries_exhausted"},
                                   {"attempts", {attempt}},         {"problems", {problem}}};
    return letter.dump();
}

handoff::report fixtures_by_day() {
    handoff::report_options options;
    options.by_day = true;
    handoff::report_builder builder(options);
    feed(builder, "classes.jsonl");
    for (int day = 0; day < 7; ++day) {
        const std::string date = "2026-11-" + std::to_string(23 + day);
        for (int k = 0; k <= day; ++k) {
            builder.add_line(enum_letter(date, "week-" + date + "-" + std::to_string(k), "urgent"), "week");
        }
    }
    return builder.result();
}

// The value of attribute `name` in the tag that starts at `at`.
std::string attribute(const std::string& page, std::size_t at, const std::string& name) {
    const std::size_t end = page.find('>', at);
    const std::size_t key = page.find(" " + name + "=\"", at);
    if (key == std::string::npos || key > end) {
        return "";
    }
    const std::size_t from = key + name.size() + 3;
    return page.substr(from, page.find('"', from) - from);
}

} // namespace

TEST_CASE("html_escape turns every markup character into an entity", "[report][html]") {
    CHECK(handoff::detail::html_escape("<script>alert(1)</script>") == "&lt;script&gt;alert(1)&lt;/script&gt;");
    CHECK(handoff::detail::html_escape("a & b \"c\" 'd'") == "a &amp; b &quot;c&quot; &#39;d&#39;");
    CHECK(handoff::detail::html_escape("\" onmouseover=\"x") == "&quot; onmouseover=&quot;x");
    CHECK(handoff::detail::html_escape("plain /partial_result/label") == "plain /partial_result/label");
    CHECK(handoff::detail::html_escape(std::string("nul\0bell\x07", 9)) == "nul\xEF\xBF\xBD"
                                                                           "bell\xEF\xBF\xBD");
}

TEST_CASE("html_escape caps a megabyte of model output on a character boundary", "[report][html]") {
    const std::string megabyte(1024 * 1024, '<');
    const std::string escaped = handoff::detail::html_escape(megabyte);
    CHECK(escaped.size() < 1024);
    CHECK(escaped.find('<') == std::string::npos);
    CHECK(escaped.substr(escaped.size() - 19) == "... (1048576 bytes)");
    // "é" is two bytes: a cut after 3 bytes of "ééé" must not split the second one
    CHECK(handoff::detail::html_escape("\xC3\xA9\xC3\xA9\xC3\xA9", 3) == "\xC3\xA9... (6 bytes)");
}

TEST_CASE("the page has one class row per class with its count", "[report][html]") {
    const handoff::report r = fixtures_by_day();
    const std::string page = handoff::to_html(r);
    const std::size_t from = page.find("<table id=\"classes\">");
    REQUIRE(from != std::string::npos);
    const std::string table = page.substr(from, page.find("</table>", from) - from);
    CHECK(occurrences(table, "<tr data-class=") == r.ranked().size());
    const auto ranked = r.ranked();
    REQUIRE(ranked.size() > 5);
    std::size_t last = 0;
    for (const handoff::failure_class c : ranked) {
        const std::string row = "<tr data-class=\"" + std::string(handoff::to_string(c)) + "\">";
        INFO(row);
        CHECK(occurrences(table, row) == 1);
        const std::size_t at = table.find(row);
        CHECK(at > last); // most frequent first
        last = at;
        const std::size_t count_cell = table.find("<td class=\"n count\">", at);
        CHECK(std::stoul(table.substr(count_cell + 20)) == r[c].count);
    }
}

TEST_CASE("the chart has one bar per class and day with a positive height", "[report][html]") {
    const handoff::report r = fixtures_by_day();
    const std::string page = handoff::to_html(r);
    REQUIRE(page.find("<svg id=\"by-day\"") != std::string::npos);
    CHECK(page.find("viewBox=\"0 0 ") != std::string::npos);
    std::size_t expected = 0;
    for (const auto& [day, counts] : r.by_day) {
        for (std::size_t i = 0; i < handoff::failure_class_count; ++i) {
            if (counts[i] == 0) {
                continue;
            }
            ++expected;
            const std::string name(handoff::to_string(static_cast<handoff::failure_class>(i)));
            const std::string rect = "<rect data-class=\"" + name + "\" data-day=\"" + day + "\"";
            INFO(rect);
            REQUIRE(occurrences(page, rect) == 1);
            const std::size_t at = page.find(rect);
            CHECK(std::stoul(attribute(page, at, "data-count")) == counts[i]);
            CHECK(std::stod(attribute(page, at, "height")) > 0.0);
        }
    }
    CHECK(expected >= 7);
    CHECK(occurrences(page, "<rect ") == expected);
    CHECK(page.find("<text x=") != std::string::npos); // day labels
    CHECK(page.find(">11-29</text>") != std::string::npos);
}

TEST_CASE("the legend names every class in the chart with its colour", "[report][html]") {
    const handoff::report r = fixtures_by_day();
    const std::string page = handoff::to_html(r);
    const std::size_t legend = page.find("<ul class=\"legend\" id=\"legend\">");
    REQUIRE(legend != std::string::npos);
    for (const handoff::failure_class c : r.ranked()) {
        CHECK(page.find("<li data-class=\"" + std::string(handoff::to_string(c)) + "\">", legend) != std::string::npos);
    }
}

TEST_CASE("the pointer table and the invented values are on the page", "[report][html]") {
    const std::string page = handoff::to_html(fixtures_by_day());
    const std::size_t pointers = page.find("<table id=\"pointers\">");
    REQUIRE(pointers != std::string::npos);
    CHECK(page.find("<code>/partial_result/label</code>", pointers) != std::string::npos);
    REQUIRE(page.find("<ul id=\"values\">") != std::string::npos);
    // 28 from the week, and whatever classes.jsonl invented for the same pointer
    CHECK(page.find("<code>/partial_result/label</code>: <code>'urgent'</code> ") != std::string::npos);
}

TEST_CASE("a report without days has no chart", "[report][html]") {
    handoff::report_builder builder;
    feed(builder, "classes.jsonl");
    const std::string page = handoff::to_html(builder.result());
    CHECK(page.find("<svg") == std::string::npos);
    CHECK(page.find("<table id=\"classes\">") != std::string::npos);
}

TEST_CASE("an empty report is a page that says there were no failures", "[report][html]") {
    const std::string page = handoff::to_html(handoff::report_builder{}.result());
    CHECK(page.find("id=\"no-failures\"") != std::string::npos);
    CHECK(page.rfind("</html>\n") == page.size() - 8);
}

TEST_CASE("the page is self-contained, script-free and readable on a phone", "[report][html]") {
    const std::string page = handoff::to_html(fixtures_by_day());
    CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(page.find("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">") != std::string::npos);
    CHECK(page.find("<script") == std::string::npos);
    CHECK(page.find("http://") == std::string::npos);
    CHECK(page.find("https://") == std::string::npos);
    CHECK(page.find("<link") == std::string::npos);
    CHECK(page.find("url(") == std::string::npos);
    CHECK(page.find("width=\"100%\"") != std::string::npos);
    CHECK(occurrences(page, "<div class=\"table-wrap\">") == 2);
}

TEST_CASE("a hostile request id, pointer and value appear only escaped", "[report][html]") {
    handoff::report_options options;
    options.by_day = true;
    handoff::report_builder builder(options);
    builder.add_line(enum_letter("2026-11-30", "<script>alert(1)</script>", "<img src=x onerror=alert(2)>"), "x");
    nlohmann::json letter = nlohmann::json::parse(enum_letter("2026-11-30", "q'\"&", "v"));
    letter["attempts"][0]["problems"][0]["pointer"] = "/<b>bold</b>";
    builder.add_line(letter.dump(), "y");
    const std::string page = handoff::to_html(builder.result());
    CHECK(page.find("<script") == std::string::npos);
    CHECK(page.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
    CHECK(page.find("<img") == std::string::npos);
    CHECK(page.find("&lt;img src=x onerror=alert(2)&gt;") != std::string::npos);
    CHECK(page.find("<b>bold") == std::string::npos);
    CHECK(page.find("/&lt;b&gt;bold&lt;/b&gt;") != std::string::npos);
    CHECK(page.find("q&#39;&quot;&amp;") != std::string::npos);
}

TEST_CASE("handoff-check report --html writes the page with a chart", "[report][html][cli]") {
    const std::string path = "/tmp/handoff_report_html_test.html";
    std::istringstream in;
    std::ostringstream out;
    std::ostringstream err;
    const int status = handoff_cli::run_report({"--html", path, report_fixtures + "classes.jsonl"}, in, out, err);
    CHECK(status == 0);
    CHECK(err.str().empty());
    std::ifstream file(path, std::ios::binary);
    REQUIRE(file);
    const std::string page((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    CHECK(page.find("<table id=\"classes\">") != std::string::npos);
    CHECK(page.find("<svg id=\"by-day\"") != std::string::npos);
    std::remove(path.c_str());
}

TEST_CASE("handoff-check report --html exits 2 when the page cannot be written", "[report][html][cli]") {
    std::istringstream in;
    std::ostringstream out;
    std::ostringstream err;
    CHECK(handoff_cli::run_report({"--html", "/nonexistent-dir/page.html", report_fixtures + "classes.jsonl"}, in, out,
                                  err) == 2);
    CHECK(err.str().find("cannot write /nonexistent-dir/page.html") != std::string::npos);
    CHECK(handoff_cli::run_report({"--html"}, in, out, err) == 2);
}

} // namespace test_report_html
