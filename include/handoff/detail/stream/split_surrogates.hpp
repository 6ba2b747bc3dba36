// SPDX-License-Identifier: MIT
#pragma once

// A provider that slices its text as UTF-16 (a JavaScript proxy, an `ensure_ascii` writer) may
// send a character outside the Basic Multilingual Plane as two events, each holding one half
// of its surrogate pair as a JSON escape ("\ud83d", then "\ude00"). Neither event is valid
// JSON alone, and dropping them would take the character out of the reply without a word.
// Each lone half is read instead as a stand-in code point, U+F0000 plus its offset from
// U+D800 (in Supplementary Private Use Area-A, which no provider's own halves reach), and the
// stand-ins are joined into the character once both halves arrived next to each other.

#include <cstddef>     // size_t
#include <cstdint>     // uint32_t
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move

namespace handoff::detail::stream {

inline constexpr std::uint32_t first_surrogate = 0xD800;
inline constexpr std::uint32_t first_low_surrogate = 0xDC00;
inline constexpr std::uint32_t stand_in_base = 0xF0000;
inline constexpr std::uint32_t replacement_character = 0xFFFD;

/// The four hex digits at the start of `s` as a number, or nullopt.
[[nodiscard]] inline std::optional<std::uint32_t> hex4(std::string_view s) noexcept {
    if (s.size() < 4) {
        return std::nullopt;
    }
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        const char c = s[i];
        const char lower = c >= 'A' && c <= 'F' ? static_cast<char>(c - 'A' + 'a') : c;
        const std::size_t digit = std::string_view("0123456789abcdef").find(lower);
        if (digit == std::string_view::npos) {
            return std::nullopt;
        }
        v = v * 16 + static_cast<std::uint32_t>(digit);
    }
    return v;
}

[[nodiscard]] inline bool is_surrogate(std::uint32_t unit) noexcept { return unit >= 0xD800 && unit <= 0xDFFF; }

[[nodiscard]] inline std::string escape_of(std::uint32_t unit) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out = "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) {
        out += digits[(unit >> static_cast<unsigned>(shift)) & 0xFU];
    }
    return out;
}

/// `json` with each lone surrogate escape in its strings replaced by the escaped pair of its
/// stand-in; nullopt when it holds none (then it is not the reason the JSON failed to read).
[[nodiscard]] inline std::optional<std::string> with_stand_ins(std::string_view json) {
    std::string out;
    bool in_string = false;
    bool replaced = false;
    for (std::size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (!in_string || c != '\\' || i + 1 >= json.size()) {
            in_string = in_string != (c == '"');
            out += c;
            continue;
        }
        const std::optional<std::uint32_t> unit = json[i + 1] == 'u' ? hex4(json.substr(i + 2)) : std::nullopt;
        if (!unit || !is_surrogate(*unit)) {
            out.append(json.substr(i, 2)); // an escape: its second byte is never a closing quote
            ++i;
            continue;
        }
        const std::optional<std::uint32_t> next =
            json.substr(i + 6, 2) == "\\u" ? hex4(json.substr(i + 8)) : std::nullopt;
        if (*unit < first_low_surrogate && next && *next >= first_low_surrogate && is_surrogate(*next)) {
            out.append(json.substr(i, 12)); // a whole pair
            i += 11;
            continue;
        }
        const std::uint32_t stand_in = stand_in_base + (*unit - first_surrogate) - 0x10000;
        out += escape_of(first_surrogate + (stand_in >> 10U)) + escape_of(first_low_surrogate + (stand_in & 0x3FFU));
        replaced = true;
        i += 5;
    }
    return replaced ? std::optional<std::string>(std::move(out)) : std::nullopt;
}

inline void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x10000) { // the replacement character, the only one written here below U+10000
        out += static_cast<char>(0xE0U | (cp >> 12U));
        out += static_cast<char>(0x80U | ((cp >> 6U) & 0x3FU));
        out += static_cast<char>(0x80U | (cp & 0x3FU));
        return;
    }
    out += static_cast<char>(0xF0U | (cp >> 18U));
    out += static_cast<char>(0x80U | ((cp >> 12U) & 0x3FU));
    out += static_cast<char>(0x80U | ((cp >> 6U) & 0x3FU));
    out += static_cast<char>(0x80U | (cp & 0x3FU));
}

/// Joins the stand-ins of reply text as it arrives: a high half followed at once by a low half
/// becomes their character; a half without its other, U+FFFD (what the provider sent holds no
/// character there), and the caller is told.
class surrogate_joiner {
public:
    /// `text` with its stand-ins joined; a high half at its end waits for the next text.
    [[nodiscard]] std::string join(std::string_view text) {
        std::string out;
        for (std::size_t i = 0; i < text.size();) {
            const std::optional<std::uint32_t> unit = stand_in_at(text.substr(i));
            if (!unit) {
                flush(out);
                out += text[i++];
                continue;
            }
            i += 4;
            if (*unit >= first_low_surrogate && high_) {
                append_utf8(out, 0x10000 + ((*high_ - first_surrogate) << 10U) + (*unit - first_low_surrogate));
                high_.reset();
            } else if (*unit >= first_low_surrogate) {
                flush(out);
                unpaired(out);
            } else {
                flush(out);
                high_ = unit;
            }
        }
        return out;
    }

    /// The end of the reply: a high half still waiting has no other.
    [[nodiscard]] std::string finish() {
        std::string out;
        flush(out);
        return out;
    }

    /// Whether a high half waits for the next text.
    [[nodiscard]] bool waiting() const noexcept { return high_.has_value(); }
    /// Whether some half had no other.
    [[nodiscard]] bool lost_a_half() const noexcept { return lost_; }

private:
    /// The surrogate a stand-in at the start of `s` stands for (its UTF-8: F3 B0 80-9F 80-BF).
    [[nodiscard]] static std::optional<std::uint32_t> stand_in_at(std::string_view s) noexcept {
        const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
        if (s.size() < 4 || byte(0) != 0xF3 || byte(1) != 0xB0 || byte(2) < 0x80 || byte(2) > 0x9F || byte(3) < 0x80 ||
            byte(3) > 0xBF) {
            return std::nullopt;
        }
        return first_surrogate + (((byte(2) & 0x3FU) << 6U) | (byte(3) & 0x3FU));
    }

    void flush(std::string& out) {
        if (high_) {
            high_.reset();
            unpaired(out);
        }
    }

    void unpaired(std::string& out) {
        append_utf8(out, replacement_character);
        lost_ = true;
    }

    std::optional<std::uint32_t> high_;
    bool lost_ = false;
};

} // namespace handoff::detail::stream
