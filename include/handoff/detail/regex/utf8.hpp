// SPDX-License-Identifier: MIT
#pragma once

// UTF-8 decoding for patterns and subjects (encoding: append_utf8 in detail/text.hpp).

#include <handoff/detail/text.hpp> // append_utf8, code_point_of, replacement_character, utf8_sequence_length

#include <cstddef>     // size_t
#include <string>      // string
#include <string_view> // string_view

namespace handoff::detail::regex_impl {

/// Decodes the code point at s[i] and advances i past it. A byte that does not begin a well-formed
/// UTF-8 sequence (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF) decodes as
/// U+FFFD and advances by one byte; nothing past s.size() is ever read.
[[nodiscard]] inline char32_t decode_utf8(std::string_view s, std::size_t& i) noexcept {
    if (const auto b0 = static_cast<unsigned char>(s[i]); b0 < 0x80U) { // most subjects are ASCII
        ++i;
        return b0;
    }
    const std::size_t n = utf8_sequence_length(s.substr(i));
    if (n == 0) {
        ++i;
        return replacement_character;
    }
    const char32_t cp = code_point_of(s.substr(i, n));
    i += n;
    return cp;
}

} // namespace handoff::detail::regex_impl
