// SPDX-License-Identifier: MIT
#pragma once

// URI references as RFC 3986 reads them, enough for JSON Schema's `$id` and `$ref`: parse
// (§3, the regular expression of Appendix B written by hand), resolve against a base (§5.2),
// remove dot segments (§5.2.4), and lower-case the scheme and host (§6.2.2.1) so that two
// spellings of one document meet in one map key.

#include <handoff/detail/text.hpp>

#include <cstddef>     // size_t
#include <string>      // string
#include <string_view> // string_view

namespace handoff::detail {

struct uri_parts {
    std::string scheme;
    std::string authority;
    std::string path;
    std::string query;
    std::string fragment;
    bool has_scheme = false;
    bool has_authority = false;
    bool has_query = false;
    bool has_fragment = false;
};

[[nodiscard]] inline std::string ascii_lower(std::string s) {
    for (char& c : s) {
        if (c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return s;
}

/// Splits a URI reference into its five components (RFC 3986 Appendix B).
[[nodiscard]] inline uri_parts parse_uri(std::string_view s) {
    uri_parts u;
    if (const std::size_t hash = s.find('#'); hash != std::string_view::npos) {
        u.has_fragment = true;
        u.fragment = std::string(s.substr(hash + 1));
        s = s.substr(0, hash);
    }
    if (const std::size_t q = s.find('?'); q != std::string_view::npos) {
        u.has_query = true;
        u.query = std::string(s.substr(q + 1));
        s = s.substr(0, q);
    }
    if (const std::size_t colon = s.find(':');
        colon != std::string_view::npos && colon > 0 && s.substr(0, colon).find('/') == std::string_view::npos) {
        u.has_scheme = true;
        u.scheme = ascii_lower(std::string(s.substr(0, colon)));
        s = s.substr(colon + 1);
    }
    if (s.substr(0, 2) == "//") {
        s = s.substr(2);
        const std::size_t end = s.find('/');
        u.has_authority = true;
        u.authority = ascii_lower(std::string(s.substr(0, end)));
        s = end == std::string_view::npos ? std::string_view{} : s.substr(end);
    }
    u.path = std::string(s);
    return u;
}

/// RFC 3986 §5.2.4: "a/./b/../c" -> "a/c".
[[nodiscard]] inline std::string remove_dot_segments(std::string_view in) {
    std::string out;
    while (!in.empty()) {
        if (in.substr(0, 3) == "../") {
            in.remove_prefix(3);
        } else if (in.substr(0, 2) == "./" || in.substr(0, 3) == "/./") {
            in.remove_prefix(2);
        } else if (in == "/.") {
            in = "/";
        } else if (in.substr(0, 4) == "/../" || in == "/..") {
            in = in.size() == 3 ? std::string_view("/") : in.substr(3);
            const std::size_t last = out.rfind('/');
            out.erase(last == std::string::npos ? 0 : last);
        } else if (in == "." || in == "..") {
            in = {};
        } else {
            const std::size_t next = in.find('/', 1);
            out.append(in.substr(0, next));
            in = next == std::string_view::npos ? std::string_view{} : in.substr(next);
        }
    }
    return out;
}

[[nodiscard]] inline std::string to_string(const uri_parts& u) {
    std::string out;
    if (u.has_scheme) {
        out += u.scheme + ":";
    }
    if (u.has_authority) {
        out += "//" + u.authority;
    }
    out += u.path;
    if (u.has_query) {
        out += "?" + u.query;
    }
    if (u.has_fragment) {
        out += "#" + u.fragment;
    }
    return out;
}

/// RFC 3986 §5.2.2's merge-and-resolve of `reference` against `base` (an absolute URI or an
/// empty base, for schemas that never say where they live).
[[nodiscard]] inline std::string resolve_uri(std::string_view base, std::string_view reference) {
    const uri_parts r = parse_uri(reference);
    if (r.has_scheme) {
        uri_parts t = r;
        t.path = remove_dot_segments(r.path);
        return to_string(t);
    }
    uri_parts b = parse_uri(base);
    uri_parts t;
    t.has_scheme = b.has_scheme;
    t.scheme = b.scheme;
    if (r.has_authority) {
        t.has_authority = true;
        t.authority = r.authority;
        t.path = remove_dot_segments(r.path);
        t.has_query = r.has_query;
        t.query = r.query;
    } else {
        t.has_authority = b.has_authority;
        t.authority = b.authority;
        if (r.path.empty()) {
            t.path = b.path;
            t.has_query = r.has_query || b.has_query;
            t.query = r.has_query ? r.query : b.query;
        } else {
            if (r.path.front() == '/') {
                t.path = remove_dot_segments(r.path);
            } else {
                // §5.2.3 merge: the base path up to its last '/', or "/" under an empty path
                // with an authority; a URN's opaque path ("uuid:...") has no '/' to keep.
                const std::size_t slash = b.path.rfind('/');
                std::string merged = b.has_authority && b.path.empty() ? "/" + r.path
                                     : slash == std::string::npos      ? r.path
                                                                       : b.path.substr(0, slash + 1) + r.path;
                t.path = remove_dot_segments(merged);
            }
            t.has_query = r.has_query;
            t.query = r.query;
        }
    }
    t.has_fragment = r.has_fragment;
    t.fragment = r.fragment;
    return to_string(t);
}

/// `uri` without its fragment, and the fragment (empty when there is none).
struct uri_split {
    std::string document;
    std::string fragment;
};

[[nodiscard]] inline uri_split split_fragment(std::string_view uri) {
    const std::size_t hash = uri.find('#');
    if (hash == std::string_view::npos) {
        return {std::string(uri), {}};
    }
    return {std::string(uri.substr(0, hash)), std::string(uri.substr(hash + 1))};
}

/// `s` with every byte `escaped(byte)` asks for written as %XX (upper-case hex), the inverse of
/// percent_decode for those bytes.
template <class Escaped>
[[nodiscard]] std::string percent_encode(std::string_view s, Escaped escaped) {
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : s) {
        const auto byte = static_cast<unsigned char>(c);
        if (escaped(byte)) {
            out.push_back('%');
            out.push_back(hex[byte >> 4U]);
            out.push_back(hex[byte & 0x0FU]);
        } else {
            out.push_back(c);
        }
    }
    return out;
}

/// A JSON pointer written as a URI fragment (RFC 6901, section 6): every byte outside RFC 3986's
/// unreserved characters, sub-delims, ':', '@' and '/' is percent-encoded, '%' itself too.
[[nodiscard]] inline std::string pointer_fragment(std::string_view pointer) {
    return percent_encode(pointer, [](unsigned char c) {
        static constexpr std::string_view kept = "-._~!$&'()*+,;=:@/";
        const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        return !alnum && kept.find(static_cast<char>(c)) == std::string_view::npos;
    });
}

/// %XX escapes decoded (a JSON pointer in a fragment is percent-encoded); a malformed escape
/// stays as written.
[[nodiscard]] inline std::string percent_decode(std::string_view s) {
    const auto hex = hex_digit_value;
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
            out.push_back(static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2])));
            i += 2;
        } else {
            out.push_back(s[i]);
        }
    }
    return out;
}

} // namespace handoff::detail
