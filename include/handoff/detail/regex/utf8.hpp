// SPDX-License-Identifier: MIT
#pragma once

// UTF-8 decoding for patterns and subjects (encoding: append_utf8 in detail/text.hpp).

#include <handoff/detail/text.hpp> // append_utf8, replacement_character

#include <cstddef>     // size_t
#include <string>      // string
#include <string_view> // string_view

namespace handoff::detail::regex_impl {

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

} // namespace handoff::detail::regex_impl
