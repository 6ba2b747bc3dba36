// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/json/number.hpp>
#include <handoff/detail/text.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // uint64_t
#include <string>      // string, to_string
#include <string_view> // string_view

/// JSON text written straight into a string, byte for byte what nlohmann's
/// dump(-1, ' ', false, error_handler_t::replace) writes for the same value. handoff-check
/// writes one receipt per envelope without building its object of std::maps first (that cost
/// as much as checking a small envelope), and a message that shows a value writes it here
/// rather than through nlohmann's serializer, which every file that receives would otherwise
/// instantiate (and whose default, strict mode throws on a string that is not UTF-8).
namespace handoff::detail::json_writer {

/// A JSON string. Untrusted text can hold anything: a byte that breaks UTF-8 ends the sequence
/// it was in, and the bytes read of that sequence become one U+FFFD, as nlohmann replaces them.
/// Runs of bytes that need no escape are copied whole.
inline void append_string(std::string& out, std::string_view s) {
    static constexpr char hex[] = "0123456789abcdef";
    out += '"';
    std::size_t plain = 0; // start of the run of bytes copied as they are
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t used = 1; // bytes of `s` this step reads
        if (c >= 0x80U) {
            const utf8_head head = read_utf8_head(s.substr(i));
            if (head.length != 0 && head.valid == head.length) {
                i += head.length; // well-formed: part of the run
                continue;
            }
            used = head.valid == 0 ? 1 : head.valid;
        } else if (c >= 0x20U && c != '"' && c != '\\') {
            ++i;
            continue;
        }
        out.append(s.data() + plain, i - plain);
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c >= 0x80U) {
                out += "\xEF\xBF\xBD";
            } else {
                out += "\\u00";
                out += hex[c >> 4U];
                out += hex[c & 0x0FU];
            }
            break;
        }
        i += used;
        plain = i;
    }
    out.append(s.data() + plain, s.size() - plain);
    out += '"';
}

/// A number as nlohmann writes a double (append_json_double).
inline void append_double(std::string& out, double d) { append_json_double(out, d); }

inline void append_unsigned(std::string& out, std::uint64_t n) { out += std::to_string(n); }

inline void append_bool(std::string& out, bool b) { out += b ? "true" : "false"; }

/// `"key":`, for keys that are plain ASCII literals.
inline void append_key(std::string& out, std::string_view key) {
    out += '"';
    out += key;
    out += "\":";
}

/// Any value, compact: objects in nlohmann::json's key order, binary values as nlohmann
/// writes them ({"bytes":[...],"subtype":...}).
inline void append_value(std::string& out, const nlohmann::json& v) {
    switch (v.type()) {
    case nlohmann::json::value_t::null: out += "null"; return;
    case nlohmann::json::value_t::boolean: append_bool(out, v.get<bool>()); return;
    case nlohmann::json::value_t::number_integer: out += std::to_string(v.get<std::int64_t>()); return;
    case nlohmann::json::value_t::number_unsigned: append_unsigned(out, v.get<std::uint64_t>()); return;
    case nlohmann::json::value_t::number_float: append_double(out, v.get<double>()); return;
    case nlohmann::json::value_t::string: append_string(out, v.get_ref<const std::string&>()); return;
    case nlohmann::json::value_t::discarded: out += "<discarded>"; return;
    case nlohmann::json::value_t::binary: {
        const auto& bytes = v.get_binary();
        out += "{\"bytes\":[";
        for (std::size_t i = 0; i < bytes.size(); ++i) {
            out += i == 0 ? "" : ",";
            out += std::to_string(bytes[i]);
        }
        out += "],\"subtype\":";
        out += bytes.has_subtype() ? std::to_string(bytes.subtype()) : "null";
        out += '}';
        return;
    }
    case nlohmann::json::value_t::array:
    case nlohmann::json::value_t::object: break;
    }
    const bool object = v.is_object();
    out += object ? '{' : '[';
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
        out += first ? "" : ",";
        first = false;
        if (object) {
            append_string(out, it.key());
            out += ':';
        }
        append_value(out, it.value());
    }
    out += object ? '}' : ']';
}

} // namespace handoff::detail::json_writer

namespace handoff::detail {

/// `v` as compact JSON text (json_writer::append_value): for a message that shows a value.
[[nodiscard]] inline std::string json_text(const nlohmann::json& v) {
    std::string out;
    json_writer::append_value(out, v);
    return out;
}

} // namespace handoff::detail
