// SPDX-License-Identifier: MIT
#pragma once

// A regular-expression engine for JSON Schema's `pattern` keyword, safe to run on untrusted text.
//
// Dialect: ECMA-262 RegExp pattern syntax (ECMA-262 22.2.1, "Patterns") with the `u` flag, over
// Unicode code points: `.` and classes consume one code point, and the stricter u-flag grammar
// applies (no Annex B leniency: a lone `]`, `{` or `}` is an error, identity escapes are only for
// syntax characters and `/`, plus `-` inside a class).
//
// Unicode property escapes `\p{...}` / `\P{...}` take the General_Category, Script and
// Script_Extensions values and the binary properties ECMA-262 lists, from tables generated from the
// Unicode Character Database (unicode_tables.hpp states its version).
//
// Refused at compile time (regex_syntax_error), where ECMA-262 would accept:
//   - group names written with `\u` escapes. Names are [A-Za-z_$] then [A-Za-z0-9_$], and any
//     non-ASCII code point is taken as a letter (more lenient than ID_Start / ID_Continue).
//   - patterns over max_pattern_bytes, nested deeper than max_depth groups, whose classes and
//     escapes hold more than max_set_ranges code point ranges in all (300 `\p{L}`), or whose
//     program after expanding counted repetition exceeds max_program instructions
//     (`(a{1000}){1000}`).
// Duplicate group names are an error, as in Node 20 (ECMA-262 2025 allows them in different
// alternatives).
//
// Execution: a pattern without back-references, lookarounds or word boundaries whose automaton
// is small (dfa.hpp) runs on a deterministic automaton built at compile time: one table step per
// code point. Otherwise, without back-references, a memoized backtracker marks each (instruction, position)
// state when first reached and never explores it again, so time and memory are
// O(program * subject) (memory capped by max_visited_bits, beyond which search answers
// too_costly). A lookaround is a sub-search memoized per (lookaround, position) that shares the
// marks; the one exception, a program with an empty loop (`(a*)*`), must forget a lookaround's
// marks after it succeeds and runs under a visit budget instead (too_costly when spent). With
// back-references, a capture-tracking backtracker runs under a step budget and answers
// too_costly when the budget is spent. Neither recurses per subject character: recursion happens
// only per nesting level of lookarounds in the pattern.
//
// The parts, in the order a pattern meets them: parser.hpp (text to syntax_tree.hpp, with
// unicode_properties.hpp looking `\p{...}` up in the generated unicode_tables.hpp), compiler.hpp
// (tree to program.hpp), then dfa.hpp, memo_matcher.hpp or capture_matcher.hpp (sharing search_state.hpp);
// code_points.hpp and utf8.hpp serve them all.

#include <handoff/detail/regex/capture_matcher.hpp>
#include <handoff/detail/regex/compiler.hpp>
#include <handoff/detail/regex/dfa.hpp>
#include <handoff/detail/regex/example.hpp>
#include <handoff/detail/regex/memo_matcher.hpp>
#include <handoff/detail/regex/parser.hpp>
#include <handoff/detail/regex/program.hpp>
#include <handoff/detail/regex/search_state.hpp>
#include <handoff/detail/regex/utf8.hpp>
#include <handoff/detail/text.hpp> // is_ascii

#include <cstddef>     // size_t
#include <cstdint>     // uint32_t
#include <memory>      // shared_ptr, make_shared
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move

namespace handoff::detail {

/// A compiled ECMA-262 (u flag) pattern; copies share one immutable program.
class ecma_regex {
public:
    /// Throws regex_syntax_error for a pattern that is invalid or too large to run.
    [[nodiscard]] static ecma_regex compile(std::string_view pattern) {
        regex_impl::parser parser(pattern);
        const regex_impl::node root = parser.parse();
        auto p = std::make_shared<regex_impl::program>();
        p->source = std::string(pattern);
        p->groups = parser.groups();
        p->backrefs = parser.has_backrefs();
        regex_impl::compiler(*p, p->backrefs).emit_all(root);
        p->empty_loops = regex_impl::has_empty_loop(p->code);
        p->literal = regex_impl::literal_of(pattern);
        auto automaton = regex_impl::dfa_builder(*p).build();
        return {std::move(p), std::move(automaton)};
    }

    /// Unanchored search, as JSON Schema's `pattern` is: does the pattern match anywhere in
    /// `subject` (UTF-8)? Thread-safe (const, no shared mutable state); never recurses per subject
    /// character; linear time in subject for patterns without back-references.
    [[nodiscard]] regex_match search(std::string_view subject) const {
        if (subject.size() >= 0x7FFFFFFF) {
            return regex_match::too_costly; // positions are 32-bit
        }
        if (program_->literal && is_ascii(subject)) {
            return regex_impl::literal_matches(*program_->literal, subject) ? regex_match::found
                                                                            : regex_match::not_found;
        }
        if (dfa_) {
            return dfa_->search(subject);
        }
        regex_impl::scratch& sc = regex_impl::thread_scratch();
        sc.text.clear();
        sc.text.reserve(subject.size());
        for (std::size_t i = 0; i < subject.size();) {
            sc.text.push_back(regex_impl::decode_utf8(subject, i));
        }
        const regex_impl::subject s{sc.text.data(), static_cast<std::uint32_t>(sc.text.size())};
        const regex_match result = program_->backrefs ? regex_impl::capture_matcher(*program_, s, sc).search()
                                                      : regex_impl::memo_matcher(*program_, s, sc).search();
        regex_impl::release_large_scratch(sc);
        return result;
    }

    /// The shortest subject of `min_length` to `max_length` code points that search() finds,
    /// matched whole; nullopt when none is found in a bounded search, or when the pattern has a
    /// lookaround, a back-reference or `\b` (regex_impl::shortest_example).
    [[nodiscard]] std::optional<std::string> example(std::size_t min_length, std::size_t max_length) const {
        return regex_impl::shortest_example(*program_, min_length, max_length);
    }

    [[nodiscard]] bool has_back_references() const noexcept { return program_->backrefs; }
    [[nodiscard]] const std::string& source() const noexcept { return program_->source; }

private:
    ecma_regex(std::shared_ptr<const regex_impl::program> p, std::shared_ptr<const regex_impl::dfa> automaton)
        : program_(std::move(p)), dfa_(std::move(automaton)) {}
    std::shared_ptr<const regex_impl::program> program_;
    std::shared_ptr<const regex_impl::dfa> dfa_; // null: the program runs on a matcher
};

} // namespace handoff::detail
