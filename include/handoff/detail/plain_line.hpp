// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/text.hpp>

#include <cstddef>     // size_t
#include <string>      // string
#include <string_view> // string_view

namespace handoff::detail {

/// Text as one line of tool output or of a prompt: control characters become spaces, so no
/// text can start a line of its own; quotes stay as written (unlike quote_untrusted, for text
/// that is already quoted where it must be, or that a schema author wrote); cut on a UTF-8
/// boundary, with "..." when cut.
[[nodiscard]] inline std::string plain_line(std::string_view text, std::size_t max_bytes) {
    const std::size_t keep = utf8_prefix_length(text, max_bytes);
    std::string out;
    out.reserve(keep + 3);
    for (std::size_t i = 0; i < keep; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        out.push_back(c < 0x20U || c == 0x7FU ? ' ' : text[i]);
    }
    if (keep < text.size()) {
        out += "...";
    }
    return out;
}

} // namespace handoff::detail
