// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>   // all_of
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t, uint32_t, uint64_t
#include <cstdio>      // snprintf
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view

namespace handoff::detail {

/// The value of one hexadecimal digit, or -1 for any other character.
[[nodiscard]] constexpr int hex_digit_value(char c) noexcept {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/// The four hex digits at the start of `s` (a JSON or pattern `\uXXXX` escape's), or nullopt.
[[nodiscard]] inline std::optional<std::uint32_t> four_hex_digits(std::string_view s) noexcept {
    if (s.size() < 4) {
        return std::nullopt;
    }
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        const int digit = hex_digit_value(s[i]);
        if (digit < 0) {
            return std::nullopt;
        }
        v = v * 16 + static_cast<std::uint32_t>(digit);
    }
    return v;
}

/// U+FFFD, what stands for bytes or halves that make no character.
inline constexpr char32_t replacement_character = 0xFFFD;

/// Appends code point `c` (at most U+10FFFF) as UTF-8.
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

/// Characters (code points) in UTF-8 text, every byte counted, NUL included: the length JSON
/// Schema's minLength/maxLength and the envelope's bounds speak of.
[[nodiscard]] inline std::uint64_t count_code_points(std::string_view s) noexcept {
    std::uint64_t n = 0;
    for (char c : s) {
        n += (static_cast<unsigned char>(c) & 0xC0U) != 0x80U ? 1U : 0U;
    }
    return n;
}

/// Length of the longest prefix of `s` of at most `max_bytes` that ends on a UTF-8 boundary.
[[nodiscard]] inline std::size_t utf8_prefix_length(std::string_view s, std::size_t max_bytes) noexcept {
    if (s.size() <= max_bytes) {
        return s.size();
    }
    std::size_t n = max_bytes;
    // Step back over continuation bytes (10xxxxxx) so a code point is never cut in half; at
    // most three, so a run of stray continuation bytes does not eat the whole prefix.
    while (n > 0 && max_bytes - n < 3 && (static_cast<unsigned char>(s[n]) & 0xC0U) == 0x80U) {
        --n;
    }
    return n;
}

/// The UTF-8 sequence at the start of `s` as far as it goes: `length`, the bytes its first byte
/// calls for (0 when that byte starts no sequence), and `valid`, how many of them follow as RFC
/// 3629 allows (no overlong forms, no surrogates, nothing past U+10FFFF; Unicode table 3-7).
struct utf8_head {
    std::size_t length = 0;
    std::size_t valid = 0;
};

[[nodiscard]] inline utf8_head read_utf8_head(std::string_view s) noexcept {
    const auto in = [](unsigned b, unsigned lo, unsigned hi) { return b >= lo && b <= hi; };
    if (s.empty()) {
        return {};
    }
    const unsigned b0 = static_cast<unsigned char>(s[0]);
    unsigned lo = 0x80U; // the second byte's range; later bytes are 0x80..0xBF
    unsigned hi = 0xBFU;
    utf8_head head{0, 1};
    if (b0 < 0x80U) {
        return {1, 1};
    }
    if (in(b0, 0xC2U, 0xDFU)) {
        head.length = 2;
    } else if (in(b0, 0xE0U, 0xEFU)) {
        head.length = 3;
        lo = b0 == 0xE0U ? 0xA0U : 0x80U;
        hi = b0 == 0xEDU ? 0x9FU : 0xBFU;
    } else if (in(b0, 0xF0U, 0xF4U)) {
        head.length = 4;
        lo = b0 == 0xF0U ? 0x90U : 0x80U;
        hi = b0 == 0xF4U ? 0x8FU : 0xBFU;
    } else {
        return {};
    }
    while (head.valid < head.length && head.valid < s.size() &&
           in(static_cast<unsigned char>(s[head.valid]), head.valid == 1 ? lo : 0x80U, head.valid == 1 ? hi : 0xBFU)) {
        ++head.valid;
    }
    return head;
}

/// Length of the well-formed UTF-8 sequence at the start of `s`, or 0 when there is none.
[[nodiscard]] inline std::size_t utf8_sequence_length(std::string_view s) noexcept {
    const utf8_head head = read_utf8_head(s);
    return head.length != 0 && head.valid == head.length ? head.length : 0;
}

/// The code point of `seq`, one whole well-formed UTF-8 sequence (as utf8_sequence_length finds).
[[nodiscard]] inline char32_t code_point_of(std::string_view seq) noexcept {
    constexpr unsigned lead_bits[] = {0, 0x7FU, 0x1FU, 0x0FU, 0x07U};
    if (seq.empty() || seq.size() > 4) {
        return 0;
    }
    char32_t cp = static_cast<unsigned char>(seq[0]) & lead_bits[seq.size()];
    for (std::size_t i = 1; i < seq.size(); ++i) {
        cp = (cp << 6U) | (static_cast<unsigned char>(seq[i]) & 0x3FU);
    }
    return cp;
}

/// True when every byte of `s` is ASCII (below 0x80).
[[nodiscard]] inline bool is_ascii(std::string_view s) noexcept {
    return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80U; });
}

/// True for well-formed UTF-8 throughout (RFC 3629 and Unicode table 3-7: no overlong forms,
/// no surrogates, nothing past U+10FFFF), the rule nlohmann's serializer applies.
[[nodiscard]] inline bool is_valid_utf8(std::string_view s) noexcept {
    for (std::size_t i = 0; i < s.size();) {
        if (static_cast<unsigned char>(s[i]) < 0x80U) {
            ++i;
            continue;
        }
        const std::size_t n = utf8_sequence_length(s.substr(i));
        if (n == 0) {
            return false;
        }
        i += n;
    }
    return true;
}

/// The code point of a well-formed sequence that must not reach a log or a terminal raw, or 0:
/// C1 controls (U+0080..U+009F; U+009B is a one-byte CSI, an ANSI escape), the line and
/// paragraph separators U+2028/U+2029 (line breaks to many log viewers), and the bidirectional
/// controls that can make a log line read differently from what it holds ("Trojan Source").
[[nodiscard]] inline char32_t escaped_code_point(std::string_view seq) noexcept {
    const char32_t cp = code_point_of(seq);
    const bool c1 = cp >= 0x80U && cp <= 0x9FU;
    const bool separator = cp == 0x2028U || cp == 0x2029U;
    const bool bidi = cp == 0x061CU || cp == 0x200EU || cp == 0x200FU || (cp >= 0x202AU && cp <= 0x202EU) ||
                      (cp >= 0x2066U && cp <= 0x2069U);
    return c1 || separator || bidi ? cp : 0;
}

/// The first `keep` bytes of `s`, escaped for a message: control characters as \n, \r, \t or
/// \u00XX, ill-formed UTF-8 as \xNN, the code points of escaped_code_point as \uXXXX, and,
/// when `quoted`, '"' and '\\' too (the text goes between quotes).
inline void append_escaped(std::string& out, std::string_view s, std::size_t keep, bool quoted) {
    for (std::size_t i = 0; i < keep; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        switch (c) {
        case '"': out += quoted ? "\\\"" : "\""; break;
        case '\\': out += quoted ? "\\\\" : "\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20U || c == 0x7FU) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
                out += buf;
            } else if (c >= 0x80U) {
                // Ill-formed UTF-8 (a parse error's echo of hostile bytes) is written as \xNN:
                // a message must stay valid UTF-8, or dumping the receipt as JSON would throw.
                const std::size_t n = utf8_sequence_length(s.substr(i, keep - i));
                if (n == 0) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
                    out += buf;
                } else if (const char32_t cp = escaped_code_point(s.substr(i, n)); cp != 0) {
                    char buf[16];
                    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
                    out += buf;
                    i += n - 1;
                } else {
                    out.append(s.substr(i, n));
                    i += n - 1;
                }
            } else {
                out.push_back(static_cast<char>(c));
            }
        }
    }
}

/// `s` with & < > " ' as HTML entities and control characters (but tab) as U+FFFD.
inline void append_html_escaped(std::string& out, std::string_view s) {
    out.reserve(out.size() + s.size() + 16);
    for (const char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default:
            if ((static_cast<unsigned char>(c) < 0x20U && c != '\t') || c == '\x7F') {
                out += "\xEF\xBF\xBD";
            } else {
                out += c;
            }
        }
    }
}

/// How clip_untrusted writes the part of the text it keeps.
enum class clip_form : std::uint8_t {
    /// Between double quotes, escaped as append_escaped does, '"' and '\\' too: a value a
    /// message names.
    quoted,
    /// Escaped as append_escaped does, no quotes ('"' and '\\' as they are): text spliced into
    /// a message (a pointer, a parser's sentence that may echo the reply).
    spliced,
    /// Control characters as spaces, nothing escaped: one line of prose for a prompt or tool
    /// output, where text that a schema author wrote keeps its quotes.
    plain,
    /// Every byte as it is: text that is already safe (a message) and only needs a cap.
    as_is,
    /// Safe inside HTML text and inside a quoted attribute value: & < > " ' as entities,
    /// control characters (but tab) as U+FFFD.
    html,
};

/// The one cut marker, after the kept part of clipped text: "... (N bytes)", N the full size.
inline void append_cut_marker(std::string& out, std::size_t full_bytes) {
    out += "... (";
    out += std::to_string(full_bytes);
    out += " bytes)";
}

/// Untrusted text made fit for a message, a log line or a prompt: at most `max_bytes` of it
/// kept, cut on a UTF-8 boundary, written in `form`, and the cut marker when anything was cut.
/// Every function that clips text for a person or a model goes through this one.
[[nodiscard]] inline std::string clip_untrusted(std::string_view s, std::size_t max_bytes, clip_form form) {
    const std::size_t keep = utf8_prefix_length(s, max_bytes);
    std::string out;
    switch (form) {
    case clip_form::quoted:
        out.push_back('"');
        append_escaped(out, s, keep, true);
        out.push_back('"');
        break;
    case clip_form::spliced: append_escaped(out, s, keep, false); break;
    case clip_form::plain:
        out.reserve(keep);
        for (const char c : s.substr(0, keep)) {
            const auto byte = static_cast<unsigned char>(c);
            out.push_back(byte < 0x20U || byte == 0x7FU ? ' ' : c);
        }
        break;
    case clip_form::as_is: out.assign(s.substr(0, keep)); break;
    case clip_form::html: append_html_escaped(out, s.substr(0, keep)); break;
    }
    if (keep < s.size()) {
        append_cut_marker(out, s.size());
    }
    return out;
}

/// Quotes untrusted text for a message that a person logs and a model reads: JSON-style
/// escapes for quotes, backslashes and every control character (no log injection, no raw
/// newlines), and a cap on length so a hostile value cannot flood a prompt or a log.
[[nodiscard]] inline std::string quote_untrusted(std::string_view s, std::size_t max_bytes = 64) {
    return clip_untrusted(s, max_bytes, clip_form::quoted);
}

/// Untrusted text escaped like quote_untrusted but not quoted, capped: for text spliced into a
/// message (a pointer, a sentence of nlohmann's that may echo the reply).
[[nodiscard]] inline std::string escape_untrusted(std::string_view s, std::size_t max_bytes) {
    return clip_untrusted(s, max_bytes, clip_form::spliced);
}

/// Text as one line of tool output or of a prompt: control characters become spaces, so no
/// text can start a line of its own; quotes stay as written (for text that is already quoted
/// where it must be, or that a schema author wrote); capped.
[[nodiscard]] inline std::string plain_line(std::string_view text, std::size_t max_bytes) {
    return clip_untrusted(text, max_bytes, clip_form::plain);
}

/// A JSON pointer as the head of a message: "(document)" for the root, otherwise the pointer
/// escaped (a key is untrusted text: it may hold newlines or ANSI escapes) and capped, so a
/// deep path of long keys cannot flood a log.
[[nodiscard]] inline std::string message_pointer(std::string_view pointer, std::size_t max_bytes = 160) {
    return pointer.empty() ? std::string("(document)") : escape_untrusted(pointer, max_bytes);
}

/// A double as a person reads it in a message (six significant digits).
[[nodiscard]] inline std::string format_number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

/// A ratio with two decimals, as the fraction should have been written.
[[nodiscard]] inline std::string format_two_decimals(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

} // namespace handoff::detail
