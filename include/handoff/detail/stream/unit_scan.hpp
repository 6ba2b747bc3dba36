// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/stream/tokenizer.hpp> // plain_run, escape_letters, literal_of, byte sets
#include <handoff/detail/text.hpp>             // hex_digit_value

#include <cstddef>     // size_t
#include <string_view> // string_view

namespace handoff::detail::stream {

/// Whether `c` begins a number or a literal.
inline bool scalar_start(char c) noexcept {
    return c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n';
}

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

    /// A scan of a string value whose opening quote was read: closed at its closing quote.
    [[nodiscard]] static unit_scan string() noexcept {
        unit_scan s(0);
        s.depth_ = 0;
        s.in_string_ = true;
        return s;
    }

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
                if (!in_string_ && depth_ == 0) {
                    out = outcome::closed; // a string value's own closing quote
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
            for (const std::string_view plain : {std::string_view(" \t\r\n,:"), number_bytes, literal_letters}) {
                for (const char c : plain) {
                    of[static_cast<unsigned char>(c)] = byte_class::plain;
                }
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

/// Finds the items of an array of the reply: the quick pass over partial_result's member arrays,
/// whose items are read and judged one by one as they end. It reads the commas and whitespace
/// between items, a string or array item with unit_scan, a number or a literal to the byte after
/// it; an object item it leaves to its caller after the brace (item_reader reads it as it
/// arrives). It checks the array's own grammar (an item after a comma or the bracket, a comma or
/// the bracket after an item), never an item's: the item's reading judges that. A doubt is any
/// other byte between items, or unit_scan's.
class list_scan {
public:
    /// `item`: an item ended at the last byte read (a number or a literal, at the byte before
    /// the one that ends it, which the next feed reads); `closed`: the array's bracket was read;
    /// `object`: an object item's brace was read, and the caller reads the item (then tells
    /// read_by_caller()).
    enum class outcome { open, item, closed, doubt, object };

    /// `room`: as unit_scan's, for each array item (its own bracket counted).
    explicit list_scan(std::size_t room) noexcept : room_(room) {}

    /// The caller read `bytes` of the item it was given (after its bracket); `done`: to its end.
    void read_by_caller(std::size_t bytes, bool done) noexcept {
        read_ += bytes;
        place_ = done ? place::after_item : place_;
    }

    /// Reads the bytes at the start of `s`; returns how many and sets `out` to what the last
    /// of them ended. Bytes count from the one after the array's bracket (read()).
    std::size_t feed(std::string_view s, outcome& out) noexcept {
        out = outcome::open;
        std::size_t i = 0;
        while (i < s.size() && out == outcome::open) {
            if (place_ == place::item) {
                unit_scan::outcome what = unit_scan::outcome::open;
                i += item_.feed(s.substr(i), what);
                out = what == unit_scan::outcome::closed  ? outcome::item
                      : what == unit_scan::outcome::doubt ? outcome::doubt
                                                          : outcome::open;
            } else if (place_ == place::scalar) {
                while (i < s.size() && scalar_byte(s[i])) {
                    ++i;
                }
                out = i < s.size() ? outcome::item : outcome::open;
            } else {
                i += between(s.substr(i), read_ + i, out);
            }
        }
        place_ = out == outcome::item ? place::after_item : place_;
        read_ += i;
        return i;
    }

    /// Where the last item began, in bytes read.
    [[nodiscard]] std::size_t item_start() const noexcept { return item_start_; }
    /// How many bytes were read.
    [[nodiscard]] std::size_t read() const noexcept { return read_; }

private:
    enum class place : unsigned char { first, after_comma, after_item, item, scalar, caller };

    /// Between items: whitespace, then one byte that decides. `at`: the bytes read before `s`.
    std::size_t between(std::string_view s, std::size_t at, outcome& out) noexcept {
        std::size_t i = blank_run(s);
        if (i == s.size()) {
            return i;
        }
        const char c = s[i++];
        if (c == ']' && place_ != place::after_comma) {
            out = outcome::closed;
        } else if (c == ',' && place_ == place::after_item) {
            place_ = place::after_comma;
        } else if (place_ == place::after_item || !start_item(c)) {
            out = outcome::doubt;
        } else {
            item_start_ = at + i - 1;
            out = place_ == place::caller ? outcome::object : out;
        }
        return i;
    }

    bool start_item(char c) noexcept {
        if (c == '{') {
            place_ = place::caller;
        } else if (c == '[') {
            item_ = unit_scan(room_);
            place_ = place::item;
        } else if (c == '"') {
            item_ = unit_scan::string();
            place_ = place::item;
        } else if (scalar_start(c)) {
            place_ = place::scalar;
        } else {
            return false;
        }
        return true;
    }

    std::size_t room_;
    place place_ = place::first;
    unit_scan item_{0};
    std::size_t item_start_ = 0;
    std::size_t read_ = 0;
};

/// Finds the members of an object of the reply, reading only what unit_scan reads inside a
/// container value, plus each key, each string or literal value, and the colons, commas and
/// whitespace between: the quick pass over the envelope's own object, whose fields are read
/// whole one by one as they end. It checks the object's own grammar (a key after the bracket or
/// a comma, a colon after it, a comma or the bracket after a value), the escapes of its keys and
/// string values, and its literals letter by letter, so that a byte no JSON text continues with
/// there is a doubt at once, as the tokenizer would fail on it; a container value's own grammar
/// its reading judges. A doubt is any such byte, a control byte in a string, or unit_scan's.
class member_scan {
public:
    /// `value`: a value ended at the last byte read (a number at the byte before the one that
    /// ends it, which the next feed reads); `closed`: the object's bracket was read.
    enum class outcome { open, value, closed, doubt };

    /// `room`: as unit_scan's, for each value (its own bracket counted). `first`: no member was
    /// read before the scan starts (it starts after the bracket, not after a value).
    member_scan(std::size_t room, bool first) noexcept
        : room_(room), place_(first ? place::first : place::after_value) {}

    /// Reads the bytes at the start of `s`; returns how many and sets `out` to what the last
    /// of them ended. Bytes count from the first the scan was given (read()). The caller judges
    /// as the scan goes on, with no return: each key at its closing quote, `key_kept(start,
    /// end)` (its quotes' bytes), and each container value at its bracket, `opened_kept(object)`;
    /// a judge's false makes that byte a doubt.
    template <class KeyKept, class OpenedKept>
    std::size_t feed(std::string_view s, outcome& out, KeyKept&& key_kept, OpenedKept&& opened_kept) {
        out = outcome::open;
        std::size_t i = 0;
        while (i < s.size() && out == outcome::open) {
            const std::string_view rest = s.substr(i);
            switch (place_) {
            case place::key: {
                const std::size_t read = string_bytes(rest, out);
                i += read;
                if (out == outcome::value) { // the key's closing quote
                    out = key_kept(key_start_, read_ + i - 1) ? outcome::open : outcome::doubt;
                }
                break;
            }
            case place::string: i += string_bytes(rest, out); break;
            case place::literal: i += literal_bytes(rest, out); break;
            case place::container: {
                unit_scan::outcome what = unit_scan::outcome::open;
                i += value_.feed(rest, what);
                out = what == unit_scan::outcome::closed  ? outcome::value
                      : what == unit_scan::outcome::doubt ? outcome::doubt
                                                          : outcome::open;
                break;
            }
            case place::number:
                while (i < s.size() && scalar_byte(s[i])) {
                    ++i;
                }
                out = i < s.size() ? outcome::value : outcome::open;
                break;
            default:
                i += between(rest, read_ + i, out);
                if (place_ == place::container && !opened_kept(s[i - 1] == '{')) {
                    out = outcome::doubt; // the value's bracket, just read
                }
                break;
            }
        }
        place_ = out == outcome::value ? place::after_value : place_;
        read_ += i;
        return i;
    }

    /// Where the last value began, in bytes read.
    [[nodiscard]] std::size_t value_start() const noexcept { return value_start_; }
    /// Whether the last key's text is its name: no escape, no byte >= 0x80.
    [[nodiscard]] bool key_plain() const noexcept { return !key_escaped_ && !key_high_; }
    /// How many bytes were read.
    [[nodiscard]] std::size_t read() const noexcept { return read_; }

private:
    enum class place : unsigned char {
        first,
        after_comma,
        after_value,
        key,
        colon,
        before_value,
        string,
        literal,
        number,
        container
    };

    /// Between tokens: whitespace, then one byte that decides. `at`: the bytes read before `s`.
    std::size_t between(std::string_view s, std::size_t at, outcome& out) noexcept {
        std::size_t i = blank_run(s);
        if (i == s.size()) {
            return i;
        }
        const char c = s[i++];
        const bool key_may_come = place_ == place::first || place_ == place::after_comma;
        if (c == '}' && (place_ == place::first || place_ == place::after_value)) {
            out = outcome::closed;
        } else if (c == ',' && place_ == place::after_value) {
            place_ = place::after_comma;
        } else if (c == '"' && key_may_come) {
            key_start_ = at + i - 1;
            key_escaped_ = false;
            key_high_ = false;
            place_ = place::key;
        } else if (c == ':' && place_ == place::colon) {
            place_ = place::before_value;
        } else if (place_ != place::before_value || !start_value(c)) {
            out = outcome::doubt;
        } else {
            value_start_ = at + i - 1;
        }
        return i;
    }

    bool start_value(char c) noexcept {
        if (c == '{' || c == '[') {
            value_ = unit_scan(room_);
            place_ = place::container;
        } else if (c == '"') {
            place_ = place::string;
        } else if (c == 't' || c == 'f' || c == 'n') {
            literal_ = literal_of(c);
            literal_at_ = 1;
            place_ = place::literal;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            place_ = place::number;
        } else {
            return false;
        }
        return true;
    }

    /// Inside a key or a string value: its bytes to its closing quote (`out` set to value, a
    /// key's too: feed judges it), each escape checked as the tokenizer checks it.
    std::size_t string_bytes(std::string_view s, outcome& out) noexcept {
        const bool key = place_ == place::key;
        std::size_t i = 0;
        while (i < s.size()) {
            const char c = s[i];
            if (hex_left_ > 0 || escape_) {
                if (hex_left_ > 0 ? hex_digit_value(c) < 0 : escape_letters.find(c) == std::string_view::npos) {
                    out = outcome::doubt;
                    return i + 1;
                }
                hex_left_ = hex_left_ > 0 ? hex_left_ - 1 : c == 'u' ? 4 : 0;
                escape_ = false;
                ++i;
                continue;
            }
            bool high = false;
            i += plain_run(s.substr(i), high);
            key_high_ = key_high_ || (key && high);
            if (i == s.size()) {
                break;
            }
            const char stop = s[i++];
            if (stop == '\\') {
                escape_ = true;
                key_escaped_ = key_escaped_ || key;
                continue;
            }
            // The closing quote, or a control byte (a doubt).
            out = stop != '"' ? outcome::doubt : outcome::value;
            place_ = key ? place::colon : place_;
            return i;
        }
        return i;
    }

    /// Inside true, false or null: its letters, each as the tokenizer checks it.
    std::size_t literal_bytes(std::string_view s, outcome& out) noexcept {
        std::size_t i = 0;
        while (i < s.size() && literal_at_ < literal_.size()) {
            if (s[i++] != literal_[literal_at_++]) {
                out = outcome::doubt;
                return i;
            }
        }
        if (literal_at_ == literal_.size()) {
            out = outcome::value;
        }
        return i;
    }

    std::size_t room_;
    place place_;
    unit_scan value_{0};
    std::string_view literal_;
    std::size_t literal_at_ = 0;
    std::size_t key_start_ = 0;
    std::size_t value_start_ = 0;
    std::size_t read_ = 0;
    unsigned hex_left_ = 0;
    bool escape_ = false;
    bool key_escaped_ = false;
    bool key_high_ = false;
};

} // namespace handoff::detail::stream
