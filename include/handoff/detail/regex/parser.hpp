// SPDX-License-Identifier: MIT
#pragma once

// Pattern text to syntax tree: ECMA-262 22.2.1 Patterns with the u flag.

#include <handoff/detail/regex/code_points.hpp>
#include <handoff/detail/regex/syntax_tree.hpp>
#include <handoff/detail/regex/unicode_properties.hpp>
#include <handoff/detail/regex/utf8.hpp>

#include <algorithm>   // min, find
#include <cstddef>     // size_t
#include <cstdint>     // uint32_t
#include <string>      // string, to_string
#include <string_view> // string_view
#include <utility>     // move
#include <vector>      // vector

namespace handoff::detail::regex_impl {

inline constexpr char32_t end_of_pattern = 0xFFFFFFFF; // never a code point
inline constexpr std::size_t max_depth = 256;
inline constexpr std::size_t max_pattern_bytes = 100000; // bounds the syntax tree's size
inline constexpr std::uint32_t max_count = 1000000000;   // {n,m} numbers saturate here
/// Code point ranges the parser may build for all classes and escapes of one pattern together: a
/// property escape brings hundreds (`\p{L}` 659), so without a bound a 100,000-byte pattern of
/// them would take gigabytes. Ample for any real pattern: 300 `\p{L}` in one pattern.
inline constexpr std::size_t max_set_ranges = 200000;

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
                fail("invalid UTF-8 in the pattern", code_points_.size());
            }
            code_points_.push_back(c);
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
    std::vector<char32_t> code_points_;
    std::vector<std::size_t> offsets_; // byte offset of each code point, then the pattern's size
    std::vector<std::string> names_;   // by group number; "" for unnamed groups
    std::size_t pos_ = 0;
    std::size_t depth_ = 0;
    std::size_t set_ranges_ = 0; // ranges built so far, bounded by max_set_ranges
    bool backrefs_ = false;

    [[noreturn]] void fail(const std::string& why, std::size_t at) const {
        const std::size_t byte = at < offsets_.size() ? offsets_[at] : offsets_.empty() ? 0 : offsets_.back();
        throw regex_syntax_error(std::string("invalid regular expression: ") + why + " (at offset " +
                                 std::to_string(byte) + ")");
    }

    [[nodiscard]] bool at_end() const noexcept { return pos_ >= code_points_.size(); }
    [[nodiscard]] char32_t peek(std::size_t ahead = 0) const noexcept {
        return pos_ + ahead < code_points_.size() ? code_points_[pos_ + ahead] : end_of_pattern;
    }
    void charge_ranges(std::size_t count) {
        set_ranges_ += count;
        if (set_ranges_ > max_set_ranges) {
            throw regex_syntax_error("regular expression too large: its character classes and escapes hold more than " +
                                     std::to_string(max_set_ranges) + " code point ranges");
        }
    }

    [[nodiscard]] node set_node(range_set ranges, std::size_t offset) {
        charge_ranges(ranges.size());
        node n = make_node(node_kind::set, offset);
        n.ranges = std::move(ranges);
        return n;
    }

    [[nodiscard]] static node make_node(node_kind kind, std::size_t offset) {
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
        node alt = make_node(node_kind::alternation, pos_);
        alt.children.push_back(std::move(first));
        while (peek() == '|') {
            ++pos_;
            alt.children.push_back(alternative());
        }
        return alt;
    }

    [[nodiscard]] node alternative() {
        node seq = make_node(node_kind::sequence, pos_);
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
            return assertion(make_node(c == '^' ? node_kind::line_start : node_kind::line_end, start));
        }
        if (c == '\\' && (peek(1) == 'b' || peek(1) == 'B')) {
            const bool word = peek(1) == 'b';
            pos_ += 2;
            return assertion(make_node(word ? node_kind::word_boundary : node_kind::not_word_boundary, start));
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
        node n = make_node(node_kind::look, start);
        pos_ += 2;
        if (peek() == '<') {
            n.behind = true;
            ++pos_;
        }
        n.negate = peek() == '!';
        ++pos_;
        return group_body(std::move(n), start);
    }

    [[nodiscard]] std::uint32_t read_decimal() {
        std::uint32_t v = 0;
        while (is_digit(peek())) {
            v = std::min<std::uint32_t>(max_count, v * 10 + static_cast<std::uint32_t>(peek() - '0'));
            ++pos_;
        }
        return v;
    }

    /// `{n}`, `{n,}`, `{n,m}`; under the u flag anything else starting with `{` is an error.
    void counted_quantifier(std::uint32_t& lo, std::uint32_t& hi) {
        const std::size_t start = pos_;
        ++pos_;
        if (!is_digit(peek())) {
            fail("incomplete quantifier", start);
        }
        lo = read_decimal();
        hi = lo;
        if (peek() == ',') {
            ++pos_;
            hi = is_digit(peek()) ? read_decimal() : unbounded;
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
        case '{': counted_quantifier(lo, hi); break;
        default: return a;
        }
        if (pos_ == start) {
            ++pos_; // the one-character quantifiers
        }
        node r = make_node(node_kind::repeat, start);
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
            return set_node(complement(normalized({{0x0A, 0x0A}, {0x0D, 0x0D}, {0x2028, 0x2029}})), start);
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
        node n = make_node(node_kind::literal, start);
        n.cp = c;
        return n;
    }

    [[nodiscard]] node group() {
        const std::size_t start = pos_;
        enter(start);
        node g = make_node(node_kind::group, start);
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
            node n = make_node(node_kind::backref, start);
            n.index = read_decimal();
            backrefs_ = true;
            return n;
        }
        if (c == 'k') {
            ++pos_;
            if (peek() != '<') {
                fail("invalid named reference", start);
            }
            ++pos_;
            node n = make_node(node_kind::backref, start);
            n.name = group_name();
            backrefs_ = true;
            return n;
        }
        if (is_set_escape_letter(c)) {
            return set_node(set_escape(start), start);
        }
        node n = make_node(node_kind::literal, start);
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
            return code_points_[pos_ - 1] % 32;
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
        case end_of_pattern: fail("\\ at end of pattern", start);
        default: break;
        }
        if (is_syntax_character(c) || c == '/' || (in_class && c == '-')) {
            return c;
        }
        fail("invalid escape", start);
    }

    /// Four hex digits at pos_ (consumed), or -1 (nothing consumed).
    [[nodiscard]] long four_hex_digits() {
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
        const long v = four_hex_digits();
        if (v < 0) {
            fail("invalid Unicode escape", start);
        }
        if (v >= 0xD800 && v <= 0xDBFF && peek() == '\\' && peek(1) == 'u') {
            const std::size_t save = pos_;
            pos_ += 2;
            const long t = four_hex_digits();
            if (t >= 0xDC00 && t <= 0xDFFF) {
                return static_cast<char32_t>(0x10000 + ((v - 0xD800) << 10) + (t - 0xDC00));
            }
            pos_ = save;
        }
        return static_cast<char32_t>(v);
    }

    [[nodiscard]] static bool is_set_escape_letter(char32_t c) noexcept {
        return c == 'd' || c == 'D' || c == 's' || c == 'S' || c == 'w' || c == 'W' || c == 'p' || c == 'P';
    }

    /// ECMA-262 22.2.1 CharacterClassEscape[+UnicodeMode], with pos_ on its letter: `\d`, `\s`,
    /// `\w`, `\p{...}` and their complements `\D`, `\S`, `\W`, `\P{...}`, as normalized ranges.
    [[nodiscard]] range_set set_escape(std::size_t start) {
        const char32_t letter = peek();
        ++pos_;
        if (letter != 'p' && letter != 'P') {
            return class_escape_set(letter);
        }
        property_lookup property = unicode_property(property_expression(start));
        if (!property.error.empty()) {
            fail(property.error, start);
        }
        charge_ranges(property.code_points.size());
        return letter == 'P' ? complement(property.code_points) : std::move(property.code_points);
    }

    /// After `\p` or `\P`: `{`, the UnicodePropertyValueExpression (ASCII letters, digits, `_` and
    /// `=`; which names exist is unicode_property's to say), then `}`.
    [[nodiscard]] std::string property_expression(std::size_t start) {
        if (peek() != '{') {
            fail("invalid property name: \\p and \\P need {...}", start);
        }
        ++pos_;
        std::string expression;
        for (char32_t c = peek(); c != '}'; c = peek()) {
            if (c == end_of_pattern) {
                fail("missing '}' after \\p{ or \\P{", start);
            }
            if (!is_ascii_letter(c) && !is_digit(c) && c != '_' && c != '=') {
                fail("invalid property name", start);
            }
            expression.push_back(static_cast<char>(c));
            ++pos_;
        }
        ++pos_;
        return expression;
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
        } else if (is_set_escape_letter(c)) {
            a.is_set = true;
            a.set = set_escape(start);
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
        set = normalized(std::move(set));
        return set_node(negated ? complement(set) : std::move(set), start);
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

} // namespace handoff::detail::regex_impl
