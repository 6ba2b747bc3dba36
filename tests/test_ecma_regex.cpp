// SPDX-License-Identifier: MIT
// <handoff/detail/regex/ecma_regex.hpp>: the engine behind JSON Schema's `pattern`. It agrees with
// Node's RegExp under the u flag on a committed differential fixture, refuses what it cannot run
// with a clear error, and stays fast on hostile patterns and subjects.

#include "support/catch.hpp"

#include <handoff/detail/regex/ecma_regex.hpp>

#include <nlohmann/json.hpp>

#include <chrono>    // steady_clock
#include <fstream>   // ifstream
#include <sstream>   // ostringstream
#include <stdexcept> // runtime_error
#include <string>    // string
#include <thread>    // thread
#include <vector>    // vector

namespace test_ecma_regex { // this file's own names: see "unity build" in tests/CMakeLists.txt

using handoff::detail::ecma_regex;
using handoff::detail::regex_match;
using handoff::detail::regex_syntax_error;

namespace {

nlohmann::json read_cases() {
    const std::string path = std::string(HANDOFF_FIXTURES_DIR) + "/regex/ecma_cases.json";
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error("test fixture missing or unreadable: " + path);
    }
    std::ostringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str());
}

regex_match search(const std::string& pattern, const std::string& subject) {
    return ecma_regex::compile(pattern).search(subject);
}

bool matches(const std::string& pattern, const std::string& subject) {
    return search(pattern, subject) == regex_match::found;
}

std::string compile_error(const std::string& pattern) {
    try {
        (void)ecma_regex::compile(pattern);
    } catch (const regex_syntax_error& e) {
        return e.what();
    }
    return "";
}

/// Seconds taken by f(); only a hang guard, never a tight threshold.
template <typename F>
double seconds(F&& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Linear work on these inputs takes well under a second, even under the sanitizers on a loaded
/// machine; quadratic work on the longest (10^12 steps) takes hours. The guard sits far from
/// both, so only a hang can fail it.
constexpr double hang_guard = 10.0;

/// Patterns Node runs that handoff refuses on purpose: Unicode property escapes (no Unicode tables
/// in the header) and counted repetition beyond the program-size limit.
bool deliberately_refused(const std::string& pattern) {
    return pattern.find("\\p{") != std::string::npos || pattern.find("\\P{") != std::string::npos ||
           pattern == "a{99999999999}";
}

} // namespace

TEST_CASE("Every case of the Node-generated fixture gets Node's answer", "[regex]") {
    const nlohmann::json cases = read_cases();
    REQUIRE(cases.size() > 500);
    std::size_t passed = 0;
    std::vector<std::string> failures;
    for (const nlohmann::json& c : cases) {
        const std::string pattern = c.at("pattern").get<std::string>();
        std::string got;
        std::string want;
        if (deliberately_refused(pattern)) {
            ++passed;
            CHECK_FALSE(compile_error(pattern).empty());
            continue;
        }
        try {
            const ecma_regex re = ecma_regex::compile(pattern);
            if (c.contains("error")) {
                want = "error";
                got = "compiled";
            } else {
                want = c.at("match").get<bool>() ? "found" : "not_found";
                const regex_match r = re.search(c.at("subject").get<std::string>());
                got = r == regex_match::found ? "found" : r == regex_match::not_found ? "not_found" : "too_costly";
            }
        } catch (const regex_syntax_error& e) {
            want = c.contains("error") ? "error" : "compiled";
            got = "error";
        }
        if (got == want) {
            ++passed;
        } else {
            failures.push_back(c.dump() + " -> " + got);
        }
    }
    std::ostringstream report;
    report << passed << " passed, " << failures.size() << " failed";
    for (const std::string& f : failures) {
        report << "\n  " << f;
    }
    INFO(report.str());
    CHECK(failures.empty());
}

TEST_CASE("A compiled pattern keeps its source and says whether it has back-references", "[regex]") {
    const ecma_regex plain = ecma_regex::compile("^[a-z]+$");
    CHECK(plain.source() == "^[a-z]+$");
    CHECK_FALSE(plain.has_back_references());
    const ecma_regex copy = plain; // NOLINT(performance-unnecessary-copy-initialization): copies share the program
    CHECK(copy.source() == plain.source());
    CHECK(ecma_regex::compile("(a)\\1").has_back_references());
    CHECK(ecma_regex::compile("(?<x>a)\\k<x>").has_back_references());
}

TEST_CASE("Search is unanchored and works over code points", "[regex]") {
    CHECK(matches("b", "abc"));
    CHECK_FALSE(matches("^b", "abc"));
    CHECK(matches("^\xF0\x9F\x90\xB2*$", "\xF0\x9F\x90\xB2\xF0\x9F\x90\xB2"));
    CHECK(matches("^[\xC3\xA4\xC3\xB6\xC3\xBC]+$", "\xC3\xB6\xC3\xA4"));
    CHECK_FALSE(matches("^[\xC3\xA4\xC3\xB6\xC3\xBC]+$", "\xC3"));
    CHECK(matches("^.$", "\xF0\x9F\x90\xB2"));
    CHECK(matches("^\\uD83D\\uDC32$", "\xF0\x9F\x90\xB2"));
}

TEST_CASE("Invalid UTF-8 in the subject reads as U+FFFD, one per bad byte", "[regex]") {
    CHECK(matches("^\\uFFFD$", "\xFF"));
    CHECK(matches("^\\uFFFD\\(\\uFFFD$", "\xC3\x28"
                                         "\x80"));
    CHECK(matches("^\\uFFFD\\($", "\xC3\x28"));
    CHECK(matches("^\\uFFFD{3}$", "\xE0\x80\x80"));     // overlong
    CHECK(matches("^\\uFFFD{3}$", "\xED\xA0\x80"));     // a surrogate
    CHECK(matches("^a\\uFFFD{3}$", "a\xF0\x9F\x90"));   // cut short at the end
    CHECK(matches("^\\uFFFD{4}$", "\xF4\x90\x80\x80")); // above U+10FFFF
}

TEST_CASE("Syntax errors say why and where in one line", "[regex]") {
    const std::string e = compile_error("ab(c");
    CHECK(e.find("missing ')'") != std::string::npos);
    CHECK(e.find("offset 2") != std::string::npos);
    CHECK(e.find('\n') == std::string::npos);
    CHECK(compile_error("a{2,1}").find("out of order") != std::string::npos);
    CHECK(compile_error("*").find("nothing to repeat") != std::string::npos);
    CHECK(compile_error("\\p{L}").find("Unicode property escapes are not supported") != std::string::npos);
    CHECK(compile_error("\\P{Lu}").find("Unicode property escapes are not supported") != std::string::npos);
    CHECK(compile_error("\xFF").find("invalid UTF-8") != std::string::npos);
    CHECK_FALSE(compile_error("]").empty());
    CHECK_FALSE(compile_error("}").empty());
    CHECK_FALSE(compile_error("\\q").empty());
}

TEST_CASE("Deep nesting is an error, not a stack overflow", "[regex][hostile]") {
    CHECK(compile_error(std::string(100000, '(')).find("nested too deeply") != std::string::npos);
    CHECK(compile_error(std::string(50000, '(') + std::string(50000, ')')).find("nested too deeply") !=
          std::string::npos);
    CHECK_FALSE(compile_error(std::string(100000, '(') + std::string(100000, ')')).empty()); // too long, too
    const std::string looks = [] {
        std::string s;
        for (int k = 0; k < 30000; ++k) {
            s += "(?=";
        }
        return s;
    }();
    CHECK(compile_error(looks).find("nested too deeply") != std::string::npos);
    CHECK(compile_error(std::string(256, '(') + std::string(256, ')')).empty());
}

TEST_CASE("Counted repetition that expands past the program limit is refused", "[regex][hostile]") {
    CHECK(compile_error("a{1,1000}").empty());
    CHECK(compile_error("(a{1000}){1000}").find("too large") != std::string::npos);
    CHECK(compile_error("a{99999999999}").find("too large") != std::string::npos);
    CHECK(compile_error("((a{100}){100}){100}").find("too large") != std::string::npos);
    CHECK(compile_error(std::string(200000, 'a')).find("too long") != std::string::npos);
}

TEST_CASE("Repeating nothing a billion times compiles at once and matches empty", "[regex][hostile]") {
    regex_match r = regex_match::not_found;
    CHECK(seconds([&] { r = search("^(?:(?:){1000000000}){1000000000}$", ""); }) < hang_guard);
    CHECK(r == regex_match::found);
    CHECK(search("^(?:){0,1000000000}a$", "a") == regex_match::found);
    CHECK(compile_error("^(){1000000000}\\1$").find("too large") != std::string::npos); // captures are emitted
    CHECK(compile_error("(a){1000000000}").find("too large") != std::string::npos);
}

TEST_CASE("Catastrophic patterns run in linear time without back-references", "[regex][hostile]") {
    const std::string ab(1000000, 'a');
    regex_match r = regex_match::not_found;
    CHECK(seconds([&] { r = search("(a|b)*", ab); }) < hang_guard);
    CHECK(r == regex_match::found);
    CHECK(seconds([&] { r = search("^(a|b)*$", ab + "c"); }) < hang_guard);
    CHECK(r == regex_match::not_found);
    const std::string evil = std::string(100000, 'a') + "b";
    CHECK(seconds([&] { r = search("^(a+)+$", evil); }) < hang_guard);
    CHECK(r == regex_match::not_found);
    CHECK(seconds([&] { r = search("^(a|a)*$", evil); }) < hang_guard);
    CHECK(r == regex_match::not_found);
    CHECK(seconds([&] { r = search("(a*)*b", std::string(100000, 'a')); }) < hang_guard);
    CHECK(r == regex_match::not_found);
    CHECK(seconds([&] { r = search("^(?:a?){50}a{50}$", std::string(50, 'a')); }) < hang_guard);
    CHECK(r == regex_match::found);
}

TEST_CASE("Lookarounds are memoized per position", "[regex][hostile]") {
    const std::string text = std::string(5000, 'a');
    regex_match r = regex_match::found;
    CHECK(seconds([&] { r = search("(?=(a+)+b)", text); }) < hang_guard);
    CHECK(r == regex_match::not_found);
    CHECK(seconds([&] { r = search("(?<!(a|a)*c)$", text); }) < hang_guard);
    CHECK(r == regex_match::found);
    CHECK(seconds([&] { r = search("(?=a*b|a*)x", text); }) < hang_guard);
    CHECK(r == regex_match::not_found);
    // An empty loop in a lookaround that succeeds: its marks cannot be kept, a budget bounds the
    // work instead, and the answer is right or too_costly, never wrong.
    CHECK(seconds([&] { r = search("(?=(a*)*b|a*)x", std::string(20000, 'a')); }) < hang_guard);
    CHECK(r != regex_match::found);
    CHECK(search("(?=(a*)*b|a*)x", "aaax") == regex_match::found);
    CHECK(search("(?=(a*)*b|a*)x", "aaa") == regex_match::not_found);
}

TEST_CASE("Back-references run under a step budget and never hang", "[regex][hostile]") {
    const std::string evil = std::string(5000, 'a') + "b";
    regex_match r = regex_match::found;
    CHECK(seconds([&] { r = search("^(a*)*\\1$", evil); }) < hang_guard);
    CHECK(r != regex_match::found);
    CHECK(seconds([&] { r = search("^(a+)+\\1b$", evil + "c"); }) < hang_guard);
    CHECK(r != regex_match::found);
    CHECK(search("^(a*)\\1$", std::string(1000, 'a')) == regex_match::found);
    CHECK(search("^(a*)*\\1$", std::string(10, 'a') + "b") != regex_match::found);
    CHECK(search("^(\\w+) \\1$", "hello hello") == regex_match::found);
}

TEST_CASE("A compiled pattern can be searched from many threads at once", "[regex][concurrency]") {
    const ecma_regex re = ecma_regex::compile("^(?=.*\\d)[A-Z0-9-]{4,20}$");
    std::vector<std::thread> threads;
    std::vector<int> wrong(4, 0);
    for (std::size_t t = 0; t < wrong.size(); ++t) {
        threads.emplace_back([&re, &wrong, t] {
            for (int k = 0; k < 2000; ++k) {
                if (re.search("ABCD-1234") != regex_match::found || re.search("ABCD-EFGH") != regex_match::not_found) {
                    ++wrong[t];
                }
            }
        });
    }
    for (std::thread& th : threads) {
        th.join();
    }
    CHECK(wrong == std::vector<int>(4, 0));
}

TEST_CASE("a pattern of plain ASCII characters answers as the matcher would, anchored or not", "[regex]") {
    using handoff::detail::ecma_regex;
    using handoff::detail::regex_match;
    const auto found = [](const char* pattern, std::string_view subject) {
        return ecma_regex::compile(pattern).search(subject) == regex_match::found;
    };
    CHECK(found("^x-", "x-trace"));
    CHECK_FALSE(found("^x-", "a-x-trace"));
    CHECK(found("x-", "a-x-trace"));
    CHECK(found("json$", "a.json"));
    CHECK_FALSE(found("json$", "json.a"));
    CHECK(found("^id$", "id"));
    CHECK_FALSE(found("^id$", "ids"));
    CHECK(found("^", "anything"));
    CHECK(found("^$", ""));
    CHECK_FALSE(found("^$", "x"));
    // A subject with a non-ASCII character takes the matcher, which reads characters.
    CHECK(found("^caf", "caf\xC3\xA9"));
    CHECK_FALSE(found("^\xC3\xA9", "e"));
    CHECK(found("-x$", "\xF0\x9F\x90\xB2-x"));
    // Escapes and syntax characters are not literals: they keep their meaning.
    CHECK(found("^a.c$", "abc"));
    CHECK_FALSE(found("^a\\.c$", "abc"));
}

} // namespace test_ecma_regex
