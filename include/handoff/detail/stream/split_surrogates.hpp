// SPDX-License-Identifier: MIT
#pragma once

// A provider that slices its text as UTF-16 (a JavaScript proxy, an `ensure_ascii` writer) may
// send a character outside the Basic Multilingual Plane as two events, each holding one half
// of its surrogate pair as a JSON escape ("\ud83d", then "\ude00"). Neither event is valid
// JSON alone, and dropping them would take the character out of the reply without a word.
// Each lone half is read instead as a stand-in code point, U+F0000 plus its offset from
// U+D800 (in Supplementary Private Use Area-A), and the stand-ins are joined into the character
// once both halves arrived next to each other. An event whose own text holds a character of
// that range is never mended (its stand-ins could not be told from its text), and only the
// text of a mended event is searched for stand-ins.

#include <handoff/detail/text.hpp>

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

[[nodiscard]] inline bool is_surrogate(std::uint32_t unit) noexcept {
    return unit >= first_surrogate && unit <= 0xDFFF;
}

[[nodiscard]] inline std::string escape_of(std::uint32_t unit) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out = "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) {
        out += digits[(unit >> static_cast<unsigned>(shift)) & 0xFU];
    }
    return out;
}

/// Whether `json` holds a character of the stand-ins' range, U+F0000 to U+F07FF: raw (UTF-8
/// F3 B0 80-9F ..) or escaped (its high half \udb80 or \udb81, any case).
[[nodiscard]] inline bool holds_stand_in_range(std::string_view json) {
    for (std::size_t i = 0; i + 2 < json.size(); ++i) {
        const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(json[i + k]); };
        if (byte(0) == 0xF3 && byte(1) == 0xB0 && byte(2) >= 0x80 && byte(2) <= 0x9F) {
            return true;
        }
        const std::optional<std::uint32_t> unit =
            json[i] == '\\' && json[i + 1] == 'u' ? four_hex_digits(json.substr(i + 2)) : std::nullopt;
        if (unit && (*unit == 0xDB80 || *unit == 0xDB81)) {
            return true;
        }
    }
    return false;
}

/// `json` with each lone surrogate escape in its strings replaced by the escaped pair of its
/// stand-in; nullopt when it holds none (then it is not the reason the JSON failed to read).
[[nodiscard]] inline std::optional<std::string> with_stand_ins(std::string_view json) {
    if (holds_stand_in_range(json)) {
        return std::nullopt;
    }
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
        const std::optional<std::uint32_t> unit =
            json[i + 1] == 'u' ? four_hex_digits(json.substr(i + 2)) : std::nullopt;
        if (!unit || !is_surrogate(*unit)) {
            out.append(json.substr(i, 2)); // an escape: its second byte is never a closing quote
            ++i;
            continue;
        }
        const std::optional<std::uint32_t> next =
            json.substr(i + 6, 2) == "\\u" ? four_hex_digits(json.substr(i + 8)) : std::nullopt;
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

/// Joins the stand-ins of reply text as it arrives: a high half followed at once by a low half
/// becomes their character; a half without its other, U+FFFD (what the provider sent holds no
/// character there), and the caller is told.
class surrogate_joiner {
public:
    /// `text` with its stand-ins joined, where it `has_stand_ins` (a mended event's); a high
    /// half at its end waits for the next text. Text without them ends any wait; no text (an
    /// event that carries none: an empty delta, a ping) does not.
    [[nodiscard]] std::string join(std::string_view text, bool has_stand_ins) {
        std::string out;
        if (!has_stand_ins) {
            if (!text.empty()) {
                flush(out);
            }
            out += text;
            return out;
        }
        for (std::size_t i = 0; i < text.size();) {
            const std::optional<std::uint32_t> unit = stand_in_at(text.substr(i));
            if (!unit) {
                flush(out);
                out += text[i++];
                continue;
            }
            i += 4;
            if (*unit >= first_low_surrogate && high_) {
                append_utf8(out, static_cast<char32_t>(0x10000 + ((*high_ - first_surrogate) << 10U) +
                                                       (*unit - first_low_surrogate)));
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
