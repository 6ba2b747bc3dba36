// SPDX-License-Identifier: MIT
// <handoff/detail/regex/ecma_regex.hpp>: the engine behind JSON Schema's `pattern`. It agrees with
// Node's RegExp under the u flag on a committed differential fixture, refuses what it cannot run
// with a clear error, and stays fast on hostile patterns and subjects.

#include "support/catch.hpp"
#include "support/fixtures.hpp"
#include "support/hang_guard.hpp"

#include <handoff/detail/regex/ecma_regex.hpp>
#include <handoff/schema.hpp>

#include <nlohmann/json.hpp>

#include <algorithm> // is_sorted
#include <cstddef>   // size_t
#include <cstdint>   // uint32_t
#include <iterator>  // begin, end, size
#include <optional>  // optional
#include <sstream>   // ostringstream
#include <string>    // string
#include <thread>    // thread
#include <vector>    // vector

namespace test_ecma_regex { // this file's own names: see "unity build" in tests/CMakeLists.txt

using handoff::detail::ecma_regex;
using handoff::detail::regex_match;
using handoff::detail::regex_syntax_error;

namespace {

nlohmann::json read_cases() { return handoff_test::read_fixture_json("regex/ecma_cases.json"); }

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

using handoff_test::seconds_taken;

/// Linear work on these inputs takes well under a second, even under the sanitizers on a loaded
/// machine; quadratic work on the longest (10^12 steps) takes hours. The guard sits far from
/// both, so only a hang can fail it.
constexpr double hang_guard = 10.0;

/// Patterns Node runs that handoff refuses on purpose: counted repetition beyond the program-size
/// limit.
bool deliberately_refused(const std::string& pattern) { return pattern == "a{99999999999}"; }

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
    CHECK(seconds_taken([&] { r = search("^(?:(?:){1000000000}){1000000000}$", ""); }) < hang_guard);
    CHECK(r == regex_match::found);
    CHECK(search("^(?:){0,1000000000}a$", "a") == regex_match::found);
    CHECK(compile_error("^(){1000000000}\\1$").find("too large") != std::string::npos); // captures are emitted
    CHECK(compile_error("(a){1000000000}").find("too large") != std::string::npos);
}

TEST_CASE("Catastrophic patterns run in linear time without back-references", "[regex][hostile]") {
    const std::string ab(1000000, 'a');
    regex_match r = regex_match::not_found;
    CHECK(seconds_taken([&] { r = search("(a|b)*", ab); }) < hang_guard);
    CHECK(r == regex_match::found);
    CHECK(seconds_taken([&] { r = search("^(a|b)*$", ab + "c"); }) < hang_guard);
    CHECK(r == regex_match::not_found);
    const std::string evil = std::string(100000, 'a') + "b";
    CHECK(seconds_taken([&] { r = search("^(a+)+$", evil); }) < hang_guard);
    CHECK(r == regex_match::not_found);
    CHECK(seconds_taken([&] { r = search("^(a|a)*$", evil); }) < hang_guard);
    CHECK(r == regex_match::not_found);
    CHECK(seconds_taken([&] { r = search("(a*)*b", std::string(100000, 'a')); }) < hang_guard);
    CHECK(r == regex_match::not_found);
    CHECK(seconds_taken([&] { r = search("^(?:a?){50}a{50}$", std::string(50, 'a')); }) < hang_guard);
    CHECK(r == regex_match::found);
}

TEST_CASE("Lookarounds are memoized per position", "[regex][hostile]") {
    const std::string text = std::string(5000, 'a');
    regex_match r = regex_match::found;
    CHECK(seconds_taken([&] { r = search("(?=(a+)+b)", text); }) < hang_guard);
    CHECK(r == regex_match::not_found);
    CHECK(seconds_taken([&] { r = search("(?<!(a|a)*c)$", text); }) < hang_guard);
    CHECK(r == regex_match::found);
    CHECK(seconds_taken([&] { r = search("(?=a*b|a*)x", text); }) < hang_guard);
    CHECK(r == regex_match::not_found);
    // An empty loop in a lookaround that succeeds: its marks cannot be kept, a budget bounds the
    // work instead, and the answer is right or too_costly, never wrong.
    CHECK(seconds_taken([&] { r = search("(?=(a*)*b|a*)x", std::string(20000, 'a')); }) < hang_guard);
    CHECK(r != regex_match::found);
    CHECK(search("(?=(a*)*b|a*)x", "aaax") == regex_match::found);
    CHECK(search("(?=(a*)*b|a*)x", "aaa") == regex_match::not_found);
}

TEST_CASE("Back-references run under a step budget and never hang", "[regex][hostile]") {
    const std::string evil = std::string(5000, 'a') + "b";
    regex_match r = regex_match::found;
    CHECK(seconds_taken([&] { r = search("^(a*)*\\1$", evil); }) < hang_guard);
    CHECK(r != regex_match::found);
    CHECK(seconds_taken([&] { r = search("^(a+)+\\1b$", evil + "c"); }) < hang_guard);
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

// Unicode property escapes. Code points by their UTF-8 bytes: U+00C9 \xC3\x89 (É), U+00E9 \xC3\xA9
// (é), U+03A9 \xCE\xA9 (Ω), U+0342 \xCD\x82 (combining perispomeni: Script Inherited, Script
// Extensions Greek), U+0378 \xCD\xB8 (unassigned), U+1D400 \xF0\x9D\x90\x80 (mathematical bold
// capital A, uppercase), U+1D41A \xF0\x9D\x90\x9A (its small a), U+1F432 \xF0\x9F\x90\xB2 (dragon face).

TEST_CASE("p{Lu} then p{Ll}+ accepts a capitalised name in any script and refuses a lowercase one",
          "[regex][unicode]") {
    CHECK(matches("^\\p{Lu}\\p{Ll}+$", "\xC3\x89mile"));
    CHECK_FALSE(matches("^\\p{Lu}\\p{Ll}+$", "\xC3\xA9mile"));
    CHECK_FALSE(matches("^\\p{Lu}\\p{Ll}+$", "\xC3\x89MILE"));
    CHECK(matches("^\\p{Lu}\\p{Ll}+$", "\xCE\xA9mega"));
    CHECK_FALSE(matches("^\\p{Lu}\\p{Ll}+$", "E1"));
}

TEST_CASE("General_Category values are named by short or long name, alone or after gc= or General_Category=",
          "[regex][unicode]") {
    for (const char* pattern : {"^\\p{Lu}$", "^\\p{Uppercase_Letter}$", "^\\p{gc=Lu}$", "^\\p{General_Category=Lu}$",
                                "^\\p{General_Category=Uppercase_Letter}$"}) {
        INFO(pattern);
        CHECK(matches(pattern, "\xC3\x89"));
        CHECK_FALSE(matches(pattern, "\xC3\xA9"));
    }
    for (const char* pattern : {"^\\p{L}$", "^\\p{Letter}$", "^\\p{gc=L}$"}) {
        INFO(pattern);
        CHECK(matches(pattern, "\xC3\xA9"));
        CHECK(matches(pattern, "\xCE\xA9"));
        CHECK_FALSE(matches(pattern, "1"));
        CHECK_FALSE(matches(pattern, "\xF0\x9F\x90\xB2"));
    }
    CHECK(matches("^\\p{LC}$", "a"));        // Cased_Letter: Ll, Lt and Lu
    CHECK(matches("^\\p{digit}$", "7"));     // Nd's other alias
    CHECK(matches("^\\p{Cn}$", "\xCD\xB8")); // unassigned
    CHECK_FALSE(matches("^\\p{Cn}$", "a"));
}

TEST_CASE("Script and Script_Extensions values are named by long or short script name", "[regex][unicode]") {
    for (const char* pattern : {"^\\p{Script=Greek}$", "^\\p{sc=Grek}$", "^\\p{sc=Greek}$", "^\\p{Script=Grek}$"}) {
        INFO(pattern);
        CHECK(matches(pattern, "\xCE\xA9"));
        CHECK_FALSE(matches(pattern, "O"));
        CHECK_FALSE(matches(pattern, "\xCD\x82")); // Script Inherited
    }
    for (const char* pattern : {"^\\p{Script_Extensions=Greek}$", "^\\p{scx=Grek}$"}) {
        INFO(pattern);
        CHECK(matches(pattern, "\xCE\xA9"));
        CHECK(matches(pattern, "\xCD\x82")); // used with Greek
        CHECK_FALSE(matches(pattern, "O"));
    }
    CHECK(matches("^\\p{sc=Latn}+$", "\xC3\xA9t\xC3\xA9"));
    CHECK(matches("^\\p{sc=Zinh}$", "\xCD\x82"));
    CHECK(matches("^\\p{sc=Zzzz}$", "\xCD\xB8")); // Unknown: no script
}

TEST_CASE("P{...} is the complement of p{...}, outside and inside character classes", "[regex][unicode]") {
    CHECK(matches("^\\P{L}$", "1"));
    CHECK(matches("^\\P{L}$", "\xF0\x9F\x90\xB2"));
    CHECK_FALSE(matches("^\\P{L}$", "\xC3\xA9"));
    CHECK(matches("^[\\p{L}\\d_]+$", "\xC3\xA9_1\xCE\xA9"));
    CHECK_FALSE(matches("^[\\p{L}\\d_]+$", "a-b"));
    CHECK_FALSE(matches("^[\\p{L}\\d_]+$", "a b"));
    CHECK(matches("^[^\\p{L}]+$", "1 2"));
    CHECK_FALSE(matches("^[^\\p{L}]+$", "1a"));
    CHECK(matches("^[^\\P{Lu}]$", "\xC3\x89")); // not non-uppercase: uppercase
    CHECK_FALSE(matches("^[^\\P{Lu}]$", "\xC3\xA9"));
    CHECK(matches("^[\\P{L}x]+$", "1x"));
    CHECK_FALSE(matches("^[\\P{L}x]+$", "1y"));
}

TEST_CASE("Property escapes read astral code points whole, and a lone surrogate never matches", "[regex][unicode]") {
    CHECK(matches("^\\p{Lu}$", "\xF0\x9D\x90\x80"));
    CHECK_FALSE(matches("^\\p{Ll}$", "\xF0\x9D\x90\x80"));
    CHECK(matches("^\\p{Lu}\\p{Ll}$", "\xF0\x9D\x90\x80\xF0\x9D\x90\x9A"));
    CHECK(matches("^\\uD835\\uDC00\\p{Ll}$", "\xF0\x9D\x90\x80"
                                             "a")); // a surrogate pair in the pattern
    CHECK(matches("^[\\p{Ll}\\u{1D400}]{2}$", "\xF0\x9D\x90\x80"
                                              "a"));
    CHECK(matches("^\\p{Emoji_Presentation}$", "\xF0\x9F\x90\xB2"));
    CHECK(matches("^\\P{L}$", "\xF0\x9F\x90\xB2"));
    // An encoded surrogate is not UTF-8: each of its bytes reads as U+FFFD, which is not Cs.
    CHECK_FALSE(matches("^\\p{Cs}$", "\xED\xA0\x80"));
    CHECK(matches("^\\P{Cs}{3}$", "\xED\xA0\x80"));
}

TEST_CASE("The binary properties ECMA-262 lists are named by name or alias", "[regex][unicode]") {
    CHECK(matches("^\\p{ASCII}+$", "abc~\x7F"));
    CHECK_FALSE(matches("^\\p{ASCII}+$", "\xC3\xA9"));
    CHECK(matches("^\\p{Any}$", "\xF4\x8F\xBF\xBF")); // U+10FFFF
    CHECK_FALSE(matches("^\\p{Assigned}$", "\xCD\xB8"));
    CHECK(matches("^\\p{Assigned}$", "\xF0\x9F\x90\xB2"));
    CHECK(matches("^\\p{ASCII_Hex_Digit}+$", "09afAF"));
    CHECK(matches("^\\p{AHex}+$", "09afAF"));
    CHECK_FALSE(matches("^\\p{AHex}$", "g"));
    CHECK(matches("^\\p{Alphabetic}$", "\xCD\x85")); // U+0345, a mark that is alphabetic
    CHECK(matches("^\\p{White_Space}+$", " \t\xC2\xA0\xE3\x80\x80"));
    CHECK(matches("^\\p{space}$", " "));
    CHECK(matches("^\\p{XID_Start}\\p{XID_Continue}*$", "\xC3\xA9t\xC3\xA9"
                                                        "1"));
    CHECK_FALSE(matches("^\\p{XID_Start}$", "1"));
    CHECK(matches("^\\p{Extended_Pictographic}$", "\xC2\xA9"));       // U+00A9
    CHECK(matches("^\\p{Noncharacter_Code_Point}$", "\xEF\xBF\xBF")); // U+FFFF
    CHECK(matches("^\\p{Changes_When_NFKC_Casefolded}$", "A"));
    CHECK(matches("^\\p{Bidi_Mirrored}$", "("));
}

TEST_CASE("Every name in the generated Unicode tables compiles where ECMA-262 allows it", "[regex][unicode]") {
    namespace tables = handoff::detail::regex_impl::unicode_tables;
    const auto names_sorted = [](const auto& table) {
        return std::is_sorted(std::begin(table), std::end(table),
                              [](const auto& a, const auto& b) { return a.name < b.name; });
    };
    CHECK(names_sorted(tables::general_category_values)); // the lookup is a binary search
    CHECK(names_sorted(tables::script_values));
    CHECK(names_sorted(tables::script_extensions_values));
    CHECK(names_sorted(tables::binary_properties));
    // Each property's ranges are what the matcher's binary search and complement assume: sorted,
    // disjoint, not adjacent, within the code points.
    std::size_t malformed = 0;
    for (std::size_t k = 0; k + 1 < std::size(tables::range_bounds); k += 2) {
        malformed += tables::range_bounds[k] > tables::range_bounds[k + 1] ||
                     tables::range_bounds[k + 1] > handoff::detail::regex_impl::max_code_point;
    }
    const auto check_entries = [&malformed](const auto& table) {
        for (const auto& e : table) {
            for (std::uint32_t r = 1; r < e.count; ++r) {
                const std::size_t at = 2 * (std::size_t{e.first} + r);
                malformed += tables::range_bounds[at] <= tables::range_bounds[at - 1] + 1;
            }
        }
    };
    check_entries(tables::general_category_values);
    check_entries(tables::script_values);
    check_entries(tables::script_extensions_values);
    check_entries(tables::binary_properties);
    CHECK(malformed == 0);
    std::vector<std::string> refused;
    const auto try_compile = [&refused](const std::string& pattern) {
        if (!compile_error(pattern).empty()) {
            refused.push_back(pattern);
        }
    };
    for (const auto& e : tables::general_category_values) {
        try_compile("\\p{" + std::string(e.name) + "}");
        try_compile("\\P{gc=" + std::string(e.name) + "}");
        try_compile("[\\p{General_Category=" + std::string(e.name) + "}]");
    }
    for (const auto& e : tables::script_values) {
        try_compile("\\p{sc=" + std::string(e.name) + "}");
        try_compile("[^\\P{Script=" + std::string(e.name) + "}]");
    }
    for (const auto& e : tables::script_extensions_values) {
        try_compile("\\p{scx=" + std::string(e.name) + "}");
        try_compile("\\p{Script_Extensions=" + std::string(e.name) + "}");
    }
    for (const auto& e : tables::binary_properties) {
        try_compile("\\p{" + std::string(e.name) + "}");
        try_compile("[\\P{" + std::string(e.name) + "}]");
    }
    CHECK(refused.empty());
    CHECK(std::size(tables::binary_properties) > 53); // ECMA-262's 53 binary properties and their aliases
    CHECK_FALSE(compile_error("\\p{Lu=Lu}").empty()); // a General_Category value is no property name
    CHECK_FALSE(compile_error("\\p{sc=Lu}").empty());
    CHECK_FALSE(compile_error("\\p{gc=Alphabetic}").empty());
    CHECK_FALSE(compile_error("\\p{Greek}").empty()); // a script needs sc= or scx=
}

TEST_CASE("An unknown property name or value is a syntax error that names it", "[regex][unicode]") {
    CHECK(compile_error("\\p{Foo}") == "invalid regular expression: unknown Unicode property \"Foo\" (at offset 0)");
    CHECK(compile_error("a\\P{lu}") == "invalid regular expression: unknown Unicode property \"lu\" (at offset 1)");
    CHECK(compile_error("\\p{Script=Klingon}") ==
          "invalid regular expression: unknown value \"Klingon\" of Unicode property \"Script\" (at offset 0)");
    CHECK(compile_error("[\\p{gc=Greek}]") ==
          "invalid regular expression: unknown value \"Greek\" of Unicode property \"gc\" (at offset 1)");
    CHECK(compile_error("\\p{ASCII=Y}") ==
          "invalid regular expression: unknown Unicode property \"ASCII\" (only "
          "General_Category, Script and Script_Extensions take a value) (at offset 0)");
    CHECK(compile_error("\\p{Script}") ==
          "invalid regular expression: unknown Unicode property \"Script\" (at offset 0)");
    CHECK(compile_error("\\p{sc=Hrkt}") ==
          "invalid regular expression: unknown value \"Hrkt\" of Unicode property \"sc\" (at offset 0)");
    CHECK(compile_error("\\p{L") == "invalid regular expression: missing '}' after \\p{ or \\P{ (at offset 0)");
    CHECK(compile_error("\\pL") ==
          "invalid regular expression: invalid property name: \\p and \\P need {...} (at offset 0)");
    CHECK(compile_error("\\p{L u}") == "invalid regular expression: invalid property name (at offset 0)");
    CHECK(compile_error("[\\p{L}-z]") == "invalid regular expression: invalid character class range (at offset 6)");
}

TEST_CASE("A pattern with a property escape the schema cannot use is refused at its JSON pointer", "[regex][unicode]") {
    const nlohmann::json schema =
        nlohmann::json::parse(R"({"properties": {"name": {"pattern": "^\\p{Lu}\\p{Klingon}+$"}}})");
    std::string refusal;
    try {
        (void)handoff::compiled_schema::from_json(schema);
    } catch (const handoff::schema_error& e) {
        refusal = e.what();
    }
    CHECK(refusal == "handoff: schema /properties/name/pattern: not an ECMA-262 regular expression: invalid regular "
                     "expression: unknown Unicode property \"Klingon\" (at offset 7)");
    const handoff::compiled_schema names =
        handoff::compiled_schema::from_json(nlohmann::json::parse(R"({"pattern": "^\\p{Lu}\\p{Ll}+$"})"));
    CHECK(names.is_valid("\xC3\x89mile"));
    CHECK_FALSE(names.is_valid("\xC3\xA9mile"));
}

TEST_CASE("Property escapes match in linear time on long subjects", "[regex][unicode][hostile]") {
    std::string letters;
    for (int k = 0; k < 200000; ++k) {
        letters += "\xC3\xA9";
    }
    regex_match r = regex_match::found;
    CHECK(seconds_taken([&] { r = search("^[\\p{L}\\p{N}_]+$", letters + "!"); }) < hang_guard);
    CHECK(r == regex_match::not_found);
    CHECK(seconds_taken([&] { r = search("^(\\p{L}|\\p{Ll})*$", letters + "!"); }) < hang_guard);
    CHECK(r == regex_match::not_found);
    CHECK(seconds_taken([&] { r = search("^(\\p{L}+)+$", letters.substr(0, 100000) + "1"); }) < hang_guard);
    CHECK(r == regex_match::not_found);
    CHECK(seconds_taken([&] { r = search("\\P{L}", letters + "1"); }) < hang_guard);
    CHECK(r == regex_match::found);
}

TEST_CASE("Property escapes cannot make a pattern's classes unboundedly large", "[regex][unicode][hostile]") {
    std::string many;
    for (int k = 0; k < 400; ++k) {
        many += "\\p{L}";
    }
    CHECK(compile_error(many) ==
          "regular expression too large: its character classes and escapes hold more than 200000 code point ranges");
    CHECK(compile_error("[" + many + "]").find("too large") != std::string::npos);
    // A repeated escape is one set, however many times the repetition copies it.
    CHECK(seconds_taken([&] { CHECK(compile_error("^\\p{L}{90000}$").empty()); }) < hang_guard);
    CHECK(search("^\\p{L}{5000}$", std::string(5000, 'a')) == regex_match::found);
    CHECK(search("^\\p{L}{5000}$", std::string(4999, 'a') + "1") == regex_match::not_found);
}

namespace {

/// Code points in a UTF-8 string.
std::size_t code_points(const std::string& s) {
    return static_cast<std::size_t>(
        std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U; }));
}

/// Patterns whose match may depend on more than the path taken: example() gives none for them.
bool needs_context(const std::string& pattern) {
    for (const char* context : {"(?=", "(?!", "(?<=", "(?<!", "\\b", "\\B", "\\k<"}) {
        if (pattern.find(context) != std::string::npos) {
            return true;
        }
    }
    for (std::size_t i = 0; i + 1 < pattern.size(); ++i) {
        if (pattern[i] == '\\' && pattern[i + 1] >= '1' && pattern[i + 1] <= '9') {
            return true;
        }
    }
    return false;
}

} // namespace

TEST_CASE("An example is the shortest subject a pattern matches whole, within the lengths asked", "[regex]") {
    struct row {
        const char* pattern;
        std::size_t min;
        std::size_t max;
        const char* example; // nullptr: none
    };
    const row rows[] = {
        {"^ST-[0-9]{4}$", 0, 100, "ST-0000"},
        {"^[A-Z0-9-]+$", 0, 100, "A"},
        {"^[A-Z0-9-]+$", 4, 100, "AAAA"},
        {"^\\p{Lu}\\p{Ll}+$", 0, 100, "Aa"},
        {"^(foo|bar)+baz$", 7, 100, "barbarbaz"}, // the first branch found at each length
        {"^[a-z]{2,3}@example\\.(com|org)$", 0, 100, "aa@example.org"},
        {"^[^\\x00-\\x7f]$", 0, 100, "\u00a0"},
        {"^\\s$", 0, 100, " "},
        {"^\\d{3}-\\d{2}$", 0, 5, nullptr}, // six code points at least
        {"^$", 0, 100, ""},
        {"a$b", 0, 100, nullptr},    // nothing follows the end
        {"x^", 0, 100, nullptr},     // nothing precedes the start
        {"[]", 0, 100, nullptr},     // the empty class matches no character
        {"(?=a)a", 0, 100, nullptr}, // a lookahead: not decided by the path alone
        {"\\bfoo", 0, 100, nullptr},
        {"^(a)\\1$", 0, 100, nullptr},
    };
    for (const row& r : rows) {
        INFO(r.pattern << " [" << r.min << ", " << r.max << "]");
        const ecma_regex regex = ecma_regex::compile(r.pattern);
        const auto example = regex.example(r.min, r.max);
        if (r.example == nullptr) {
            CHECK_FALSE(example.has_value());
        } else {
            REQUIRE(example.has_value());
            CHECK(*example == r.example);
            CHECK(regex.search(*example) == regex_match::found);
        }
    }
}

TEST_CASE("Every pattern of the Node fixture that matches some subject has an example, and it matches", "[regex]") {
    // A match found inside a subject is a substring the pattern matches whole (`^` held only at
    // its start, `$` only at its end): so a pattern that example() can read has one no longer
    // than the subject.
    std::size_t examples = 0;
    for (const auto& c : read_cases()) {
        const std::string pattern = c.at("pattern").get<std::string>();
        if (deliberately_refused(pattern) || !compile_error(pattern).empty()) {
            continue;
        }
        const ecma_regex regex = ecma_regex::compile(pattern);
        const std::string subject = c.at("subject").get<std::string>();
        const auto example = regex.example(0, code_points(subject));
        INFO(pattern << " on " << subject);
        if (example) {
            ++examples;
            CHECK(regex.search(*example) == regex_match::found);
            CHECK(code_points(*example) <= code_points(subject));
        } else {
            CHECK((needs_context(pattern) || !c.at("match").get<bool>()));
        }
    }
    CHECK(examples > 500);
}

TEST_CASE("An example search is bounded: large programs end at once, found or not", "[regex]") {
    // Its states are single program states: a long program with a short example is found; one
    // whose states times minLength pass the bound ends with none instead of running on.
    struct row {
        const char* pattern;
        std::size_t min;
        std::size_t example_length; // 0: none
    };
    for (const row& r : {row{"^[a-z]{50000}$", 0, 50000}, row{"^(?:[ab]{1,3}c){5000}$", 0, 10000},
                         row{"^.{0,50}x.{30}$", 0, 31}, row{"^(?:a?){30000}b{30000}$", 1000, 0}}) {
        INFO(r.pattern << " min " << r.min);
        const ecma_regex regex = ecma_regex::compile(r.pattern);
        std::optional<std::string> example;
        CHECK(seconds_taken([&] { example = regex.example(r.min, 1000000); }) < hang_guard);
        CHECK(example.value_or("").size() == r.example_length);
        // The engine runs subjects this long on a path that may say too_costly; the validator
        // never gives it more than max_pattern_subject characters.
        CHECK((!example || example->size() > 4096 || regex.search(*example) == regex_match::found));
    }
}

} // namespace test_ecma_regex
