// SPDX-License-Identifier: MIT
#pragma once

// Host names, for the `hostname` and `idn-hostname` formats (validation 2020-12, section
// 7.3.3). A label is an LDH label (RFC 1123 section 2.1: letters, digits and inner hyphens, 63
// octets at most), an A-label ("xn--" and the Punycode of a U-label, RFC 5890 section 2.3.2.1),
// or, in an internationalized name only, a U-label itself (and there no other label with "--" in
// its third and fourth places, RFC 5890 section 2.3.1). A U-label is checked as RFC 5891
// section 5.4 says: in NFC, no "--" in its third and fourth places, no hyphen at either end, no
// combining mark first, every code point PVALID or allowed by its contextual rule (RFC 5892,
// appendix A), and, in a name holding right-to-left text, every label meets the Bidi rule (RFC
// 5893 section 2). The code point tables are generated from the Unicode Character Database
// (idna_tables.hpp). Every check is bounded: a name is at most 253 octets in its A-label form,
// and a string that cannot be one is refused before Punycode is computed.

#include <handoff/detail/schema/idna_tables.hpp>
#include <handoff/detail/schema/uri.hpp>
#include <handoff/detail/text.hpp>

#include <algorithm>   // all_of, any_of, lower_bound, swap
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t, uint32_t
#include <optional>    // optional
#include <string>      // string, u32string
#include <string_view> // string_view
#include <utility>     // move
#include <vector>      // vector

namespace handoff::detail::idna {

/// The longest host name, in octets of its A-label form (RFC 1034 section 3.1: 255 octets on
/// the wire, two of them the length of the first label and the root's), and the longest label.
inline constexpr std::size_t max_name_length = 253;
inline constexpr std::size_t max_label_length = 63;
/// The longest internationalized name in UTF-8: each code point is at least one octet of the
/// A-label form and at most four of UTF-8 (a full stop, three of UTF-8, is one).
inline constexpr std::size_t max_unicode_name_bytes = 4 * max_name_length;

using idna_tables::absent;

/// The value `table` holds for `c`, or `absent`.
template <class Value, std::size_t N>
[[nodiscard]] constexpr Value value_of(const idna_tables::code_point_run<Value> (&table)[N], char32_t c) noexcept {
    std::size_t lo = 0;
    std::size_t hi = N;
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (table[mid].last < c) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < N && table[lo].first <= c ? table[lo].value : Value{absent};
}

[[nodiscard]] inline std::uint8_t combining_class(char32_t c) noexcept {
    const std::uint8_t ccc = value_of(idna_tables::canonical_combining_class, c);
    return ccc == absent ? 0 : ccc;
}

// --- Punycode (RFC 3492), with the parameters of section 5 ---------------------------------

namespace punycode {
inline constexpr std::uint32_t base = 36;
inline constexpr std::uint32_t t_min = 1;
inline constexpr std::uint32_t t_max = 26;

/// Section 6.1.
[[nodiscard]] constexpr std::uint32_t adapt(std::uint32_t delta, std::uint32_t points, bool first) noexcept {
    delta = first ? delta / 700 : delta / 2;
    delta += delta / points;
    std::uint32_t k = 0;
    while (delta > ((base - t_min) * t_max) / 2) {
        delta /= base - t_min;
        k += base;
    }
    return k + (base - t_min + 1) * delta / (delta + 38);
}

[[nodiscard]] constexpr std::uint32_t threshold(std::uint32_t k, std::uint32_t bias) noexcept {
    return k <= bias ? t_min : k >= bias + t_max ? t_max : k - bias;
}

/// The digit of value `d` (below 36): a to z, then 0 to 9.
[[nodiscard]] constexpr char digit_char(std::uint64_t d) noexcept {
    return static_cast<char>(d < 26 ? 'a' + d : '0' + (d - 26));
}

[[nodiscard]] constexpr int digit_value(char c) noexcept {
    return c >= 'a' && c <= 'z' ? c - 'a' : c >= 'A' && c <= 'Z' ? c - 'A' : c >= '0' && c <= '9' ? c - '0' + 26 : -1;
}

/// Section 6.2: the code points `in` encodes, or nullopt (a bad digit, an overflow, a code point
/// that is no Unicode scalar value).
[[nodiscard]] inline std::optional<std::u32string> decode(std::string_view in) {
    const std::size_t delimiter = in.rfind('-');
    std::u32string out;
    std::size_t at = 0;
    if (delimiter != std::string_view::npos) {
        for (; at < delimiter; ++at) {
            if (static_cast<unsigned char>(in[at]) >= 0x80U) {
                return std::nullopt;
            }
            out.push_back(static_cast<char32_t>(in[at]));
        }
        ++at;
    }
    constexpr std::uint64_t max_index = std::uint64_t{1} << 62; // no sum below overflows
    std::uint64_t n = 0x80;
    std::uint64_t i = 0;
    std::uint32_t bias = 72;
    while (at < in.size()) {
        const std::uint64_t old_i = i;
        std::uint64_t w = 1;
        for (std::uint32_t k = base;; k += base) {
            const int digit = at < in.size() ? digit_value(in[at++]) : -1;
            if (digit < 0 || static_cast<std::uint64_t>(digit) > (max_index - i) / w) {
                return std::nullopt;
            }
            i += static_cast<std::uint64_t>(digit) * w;
            const std::uint32_t t = threshold(k, bias);
            if (static_cast<std::uint32_t>(digit) < t) {
                break;
            }
            if (w > max_index / (base - t)) {
                return std::nullopt;
            }
            w *= base - t;
        }
        const auto points = static_cast<std::uint32_t>(out.size() + 1);
        if (i - old_i > 0xFFFFFFFFU || n + i / points > 0x10FFFF) {
            return std::nullopt; // past the last code point
        }
        bias = adapt(static_cast<std::uint32_t>(i - old_i), points, old_i == 0);
        n += i / points;
        i %= points;
        if (n >= 0xD800 && n <= 0xDFFF) {
            return std::nullopt; // a surrogate is no scalar value
        }
        out.insert(out.begin() + static_cast<std::ptrdiff_t>(i), static_cast<char32_t>(n));
        ++i;
    }
    return out;
}

/// Section 6.3: the Punycode of `in` (digits in lower case), or nullopt once it would pass
/// `limit` characters. It takes time in the length times the distinct code points: host names
/// give it labels of 59 code points at most.
[[nodiscard]] inline std::optional<std::string> encode(const std::u32string& in, std::size_t limit) {
    std::string out;
    for (const char32_t c : in) {
        if (c < 0x80) {
            out.push_back(static_cast<char>(c));
        }
    }
    const std::size_t basic = out.size();
    if (basic > 0) {
        out.push_back('-');
    }
    std::uint64_t n = 0x80;
    std::uint64_t delta = 0;
    std::uint32_t bias = 72;
    for (std::size_t handled = basic; handled < in.size();) {
        std::uint64_t m = 0x110000;
        for (const char32_t c : in) {
            m = c >= n && c < m ? c : m;
        }
        delta += (m - n) * (handled + 1);
        n = m;
        for (const char32_t c : in) {
            delta += c < n ? 1 : 0;
            if (c != n) {
                continue;
            }
            std::uint64_t q = delta;
            for (std::uint32_t k = base;; k += base) {
                const std::uint32_t t = threshold(k, bias);
                if (q < t) {
                    break;
                }
                out.push_back(digit_char(t + (q - t) % (base - t)));
                q = (q - t) / (base - t);
            }
            out.push_back(digit_char(q));
            if (out.size() > limit) {
                return std::nullopt;
            }
            bias = adapt(static_cast<std::uint32_t>(delta), static_cast<std::uint32_t>(handled + 1), handled == basic);
            delta = 0;
            ++handled;
        }
        ++delta;
        ++n;
    }
    return out;
}
} // namespace punycode

// --- NFC (UAX #15 section 3) ----------------------------------------------------------------

namespace nfc {
// Hangul syllables compose and decompose by arithmetic (UAX #15 section 16).
inline constexpr char32_t s_base = 0xAC00;
inline constexpr char32_t l_base = 0x1100;
inline constexpr char32_t v_base = 0x1161;
inline constexpr char32_t t_base = 0x11A7;
inline constexpr char32_t l_count = 19;
inline constexpr char32_t v_count = 21;
inline constexpr char32_t t_count = 28;
inline constexpr char32_t s_count = l_count * v_count * t_count;

/// Appends the full canonical decomposition of `c` to `out`.
inline void decompose(char32_t c, std::u32string& out) {
    if (c >= s_base && c < s_base + s_count) {
        const char32_t index = c - s_base;
        out.push_back(l_base + index / (v_count * t_count));
        out.push_back(v_base + index % (v_count * t_count) / t_count);
        if (index % t_count != 0) {
            out.push_back(t_base + index % t_count);
        }
        return;
    }
    const auto* end = std::end(idna_tables::canonical_decompositions);
    const auto* it = std::lower_bound(std::begin(idna_tables::canonical_decompositions), end, c,
                                      [](const idna_tables::composition& e, char32_t k) { return e.composite < k; });
    if (it == end || it->composite != c) {
        out.push_back(c);
        return;
    }
    decompose(it->first, out); // a mapping's parts are older code points: the recursion ends
    if (it->second != 0) {
        decompose(it->second, out);
    }
}

/// The primary composite of `a` then `b`, or 0.
[[nodiscard]] inline char32_t compose(char32_t a, char32_t b) {
    if (a >= l_base && a < l_base + l_count && b >= v_base && b < v_base + v_count) {
        return s_base + ((a - l_base) * v_count + (b - v_base)) * t_count;
    }
    if (a >= s_base && a < s_base + s_count && (a - s_base) % t_count == 0 && b > t_base && b < t_base + t_count) {
        return a + (b - t_base);
    }
    const auto* end = std::end(idna_tables::canonical_compositions);
    const auto* it =
        std::lower_bound(std::begin(idna_tables::canonical_compositions), end, idna_tables::composition{a, b, 0},
                         [](const idna_tables::composition& x, const idna_tables::composition& y) {
                             return x.first != y.first ? x.first < y.first : x.second < y.second;
                         });
    return it != end && it->first == a && it->second == b ? it->composite : 0;
}

/// Normalization Form C of `s`: decomposed, marks put in canonical order, composed.
[[nodiscard]] inline std::u32string normalized(const std::u32string& s) {
    std::u32string d;
    for (const char32_t c : s) {
        decompose(c, d);
    }
    for (std::size_t i = 1; i < d.size(); ++i) { // a stable sort of each run of marks by class
        const std::uint8_t ccc = combining_class(d[i]);
        for (std::size_t j = i; ccc != 0 && j > 0 && combining_class(d[j - 1]) > ccc; --j) {
            std::swap(d[j - 1], d[j]);
        }
    }
    if (d.empty()) {
        return d;
    }
    std::size_t starter = 0;
    int last = combining_class(d[0]) == 0 ? 0 : 256; // a leading mark composes with nothing
    std::size_t kept = 1;
    for (std::size_t i = 1; i < d.size(); ++i) {
        const std::uint8_t ccc = combining_class(d[i]);
        const char32_t composite = compose(d[starter], d[i]);
        if (composite != 0 && (last < ccc || last == 0)) {
            d[starter] = composite;
            continue;
        }
        starter = ccc == 0 ? kept : starter;
        last = ccc;
        d[kept++] = d[i];
    }
    d.resize(kept);
    return d;
}
} // namespace nfc

// --- One U-label ----------------------------------------------------------------------------

/// RFC 5892 appendix A.1: ZERO WIDTH NON-JOINER after a virama, or between a left- or
/// dual-joining letter and a right- or dual-joining one, transparent ones aside.
[[nodiscard]] inline bool zwnj_allowed(const std::u32string& s, std::size_t i) {
    if (i > 0 && combining_class(s[i - 1]) == 9) {
        return true;
    }
    std::size_t before = i;
    while (before > 0 && value_of(idna_tables::joining_type, s[before - 1]) == idna_tables::join_t) {
        --before;
    }
    std::size_t after = i + 1;
    while (after < s.size() && value_of(idna_tables::joining_type, s[after]) == idna_tables::join_t) {
        ++after;
    }
    const std::uint8_t left = before > 0 ? value_of(idna_tables::joining_type, s[before - 1]) : absent;
    const std::uint8_t right = after < s.size() ? value_of(idna_tables::joining_type, s[after]) : absent;
    return (left == idna_tables::join_l || left == idna_tables::join_d) &&
           (right == idna_tables::join_r || right == idna_tables::join_d);
}

[[nodiscard]] inline bool has_script(const std::u32string& s, std::size_t i, idna_tables::script_value which) {
    return i < s.size() && value_of(idna_tables::script, s[i]) == which;
}

/// RFC 5892 appendix A.2 to A.9: whether the CONTEXTJ or CONTEXTO code point at s[i] may stand.
[[nodiscard]] inline bool context_allows(const std::u32string& s, std::size_t i) {
    const char32_t c = s[i];
    const auto any = [&](auto&& test) { return std::any_of(s.begin(), s.end(), test); };
    switch (c) {
    case 0x200C: return zwnj_allowed(s, i);
    case 0x200D: return i > 0 && combining_class(s[i - 1]) == 9;
    case 0x00B7: return i > 0 && s[i - 1] == 'l' && i + 1 < s.size() && s[i + 1] == 'l';
    case 0x0375: return has_script(s, i + 1, idna_tables::greek);
    case 0x05F3:
    case 0x05F4: return i > 0 && has_script(s, i - 1, idna_tables::hebrew);
    case 0x30FB:
        return any([](char32_t d) {
            const std::uint8_t sc = value_of(idna_tables::script, d);
            return sc == idna_tables::hiragana || sc == idna_tables::katakana || sc == idna_tables::han;
        });
    default: break;
    }
    if (c >= 0x0660 && c <= 0x0669) {
        return !any([](char32_t d) { return d >= 0x06F0 && d <= 0x06F9; });
    }
    if (c >= 0x06F0 && c <= 0x06F9) {
        return !any([](char32_t d) { return d >= 0x0660 && d <= 0x0669; });
    }
    return false;
}

/// RFC 5891 section 5.4 on the code points of one label (the Bidi rule aside: it depends on
/// the whole name).
[[nodiscard]] inline bool valid_u_label(const std::u32string& s) {
    if (s.empty() || s.front() == '-' || s.back() == '-' || (s.size() >= 4 && s[2] == '-' && s[3] == '-') ||
        value_of(idna_tables::general_category_mark, s.front()) != absent || nfc::normalized(s) != s) {
        return false;
    }
    for (std::size_t i = 0; i < s.size(); ++i) {
        const std::uint8_t d = value_of(idna_tables::derived_property, s[i]);
        if (d == absent || (d != idna_tables::pvalid && !context_allows(s, i))) {
            return false;
        }
    }
    return true;
}

/// RFC 5893 section 2's six conditions, for a label of a name holding right-to-left text.
[[nodiscard]] inline bool meets_bidi_rule(const std::u32string& s) {
    std::vector<std::uint8_t> classes;
    classes.reserve(s.size());
    for (const char32_t c : s) {
        classes.push_back(value_of(idna_tables::bidi_class, c));
    }
    const bool rtl = classes.front() == idna_tables::bidi_r || classes.front() == idna_tables::bidi_al;
    if (!rtl && classes.front() != idna_tables::bidi_l) {
        return false;
    }
    bool has_en = false;
    bool has_an = false;
    for (const std::uint8_t b : classes) {
        const bool ltr_only = b == idna_tables::bidi_l;
        const bool rtl_only = b == idna_tables::bidi_r || b == idna_tables::bidi_al || b == idna_tables::bidi_an;
        if (b == absent || (rtl && ltr_only) || (!rtl && rtl_only)) {
            return false;
        }
        has_en = has_en || b == idna_tables::bidi_en;
        has_an = has_an || b == idna_tables::bidi_an;
    }
    std::size_t end = classes.size();
    while (end > 0 && classes[end - 1] == idna_tables::bidi_nsm) {
        --end;
    }
    const std::uint8_t last = end > 0 ? classes[end - 1] : absent;
    if (rtl) {
        return (last == idna_tables::bidi_r || last == idna_tables::bidi_al || last == idna_tables::bidi_en ||
                last == idna_tables::bidi_an) &&
               !(has_en && has_an);
    }
    return last == idna_tables::bidi_l || last == idna_tables::bidi_en;
}

[[nodiscard]] inline bool right_to_left(const std::u32string& s) {
    return std::any_of(s.begin(), s.end(), [](char32_t c) {
        const std::uint8_t b = value_of(idna_tables::bidi_class, c);
        return b == idna_tables::bidi_r || b == idna_tables::bidi_al || b == idna_tables::bidi_an;
    });
}

// --- A name ---------------------------------------------------------------------------------

/// One label of a name as its code points, and the length of its A-label form.
struct label {
    std::u32string points;
    std::size_t ascii_length = 0;
};

[[nodiscard]] inline bool ldh(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

/// An ASCII label: LDH, no hyphen at either end, and, when it begins "xn--" in any case, the
/// A-label of a valid U-label that encodes back to it. nullopt when it is none. In an
/// `international` name, "--" in the third and fourth places makes no label but an A-label:
/// RFC 5890 section 2.3.1 lets IDNA-aware applications use only those of the reserved labels.
[[nodiscard]] inline std::optional<label> ascii_label(std::string_view text, bool international) {
    if (text.empty() || text.size() > max_label_length || text.front() == '-' || text.back() == '-' ||
        !std::all_of(text.begin(), text.end(), ldh)) {
        return std::nullopt;
    }
    const std::string lower = ascii_lower(std::string(text));
    if (lower.rfind("xn--", 0) != 0) {
        const bool reserved = text.size() >= 4 && text[2] == '-' && text[3] == '-';
        return international && reserved
                   ? std::nullopt
                   : std::optional<label>(label{std::u32string(text.begin(), text.end()), text.size()});
    }
    const std::string_view code = std::string_view(lower).substr(4);
    std::optional<std::u32string> points = punycode::decode(code);
    if (!points || std::all_of(points->begin(), points->end(), [](char32_t c) { return c < 0x80; }) ||
        !valid_u_label(*points) || punycode::encode(*points, max_label_length) != code) {
        return std::nullopt;
    }
    return label{std::move(*points), text.size()};
}

/// The code points of UTF-8 `text`, or nullopt when it is not well-formed.
[[nodiscard]] inline std::optional<std::u32string> code_points(std::string_view text) {
    std::u32string points;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t n = utf8_sequence_length(text.substr(at));
        if (n == 0) {
            return std::nullopt;
        }
        points.push_back(code_point_of(text.substr(at, n)));
        at += n;
    }
    return points;
}

/// A label of these code points: a U-label whose A-label fits in 63 octets.
[[nodiscard]] inline std::optional<label> unicode_label(std::u32string points) {
    const std::size_t room = max_label_length - 4; // "xn--"
    if (points.size() > room || !valid_u_label(points)) {
        return std::nullopt;
    }
    const std::optional<std::string> encoded = punycode::encode(points, room);
    if (!encoded) {
        return std::nullopt;
    }
    return label{std::move(points), encoded->size() + 4};
}

/// Where the label at s[at] ends and how long its separator is: "." always, and in an
/// internationalized name the three full stops RFC 3490 section 3.1 also reads as one (U+3002,
/// U+FF0E, U+FF61).
[[nodiscard]] inline std::size_t label_end(std::string_view s, std::size_t at, bool international,
                                           std::size_t& separator) {
    for (; at < s.size(); ++at) {
        const std::string_view rest = s.substr(at);
        separator = rest[0] == '.' ? 1
                    : international && (rest.rfind("\xE3\x80\x82", 0) == 0 || rest.rfind("\xEF\xBC\x8E", 0) == 0 ||
                                        rest.rfind("\xEF\xBD\xA1", 0) == 0)
                        ? 3
                        : 0;
        if (separator != 0) {
            return at;
        }
    }
    separator = 0;
    return at;
}

/// Whether RFC 5893's Bidi rule holds for a name of these labels: only a name holding
/// right-to-left text has a rule to meet, and then every label meets it.
[[nodiscard]] inline bool meets_bidi_rule(const std::vector<label>& labels) {
    const bool bidi_name =
        std::any_of(labels.begin(), labels.end(), [](const label& l) { return right_to_left(l.points); });
    return !bidi_name ||
           std::all_of(labels.begin(), labels.end(), [](const label& l) { return meets_bidi_rule(l.points); });
}

/// A host name: labels of one to 63 octets (in their A-label form) between single separators,
/// 253 octets in all; with `international`, U-labels too.
[[nodiscard]] inline bool host_name(std::string_view s, bool international) {
    std::vector<label> labels;
    std::size_t length = 0;
    for (std::size_t at = 0;;) {
        std::size_t separator = 0;
        const std::size_t end = label_end(s, at, international, separator);
        const std::string_view text = s.substr(at, end - at);
        const bool ascii = is_ascii(text);
        std::optional<std::u32string> points = !ascii && international ? code_points(text) : std::nullopt;
        std::optional<label> l = ascii    ? ascii_label(text, international)
                                 : points ? unicode_label(std::move(*points))
                                          : std::nullopt;
        if (!l) {
            return false;
        }
        length += l->ascii_length + (labels.empty() ? 0 : 1);
        labels.push_back(std::move(*l));
        if (separator == 0) {
            break;
        }
        at = end + separator;
    }
    return length <= max_name_length && meets_bidi_rule(labels);
}

} // namespace handoff::detail::idna
