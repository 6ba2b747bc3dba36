// SPDX-License-Identifier: MIT
#pragma once

// A regular-expression engine for JSON Schema's `pattern` keyword, safe to run on untrusted text.
//
// Dialect: ECMA-262 RegExp pattern syntax (ECMA-262 22.2.1, "Patterns") with the `u` flag, over
// Unicode code points: `.` and classes consume one code point, and the stricter u-flag grammar
// applies (no Annex B leniency: a lone `]`, `{` or `}` is an error, identity escapes are only for
// syntax characters and `/`, plus `-` inside a class).
//
// Refused at compile time (regex_syntax_error), where ECMA-262 would accept:
//   - Unicode property escapes `\p{...}` / `\P{...}`: the Unicode tables would dwarf this header.
//   - group names written with `\u` escapes. Names are [A-Za-z_$] then [A-Za-z0-9_$], and any
//     non-ASCII code point is taken as a letter (more lenient than ID_Start / ID_Continue).
//   - patterns over max_pattern_bytes, nested deeper than max_depth groups, or whose program after
//     expanding counted repetition exceeds max_program instructions (`(a{1000}){1000}`).
// Duplicate group names are an error, as in Node 20 (ECMA-262 2025 allows them in different
// alternatives).
//
// Execution: without back-references, a memoized backtracker marks each (instruction, position)
// state when first reached and never explores it again, so time and memory are
// O(program * subject) (memory capped by max_visited_bits, beyond which search answers
// too_costly). A lookaround is a sub-search memoized per (lookaround, position) that shares the
// marks; the one exception, a program with an empty loop (`(a*)*`), must forget a lookaround's
// marks after it succeeds and runs under a visit budget instead (too_costly when spent). With
// back-references, a capture-tracking backtracker runs under a step budget and answers
// too_costly when the budget is spent. Neither recurses per subject character: recursion happens
// only per nesting level of lookarounds in the pattern.

#include <algorithm>   // sort, min, max, find, all_of, any_of, upper_bound
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t, uint32_t, uint64_t, int64_t
#include <iterator>    // prev
#include <memory>      // shared_ptr, make_shared
#include <optional>    // optional
#include <stdexcept>   // invalid_argument
#include <string>      // string, to_string
#include <string_view> // string_view
#include <utility>     // move
#include <vector>      // vector

namespace handoff::detail {

/// Thrown by ecma_regex::compile for a pattern that is not valid ECMA-262 or that handoff cannot
/// run; what() is one line that says why (and the offset in the pattern).
class regex_syntax_error : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

enum class regex_match : std::uint8_t { found, not_found, too_costly };

namespace regex_impl {

inline constexpr char32_t max_code_point = 0x10FFFF;
inline constexpr char32_t replacement_character = 0xFFFD;
inline constexpr char32_t end_of_pattern = 0xFFFFFFFF; // never a code point
inline constexpr std::size_t max_depth = 256;
inline constexpr std::size_t max_program = 100000;
inline constexpr std::size_t max_pattern_bytes = 100000; // bounds the syntax tree's size
inline constexpr std::uint32_t unbounded = 0xFFFFFFFF;
inline constexpr std::uint32_t max_count = 1000000000; // {n,m} numbers saturate here
inline constexpr std::uint64_t backtrack_budget = 1000000;
/// Bits of (instruction, position) states one memoized search may mark: 32 MiB, e.g. a 6,000
/// instruction program against a 40,000 code point subject. Beyond it search answers too_costly.
inline constexpr std::uint64_t max_visited_bits = std::uint64_t{1} << 28;
/// Scratch buffers larger than this many bytes are released after the search that grew them.
inline constexpr std::size_t max_kept_scratch = std::size_t{4} << 20;

struct code_range {
    char32_t lo;
    char32_t hi;
};
using range_set = std::vector<code_range>;

/// Sorted, non-overlapping, non-adjacent ranges: the form every class is matched in.
[[nodiscard]] inline range_set normalized(range_set r) {
    std::sort(r.begin(), r.end(), [](const code_range& a, const code_range& b) { return a.lo < b.lo; });
    range_set out;
    for (const code_range& x : r) {
        if (!out.empty() && x.lo <= out.back().hi + 1) {
            out.back().hi = std::max(out.back().hi, x.hi);
        } else {
            out.push_back(x);
        }
    }
    return out;
}

/// The code points 0..max_code_point not in `r` (which must be normalized).
[[nodiscard]] inline range_set complement(const range_set& r) {
    range_set out;
    char32_t next = 0;
    for (const code_range& x : r) {
        if (x.lo > next) {
            out.push_back({next, x.lo - 1});
        }
        next = x.hi + 1;
    }
    if (next <= max_code_point) {
        out.push_back({next, max_code_point});
    }
    return out;
}

[[nodiscard]] inline bool in_ranges(const range_set& r, char32_t c) noexcept {
    if (r.size() <= 8) { // a short scan beats a binary search on the common small class
        return std::any_of(r.begin(), r.end(), [c](const code_range& x) { return c >= x.lo && c <= x.hi; });
    }
    auto it = std::upper_bound(r.begin(), r.end(), c, [](char32_t v, const code_range& x) { return v < x.lo; });
    return it != r.begin() && c <= std::prev(it)->hi;
}

/// ECMA-262 22.2.2.9 CharacterClassEscape: \d, \w (ASCII only without the i flag) and \s
/// (WhiteSpace plus LineTerminator, ECMA-262 12.2 and 12.3).
[[nodiscard]] inline range_set class_escape_set(char32_t letter) {
    range_set set;
    switch (letter | 0x20) {
    case 'd': set = {{'0', '9'}}; break;
    case 'w': set = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}; break;
    default:
        set = {{0x09, 0x0D},     {0x20, 0x20},     {0xA0, 0xA0},     {0x1680, 0x1680}, {0x2000, 0x200A},
               {0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F}, {0x3000, 0x3000}, {0xFEFF, 0xFEFF}};
        break;
    }
    set = normalized(std::move(set));
    return (letter >= 'A' && letter <= 'Z') ? complement(set) : set;
}

[[nodiscard]] inline bool is_continuation(unsigned char b) noexcept { return (b & 0xC0U) == 0x80U; }

/// Decodes the code point at s[i] and advances i past it. A byte that does not begin a well-formed
/// UTF-8 sequence (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF) decodes as
/// U+FFFD and advances by one byte; nothing past s.size() is ever read.
[[nodiscard]] inline char32_t decode_utf8(std::string_view s, std::size_t& i) noexcept {
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
        ++i;
        return b0;
    }
    std::size_t len = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : 2;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (b0 < 0xC2 || b0 > 0xF4) {
        len = 0;
    } else if (b0 == 0xE0) {
        lo = 0xA0;
    } else if (b0 == 0xED) {
        hi = 0x9F;
    } else if (b0 == 0xF0) {
        lo = 0x90;
    } else if (b0 == 0xF4) {
        hi = 0x8F;
    }
    if (len == 0 || s.size() - i < len) {
        ++i;
        return replacement_character;
    }
    const auto b1 = static_cast<unsigned char>(s[i + 1]);
    bool ok = b1 >= lo && b1 <= hi;
    char32_t cp = b0 & (len == 2 ? 0x1FU : len == 3 ? 0x0FU : 0x07U);
    cp = (cp << 6) | (b1 & 0x3FU);
    for (std::size_t k = 2; ok && k < len; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        ok = is_continuation(b);
        cp = (cp << 6) | (b & 0x3FU);
    }
    if (!ok) {
        ++i;
        return replacement_character;
    }
    i += len;
    return cp;
}

inline void append_utf8(std::string& out, char32_t c) {
    if (c < 0x80) {
        out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (c >> 6)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (c >> 12)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (c >> 18)));
        out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
}

// ---------------------------------------------------------------------------------------------
// Syntax tree

enum class node_kind : std::uint8_t {
    empty,
    literal,
    set,
    sequence,
    alternation,
    group,
    repeat,
    line_start,
    line_end,
    word_boundary,
    not_word_boundary,
    look,
    backref,
};

struct node {
    node_kind kind = node_kind::empty;
    char32_t cp = 0;               // literal
    range_set ranges;              // set
    std::vector<node> children;    // sequence, alternation; the one body of group, repeat, look
    std::uint32_t index = 0;       // group: capture number (0 = non-capturing); backref: group number
    std::uint32_t min = 0;         // repeat
    std::uint32_t max = 0;         // repeat; unbounded for * and +
    std::uint32_t first_group = 0; // repeat: captures [first_group, end_group) lie inside the body
    std::uint32_t end_group = 0;
    bool greedy = true;     // repeat
    bool behind = false;    // look
    bool negate = false;    // look
    std::string name;       // backref by name, resolved once every group is known
    std::size_t offset = 0; // code-point offset in the pattern, for errors
};

[[nodiscard]] inline bool is_syntax_character(char32_t c) noexcept {
    return c == '^' || c == '$' || c == '\\' || c == '.' || c == '*' || c == '+' || c == '?' || c == '(' || c == ')' ||
           c == '[' || c == ']' || c == '{' || c == '}' || c == '|';
}

[[nodiscard]] inline int hex_value(char32_t c) noexcept {
    if (c >= '0' && c <= '9') {
        return static_cast<int>(c - '0');
    }
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') {
        return static_cast<int>((c | 0x20) - 'a' + 10);
    }
    return -1;
}

[[nodiscard]] inline bool is_ascii_letter(char32_t c) noexcept { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
[[nodiscard]] inline bool is_digit(char32_t c) noexcept { return c >= '0' && c <= '9'; }

/// One pass over the pattern's code points, recursive descent with the nesting depth bounded by
/// max_depth (so `((((...` cannot exhaust the stack: it is an error at depth max_depth + 1).
class parser {
public:
    explicit parser(std::string_view pattern) {
        if (pattern.size() > max_pattern_bytes) {
            throw regex_syntax_error("regular expression too long: more than " + std::to_string(max_pattern_bytes) +
                                     " bytes");
        }
        std::size_t i = 0;
        while (i < pattern.size()) {
            offsets_.push_back(i);
            const std::size_t before = i;
            const char32_t c = decode_utf8(pattern, i);
            if (c == replacement_character && i == before + 1 && static_cast<unsigned char>(pattern[before]) >= 0x80) {
                fail("invalid UTF-8 in the pattern", cps_.size());
            }
            cps_.push_back(c);
        }
        offsets_.push_back(pattern.size());
        names_.emplace_back(); // group 0 is the whole match
    }

    [[nodiscard]] node parse() {
        node root = disjunction();
        if (!at_end()) {
            fail("unmatched ')'", pos_);
        }
        resolve(root);
        return root;
    }

    [[nodiscard]] std::uint32_t groups() const noexcept { return static_cast<std::uint32_t>(names_.size() - 1); }
    [[nodiscard]] bool has_backrefs() const noexcept { return backrefs_; }

private:
    std::vector<char32_t> cps_;
    std::vector<std::size_t> offsets_; // byte offset of each code point, then the pattern's size
    std::vector<std::string> names_;   // by group number; "" for unnamed groups
    std::size_t pos_ = 0;
    std::size_t depth_ = 0;
    bool backrefs_ = false;

    [[noreturn]] void fail(const char* why, std::size_t at) const {
        const std::size_t byte = at < offsets_.size() ? offsets_[at] : offsets_.empty() ? 0 : offsets_.back();
        throw regex_syntax_error(std::string("invalid regular expression: ") + why + " (at offset " +
                                 std::to_string(byte) + ")");
    }

    [[nodiscard]] bool at_end() const noexcept { return pos_ >= cps_.size(); }
    [[nodiscard]] char32_t peek(std::size_t ahead = 0) const noexcept {
        return pos_ + ahead < cps_.size() ? cps_[pos_ + ahead] : end_of_pattern;
    }
    [[nodiscard]] static node make(node_kind kind, std::size_t offset) {
        node n;
        n.kind = kind;
        n.offset = offset;
        return n;
    }

    void enter(std::size_t at) {
        if (++depth_ > max_depth) {
            fail("groups nested too deeply", at);
        }
    }

    /// The alternatives of a group or lookaround `n` opened at `start` (by `enter`), up to
    /// and including its ')', which closes the level.
    [[nodiscard]] node group_body(node n, std::size_t start) {
        n.children.push_back(disjunction());
        if (peek() != ')') {
            fail("missing ')'", start);
        }
        ++pos_;
        --depth_;
        return n;
    }

    [[nodiscard]] node disjunction() {
        node first = alternative();
        if (peek() != '|') {
            return first;
        }
        node alt = make(node_kind::alternation, pos_);
        alt.children.push_back(std::move(first));
        while (peek() == '|') {
            ++pos_;
            alt.children.push_back(alternative());
        }
        return alt;
    }

    [[nodiscard]] node alternative() {
        node seq = make(node_kind::sequence, pos_);
        while (!at_end() && peek() != '|' && peek() != ')') {
            seq.children.push_back(term());
        }
        if (seq.children.size() == 1) {
            return std::move(seq.children.front());
        }
        return seq;
    }

    [[nodiscard]] static bool is_quantifier_start(char32_t c) noexcept {
        return c == '*' || c == '+' || c == '?' || c == '{';
    }

    /// Assertions are not quantifiable under the u flag (ECMA-262 22.2.1: QuantifiableAssertion
    /// exists only in Annex B, which does not apply with `u`).
    [[nodiscard]] node assertion(node n) const {
        if (is_quantifier_start(peek())) {
            fail("nothing to repeat", pos_);
        }
        return n;
    }

    [[nodiscard]] node term() {
        const std::size_t start = pos_;
        const char32_t c = peek();
        if (c == '^' || c == '$') {
            ++pos_;
            return assertion(make(c == '^' ? node_kind::line_start : node_kind::line_end, start));
        }
        if (c == '\\' && (peek(1) == 'b' || peek(1) == 'B')) {
            const bool word = peek(1) == 'b';
            pos_ += 2;
            return assertion(make(word ? node_kind::word_boundary : node_kind::not_word_boundary, start));
        }
        if (c == '(' && peek(1) == '?' &&
            (peek(2) == '=' || peek(2) == '!' || (peek(2) == '<' && (peek(3) == '=' || peek(3) == '!')))) {
            return assertion(lookaround());
        }
        const std::uint32_t groups_before = groups();
        node a = atom();
        return quantified(std::move(a), groups_before);
    }

    [[nodiscard]] node lookaround() {
        const std::size_t start = pos_;
        enter(start);
        node n = make(node_kind::look, start);
        pos_ += 2;
        if (peek() == '<') {
            n.behind = true;
            ++pos_;
        }
        n.negate = peek() == '!';
        ++pos_;
        return group_body(std::move(n), start);
    }

    [[nodiscard]] std::uint32_t decimal() {
        std::uint32_t v = 0;
        while (is_digit(peek())) {
            v = std::min<std::uint32_t>(max_count, v * 10 + static_cast<std::uint32_t>(peek() - '0'));
            ++pos_;
        }
        return v;
    }

    /// `{n}`, `{n,}`, `{n,m}`; under the u flag anything else starting with `{` is an error.
    void braces(std::uint32_t& lo, std::uint32_t& hi) {
        const std::size_t start = pos_;
        ++pos_;
        if (!is_digit(peek())) {
            fail("incomplete quantifier", start);
        }
        lo = decimal();
        hi = lo;
        if (peek() == ',') {
            ++pos_;
            hi = is_digit(peek()) ? decimal() : unbounded;
        }
        if (peek() != '}') {
            fail("incomplete quantifier", start);
        }
        ++pos_;
        if (lo > hi) {
            fail("numbers out of order in {} quantifier", start);
        }
    }

    [[nodiscard]] node quantified(node a, std::uint32_t groups_before) {
        const std::size_t start = pos_;
        std::uint32_t lo = 0;
        std::uint32_t hi = 0;
        switch (peek()) {
        case '*': hi = unbounded; break;
        case '+':
            lo = 1;
            hi = unbounded;
            break;
        case '?': hi = 1; break;
        case '{': braces(lo, hi); break;
        default: return a;
        }
        if (pos_ == start) {
            ++pos_; // the one-character quantifiers
        }
        node r = make(node_kind::repeat, start);
        if (peek() == '?') {
            r.greedy = false;
            ++pos_;
        }
        if (is_quantifier_start(peek())) {
            fail("nothing to repeat", pos_);
        }
        r.min = lo;
        r.max = hi;
        r.first_group = groups_before + 1;
        r.end_group = groups() + 1;
        r.children.push_back(std::move(a));
        return r;
    }

    [[nodiscard]] node atom() {
        const std::size_t start = pos_;
        const char32_t c = peek();
        switch (c) {
        case '.': {
            ++pos_;
            node n = make(node_kind::set, start);
            n.ranges = complement(normalized({{0x0A, 0x0A}, {0x0D, 0x0D}, {0x2028, 0x2029}}));
            return n;
        }
        case '(': return group();
        case '[': return char_class();
        case '\\': return atom_escape();
        case '*':
        case '+':
        case '?':
        case '{': fail("nothing to repeat", start);
        case '}':
        case ']': fail("lone quantifier bracket or ']' (must be escaped with the u flag)", start);
        default: break;
        }
        ++pos_;
        node n = make(node_kind::literal, start);
        n.cp = c;
        return n;
    }

    [[nodiscard]] node group() {
        const std::size_t start = pos_;
        enter(start);
        node g = make(node_kind::group, start);
        ++pos_;
        if (peek() == '?') {
            if (peek(1) == ':') {
                pos_ += 2;
            } else if (peek(1) == '<') {
                pos_ += 2;
                std::string name = group_name();
                if (std::find(names_.begin(), names_.end(), name) != names_.end()) {
                    fail("duplicate capture group name", start);
                }
                names_.push_back(std::move(name));
                g.index = groups();
            } else {
                fail("invalid group", start);
            }
        } else {
            names_.emplace_back();
            g.index = groups();
        }
        return group_body(std::move(g), start);
    }

    /// After `<`: an identifier (ASCII letters, digits, `$`, `_`, or any non-ASCII code point;
    /// not a digit first), then `>`.
    [[nodiscard]] std::string group_name() {
        const std::size_t start = pos_;
        std::string name;
        for (char32_t c = peek(); c != '>'; c = peek()) {
            const bool start_char = is_ascii_letter(c) || c == '$' || c == '_' || (c >= 0x80 && c != end_of_pattern);
            if (!(start_char || (!name.empty() && is_digit(c)))) {
                fail("invalid capture group name", start);
            }
            append_utf8(name, c);
            ++pos_;
        }
        if (name.empty()) {
            fail("invalid capture group name", start);
        }
        ++pos_;
        return name;
    }

    [[nodiscard]] node atom_escape() {
        const std::size_t start = pos_;
        ++pos_;
        const char32_t c = peek();
        if (c >= '1' && c <= '9') {
            node n = make(node_kind::backref, start);
            n.index = decimal();
            backrefs_ = true;
            return n;
        }
        if (c == 'k') {
            ++pos_;
            if (peek() != '<') {
                fail("invalid named reference", start);
            }
            ++pos_;
            node n = make(node_kind::backref, start);
            n.name = group_name();
            backrefs_ = true;
            return n;
        }
        if (c == 'd' || c == 'D' || c == 's' || c == 'S' || c == 'w' || c == 'W') {
            ++pos_;
            node n = make(node_kind::set, start);
            n.ranges = class_escape_set(c);
            return n;
        }
        node n = make(node_kind::literal, start);
        n.cp = character_escape(start, false);
        return n;
    }

    /// ECMA-262 22.2.1 CharacterEscape[+U], with pos_ on the character after the backslash.
    [[nodiscard]] char32_t character_escape(std::size_t start, bool in_class) {
        const char32_t c = peek();
        ++pos_;
        switch (c) {
        case 'f': return 0x0C;
        case 'n': return 0x0A;
        case 'r': return 0x0D;
        case 't': return 0x09;
        case 'v': return 0x0B;
        case 'c':
            if (!is_ascii_letter(peek())) {
                fail("invalid \\c escape", start);
            }
            ++pos_;
            return cps_[pos_ - 1] % 32;
        case '0':
            if (is_digit(peek())) {
                fail("invalid decimal escape", start);
            }
            return 0;
        case 'x': {
            const int h = hex_value(peek());
            const int l = hex_value(peek(1));
            if (h < 0 || l < 0) {
                fail("invalid \\x escape", start);
            }
            pos_ += 2;
            return static_cast<char32_t>(h * 16 + l);
        }
        case 'u': return unicode_escape(start);
        case 'p':
        case 'P': fail("Unicode property escapes are not supported", start);
        case end_of_pattern: fail("\\ at end of pattern", start);
        default: break;
        }
        if (is_syntax_character(c) || c == '/' || (in_class && c == '-')) {
            return c;
        }
        fail("invalid escape", start);
    }

    /// Four hex digits at pos_ (consumed), or -1 (nothing consumed).
    [[nodiscard]] long hex4() {
        long v = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            const int h = hex_value(peek(k));
            if (h < 0) {
                return -1;
            }
            v = v * 16 + h;
        }
        pos_ += 4;
        return v;
    }

    /// `\u{X...}`, or `\uXXXX` where a lead surrogate followed by `\u` and a trail surrogate
    /// forms one code point (ECMA-262 22.2.1 RegExpUnicodeEscapeSequence[+UnicodeMode]).
    [[nodiscard]] char32_t unicode_escape(std::size_t start) {
        if (peek() == '{') {
            ++pos_;
            char32_t v = 0;
            std::size_t digits = 0;
            for (; hex_value(peek()) >= 0; ++pos_, ++digits) {
                v = v * 16 + static_cast<char32_t>(hex_value(peek()));
                if (v > max_code_point) {
                    fail("invalid Unicode escape", start);
                }
            }
            if (digits == 0 || peek() != '}') {
                fail("invalid Unicode escape", start);
            }
            ++pos_;
            return v;
        }
        const long v = hex4();
        if (v < 0) {
            fail("invalid Unicode escape", start);
        }
        if (v >= 0xD800 && v <= 0xDBFF && peek() == '\\' && peek(1) == 'u') {
            const std::size_t save = pos_;
            pos_ += 2;
            const long t = hex4();
            if (t >= 0xDC00 && t <= 0xDFFF) {
                return static_cast<char32_t>(0x10000 + ((v - 0xD800) << 10) + (t - 0xDC00));
            }
            pos_ = save;
        }
        return static_cast<char32_t>(v);
    }

    struct class_atom {
        bool is_set = false;
        char32_t cp = 0;
        range_set set;
    };

    [[nodiscard]] class_atom class_escape() {
        const std::size_t start = pos_;
        ++pos_;
        class_atom a;
        const char32_t c = peek();
        if (c == 'b') {
            ++pos_;
            a.cp = 0x08;
        } else if (c == 'd' || c == 'D' || c == 's' || c == 'S' || c == 'w' || c == 'W') {
            ++pos_;
            a.is_set = true;
            a.set = class_escape_set(c);
        } else if (c >= '1' && c <= '9') {
            fail("invalid class escape", start);
        } else {
            a.cp = character_escape(start, true);
        }
        return a;
    }

    [[nodiscard]] class_atom next_class_atom() {
        if (peek() == '\\') {
            return class_escape();
        }
        class_atom a;
        a.cp = peek();
        ++pos_;
        return a;
    }

    [[nodiscard]] node char_class() {
        const std::size_t start = pos_;
        ++pos_;
        const bool negated = peek() == '^';
        pos_ += negated ? 1 : 0;
        range_set set;
        for (;;) {
            if (at_end()) {
                fail("missing ']'", start);
            }
            if (peek() == ']') {
                ++pos_;
                break;
            }
            class_atom a = next_class_atom();
            if (peek() == '-' && peek(1) != ']' && peek(1) != end_of_pattern) {
                const std::size_t dash = pos_++;
                const class_atom b = next_class_atom();
                if (a.is_set || b.is_set) {
                    fail("invalid character class range", dash);
                }
                if (a.cp > b.cp) {
                    fail("range out of order in character class", dash);
                }
                set.push_back({a.cp, b.cp});
            } else if (a.is_set) {
                set.insert(set.end(), a.set.begin(), a.set.end());
            } else {
                set.push_back({a.cp, a.cp});
            }
        }
        node n = make(node_kind::set, start);
        n.ranges = normalized(std::move(set));
        if (negated) {
            n.ranges = complement(n.ranges);
        }
        return n;
    }

    /// Back-references may point forward (`\1(a)`, `\k<x>(?<x>a)`), so they are checked once
    /// every group is known. Recursion is bounded by the tree's depth (max_depth groups).
    void resolve(node& n) {
        if (n.kind == node_kind::backref) {
            if (!n.name.empty()) {
                auto it = std::find(names_.begin() + 1, names_.end(), n.name);
                if (it == names_.end()) {
                    fail("reference to an undefined group name", n.offset);
                }
                n.index = static_cast<std::uint32_t>(it - names_.begin());
            } else if (n.index > groups()) {
                fail("back-reference to a nonexistent group", n.offset);
            }
        }
        for (node& child : n.children) {
            resolve(child);
        }
    }
};

// ---------------------------------------------------------------------------------------------
// Program

enum class op : std::uint8_t {
    literal,           // a = code point
    set,               // a = index into program::sets
    split,             // try a, then b
    jump,              // a
    line_start,        //
    line_end,          //
    word_boundary,     //
    not_word_boundary, //
    look,              // a = index into program::looks, b = continuation
    look_match,        // the end of a lookaround body
    match,             //
    open,              // a = group (capture mode only)
    close,             // a = group (capture mode only)
    reset,             // groups [a, b) become undefined (capture mode only)
    mark,              // register a = position (capture mode only)
    check,             // fail when register a == position: an empty iteration (capture mode only)
    backref,           // a = group
};

struct inst {
    op code;
    bool backward; // consuming instructions of a lookbehind body read leftwards
    std::uint32_t a;
    std::uint32_t b;
};

struct look_info {
    std::uint32_t start; // first instruction of the body
    bool negate;
};

/// Immutable after compile; shared by every copy of an ecma_regex.
struct program {
    std::string source;
    std::vector<inst> code;
    std::vector<range_set> sets;
    std::vector<look_info> looks;
    std::uint32_t groups = 0;
    std::uint32_t registers = 0;
    bool backrefs = false;
    bool empty_loops = false; // some cycle of instructions consumes nothing (see has_empty_loop)
    /// A pattern that is only ASCII literal characters, optionally anchored (`^x-`, `\.json$`
    /// is not one: it has an escape): it matches an ASCII subject exactly where the bytes do.
    struct literal_text {
        std::string text;
        bool at_start = false; // ^
        bool at_end = false;   // $
    };
    std::optional<literal_text> literal;
};

/// The literal a pattern is, if it is one: `^`? then ASCII characters that stand for themselves
/// in ECMA-262 (no syntax character, no escape), then `$`?. Such a pattern compiles to a chain
/// of literal instructions, so comparing bytes answers exactly what the matcher would.
[[nodiscard]] inline std::optional<program::literal_text> literal_of(std::string_view pattern) {
    program::literal_text out;
    out.at_start = !pattern.empty() && pattern.front() == '^';
    pattern.remove_prefix(out.at_start ? 1 : 0);
    out.at_end = !pattern.empty() && pattern.back() == '$';
    pattern.remove_suffix(out.at_end ? 1 : 0);
    for (const char c : pattern) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20U || u >= 0x7FU || std::string_view("\\^$.|?*+()[]{}/").find(c) != std::string_view::npos) {
            return std::nullopt;
        }
    }
    out.text = std::string(pattern);
    return out;
}

/// The literal's answer on an ASCII subject (in UTF-8, an ASCII byte is always a whole character).
[[nodiscard]] inline bool literal_matches(const program::literal_text& l, std::string_view subject) noexcept {
    if (l.at_start && l.at_end) {
        return subject == l.text;
    }
    if (l.at_start) {
        return subject.substr(0, l.text.size()) == l.text;
    }
    if (l.at_end) {
        return subject.size() >= l.text.size() && subject.substr(subject.size() - l.text.size()) == l.text;
    }
    return subject.find(l.text) != std::string_view::npos;
}

/// The instructions that may follow `in` (at `pc`) without consuming a character.
inline void epsilon_successors(const inst& in, std::uint32_t pc, std::vector<std::uint32_t>& out) {
    switch (in.code) {
    case op::split:
        out.push_back(in.a);
        out.push_back(in.b);
        break;
    case op::jump: out.push_back(in.a); break;
    case op::look: out.push_back(in.b); break;
    case op::literal:
    case op::set:
    case op::backref:
    case op::match:
    case op::look_match: break;
    default: out.push_back(pc + 1); break;
    }
}

/// Whether the program has a cycle through instructions that consume nothing, as `(a*)*` has
/// (an iteration of its body can match empty). Iterative three-colour depth-first search.
[[nodiscard]] inline bool has_empty_loop(const std::vector<inst>& code) {
    enum : std::uint8_t { fresh, open, done };
    std::vector<std::uint8_t> colour(code.size(), fresh);
    std::vector<std::pair<std::uint32_t, std::vector<std::uint32_t>>> stack;
    for (std::uint32_t root = 0; root < code.size(); ++root) {
        if (colour[root] != fresh) {
            continue;
        }
        colour[root] = open;
        stack.emplace_back(root, std::vector<std::uint32_t>{});
        epsilon_successors(code[root], root, stack.back().second);
        while (!stack.empty()) {
            auto& [pc, next] = stack.back();
            if (next.empty()) {
                colour[pc] = done;
                stack.pop_back();
                continue;
            }
            const std::uint32_t to = next.back();
            next.pop_back();
            if (colour[to] == open) {
                return true;
            }
            if (colour[to] == fresh) {
                colour[to] = open;
                stack.emplace_back(to, std::vector<std::uint32_t>{});
                epsilon_successors(code[to], to, stack.back().second);
            }
        }
    }
    return false;
}

/// Tree to program. Capture bookkeeping (open/close/reset/mark/check) is emitted only when the
/// pattern has back-references: without them the answer does not depend on captures.
class compiler {
public:
    compiler(program& p, bool captures) : p_(p), captures_(captures) {}

    void emit_all(const node& root) {
        emit_node(root);
        emit(op::match);
    }

private:
    program& p_;
    bool captures_;
    bool backward_ = false;

    std::uint32_t emit(op code, std::uint32_t a = 0, std::uint32_t b = 0) {
        if (p_.code.size() >= max_program) {
            throw regex_syntax_error("regular expression too large: more than " + std::to_string(max_program) +
                                     " instructions after expanding counted repetition");
        }
        p_.code.push_back({code, backward_, a, b});
        return static_cast<std::uint32_t>(p_.code.size() - 1);
    }
    [[nodiscard]] std::uint32_t here() const noexcept { return static_cast<std::uint32_t>(p_.code.size()); }

    void emit_node(const node& n) {
        switch (n.kind) {
        case node_kind::empty: break;
        case node_kind::literal: emit(op::literal, n.cp); break;
        case node_kind::set:
            p_.sets.push_back(n.ranges);
            emit(op::set, static_cast<std::uint32_t>(p_.sets.size() - 1));
            break;
        case node_kind::sequence: emit_sequence(n); break;
        case node_kind::alternation: emit_alternation(n); break;
        case node_kind::group: emit_group(n); break;
        case node_kind::repeat: emit_repeat(n); break;
        case node_kind::line_start: emit(op::line_start); break;
        case node_kind::line_end: emit(op::line_end); break;
        case node_kind::word_boundary: emit(op::word_boundary); break;
        case node_kind::not_word_boundary: emit(op::not_word_boundary); break;
        case node_kind::look: emit_look(n); break;
        case node_kind::backref: emit(op::backref, n.index); break;
        }
    }

    /// A lookbehind's body is matched right to left (ECMA-262 22.2.2.3: direction backward), so
    /// its sequences are emitted in reverse.
    void emit_sequence(const node& n) {
        if (backward_) {
            for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) {
                emit_node(*it);
            }
        } else {
            for (const node& child : n.children) {
                emit_node(child);
            }
        }
    }

    void emit_alternation(const node& n) {
        std::vector<std::uint32_t> exits;
        for (std::size_t k = 0; k < n.children.size(); ++k) {
            if (k + 1 < n.children.size()) {
                const std::uint32_t split = emit(op::split);
                p_.code[split].a = here();
                emit_node(n.children[k]);
                exits.push_back(emit(op::jump));
                p_.code[split].b = here();
            } else {
                emit_node(n.children[k]);
            }
        }
        for (std::uint32_t e : exits) {
            p_.code[e].a = here();
        }
    }

    void emit_group(const node& n) {
        const bool capture = captures_ && n.index != 0;
        if (capture) {
            emit(op::open, n.index);
        }
        emit_node(n.children.front());
        if (capture) {
            emit(op::close, n.index);
        }
    }

    void emit_look(const node& n) {
        const auto index = static_cast<std::uint32_t>(p_.looks.size());
        p_.looks.push_back({0, n.negate});
        const std::uint32_t at = emit(op::look, index);
        p_.looks[index].start = here();
        const bool outer = backward_;
        backward_ = n.behind;
        emit_node(n.children.front());
        emit(op::look_match);
        backward_ = outer;
        p_.code[at].b = here();
    }

    /// One iteration: ECMA-262 22.2.2.3.1 RepeatMatcher clears the body's captures first.
    void emit_iteration(const node& n) {
        if (captures_ && n.first_group < n.end_group) {
            emit(op::reset, n.first_group, n.end_group);
        }
        emit_node(n.children.front());
    }

    /// Optional iterations: an iteration that matches empty fails (RepeatMatcher step 2.b), which
    /// is what ends `(a*)*`; the memoized search gets the same answer from its visited set.
    void emit_optional(const node& n, std::uint32_t reg, std::vector<std::uint32_t>& exits) {
        const std::uint32_t split = emit(op::split);
        const std::uint32_t body = here();
        if (captures_) {
            emit(op::mark, reg);
        }
        emit_iteration(n);
        if (captures_) {
            emit(op::check, reg);
        }
        p_.code[split].a = n.greedy ? body : 0;
        p_.code[split].b = n.greedy ? 0 : body;
        exits.push_back(split);
    }

    /// True when emit_node(n) emits no instruction: repeating it any number of times is nothing,
    /// and `(?:){1000000000}` must not loop a billion times at compile time.
    [[nodiscard]] bool emits_nothing(const node& n) const {
        switch (n.kind) {
        case node_kind::empty: return true;
        case node_kind::sequence:
            return std::all_of(n.children.begin(), n.children.end(),
                               [this](const node& c) { return emits_nothing(c); });
        case node_kind::group: return !(captures_ && n.index != 0) && emits_nothing(n.children.front());
        case node_kind::repeat: return n.max == 0 || emits_nothing(n.children.front());
        default: return false;
        }
    }

    void emit_repeat(const node& n) {
        if (emits_nothing(n.children.front())) {
            return;
        }
        const std::uint32_t reg = p_.registers++;
        for (std::uint32_t k = 0; k < n.min; ++k) {
            emit_iteration(n);
        }
        std::vector<std::uint32_t> exits;
        if (n.max == unbounded) {
            const std::uint32_t loop = here();
            emit_optional(n, reg, exits);
            emit(op::jump, loop);
        } else {
            for (std::uint32_t k = n.min; k < n.max; ++k) {
                emit_optional(n, reg, exits);
            }
        }
        for (std::uint32_t e : exits) {
            (n.greedy ? p_.code[e].b : p_.code[e].a) = here();
        }
    }
};

// ---------------------------------------------------------------------------------------------
// Matching

/// Per-thread buffers reused by every search on the thread (they only grow).
struct scratch {
    std::vector<char32_t> text;
    std::vector<std::uint64_t> visited;
    std::vector<std::uint8_t> look_memo; // per (lookaround, position): 0 unknown, 1 false, 2 true
    std::vector<std::uint64_t> touched;  // visited bits set inside lookaround sub-searches
    std::vector<std::uint64_t> reached;  // states of lookaround bodies known to reach look_match
    std::vector<std::uint64_t> path;     // inside a sub-search: the states from its start to here
    struct pending {
        std::uint32_t pc;
        std::uint32_t pos;
        std::uint32_t path; // path length when the alternative was pushed (< max_visited_bits)
    };
    std::vector<pending> stack;
    struct frame {
        std::uint32_t a;  // pc, or slot
        std::uint32_t b;  // position
        std::int64_t old; // the slot's previous value
        bool restore;
    };
    std::vector<frame> frames;
};

[[nodiscard]] inline scratch& thread_scratch() {
    thread_local scratch s;
    return s;
}

/// Keeps the common case allocation-free without pinning megabytes to a thread after one huge
/// subject.
template <typename T>
void release_if_large(std::vector<T>& v) {
    if (v.capacity() * sizeof(T) > max_kept_scratch) {
        std::vector<T>().swap(v);
    }
}

inline void release_large_scratch(scratch& sc) {
    release_if_large(sc.text);
    release_if_large(sc.visited);
    release_if_large(sc.look_memo);
    release_if_large(sc.touched);
    release_if_large(sc.reached);
    release_if_large(sc.path);
    release_if_large(sc.stack);
    release_if_large(sc.frames);
}

[[nodiscard]] inline bool is_word_char(char32_t c) noexcept { return is_digit(c) || is_ascii_letter(c) || c == '_'; }

/// Shared by both matchers: the instructions whose meaning does not involve captures.
struct subject {
    const char32_t* text;
    std::uint32_t size;

    /// Consumes one code point in the instruction's direction; false at the edge of the text.
    [[nodiscard]] bool step(const inst& in, std::uint32_t& pos, char32_t& c) const noexcept {
        if (in.backward) {
            if (pos == 0) {
                return false;
            }
            c = text[--pos];
            return true;
        }
        if (pos >= size) {
            return false;
        }
        c = text[pos++];
        return true;
    }

    /// A literal or set instruction of `p`: consumes the next code point when it fits.
    [[nodiscard]] bool step_over(const inst& in, const program& p, std::uint32_t& pos) const noexcept {
        char32_t c = 0;
        return step(in, pos, c) && (in.code == op::literal ? c == in.a : in_ranges(p.sets[in.a], c));
    }

    [[nodiscard]] bool word_at(std::uint32_t pos) const noexcept { return pos < size && is_word_char(text[pos]); }
    /// ECMA-262 22.2.2.6 IsWordChar on both sides; `^` and `$` without the m flag.
    [[nodiscard]] bool holds(op assertion, std::uint32_t pos) const noexcept {
        const bool boundary = (pos > 0 && word_at(pos - 1)) != word_at(pos);
        switch (assertion) {
        case op::line_start: return pos == 0;
        case op::line_end: return pos == size;
        case op::word_boundary: return boundary;
        default: return !boundary;
        }
    }
};

/// Without back-references: a depth-first search over (instruction, position) states that marks
/// each state when first reached. A marked state has already failed (or the search would have
/// stopped), so no state is explored twice: O(program * subject) in time and bits.
class memo_matcher {
public:
    memo_matcher(const program& p, subject s, scratch& sc) : p_(p), s_(s), sc_(sc), width_(s.size + std::uint64_t{1}) {}

    [[nodiscard]] regex_match search() {
        const std::uint64_t bits = p_.code.size() * width_;
        if (bits > max_visited_bits) {
            return regex_match::too_costly;
        }
        sc_.visited.assign((bits + 63) / 64, 0);
        sc_.look_memo.assign(p_.looks.size() * width_, 0);
        sc_.reached.assign(p_.looks.empty() ? 0 : sc_.visited.size(), 0);
        sc_.touched.clear();
        sc_.path.clear();
        sc_.stack.clear();
        budget_ = 4 * bits + backtrack_budget;
        for (std::uint32_t start = 0; start <= s_.size && !over_; ++start) {
            if (run(0, start)) {
                return regex_match::found;
            }
        }
        return over_ ? regex_match::too_costly : regex_match::not_found;
    }

private:
    const program& p_;
    subject s_;
    scratch& sc_;
    std::uint64_t width_;
    std::size_t depth_ = 0; // lookaround sub-searches in progress
    // Each state is marked at most once unless marks are cleared (empty loops in a lookaround, see
    // look), so only such programs can spend this budget; they answer too_costly when they do.
    std::uint64_t budget_ = 0;
    bool over_ = false;

    /// Marks the state; false when it was already marked (or the budget is spent).
    bool visit(std::uint32_t pc, std::uint32_t pos) {
        const std::uint64_t bit = pc * width_ + pos;
        std::uint64_t& word = sc_.visited[bit / 64];
        const std::uint64_t mask = std::uint64_t{1} << (bit % 64);
        if ((word & mask) != 0) {
            return false;
        }
        if (budget_ == 0) {
            over_ = true;
            return false;
        }
        --budget_;
        word |= mask;
        if (depth_ > 0) {
            if (p_.empty_loops) {
                sc_.touched.push_back(bit);
            }
            sc_.path.push_back(bit);
        }
        return true;
    }

    [[nodiscard]] static bool test(const std::vector<std::uint64_t>& bits, std::uint64_t bit) noexcept {
        return (bits[bit / 64] & (std::uint64_t{1} << (bit % 64))) != 0;
    }

    /// Whether lookaround `index`'s body matches at `pos`, computed once per position. Whether a
    /// body state (pc, pos) reaches look_match does not depend on where the sub-search began, so
    /// marks are shared by the sub-searches of all positions. After a failure every mark is a
    /// failed state. After a success the states on the successful path go into `reached`; any other
    /// mark is a failed state too (pending alternatives hang off the path: the stack is LIFO),
    /// unless it was cut short by a path state still in progress, which needs a cycle at one
    /// position: an empty loop. Only then are the sub-search's other marks cleared.
    bool look(std::uint32_t index, std::uint32_t pos) {
        std::uint8_t& memo = sc_.look_memo[index * width_ + pos];
        if (memo == 0) {
            const std::size_t touched_before = sc_.touched.size();
            ++depth_;
            const bool ok = run(p_.looks[index].start, pos);
            --depth_;
            if (over_) {
                return false;
            }
            if (ok && p_.empty_loops) {
                for (std::size_t k = touched_before; k < sc_.touched.size(); ++k) {
                    const std::uint64_t bit = sc_.touched[k];
                    sc_.visited[bit / 64] &= ~(std::uint64_t{1} << (bit % 64));
                }
            }
            sc_.touched.resize(touched_before);
            memo = ok ? 2 : 1;
        }
        return (memo == 2) != p_.looks[index].negate;
    }

    /// False when the thread at (pc, pos) would fail on its first instruction: a character test
    /// that the next character fails. Skipping such alternatives keeps `(a|b)*` from stacking one
    /// dead `b` per character.
    [[nodiscard]] bool may_start(std::uint32_t pc, std::uint32_t pos) const noexcept {
        const inst& in = p_.code[pc];
        if (in.code != op::literal && in.code != op::set) {
            return true;
        }
        return s_.step_over(in, p_, pos);
    }

    /// Follows one thread from (pc, pos) until it fails or matches; alternatives go on the stack.
    bool thread(std::uint32_t pc, std::uint32_t pos) {
        for (;;) {
            if (depth_ > 0 && !sc_.reached.empty() && test(sc_.reached, pc * width_ + pos)) {
                return true;
            }
            if (!visit(pc, pos)) {
                return false;
            }
            const inst& in = p_.code[pc];
            bool ok = true;
            std::uint32_t next = pc + 1;
            switch (in.code) {
            case op::literal:
            case op::set: ok = s_.step_over(in, p_, pos); break;
            case op::split:
                if (may_start(in.b, pos)) {
                    sc_.stack.push_back({in.b, pos, static_cast<std::uint32_t>(sc_.path.size())});
                }
                next = in.a;
                break;
            case op::jump: next = in.a; break;
            case op::line_start:
            case op::line_end:
            case op::word_boundary:
            case op::not_word_boundary: ok = s_.holds(in.code, pos); break;
            case op::look:
                ok = look(in.a, pos);
                next = in.b;
                break;
            case op::look_match:
            case op::match: return true;
            default: break; // capture bookkeeping is never emitted in this mode
            }
            if (!ok) {
                return false;
            }
            pc = next;
        }
    }

    bool run(std::uint32_t pc, std::uint32_t pos) {
        const std::size_t base = sc_.stack.size();
        const std::size_t path_base = sc_.path.size();
        sc_.stack.push_back({pc, pos, static_cast<std::uint32_t>(path_base)});
        bool ok = false;
        while (!ok && !over_ && sc_.stack.size() > base) {
            const scratch::pending next = sc_.stack.back();
            sc_.stack.pop_back();
            sc_.path.resize(next.path);
            ok = thread(next.pc, next.pos);
        }
        sc_.stack.resize(base);
        if (ok && depth_ > 0) {
            for (std::size_t k = path_base; k < sc_.path.size(); ++k) {
                sc_.reached[sc_.path[k] / 64] |= std::uint64_t{1} << (sc_.path[k] % 64);
            }
        }
        sc_.path.resize(path_base);
        return ok;
    }
};

/// With back-references: ECMA-262's backtracking with captures, under a step budget. Undo
/// records on one stack restore captures when a choice point is resumed.
class capture_matcher {
public:
    capture_matcher(const program& p, subject s, scratch& sc) : p_(p), s_(s), sc_(sc) {}

    [[nodiscard]] regex_match search() {
        sc_.frames.clear();
        std::vector<std::int64_t> slots;
        for (std::uint32_t start = 0; start <= s_.size; ++start) {
            slots.assign(std::size_t{3} * (p_.groups + 1) + p_.registers, -1);
            if (run(0, start, slots)) {
                return regex_match::found;
            }
            if (over_) {
                return regex_match::too_costly;
            }
        }
        return regex_match::not_found;
    }

private:
    const program& p_;
    subject s_;
    scratch& sc_;
    std::uint64_t steps_ = 0;
    bool over_ = false;

    // Slots: group g keeps [3g] = where it opened, [3g+1, 3g+2] = its last completed match; the
    // registers of loops follow the groups.
    [[nodiscard]] std::size_t reg_slot(std::uint32_t r) const noexcept { return std::size_t{3} * (p_.groups + 1) + r; }

    void set(std::vector<std::int64_t>& slots, std::size_t slot, std::int64_t value) {
        sc_.frames.push_back({static_cast<std::uint32_t>(slot), 0, slots[slot], true});
        slots[slot] = value;
    }

    /// ECMA-262 22.2.2.7.2 BackreferenceMatcher: an undefined capture matches empty.
    bool backref(const inst& in, std::uint32_t& pos, const std::vector<std::int64_t>& slots) {
        const std::int64_t from = slots[std::size_t{3} * in.a + 1];
        const std::int64_t to = slots[std::size_t{3} * in.a + 2];
        if (from < 0 || to < 0) {
            return true;
        }
        const auto len = static_cast<std::uint32_t>(to - from);
        steps_ += len;
        if (in.backward ? pos < len : s_.size - pos < len) {
            return false;
        }
        const std::uint32_t at = in.backward ? pos - len : pos;
        for (std::uint32_t k = 0; k < len; ++k) {
            if (s_.text[at + k] != s_.text[static_cast<std::size_t>(from) + k]) {
                return false;
            }
        }
        pos = in.backward ? pos - len : pos + len;
        return true;
    }

    /// Lookarounds are atomic (ECMA-262 22.2.2.4): the first way the body matches is kept, with
    /// its captures when positive; a negative one keeps none.
    bool look(const inst& in, std::uint32_t pos, std::vector<std::int64_t>& slots) {
        const look_info& info = p_.looks[in.a];
        steps_ += slots.size() / 8; // copying and comparing the slots is work too
        std::vector<std::int64_t> inner = slots;
        const bool ok = run(info.start, pos, inner);
        if (over_ || ok == info.negate) {
            return false;
        }
        if (!info.negate) {
            for (std::size_t k = 0; k < slots.size(); ++k) {
                if (inner[k] != slots[k]) {
                    set(slots, k, inner[k]);
                }
            }
        }
        return true;
    }

    /// Executes one instruction: true to go on at pc, false to backtrack.
    bool exec(std::uint32_t& pc, std::uint32_t& pos, std::vector<std::int64_t>& slots) {
        const inst& in = p_.code[pc];
        bool ok = true;
        std::uint32_t next = pc + 1;
        switch (in.code) {
        case op::literal:
        case op::set: ok = s_.step_over(in, p_, pos); break;
        case op::split:
            sc_.frames.push_back({in.b, pos, 0, false});
            next = in.a;
            break;
        case op::jump: next = in.a; break;
        case op::line_start:
        case op::line_end:
        case op::word_boundary:
        case op::not_word_boundary: ok = s_.holds(in.code, pos); break;
        case op::look:
            ok = look(in, pos, slots);
            next = in.b;
            break;
        case op::open: set(slots, std::size_t{3} * in.a, pos); break;
        case op::close: {
            const std::int64_t opened = slots[std::size_t{3} * in.a];
            set(slots, std::size_t{3} * in.a + 1, std::min<std::int64_t>(opened, pos));
            set(slots, std::size_t{3} * in.a + 2, std::max<std::int64_t>(opened, pos));
            break;
        }
        case op::reset:
            steps_ += in.b - in.a; // the budget bounds the undo records too
            for (std::uint32_t g = in.a; g < in.b; ++g) {
                set(slots, std::size_t{3} * g + 1, -1);
                set(slots, std::size_t{3} * g + 2, -1);
            }
            break;
        case op::mark: set(slots, reg_slot(in.a), pos); break;
        case op::check: ok = slots[reg_slot(in.a)] != pos; break;
        case op::backref: ok = backref(in, pos, slots); break;
        case op::look_match:
        case op::match: break;
        }
        pc = next;
        return ok;
    }

    /// Pops undo records until a choice point; false when none is left above `base`.
    bool backtrack(std::size_t base, std::uint32_t& pc, std::uint32_t& pos, std::vector<std::int64_t>& slots) {
        while (sc_.frames.size() > base) {
            const scratch::frame f = sc_.frames.back();
            sc_.frames.pop_back();
            if (f.restore) {
                slots[f.a] = f.old;
            } else {
                pc = f.a;
                pos = f.b;
                return true;
            }
        }
        return false;
    }

    bool run(std::uint32_t pc, std::uint32_t pos, std::vector<std::int64_t>& slots) {
        const std::size_t base = sc_.frames.size();
        for (;;) {
            if (++steps_ > backtrack_budget) {
                over_ = true;
            }
            if (over_) {
                sc_.frames.resize(base);
                return false;
            }
            const op code = p_.code[pc].code;
            if (code == op::match || code == op::look_match) {
                sc_.frames.resize(base);
                return true;
            }
            if (!exec(pc, pos, slots) && !backtrack(base, pc, pos, slots)) {
                return false;
            }
        }
    }
};

} // namespace regex_impl

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
        return ecma_regex(std::move(p));
    }

    /// Unanchored search, as JSON Schema's `pattern` is: does the pattern match anywhere in
    /// `subject` (UTF-8)? Thread-safe (const, no shared mutable state); never recurses per subject
    /// character; linear time in subject for patterns without back-references.
    [[nodiscard]] regex_match search(std::string_view subject) const {
        if (subject.size() >= 0x7FFFFFFF) {
            return regex_match::too_costly; // positions are 32-bit
        }
        if (program_->literal &&
            std::all_of(subject.begin(), subject.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80U; })) {
            return regex_impl::literal_matches(*program_->literal, subject) ? regex_match::found
                                                                            : regex_match::not_found;
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

    [[nodiscard]] bool has_back_references() const noexcept { return program_->backrefs; }
    [[nodiscard]] const std::string& source() const noexcept { return program_->source; }

private:
    explicit ecma_regex(std::shared_ptr<const regex_impl::program> p) : program_(std::move(p)) {}
    std::shared_ptr<const regex_impl::program> program_;
};

} // namespace handoff::detail
