// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/text.hpp>
#include <handoff/limits.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>    // move, min
#include <array>        // array
#include <cfloat>       // FLT_EVAL_METHOD
#include <charconv>     // from_chars
#include <clocale>      // localeconv
#include <cmath>        // isfinite
#include <cstddef>      // size_t
#include <cstdint>      // int64_t, uint64_t
#include <cstdlib>      // strtod
#include <cstring>      // memcpy
#include <iterator>     // back_inserter, make_move_iterator
#include <optional>     // optional
#include <string>       // string
#include <string_view>  // string_view
#include <system_error> // errc
#include <utility>      // move, forward
#include <vector>       // vector

namespace handoff::detail {

/// The fast path of step 1: a strict JSON reader over the reply's own bytes, for the common
/// case of a reply that is valid JSON within every parse_limits bound. It never diagnoses.
/// On anything else (a syntax error, a bound reached, a duplicate key, a number it would not
/// store exactly as nlohmann does) it *falls back*: `ok()` turns false and the caller runs the
/// diagnosing path (decode(): nlohmann's parser driving json_builder), whose problem says
/// exactly what is wrong. Giving way is always safe, so every rule here errs that way.
///
/// The contract, checked by tests/test_fast_path.cpp on JSONTestSuite, hostile inputs and
/// mutated envelopes: whatever this reader accepts, decode() accepts with an equal value.
///
/// Why not nlohmann's SAX interface: its lexer copies every token into a std::string and
/// reads one character at a time through an input adapter; reading in place is several times
/// faster, and for the envelope the typed fields never need a DOM at all.
class fast_json {
public:
    using json = nlohmann::json;

    /// Recursion depth at which the reader falls back whatever the limits say: it recurses
    /// per level, and json_builder (an explicit stack) is the one to handle deep input.
    static constexpr std::size_t max_recursion = 128;

    /// The largest capacity an array is given before its items are read.
    static constexpr std::size_t max_size_hint = 1024;

    fast_json(std::string_view text, const parse_limits& limits) noexcept
        : p_(text.data()), end_(text.data() + text.size()), limits_(&limits) {}

    /// Reads `text` next, under `limits` (which must outlive the reading); the sizes of the
    /// arrays read so far still give the next ones their capacity (a reader kept for many
    /// small texts).
    void reset(std::string_view text, const parse_limits& limits) noexcept {
        limits_ = &limits;
        p_ = text.data();
        end_ = text.data() + text.size();
        values_ = 0;
        level_ = 0;
        ok_ = true;
    }

    [[nodiscard]] bool ok() const noexcept { return ok_; }
    /// How many values were read so far, containers and the root included (as json_builder
    /// counts them against max_values).
    [[nodiscard]] std::size_t values() const noexcept { return values_; }

    /// Falls back to the diagnosing path, which decides and explains. Always returns false, for
    /// `return fall_back();`.
    bool fall_back() noexcept {
        ok_ = false;
        return false;
    }

    /// After the root value: only JSON whitespace may follow.
    [[nodiscard]] bool finish() noexcept {
        skip_ws();
        return ok_ && p_ == end_;
    }

    /// The next significant byte, or 0 at the end of the text.
    [[nodiscard]] char peek() noexcept {
        skip_ws();
        return p_ < end_ ? *p_ : '\0';
    }

    /// An object or an array being read: how many members or items so far.
    struct container {
        std::size_t items = 0;
    };

    /// Reads '{' (or '[') as the value at this position.
    bool begin_object(container& c) { return count_value() && begin('{', c); }
    bool begin_array(container& c) { return count_value() && begin('[', c); }

    /// The next key of the object `c` (escapes decoded), with its ':' read: true; at the
    /// closing '}': false with ok() still true; false with ok() false when falling back.
    bool next_key(container& c, std::string_view& key) {
        if (!next(c, '}')) {
            return false;
        }
        if (c.items > limits_->max_container_items || !expect('"')) {
            return fall_back();
        }
        if (!read_string_body(key_scratch_, key) || !expect(':')) {
            return fall_back();
        }
        return true;
    }

    /// Whether the array `c` has another item (its ',' read); false at ']' or falling back.
    bool next_item(container& c) {
        if (!next(c, ']')) {
            return false;
        }
        return c.items <= limits_->max_container_items || fall_back();
    }

    /// A string value. `scratch` holds it when it had escapes; `out` views the text or scratch.
    bool read_string(std::string& scratch, std::string_view& out) {
        if (!count_value() || !expect('"')) {
            return fall_back();
        }
        return read_string_body(scratch, out) || fall_back();
    }

    bool read_string(std::string& out) {
        std::string_view view;
        if (!read_string(out, view)) {
            return false;
        }
        if (view.data() != out.data()) {
            out.assign(view.data(), view.size());
        }
        return true;
    }

    bool read_bool(bool& out) {
        if (!count_value()) {
            return false;
        }
        skip_ws();
        if (literal("true")) {
            out = true;
            return true;
        }
        if (literal("false")) {
            out = false;
            return true;
        }
        return fall_back();
    }

    /// `null` when it is next: true and consumed; otherwise false, nothing consumed.
    bool read_null_if_next() {
        if (peek() != 'n') {
            return false;
        }
        return count_value() && (literal("null") || fall_back());
    }

    /// A number as nlohmann stores it: unsigned for integers >= 0, signed for negative ones,
    /// double when there is a fraction or an exponent.
    bool read_number(json& out) {
        if (!count_value()) {
            return false;
        }
        skip_ws();
        return number(replace_in{out});
    }

    /// Any value, built as the DOM nlohmann would build.
    bool read_value(json& out) { return count_value() && value(out); }

    /// The first byte at or after `p` that a string body must look at ('"', '\\', a control
    /// character, a byte of a multi-byte sequence), eight bytes at a time: strings are most
    /// of a reply, and most of their bytes are plain ASCII.
    static const char* skip_plain(const char* p, const char* end) noexcept {
        constexpr std::uint64_t ones = 0x0101010101010101ULL;
        constexpr std::uint64_t high = 0x8080808080808080ULL;
        while (end - p >= 8) {
            std::uint64_t x = 0;
            std::memcpy(&x, p, sizeof x);
            const std::uint64_t quote = x ^ (ones * static_cast<unsigned char>('"'));
            const std::uint64_t backslash = x ^ (ones * static_cast<unsigned char>('\\'));
            // A byte is zero in `quote` or `backslash`, below 0x20, or has its high bit set.
            const std::uint64_t special =
                ((quote - ones) & ~quote) | ((backslash - ones) & ~backslash) | (x - ones * 0x20U) | x;
            if ((special & high) != 0) {
                // The lowest flagged byte is special for sure: a borrow only flags bytes above one.
                return p + first_flagged_byte(special & high);
            }
            p += 8;
        }
        return p;
    }

    /// The index in memory of the lowest flagged byte of a word read by memcpy, where the first
    /// byte is the lowest (little endian) and the compiler counts trailing zeros; elsewhere 0,
    /// which leaves the flagged byte to the byte-by-byte loop.
    static std::size_t first_flagged_byte(std::uint64_t flagged) noexcept {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        return static_cast<std::size_t>(__builtin_ctzll(flagged)) / 8U;
#else
        static_cast<void>(flagged);
        return 0;
#endif
    }

private:
    /// Past JSON whitespace. Every byte of it is at most ' ', so most calls, at a token, stop
    /// on one comparison.
    void skip_ws() noexcept {
        while (p_ < end_ && static_cast<unsigned char>(*p_) <= ' ' &&
               (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) {
            ++p_;
        }
    }

    bool expect(char c) noexcept {
        skip_ws();
        if (p_ < end_ && *p_ == c) {
            ++p_;
            return true;
        }
        return false;
    }

    bool literal(std::string_view word) noexcept {
        if (static_cast<std::size_t>(end_ - p_) >= word.size() && std::string_view(p_, word.size()) == word) {
            p_ += word.size();
            return true;
        }
        return false;
    }

    /// json_builder counts every value, containers included, and fails past max_values.
    bool count_value() noexcept { return ++values_ <= limits_->max_values || fall_back(); }

    bool begin(char open, container& c) {
        if (!expect(open)) {
            return fall_back();
        }
        // json_builder refuses a container opened when max_depth are already open.
        if (++level_ > limits_->max_depth || level_ > max_recursion) {
            return fall_back();
        }
        c.items = 0;
        return true;
    }

    /// Reads ',' before a further member or item, or the closing byte. Counts the member.
    bool next(container& c, char close) {
        if (!ok_) {
            return false;
        }
        skip_ws();
        if (p_ < end_ && *p_ == close) {
            ++p_;
            --level_;
            return false;
        }
        if (c.items > 0 && !expect(',')) {
            return fall_back();
        }
        ++c.items;
        return true;
    }

    bool hex4(unsigned& out) noexcept {
        const std::optional<std::uint32_t> v =
            four_hex_digits(std::string_view(p_, static_cast<std::size_t>(end_ - p_)));
        if (!v) {
            return false;
        }
        out = *v;
        p_ += 4;
        return true;
    }

    /// After the opening quote. Without escapes `out` views the text itself (no copy).
    /// Refuses what nlohmann refuses: raw control characters, ill-formed UTF-8, bad escapes
    /// and unpaired surrogates. The size bound is json_builder's, after unescaping.
    bool read_string_body(std::string& scratch, std::string_view& out) {
        const char* start = p_;
        p_ = skip_plain(p_, end_);
        while (p_ < end_) {
            const auto c = static_cast<unsigned char>(*p_);
            if (c == '"') {
                out = std::string_view(start, static_cast<std::size_t>(p_ - start));
                ++p_;
                return out.size() <= limits_->max_string_bytes;
            }
            if (c == '\\') {
                scratch.assign(start, static_cast<std::size_t>(p_ - start));
                return read_escaped(scratch, out);
            }
            if (c < 0x20U) {
                return false;
            }
            if (c < 0x80U) {
                ++p_;
                continue;
            }
            const std::size_t n = utf8_sequence_length(std::string_view(p_, static_cast<std::size_t>(end_ - p_)));
            if (n == 0) {
                return false;
            }
            p_ += n;
        }
        return false;
    }

    /// The rest of a string that has an escape, unescaped into `s` (which holds what came
    /// before); `out` views `s`.
    bool read_escaped(std::string& s, std::string_view& out) {
        while (p_ < end_) {
            const auto c = static_cast<unsigned char>(*p_);
            if (c == '"') {
                ++p_;
                out = s;
                return s.size() <= limits_->max_string_bytes;
            }
            if (c < 0x20U) {
                return false;
            }
            if (c >= 0x80U) {
                const std::size_t n = utf8_sequence_length(std::string_view(p_, static_cast<std::size_t>(end_ - p_)));
                if (n == 0) {
                    return false;
                }
                s.append(p_, n);
                p_ += n;
                continue;
            }
            if (c != '\\') {
                s.push_back(static_cast<char>(c));
                ++p_;
                continue;
            }
            ++p_;
            if (!unescape(s)) {
                return false;
            }
        }
        return false;
    }

    /// After a backslash: the escape it starts, appended to `s`; false for one JSON lacks.
    bool unescape(std::string& s) {
        if (p_ == end_) {
            return false;
        }
        switch (*p_++) {
        case '"': s.push_back('"'); return true;
        case '\\': s.push_back('\\'); return true;
        case '/': s.push_back('/'); return true;
        case 'b': s.push_back('\b'); return true;
        case 'f': s.push_back('\f'); return true;
        case 'n': s.push_back('\n'); return true;
        case 'r': s.push_back('\r'); return true;
        case 't': s.push_back('\t'); return true;
        case 'u': return unicode_escape(s);
        default: return false;
        }
    }

    /// After a backslash and "u": four hex digits, and after a high surrogate the escaped low
    /// surrogate that must follow it; the code point appended to `s` as UTF-8. A lone
    /// surrogate is refused.
    bool unicode_escape(std::string& s) {
        unsigned cp = 0;
        if (!hex4(cp) || (cp >= 0xDC00U && cp <= 0xDFFFU)) {
            return false;
        }
        if (cp >= 0xD800U && cp <= 0xDBFFU) {
            unsigned low = 0;
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') {
                return false;
            }
            p_ += 2;
            if (!hex4(low) || low < 0xDC00U || low > 0xDFFFU) {
                return false;
            }
            cp = 0x10000U + ((cp - 0xD800U) << 10U) + (low - 0xDC00U);
        }
        append_utf8(s, static_cast<char32_t>(cp));
        return true;
    }

    static bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

    /// One number token, read in one pass as JSON's grammar reads it: where it starts, and its
    /// digits as one integer with the power of ten that scales them.
    struct number_token {
        const char* start = nullptr;
        bool negative = false;
        bool integer = true;        // neither a fraction nor an exponent
        std::uint64_t mantissa = 0; // every digit, leading zeros included, while there are at most 19
        int digits = 0;             // how many digits the integer and fraction parts have
        int scale = 0;              // the exponent written, less the fraction's digits
        bool short_exponent = true; // an exponent of at most two digits (or none)
    };

    /// JSON's number grammar exactly; integers are exact or fall back (json_builder refuses
    /// integers beyond 64 bits), doubles are correctly rounded like nlohmann's strtod. The
    /// number goes to `put` (see value_with).
    template <class Put>
    bool number(Put&& put) {
        number_token token;
        if (!scan_number(token)) {
            return fall_back();
        }
        return token.integer ? integer_value(token, put) : double_value(token, put);
    }

    /// Moves past one number token; false where the grammar is broken.
    bool scan_number(number_token& token) noexcept {
        token.start = p_;
        token.negative = p_ < end_ && *p_ == '-';
        if (token.negative) {
            ++p_;
        }
        if (p_ == end_ || !is_digit(*p_)) {
            return false;
        }
        if (*p_ == '0') { // a leading zero stands alone
            ++p_;
            token.digits = 1;
        } else {
            read_digits(token);
        }
        if (p_ < end_ && *p_ == '.') {
            ++p_;
            const int before = token.digits;
            if (!read_digits(token)) {
                return false;
            }
            token.scale = before - token.digits;
            token.integer = false;
        }
        return p_ == end_ || (*p_ != 'e' && *p_ != 'E') || scan_exponent(token);
    }

    /// Digits from here on, added to the token's mantissa; false when there is none.
    bool read_digits(number_token& token) noexcept {
        // In locals: the loop then keeps them in registers, not in the reader's members.
        const char* p = p_;
        const char* const end = end_;
        std::uint64_t mantissa = token.mantissa;
        int digits = token.digits;
        for (; p < end; ++p) {
            const unsigned digit = static_cast<unsigned>(static_cast<unsigned char>(*p)) - unsigned{'0'};
            if (digit > 9U) {
                break;
            }
            if (++digits <= 19) { // 19 digits always fit in 64 bits
                mantissa = mantissa * 10U + digit;
            }
        }
        const bool any = p != p_;
        p_ = p;
        token.mantissa = mantissa;
        token.digits = digits;
        return any;
    }

    /// At 'e' or 'E': the exponent, its sign and at least one digit.
    bool scan_exponent(number_token& token) noexcept {
        ++p_;
        const bool minus = p_ < end_ && *p_ == '-';
        if (p_ < end_ && (*p_ == '+' || *p_ == '-')) {
            ++p_;
        }
        const char* first = p_;
        int e = 0;
        for (; p_ < end_ && is_digit(*p_); ++p_) {
            e = p_ - first < 3 ? e * 10 + (*p_ - '0') : e;
        }
        token.short_exponent = p_ - first <= 2;
        token.scale += minus ? -e : e;
        token.integer = false;
        return p_ != first;
    }

    /// An integer as nlohmann stores it: unsigned when >= 0, signed when negative.
    template <class Put>
    bool integer_value(const number_token& token, Put&& put) {
        if (token.digits > 19) { // rare enough to fall back
            return fall_back();
        }
        const std::uint64_t v = token.mantissa;
        if (!token.negative) {
            put(static_cast<json::number_unsigned_t>(v));
        } else if (v <= static_cast<std::uint64_t>(INT64_MAX)) {
            put(static_cast<json::number_integer_t>(-static_cast<std::int64_t>(v)));
        } else {
            return fall_back();
        }
        return true;
    }

    /// The token, which ends at the reader's position, as a double.
    template <class Put>
    bool double_value(const number_token& token, Put&& put) {
        double d = 0.0;
        if (!exact_double(token, d) && (!to_double(token.start, p_, d) || !std::isfinite(d))) {
            return fall_back(); // overflow fails, underflow passes, in decode(): let it say which
        }
        put(static_cast<json::number_float_t>(d));
        return true;
    }

    /// Clinger's fast path: a token of at most 15 digits (so its mantissa m is below 2^53) and
    /// a decimal scale e with |e| <= 22 is m * 10^e or m / 10^-e of two exact doubles, one
    /// correctly rounded operation: the double from_chars reads. False for any other token.
    static bool exact_double(const number_token& token, double& out) noexcept {
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
        // One correctly rounded operation needs double arithmetic evaluated as double (not x87's
        // extended precision): elsewhere from_chars reads every number.
        static_cast<void>(token);
        static_cast<void>(out);
        return false;
#endif
        static constexpr double powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                            1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
        if (token.digits > 15 || !token.short_exponent || token.scale < -22 || token.scale > 22) {
            return false;
        }
        const auto mantissa = static_cast<double>(token.mantissa);
        out = token.scale < 0 ? mantissa / powers[-token.scale] : mantissa * powers[token.scale];
        out = token.negative ? -out : out;
        return true;
    }

    static bool to_double(const char* first, const char* last, double& out) {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
        const auto r = std::from_chars(first, last, out);
        return r.ec == std::errc() && r.ptr == last;
#else
        // strtod reads the C locale's decimal point, as nlohmann's lexer arranges for too.
        std::string token(first, last);
        const char point = *std::localeconv()->decimal_point;
        for (char& c : token) {
            c = c == '.' ? point : c;
        }
        char* stop = nullptr;
        out = std::strtod(token.c_str(), &stop);
        return stop == token.c_str() + token.size() && out != 0.0; // 0 may be an underflow: fall back
#endif
    }

    /// A `put` for value_with that makes `out` the value read: the value is built once and
    /// swapped in, so no temporary is left to destroy but the one `out` held.
    struct replace_in {
        json& out;
        template <class V>
        json& operator()(V&& v) const {
            json made(std::forward<V>(v));
            out.swap(made);
            return out;
        }
    };

    bool value(json& out) { return value_with(replace_in{out}); }

    /// Reads one value and hands it to `put`, which constructs it where it belongs (in place at
    /// the end of an array's items, or into a member): a scalar from its C++ value, a container
    /// empty from its value_t, then filled where it stands.
    template <class Put>
    bool value_with(Put&& put) {
        skip_ws();
        if (p_ == end_) {
            return fall_back();
        }
        switch (*p_) {
        case '{': return object_value(put(json::value_t::object));
        case '[': return array_value(put(json::value_t::array));
        case '"': return string_value(put);
        case 't': return literal("true") ? (put(true), true) : fall_back();
        case 'f': return literal("false") ? (put(false), true) : fall_back();
        case 'n': return literal("null") ? (put(nullptr), true) : fall_back();
        default: return number(put);
        }
    }

    /// Fills `out`, an empty object.
    bool object_value(json& out) {
        container c;
        if (!begin('{', c)) {
            return false;
        }
        auto& members = *out.get_ptr<json::object_t*>();
        std::string_view key;
        while (next_key(c, key)) {
            const auto [it, inserted] = members.try_emplace(std::string(key));
            if (!inserted) {
                return fall_back(); // a duplicate key: json_builder names it
            }
            if (!count_value() || !value(it->second)) {
                return false;
            }
        }
        return ok_;
    }

    /// Fills `out`, an empty array.
    bool array_value(json& out) {
        container c;
        if (!begin('[', c)) {
            return false;
        }
        // Arrays at one depth of a reply mostly share a size (a table's rows, a tuple's
        // positions): once one was read there, the next is given that capacity and built in
        // place. The first, and any that outgrows it, goes through this level's scratch vector
        // and moves into an array allocated once at its final size: no growth, no copies.
        std::size_t& hint = size_hints_[level_];
        auto& items = *out.get_ptr<json::array_t*>();
        if (hint != 0) {
            items.reserve(hint);
        }
        std::vector<json>& pending = scratch()[level_];
        pending.clear();
        const release_on_exit release{pending}; // also when falling back midway
        const auto put = [&items, &pending](auto&& v) -> json& {
            if (pending.empty() && items.size() < items.capacity()) {
                return items.emplace_back(std::forward<decltype(v)>(v));
            }
            if (pending.empty()) { // the reserved capacity is full: it and the rest go through scratch
                std::move(items.begin(), items.end(), std::back_inserter(pending));
                items.clear();
            }
            return pending.emplace_back(std::forward<decltype(v)>(v));
        };
        while (next_item(c)) {
            if (!count_value() || !value_with(put)) {
                return false;
            }
        }
        if (!ok_) {
            return false;
        }
        if (!pending.empty()) {
            json::array_t(std::make_move_iterator(pending.begin()), std::make_move_iterator(pending.end())).swap(items);
        } else if (items.capacity() > 2 * items.size() + 8) {
            items.shrink_to_fit(); // a hint far above this array's size holds no memory
        }
        hint = std::min(items.size(), max_size_hint);
        return true;
    }

    template <class Put>
    bool string_value(Put&& put) {
        ++p_;
        std::string_view s;
        if (!read_string_body(key_scratch_, s)) {
            return fall_back();
        }
        put(s); // the string is built once, in place
        return true;
    }

    /// Empties a level's scratch vector when its array is done or abandoned, so a thread keeps
    /// no values of a reply after it, and gives back the memory of an unusually long array.
    struct release_on_exit {
        std::vector<json>& pending;
        explicit release_on_exit(std::vector<json>& level) noexcept : pending(level) {}
        release_on_exit(const release_on_exit&) = delete;
        release_on_exit& operator=(const release_on_exit&) = delete;
        ~release_on_exit() {
            if (pending.capacity() > 1024) {
                std::vector<json>().swap(pending);
            } else {
                pending.clear();
            }
        }
    };

    /// One vector per nesting level, kept by the thread between replies; the recursion bound
    /// sizes it once, so a reference to one level stays valid while deeper levels are read.
    static std::vector<std::vector<json>>& scratch() {
        thread_local std::vector<std::vector<json>> levels(max_recursion + 1);
        return levels;
    }

    const char* p_;
    const char* end_;
    const parse_limits* limits_;
    std::size_t values_ = 0;
    std::size_t level_ = 0;
    /// Per nesting level, the size of the last array read there (bounded by max_size_hint).
    std::array<std::size_t, max_recursion + 1> size_hints_{};
    bool ok_ = true;
    std::string key_scratch_;
};

} // namespace handoff::detail
