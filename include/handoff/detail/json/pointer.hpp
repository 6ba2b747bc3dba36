// SPDX-License-Identifier: MIT
#pragma once

// RFC 6901 JSON pointers, built and taken apart in one place: every pointer handoff writes
// into a problem, a note or a schema location is joined here, so "~" and "/" inside a key are
// always escaped the same way.

#include <cstddef>     // size_t
#include <optional>    // optional
#include <string>      // string, to_string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff::detail {

/// Appends "/" and `token` escaped (RFC 6901: ~ as ~0, / as ~1).
inline void append_pointer_token(std::string& pointer, std::string_view token) {
    pointer.push_back('/');
    for (const char c : token) {
        if (c == '~') {
            pointer += "~0";
        } else if (c == '/') {
            pointer += "~1";
        } else {
            pointer.push_back(c);
        }
    }
}

/// Appends "/" and an array index.
inline void append_pointer_index(std::string& pointer, std::size_t index) {
    pointer.push_back('/');
    pointer += std::to_string(index);
}

/// `name` as a pointer token every reader takes as written, with no escape in a pointer or a URI
/// fragment: letters, digits, `_`, `-` and `.` kept, any other byte `_` (the name of a definition
/// a provider schema or a bundle makes).
[[nodiscard]] inline std::string plain_name(std::string_view name) {
    std::string out;
    for (const char c : name) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                           c == '-' || c == '.';
        out.push_back(plain ? c : '_');
    }
    return out.empty() ? std::string("def") : out;
}

/// `parent` joined with the member `token`.
[[nodiscard]] inline std::string pointer_child(std::string_view parent, std::string_view token) {
    std::string out(parent);
    append_pointer_token(out, token);
    return out;
}

/// `parent` joined with the array item `index`.
[[nodiscard]] inline std::string pointer_item(std::string_view parent, std::size_t index) {
    std::string out(parent);
    append_pointer_index(out, index);
    return out;
}

/// The key a reference token names: ~1 is "/", ~0 is "~"; any other "~" stays as written.
[[nodiscard]] inline std::string unescape_pointer_token(std::string_view token) {
    std::string key;
    key.reserve(token.size());
    for (std::size_t i = 0; i < token.size(); ++i) {
        if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
            key.push_back(token[++i] == '0' ? '~' : '/');
        } else {
            key.push_back(token[i]);
        }
    }
    return key;
}

/// The unescaped reference tokens of `pointer` ("" has none; the leading "/" may be left out).
[[nodiscard]] inline std::vector<std::string> pointer_tokens(std::string_view pointer) {
    std::vector<std::string> tokens;
    if (pointer.empty()) {
        return tokens;
    }
    std::size_t pos = pointer.front() == '/' ? 1 : 0;
    while (true) {
        const std::size_t slash = pointer.find('/', pos);
        tokens.push_back(unescape_pointer_token(
            pointer.substr(pos, slash == std::string_view::npos ? std::string_view::npos : slash - pos)));
        if (slash == std::string_view::npos) {
            return tokens;
        }
        pos = slash + 1;
    }
}

/// The array index a reference token names: decimal digits only, fewer than ten of them (so
/// the value fits any size_t); nullopt for anything else.
[[nodiscard]] inline std::optional<std::size_t> pointer_index(std::string_view token) noexcept {
    if (token.empty() || token.size() >= 10) {
        return std::nullopt;
    }
    std::size_t index = 0;
    for (const char c : token) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        index = index * 10 + static_cast<std::size_t>(c - '0');
    }
    return index;
}

} // namespace handoff::detail
