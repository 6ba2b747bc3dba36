// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/stream/lent_buffer.hpp>
#include <handoff/detail/text.hpp> // hex_digit_value

#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff::detail::stream {

/// How many bytes at the start of `s` are JSON whitespace.
inline std::size_t blank_run(std::string_view s) noexcept {
    std::size_t n = 0;
    while (n < s.size() && (s[n] == ' ' || s[n] == '\n' || s[n] == '\t' || s[n] == '\r')) {
        ++n;
    }
    return n;
}

/// How many bytes at the start of `s` are decimal digits.
inline std::size_t digit_run(std::string_view s) noexcept {
    std::size_t n = 0;
    while (n < s.size() && s[n] >= '0' && s[n] <= '9') {
        ++n;
    }
    return n;
}

/// The bytes JSON's numbers are written with, and the letters of true, false and null.
inline constexpr std::string_view number_bytes = "-+.eE0123456789";
inline constexpr std::string_view literal_letters = "truefalsn";

/// A set of bytes (the union of up to two lists), each looked up in one step.
class byte_set {
public:
    constexpr explicit byte_set(std::string_view bytes, std::string_view more = {}) {
        for (const std::string_view list : {bytes, more}) {
            for (const char c : list) {
                of_[static_cast<unsigned char>(c)] = true;
            }
        }
    }
    constexpr bool operator()(char c) const noexcept { return of_[static_cast<unsigned char>(c)]; }

private:
    bool of_[256] = {};
};

/// Whether a byte may be part of a number, and of a number or a literal.
inline constexpr byte_set number_byte{number_bytes};
inline constexpr byte_set scalar_byte{number_bytes, literal_letters};

/// The letters a backslash may precede in a JSON string.
inline constexpr std::string_view escape_letters = "\"\\/bfnrtu";

/// The literal a JSON value beginning with `first` must be (true, false or null), or empty when
/// no literal begins so.
inline std::string_view literal_of(char first) noexcept {
    return first == 't' ? "true" : first == 'f' ? "false" : first == 'n' ? "null" : std::string_view();
}

/// The bytes that end a run of a string's plain bytes: its closing quote, an escape, a
/// control byte (which must be escaped).
struct string_stops {
    bool stop[256] = {};
    constexpr string_stops() {
        for (int c = 0; c < 0x20; ++c) {
            stop[c] = true;
        }
        stop[static_cast<unsigned char>('"')] = true;
        stop[static_cast<unsigned char>('\\')] = true;
    }
};
inline constexpr string_stops string_stop_bytes{};

/// How many bytes at the start of `s` a string may hold as they are; `high` set when one of
/// them is >= 0x80.
inline std::size_t plain_run(std::string_view s, bool& high) noexcept {
    std::size_t n = 0;
    unsigned any = 0;
    while (n < s.size() && !string_stop_bytes.stop[static_cast<unsigned char>(s[n])]) {
        any |= static_cast<unsigned char>(s[n]);
        ++n;
    }
    high = (any & 0x80U) != 0;
    return n;
}

/// What one byte finished, opened or closed in the JSON text. Offsets count in the whole reply.
enum class token_kind : std::uint8_t { open_object, open_array, close_object, close_array, key, scalar };

/// The kinds of scalar, so a reader need not look at the bytes again.
enum class scalar_kind : std::uint8_t { string, number, literal };

/// One token: for a key or a scalar, [start, end) is its text (a string with its quotes).
struct token {
    token_kind kind = token_kind::scalar;
    scalar_kind scalar = scalar_kind::literal;
    std::size_t start = 0;
    std::size_t end = 0;
    /// A string with a backslash in it: its text is not its value.
    bool escaped = false;
    /// A string with a byte >= 0x80 in it: UTF-8 its reader must check.
    bool high = false;
};

/// An incremental JSON tokenizer (RFC 8259 grammar): one byte at a time, any chunking, state
/// bounded by the nesting depth. It checks the grammar only; string contents (UTF-8, surrogate
/// pairs) and number ranges are left to nlohmann's parser, which reads every text in the end,
/// so the tokenizer never refuses a text that parser accepts.
class tokenizer {
public:
    /// A byte completes at most two tokens: a number it ends, and its own bracket.
    static constexpr std::size_t max_tokens_per_byte = 2;

    /// Reads byte `c` at `offset`; writes the tokens it completes to `out` and returns how
    /// many. failed() turns true at the first byte no JSON text can continue with.
    std::size_t feed(char c, std::size_t offset, token* out) {
        std::size_t n = 0;
        if (in_number()) {
            if (continue_number(c)) {
                return 0;
            }
            if (!number_can_end()) {
                return fail();
            }
            out[n++] = token{token_kind::scalar, scalar_kind::number, start_, offset, false};
            value_done();
        }
        if (state_ == state::string || state_ == state::escape || state_ == state::unicode) {
            return n + string_byte(c, offset, out + n);
        }
        if (state_ == state::literal) {
            return n + literal_byte(c, offset, out + n);
        }
        return n + structural(c, offset, out + n);
    }

    [[nodiscard]] bool failed() const noexcept { return state_ == state::failed; }
    /// Inside a number's digits, where one more digit leaves the state as it is.
    [[nodiscard]] bool in_digits() const noexcept {
        return state_ == state::integer || state_ == state::fraction || state_ == state::exponent;
    }
    /// Inside a literal (true, false, null): passes over the bytes at the start of `s` that
    /// continue it, all but its last (whose byte completes the token); returns how many.
    std::size_t literal_run(std::string_view s) noexcept {
        if (state_ != state::literal) {
            return 0;
        }
        std::size_t n = 0;
        while (n < s.size() && literal_at_ + 1 < literal_.size() && s[n] == literal_[literal_at_]) {
            ++literal_at_;
            ++n;
        }
        return n;
    }
    /// How many bytes at the start of `s` change nothing but the offset: a string's up to its
    /// quote, escape or control byte, whitespace between tokens, a number's digits, a
    /// literal's bytes but its last. They are passed over.
    std::size_t skip_run(std::string_view s) noexcept {
        if (state_ == state::string) {
            bool high = false;
            const std::size_t n = plain_run(s, high);
            high_ = high_ || high;
            return n;
        }
        return between_tokens() ? blank_run(s) : in_digits() ? digit_run(s) : literal_run(s);
    }

    /// The container just opened (no byte read since its bracket) is complete: the state
    /// feeding its valid text, to its closing bracket, would leave.
    void skip_container() noexcept {
        stack_.get().pop_back();
        value_done();
    }

    /// The container just opened (no byte read since its bracket) had values read elsewhere,
    /// the last one complete: the state feeding their text would leave.
    void value_skipped() noexcept { value_done(); }

    /// Reads the bytes of `s` (at `offset` in the reply) as feed() does, handing each token to
    /// `sink`, until a byte fails, the root value completes, or `sink` returns false; returns
    /// how many bytes were read (that last one included).
    template <class Sink>
    std::size_t run(std::string_view s, std::size_t offset, Sink&& sink) {
        token out[max_tokens_per_byte];
        std::size_t i = 0;
        while (i < s.size()) {
            i += skip_run(s.substr(i));
            if (i == s.size()) {
                break;
            }
            const std::size_t n = feed(s[i], offset + i, out);
            ++i;
            for (std::size_t k = 0; k < n; ++k) {
                if (!sink(out[k])) {
                    return i;
                }
            }
            if (state_ == state::failed || state_ == state::done) {
                return i;
            }
        }
        return i;
    }
    /// Between tokens (no string, number or literal open): whitespace changes nothing.
    [[nodiscard]] bool between_tokens() const noexcept { return state_ <= state::after_value || state_ == state::done; }
    /// The root value is complete: what follows it is not JSON of this value.
    [[nodiscard]] bool done() const noexcept { return state_ == state::done; }
    /// Containers open now (the root object counts one).
    [[nodiscard]] std::size_t depth() const noexcept { return stack_.get().size(); }
    /// Whether the innermost open container is an array.
    [[nodiscard]] bool in_array() const noexcept {
        return !stack_.get().empty() && stack_.get().back() == container::array;
    }

private:
    enum class container : std::uint8_t { object, array };
    enum class state : std::uint8_t {
        value,        // a value must come
        array_first,  // a value or ']'
        object_first, // a key or '}'
        object_key,   // a key
        colon,        // ':'
        after_value,  // ',' or the container's close
        string,
        escape,
        unicode,
        literal,
        minus,      // '-' read
        zero,       // a leading 0
        integer,    // digits
        fraction0,  // '.' read
        fraction,   // digits after '.'
        exponent0,  // 'e' read
        exponent_s, // sign after 'e'
        exponent,   // digits after 'e'
        done,
        failed,
    };

    static bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
    static bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

    std::size_t fail() noexcept {
        state_ = state::failed;
        return 0;
    }

    [[nodiscard]] bool in_number() const noexcept { return state_ >= state::minus && state_ <= state::exponent; }
    [[nodiscard]] bool number_can_end() const noexcept {
        return state_ == state::zero || state_ == state::integer || state_ == state::fraction ||
               state_ == state::exponent;
    }

    /// One more byte of a number, or false when `c` is not part of it.
    bool continue_number(char c) noexcept {
        const bool digit = is_digit(c);
        switch (state_) {
        case state::minus: state_ = c == '0' ? state::zero : digit ? state::integer : state::failed; return true;
        case state::zero:
        case state::integer:
            if (digit && state_ == state::integer) {
                return true;
            }
            if (c == '.') {
                state_ = state::fraction0;
                return true;
            }
            if (c == 'e' || c == 'E') {
                state_ = state::exponent0;
                return true;
            }
            return false;
        case state::fraction0: state_ = digit ? state::fraction : state::failed; return true;
        case state::fraction:
            if (c == 'e' || c == 'E') {
                state_ = state::exponent0;
                return true;
            }
            return digit;
        case state::exponent0:
            state_ = (c == '+' || c == '-') ? state::exponent_s : digit ? state::exponent : state::failed;
            return true;
        case state::exponent_s: state_ = digit ? state::exponent : state::failed; return true;
        case state::exponent: return digit;
        default: return false;
        }
    }

    std::size_t string_byte(char c, std::size_t offset, token* out) {
        const auto u = static_cast<unsigned char>(c);
        if (state_ == state::escape) {
            if (escape_letters.find(c) == std::string_view::npos) {
                return fail();
            }
            state_ = c == 'u' ? state::unicode : state::string;
            hex_left_ = 4;
            return 0;
        }
        if (state_ == state::unicode) {
            if (hex_digit_value(c) < 0) {
                return fail();
            }
            state_ = --hex_left_ == 0 ? state::string : state::unicode;
            return 0;
        }
        if (u < 0x20) {
            return fail(); // control characters must be escaped
        }
        if (u >= 0x80) {
            high_ = true;
        }
        if (c == '\\') {
            escaped_ = true;
            state_ = state::escape;
            return 0;
        }
        if (c != '"') {
            return 0;
        }
        out[0] = token{
            key_ ? token_kind::key : token_kind::scalar, scalar_kind::string, start_, offset + 1, escaped_, high_};
        if (key_) {
            state_ = state::colon;
        } else {
            value_done();
        }
        return 1;
    }

    std::size_t literal_byte(char c, std::size_t offset, token* out) {
        if (c != literal_[literal_at_]) {
            return fail();
        }
        if (++literal_at_ < literal_.size()) {
            return 0;
        }
        out[0] = token{token_kind::scalar, scalar_kind::literal, start_, offset + 1, false};
        value_done();
        return 1;
    }

    std::size_t structural(char c, std::size_t offset, token* out) {
        if (is_space(c) || state_ == state::failed) {
            return 0;
        }
        switch (state_) {
        case state::value:
        case state::array_first:
            if (c == ']' && state_ == state::array_first) {
                return close(container::array, offset, out);
            }
            return begin_value(c, offset, out);
        case state::object_first:
        case state::object_key:
            if (c == '}' && state_ == state::object_first) {
                return close(container::object, offset, out);
            }
            return c == '"' ? begin_string(true, offset) : fail();
        case state::colon: state_ = c == ':' ? state::value : state::failed; return 0;
        case state::after_value:
            if (c == ',') {
                state_ = in_array() ? state::value : state::object_key;
                return 0;
            }
            if (c == ']' || c == '}') {
                return close(c == ']' ? container::array : container::object, offset, out);
            }
            return fail();
        default: return fail(); // done: nothing but whitespace may follow the root value
        }
    }

    std::size_t begin_value(char c, std::size_t offset, token* out) {
        start_ = offset;
        if (c == '{' || c == '[') {
            const bool object = c == '{';
            stack_.get().push_back(object ? container::object : container::array);
            state_ = object ? state::object_first : state::array_first;
            out[0] = token{object ? token_kind::open_object : token_kind::open_array, scalar_kind::literal, offset,
                           offset + 1, false};
            return 1;
        }
        if (c == '"') {
            return begin_string(false, offset);
        }
        if (c == '-' || is_digit(c)) {
            state_ = c == '-' ? state::minus : c == '0' ? state::zero : state::integer;
            return 0;
        }
        literal_ = literal_of(c);
        if (literal_.empty()) {
            return fail();
        }
        literal_at_ = 1;
        state_ = state::literal;
        return 0;
    }

    std::size_t begin_string(bool key, std::size_t offset) {
        start_ = offset;
        key_ = key;
        escaped_ = false;
        high_ = false;
        state_ = state::string;
        return 0;
    }

    std::size_t close(container kind, std::size_t offset, token* out) {
        std::vector<container>& open = stack_.get();
        if (open.empty() || open.back() != kind) {
            return fail();
        }
        open.pop_back();
        out[0] = token{kind == container::object ? token_kind::close_object : token_kind::close_array,
                       scalar_kind::literal, offset, offset + 1, false};
        value_done();
        return 1;
    }

    void value_done() noexcept { state_ = stack_.get().empty() ? state::done : state::after_value; }

    /// The containers open, outermost first; lent by the thread (lent_buffer), so that replies
    /// checked one after another on it grow one stack once.
    lent_buffer<std::vector<container>, 256> stack_;
    state state_ = state::value;
    std::size_t start_ = 0;
    std::string_view literal_;
    std::size_t literal_at_ = 0;
    unsigned hex_left_ = 0;
    bool key_ = false;
    bool escaped_ = false;
    bool high_ = false;
};

} // namespace handoff::detail::stream
