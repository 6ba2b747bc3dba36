// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/text.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // uint64_t
#include <string>      // string, to_string
#include <string_view> // string_view

/// JSON text written straight into a string, byte for byte what nlohmann's
/// dump(-1, ' ', false, error_handler_t::replace) writes for the same value, without building
/// a DOM first: handoff-check writes one receipt per envelope, and building the receipt's
/// object of std::maps cost as much as checking a small envelope.
namespace handoff::detail::json_writer {

/// A JSON string. Invalid UTF-8 (untrusted text can hold anything) is left to nlohmann, whose
/// replacement of bad bytes is then exactly its own.
inline void append_string(std::string& out, std::string_view s) {
    if (!is_valid_utf8(s)) {
        out += nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        return;
    }
    static constexpr char hex[] = "0123456789abcdef";
    out += '"';
    std::size_t plain = 0; // start of the run of bytes copied as they are
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20U && c != '"' && c != '\\') {
            continue;
        }
        out.append(s.data() + plain, i - plain);
        plain = i + 1;
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            out += "\\u00";
            out += hex[c >> 4U];
            out += hex[c & 0x0FU];
            break;
        }
    }
    out.append(s.data() + plain, s.size() - plain);
    out += '"';
}

/// A number as nlohmann writes a double (shortest round-trip form, "1.0" for whole numbers,
/// null for NaN and infinities).
inline void append_double(std::string& out, double d) { out += nlohmann::json(d).dump(); }

inline void append_unsigned(std::string& out, std::uint64_t n) { out += std::to_string(n); }

inline void append_bool(std::string& out, bool b) { out += b ? "true" : "false"; }

/// `"key":`, for keys that are plain ASCII literals.
inline void append_key(std::string& out, std::string_view key) {
    out += '"';
    out += key;
    out += "\":";
}

} // namespace handoff::detail::json_writer
