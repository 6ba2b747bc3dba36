// SPDX-License-Identifier: MIT
#pragma once

// Exact arithmetic on nlohmann's three number types (int64, uint64, double): comparisons never
// round an integer to a double (9223372036854775808 is above 9223372036854775807), and
// multipleOf is decided in base 10, on the shortest decimal that reads back as each double
// (what the author wrote, for any literal a double holds), so 0.0075 is a multiple of 0.0001.

#include <nlohmann/json.hpp>

#include <cmath>   // floor, isfinite
#include <cstddef> // size_t
#include <cstdint> // int64_t, uint64_t
#include <limits>  // numeric_limits
#include <string>  // string

namespace handoff::detail {

/// A double as nlohmann's dump writes it: the shortest decimal that reads back as it ("1.0" for
/// a whole number, an exponent past 1e15), null for NaN and the infinities.
inline void append_json_double(std::string& out, double d) { out += nlohmann::json(d).dump(); }

/// -1, 0 or 1 as a <, == or > b; both are numbers. NaN never reaches here (the parser refuses it).
[[nodiscard]] inline int compare_numbers(const nlohmann::json& a, const nlohmann::json& b);

namespace number_detail {

template <class T>
[[nodiscard]] int three_way(T a, T b) noexcept {
    return a < b ? -1 : (b < a ? 1 : 0);
}

/// An integer against a double, exactly: 2^63 and 2^64 are exact doubles, so the range tests
/// are exact, and inside the range floor(d) converts without loss.
[[nodiscard]] inline int compare_int_double(std::int64_t i, double d) noexcept {
    if (d >= 9223372036854775808.0) {
        return -1;
    }
    if (d < -9223372036854775808.0) {
        return 1;
    }
    const double f = std::floor(d);
    const auto t = static_cast<std::int64_t>(f);
    if (i != t) {
        return three_way(i, t);
    }
    return d > f ? -1 : 0;
}

[[nodiscard]] inline int compare_uint_double(std::uint64_t u, double d) noexcept {
    if (d >= 18446744073709551616.0) {
        return -1;
    }
    if (d < 0) {
        return 1;
    }
    const double f = std::floor(d);
    const auto t = static_cast<std::uint64_t>(f);
    if (u != t) {
        return three_way(u, t);
    }
    return d > f ? -1 : 0;
}

[[nodiscard]] inline int compare_int_uint(std::int64_t i, std::uint64_t u) noexcept {
    return i < 0 ? -1 : three_way(static_cast<std::uint64_t>(i), u);
}

} // namespace number_detail

inline int compare_numbers(const nlohmann::json& a, const nlohmann::json& b) {
    using namespace number_detail;
    using vt = nlohmann::json::value_t;
    const vt ta = a.type();
    const vt tb = b.type();
    const auto i = [](const nlohmann::json& j) { return j.get_ref<const std::int64_t&>(); };
    const auto u = [](const nlohmann::json& j) { return j.get_ref<const std::uint64_t&>(); };
    const auto d = [](const nlohmann::json& j) { return j.get_ref<const double&>(); };
    if (ta == vt::number_float) {
        if (tb == vt::number_float) {
            return three_way(d(a), d(b));
        }
        return -(tb == vt::number_integer ? compare_int_double(i(b), d(a)) : compare_uint_double(u(b), d(a)));
    }
    if (tb == vt::number_float) {
        return ta == vt::number_integer ? compare_int_double(i(a), d(b)) : compare_uint_double(u(a), d(b));
    }
    if (ta == vt::number_integer) {
        return tb == vt::number_integer ? three_way(i(a), i(b)) : compare_int_uint(i(a), u(b));
    }
    return tb == vt::number_unsigned ? three_way(u(a), u(b)) : -compare_int_uint(i(b), u(a));
}

/// A schema's number bound, read once: the value as written and, when a double holds that value
/// exactly (any double; an integer of magnitude up to 2^53), that double, so that the common
/// comparison is one comparison of doubles.
struct number_bound {
    nlohmann::json value;
    double exact = 0.0;
    bool has_exact = false;
};

/// Magnitude up to which every integer is a double exactly.
inline constexpr std::uint64_t exact_double_integers = std::uint64_t{1} << 53U;

/// `j` (a number) as a double when that double is exactly its value.
[[nodiscard]] inline bool exact_double_of(const nlohmann::json& j, double& out) noexcept {
    switch (j.type()) {
    case nlohmann::json::value_t::number_float: out = *j.get_ptr<const double*>(); return true;
    case nlohmann::json::value_t::number_unsigned: {
        const std::uint64_t u = *j.get_ptr<const std::uint64_t*>();
        out = static_cast<double>(u);
        return u <= exact_double_integers;
    }
    case nlohmann::json::value_t::number_integer: {
        const std::int64_t i = *j.get_ptr<const std::int64_t*>();
        out = static_cast<double>(i);
        return i >= -static_cast<std::int64_t>(exact_double_integers) &&
               i <= static_cast<std::int64_t>(exact_double_integers);
    }
    default: return false;
    }
}

[[nodiscard]] inline number_bound bound_of(const nlohmann::json& value) {
    number_bound b{value};
    b.has_exact = exact_double_of(value, b.exact);
    return b;
}

/// An integer in JSON Schema's sense: any number with a zero fraction (1.0 included).
[[nodiscard]] inline bool is_integral(const nlohmann::json& j) {
    if (j.is_number_integer()) {
        return true;
    }
    if (!j.is_number_float()) {
        return false;
    }
    const double d = j.get_ref<const double&>();
    return std::isfinite(d) && std::floor(d) == d;
}

/// |value| = significand * 10^exponent, the significand without trailing zeros (0 for zero).
struct decimal {
    std::uint64_t significand = 0;
    int exponent = 0;
};

/// The decimal of a number: an integer as it is, a double as the shortest decimal that reads
/// back as it (append_json_double, at most 17 significant digits, so it fits in 64 bits).
[[nodiscard]] inline decimal to_decimal(const nlohmann::json& j) {
    decimal out;
    if (j.is_number_unsigned()) {
        out.significand = j.get<std::uint64_t>();
    } else if (j.is_number_integer()) {
        const std::int64_t v = j.get<std::int64_t>();
        out.significand = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
    } else {
        std::string text;
        append_json_double(text, j.get<double>());
        int fraction_digits = 0;
        bool in_fraction = false;
        std::size_t k = 0;
        for (; k < text.size() && text[k] != 'e' && text[k] != 'E'; ++k) {
            if (text[k] == '.') {
                in_fraction = true;
            } else if (text[k] >= '0' && text[k] <= '9') {
                out.significand = out.significand * 10 + static_cast<std::uint64_t>(text[k] - '0');
                fraction_digits += in_fraction ? 1 : 0;
            }
        }
        const int written = k < text.size() ? std::stoi(text.substr(k + 1)) : 0;
        out.exponent = written - fraction_digits;
    }
    while (out.significand != 0 && out.significand % 10 == 0) {
        out.significand /= 10;
        ++out.exponent;
    }
    return out;
}

/// (a * 10) mod m, for a < m: by doubling and adding modulo m when a * 10 would not fit in 64
/// bits (an integer divisor reaches 2^64 - 1), so no step ever overflows.
[[nodiscard]] inline std::uint64_t times_ten_mod(std::uint64_t a, std::uint64_t m) noexcept {
    constexpr std::uint64_t no_overflow = std::numeric_limits<std::uint64_t>::max() / 10;
    if (a <= no_overflow) {
        return (a * 10) % m;
    }
    const auto add_mod = [m](std::uint64_t x, std::uint64_t y) { return x >= m - y ? x - (m - y) : x + y; };
    const std::uint64_t twice = add_mod(a, a);
    const std::uint64_t eight = add_mod(add_mod(twice, twice), add_mod(twice, twice));
    return add_mod(eight, twice);
}

/// Whether `value` is an integer multiple of `divisor` (> 0), exactly in base 10: with both as
/// s * 10^e (trailing zeros stripped), value/divisor = (sv / sd) * 10^(ev - ed). When ev < ed,
/// sd * 10^(ed - ev) has more trailing zeros than sv, so only 0 divides. Otherwise the question
/// is whether sd divides sv * 10^(ev - ed): computed modulo sd, one power of ten at a time
/// (remainders stay below sd, which is below 2^64; the loop runs at most ~650 times, the spread
/// of double exponents).
[[nodiscard]] inline bool is_multiple_of(const nlohmann::json& value, const decimal& divisor) {
    const decimal v = to_decimal(value);
    if (v.significand == 0) {
        return true;
    }
    if (v.exponent < divisor.exponent) {
        return false;
    }
    std::uint64_t r = v.significand % divisor.significand;
    for (int e = divisor.exponent; e < v.exponent && r != 0; ++e) {
        r = times_ten_mod(r, divisor.significand);
    }
    return r == 0;
}

} // namespace handoff::detail
