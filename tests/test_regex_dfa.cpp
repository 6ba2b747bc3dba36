// SPDX-License-Identifier: MIT
// <handoff/detail/regex/dfa.hpp>: the automaton a plain pattern runs on answers every search as
// the memoized matcher does, is built for the shapes schemas use, and is refused where it cannot
// stand in (back-references, lookarounds, `\b`) or would be too big.

#include "support/catch.hpp"
#include "support/fixtures.hpp"

#include <handoff/detail/regex/compiler.hpp>
#include <handoff/detail/regex/dfa.hpp>
#include <handoff/detail/regex/ecma_regex.hpp>
#include <handoff/detail/regex/memo_matcher.hpp>
#include <handoff/detail/regex/parser.hpp>

#include <nlohmann/json.hpp>

#include <cstddef> // size_t
#include <cstdint> // uint32_t
#include <cstdio>  // snprintf
#include <memory>  // shared_ptr
#include <random>  // mt19937
#include <string>  // string
#include <vector>  // vector

namespace test_regex_dfa { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace rx = handoff::detail::regex_impl;
using handoff::detail::regex_match;

namespace {

/// The program ecma_regex::compile makes, without its fast paths.
rx::program program_of(const std::string& pattern) {
    rx::parser parser(pattern);
    const rx::node root = parser.parse();
    rx::program p;
    p.groups = parser.groups();
    p.backrefs = parser.has_backrefs();
    rx::compiler(p, p.backrefs).emit_all(root);
    p.empty_loops = rx::has_empty_loop(p.code);
    return p;
}

regex_match memo_search(const rx::program& p, const std::string& subject) {
    rx::scratch sc;
    for (std::size_t i = 0; i < subject.size();) {
        sc.text.push_back(rx::decode_utf8(subject, i));
    }
    const rx::subject s{sc.text.data(), static_cast<std::uint32_t>(sc.text.size())};
    return rx::memo_matcher(p, s, sc).search();
}

/// Pieces subjects are made of: ASCII that schemas' patterns test, a two-byte and a four-byte
/// character, an invalid byte (read as U+FFFD), whitespace outside ASCII (U+00A0).
const std::vector<std::string>& pieces() {
    static const std::vector<std::string> all = {
        "a",    "b",        "z",  "A",  "Z", "0", "7", "9", "-",  "_",  ".",        "@",
        " ",    "x",        "I",  "O",  "R", "D", "S", "T", "\t", "\n", "\xC3\xA9", "\xF0\x9F\x90\xB2",
        "\xFF", "\xC2\xA0", "ab", "97", "x-"};
    return all;
}

/// Checks the automaton against the matcher on `count` subjects made of `alphabet` pieces.
void check_agreement(const std::string& pattern, const std::vector<std::string>& alphabet, int count) {
    const rx::program p = program_of(pattern);
    const std::shared_ptr<const rx::dfa> automaton = rx::dfa_builder(p).build();
    if (!automaton) {
        return;
    }
    std::mt19937 random(static_cast<std::uint32_t>(std::hash<std::string>{}(pattern)));
    for (int n = 0; n < count; ++n) {
        std::string subject;
        const std::size_t pieces_in = random() % 24;
        for (std::size_t k = 0; k < pieces_in; ++k) {
            subject += alphabet[random() % alphabet.size()];
        }
        INFO("pattern " << pattern << ", subject "
                        << nlohmann::json(subject).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace));
        REQUIRE(automaton->search(subject) == memo_search(p, subject));
    }
}

/// The alphabet for one pattern: its own characters (so that it can match) and the pieces.
std::vector<std::string> alphabet_of(const std::string& pattern) {
    std::vector<std::string> out = pieces();
    for (std::size_t i = 0; i < pattern.size();) {
        const std::size_t start = i;
        (void)rx::decode_utf8(pattern, i);
        out.push_back(pattern.substr(start, i - start));
    }
    return out;
}

bool has_automaton(const std::string& pattern) { return rx::dfa_builder(program_of(pattern)).build() != nullptr; }

} // namespace

TEST_CASE("The automaton answers as the memoized matcher on schema-shaped patterns", "[regex][dfa]") {
    const char* const patterns[] = {
        "^[0-9A-Z][0-9A-Z -]{2,9}$",
        "^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$",
        "^[A-Z]{2}[0-9A-Z]{8,12}$",
        "^[0-9]{4}$",
        "^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$",
        "^ORD-[0-9]{8}$",
        "^97[89][0-9]{10}$",
        "^x-",
        "[0-9]{3}",
        "a|b|^c|d$",
        "(ab|a)(c|bcd)$",
        "^(a*)*$",
        "(?:a|b)*abb",
        "^\\d+(\\.\\d{1,2})?$",
        "^[a-z]+(-[a-z]+)*$",
        "[\\u{1F432}-\\u{1F440}]",
        ".",
        "^.$",
        "^.{2,4}$",
        "",
        "^$",
        "$",
        "^",
        "a^b",
        "a$b",
        "(^a|b$)+",
        "^(?:\\$|\\^)+",
        "\\S\\s\\S",
        "[^a-z]",
        "\\W\\w",
        "^\\D*\\d?$",
        "(?:)*x",
        "^(?:a?){3}a{3}$",
        "\\u00e9|\\u{FFFD}",
        "^[\\s\\S]{0,5}$",
    };
    for (const char* pattern : patterns) {
        INFO(pattern);
        CHECK(has_automaton(pattern));
        check_agreement(pattern, alphabet_of(pattern), 400);
    }
}

TEST_CASE("The automaton answers as the memoized matcher on every pattern of the Node fixture", "[regex][dfa]") {
    const nlohmann::json cases = handoff_test::read_fixture_json("regex/ecma_cases.json");
    std::size_t built = 0;
    for (const auto& c : cases) {
        const std::string pattern = c.at("pattern").get<std::string>();
        if (c.contains("error") || !c.contains("subject")) {
            continue;
        }
        try {
            built += has_automaton(pattern) ? 1U : 0U;
            std::vector<std::string> alphabet = alphabet_of(pattern);
            alphabet.push_back(c.at("subject").get<std::string>());
            check_agreement(pattern, alphabet, 40);
        } catch (const handoff::detail::regex_syntax_error&) {
            // refused on purpose (see test_ecma_regex.cpp); nothing to compare
        }
    }
    CHECK(built > 0);
}

TEST_CASE("Back-references, lookarounds and word boundaries run on the matchers", "[regex][dfa]") {
    CHECK_FALSE(has_automaton("(a)\\1"));
    CHECK_FALSE(has_automaton("a(?=b)"));
    CHECK_FALSE(has_automaton("(?<!a)b"));
    CHECK_FALSE(has_automaton("\\bword\\b"));
    CHECK_FALSE(has_automaton("a\\Bb"));
}

TEST_CASE("A pattern whose automaton would be too big gets none and still answers", "[regex][dfa][hostile]") {
    // Unanchored, "an a 12 characters before the end" needs 2^13 states.
    const std::string exploding = "(?:a|b)*a(?:a|b){12}$";
    CHECK_FALSE(has_automaton(exploding));
    using handoff::detail::ecma_regex;
    CHECK(ecma_regex::compile(exploding).search("bbbabbbbbbbbbbbb") == regex_match::found);
    CHECK(ecma_regex::compile(exploding).search("bbbbbbbbbbbbbbbb") == regex_match::not_found);
    // Classes beyond the bound: every other code point from U+0100 on, 300 of them.
    std::string many = "[";
    for (int c = 0; c < 300; ++c) {
        char escape[8];
        std::snprintf(escape, sizeof escape, "\\u%04x", 0x100 + 2 * c);
        many += escape;
    }
    many += "]";
    CHECK_FALSE(has_automaton(many));
    CHECK_FALSE(has_automaton("^\\p{Lu}\\p{Ll}+$"));                               // hundreds of ranges each
    CHECK(ecma_regex::compile(many).search("\xC4\x80") == regex_match::found);     // U+0100
    CHECK(ecma_regex::compile(many).search("\xC4\x81") == regex_match::not_found); // U+0101
}

TEST_CASE("The automaton reads a subject once, however long", "[regex][dfa][hostile]") {
    using handoff::detail::ecma_regex;
    const std::string long_digits(1000000, '7');
    CHECK(ecma_regex::compile("^[0-9]+$").search(long_digits) == regex_match::found);
    CHECK(ecma_regex::compile("^[0-9]+$").search(long_digits + "x") == regex_match::not_found);
    CHECK(ecma_regex::compile("^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$").search(long_digits + "@a.bc") == regex_match::found);
}

} // namespace test_regex_dfa
