// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>     // size_t
#include <cstdio>      // snprintf
#include <string>      // string
#include <string_view> // string_view

namespace handoff::detail {

/// Escapes one reference token of a JSON pointer (RFC 6901: ~ -> ~0, / -> ~1).
inline void append_pointer_token(std::string& pointer, std::string_view token) {
    pointer.push_back('/');
    for (char c : token) {
        if (c == '~') {
            pointer += "~0";
        } else if (c == '/') {
            pointer += "~1";
        } else {
            pointer.push_back(c);
        }
    }
}

/// Length of the longest prefix of `s` of at most `max_bytes` that ends on a UTF-8 boundary.
[[nodiscard]] inline std::size_t utf8_prefix_length(std::string_view s, std::size_t max_bytes) noexcept {
    if (s.size() <= max_bytes) {
        return s.size();
    }
    std::size_t n = max_bytes;
    // Step back over continuation bytes (10xxxxxx) so a code point is never cut in half.
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0U) == 0x80U) {
        --n;
    }
    return n;
}

/// Quotes untrusted text for a message that a person logs and a model reads: JSON-style
/// escapes for quotes, backslashes and every control character (no log injection, no raw
/// newlines), and a cap on length so a hostile value cannot flood a prompt or a log.
[[nodiscard]] inline std::string quote_untrusted(std::string_view s, std::size_t max_bytes = 64) {
    std::string out = "\"";
    const std::size_t keep = utf8_prefix_length(s, max_bytes);
    for (std::size_t i = 0; i < keep; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20U || c == 0x7FU) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
                out += buf;
            } else {
                out.push_back(static_cast<char>(c));
            }
        }
    }
    out += "\"";
    if (keep < s.size()) {
        out += "... (" + std::to_string(s.size()) + " bytes)";
    }
    return out;
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
