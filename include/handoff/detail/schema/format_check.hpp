// SPDX-License-Identifier: MIT
#pragma once

// The three formats handoff checks: date, time and date-time, by hand, in one pass. The rules
// are the ones valijson 1.0 applied, which handoff kept: a year of one or more digits, month
// 01-12, day 01-31 within the month (February up to 29), hours 00-23, minutes 00-59, seconds
// 00-60, an optional fraction, then Z, z or +HH:MM / -HH:MM; T or t between date and time.
// Nothing longer than max_format_length bytes is a timestamp. Every other format is an
// annotation.

#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <string_view> // string_view

namespace handoff::detail {

enum class format_kind : std::uint8_t { none, date, time, date_time };

/// The longest string that can be a date, time or date-time (bytes).
inline constexpr std::size_t max_format_length = 128;

[[nodiscard]] inline format_kind format_of(std::string_view name) noexcept {
    if (name == "date") {
        return format_kind::date;
    }
    if (name == "time") {
        return format_kind::time;
    }
    return name == "date-time" ? format_kind::date_time : format_kind::none;
}

namespace format_detail {

[[nodiscard]] inline bool digit(char c) noexcept { return c >= '0' && c <= '9'; }

/// Two digits at s[at] forming a number in [lo, hi]; advances `at`.
[[nodiscard]] inline bool two_digits(std::string_view s, std::size_t& at, int lo, int hi, int* out = nullptr) {
    if (at + 2 > s.size() || !digit(s[at]) || !digit(s[at + 1])) {
        return false;
    }
    const int v = (s[at] - '0') * 10 + (s[at + 1] - '0');
    at += 2;
    if (out != nullptr) {
        *out = v;
    }
    return v >= lo && v <= hi;
}

[[nodiscard]] inline bool expect(std::string_view s, std::size_t& at, char c) {
    if (at < s.size() && s[at] == c) {
        ++at;
        return true;
    }
    return false;
}

/// digits+ "-" MM "-" DD, the day within its month.
[[nodiscard]] inline bool date(std::string_view s, std::size_t& at) {
    const std::size_t start = at;
    while (at < s.size() && digit(s[at])) {
        ++at;
    }
    int month = 0;
    int day = 0;
    if (at == start || !expect(s, at, '-') || !two_digits(s, at, 1, 12, &month) || !expect(s, at, '-') ||
        !two_digits(s, at, 1, 31, &day)) {
        return false;
    }
    const int limit = month == 2 ? 29 : (month <= 7 ? (month % 2 == 0 ? 30 : 31) : (month % 2 != 0 ? 30 : 31));
    return day <= limit;
}

/// HH:MM:SS[.fraction](Z|z|+HH:MM|-HH:MM)
[[nodiscard]] inline bool time(std::string_view s, std::size_t& at) {
    if (!two_digits(s, at, 0, 23) || !expect(s, at, ':') || !two_digits(s, at, 0, 59) || !expect(s, at, ':') ||
        !two_digits(s, at, 0, 60)) {
        return false;
    }
    if (expect(s, at, '.')) {
        const std::size_t start = at;
        while (at < s.size() && digit(s[at])) {
            ++at;
        }
        if (at == start) {
            return false;
        }
    }
    if (expect(s, at, 'Z') || expect(s, at, 'z')) {
        return true;
    }
    if (!expect(s, at, '+') && !expect(s, at, '-')) {
        return false;
    }
    return two_digits(s, at, 0, 23) && expect(s, at, ':') && two_digits(s, at, 0, 59);
}

} // namespace format_detail

/// Whether `s` is a valid `kind` (none: always).
[[nodiscard]] inline bool check_format(format_kind kind, std::string_view s) {
    if (kind == format_kind::none) {
        return true;
    }
    if (s.size() > max_format_length) {
        return false;
    }
    std::size_t at = 0;
    bool ok = false;
    switch (kind) {
    case format_kind::date: ok = format_detail::date(s, at); break;
    case format_kind::time: ok = format_detail::time(s, at); break;
    case format_kind::date_time:
        ok = format_detail::date(s, at) && (format_detail::expect(s, at, 'T') || format_detail::expect(s, at, 't')) &&
             format_detail::time(s, at);
        break;
    case format_kind::none: break;
    }
    return ok && at == s.size();
}

} // namespace handoff::detail
