// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/stream/tokenizer.hpp> // plain_run

#include <cstddef>     // size_t
#include <string_view> // string_view

namespace handoff::detail::stream {

/// Finds where a container of the reply ends, reading only its strings and brackets: the quick
/// pass over a value read whole once it closes (a member or item of partial_result, a field of
/// the envelope). It checks no grammar; whatever it lets through, the value's reading judges. A
/// doubt is a byte outside JSON's alphabet or nesting near the depth bound: there the exact
/// tokenizer takes over, so that its verdict comes at the byte that gives it.
class unit_scan {
public:
    enum class outcome { open, closed, doubt };

    /// `room`: how deep containers may nest inside the value (its own counted) before a doubt.
    explicit unit_scan(std::size_t room) noexcept : room_(room) {}

    /// Reads the bytes at the start of `s`; returns how many, the closing or doubtful byte
    /// included, and sets `out` to what that last byte was.
    std::size_t feed(std::string_view s, outcome& out) noexcept {
        out = outcome::open;
        std::size_t i = 0;
        while (i < s.size()) {
            if (in_string_) {
                if (escape_) {
                    escape_ = false;
                    ++i;
                    continue;
                }
                bool high = false;
                i += plain_run(s.substr(i), high);
                if (i == s.size()) {
                    break;
                }
                const char c = s[i++];
                escape_ = c == '\\';
                in_string_ = c != '"';
                if (static_cast<unsigned char>(c) < 0x20) {
                    out = outcome::doubt; // a control byte: the tokenizer's verdict
                    return i;
                }
                continue;
            }
            while (i < s.size() && byte_class_of(s[i]) == byte_class::plain) {
                ++i; // numbers, literals, whitespace and punctuation
            }
            if (i == s.size()) {
                break;
            }
            const char c = s[i++];
            switch (byte_class_of(c)) {
            case byte_class::plain: break;
            case byte_class::quote: in_string_ = true; break;
            case byte_class::open:
                if (++depth_ >= room_) {
                    out = outcome::doubt;
                    return i;
                }
                break;
            case byte_class::close:
                if (--depth_ == 0) {
                    out = outcome::closed;
                    return i;
                }
                break;
            case byte_class::foreign: out = outcome::doubt; return i;
            }
        }
        return i;
    }

private:
    enum class byte_class : unsigned char { foreign, plain, quote, open, close };

    /// The bytes a JSON text holds outside strings: whitespace, punctuation, the bytes of
    /// numbers and of true, false and null.
    struct byte_classes {
        byte_class of[256] = {};
        constexpr byte_classes() {
            for (const char c : std::string_view(" \t\r\n,:-+.eE0123456789truefalsn")) {
                of[static_cast<unsigned char>(c)] = byte_class::plain;
            }
            of[static_cast<unsigned char>('"')] = byte_class::quote;
            of[static_cast<unsigned char>('{')] = byte_class::open;
            of[static_cast<unsigned char>('[')] = byte_class::open;
            of[static_cast<unsigned char>('}')] = byte_class::close;
            of[static_cast<unsigned char>(']')] = byte_class::close;
        }
    };
    static byte_class byte_class_of(char c) noexcept {
        static constexpr byte_classes table{};
        return table.of[static_cast<unsigned char>(c)];
    }

    std::size_t room_;
    std::size_t depth_ = 1; // the value's own bracket was read
    bool in_string_ = false;
    bool escape_ = false;
};

} // namespace handoff::detail::stream
