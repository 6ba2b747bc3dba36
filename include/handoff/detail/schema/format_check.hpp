// SPDX-License-Identifier: MIT
#pragma once

// The formats handoff asserts, each checked by hand in one pass (a string over its format's
// length bound refused before it is read), so a format costs what a scan does:
// - date, time, date-time: RFC 3339 section 5.6 (full-date, full-time, date-time): a four-digit
//   year, a day that exists in its month and year (29 February in leap years only), hours
//   00-23, minutes 00-59, seconds 00-60 (60 only at 23:59 UTC), an optional fraction, then Z, z
//   or +HH:MM / -HH:MM; T or t between date and time (the validation vocabulary names RFC 3339,
//   2020-12 7.3.1).
// - ipv4: RFC 2673 section 3.2's dotted-quad, four decimal octets 0-255 without leading zeros.
// - ipv6: RFC 4291 section 2.2, eight groups of one to four hex digits, one "::" standing for
//   one or more zero groups, the last two groups optionally written as a dotted-quad.
// - uuid: RFC 4122 section 3's string form, 8-4-4-4-12 hex digits in either case.
// - email: RFC 5321 section 4.1.2's Mailbox (the validation vocabulary names it, 2020-12
//   7.3.2; in every dialect): a dot-string or quoted local part of at most 64 octets, "@", a
//   domain of letter/digit/hyphen labels or an [IPv4] / [IPv6:...] literal; 254 octets in all.
// - idn-email: RFC 6531 section 3.3's Mailbox (2020-12 7.3.2): email's grammar, with UTF-8
//   beyond ASCII (RFC 6532 section 3.1's UTF8-non-ascii) in the local part's atoms and quoted
//   text, and U-labels among the domain's labels. A U-label is judged in its NFC form: NFC is
//   recommended for internationalized addresses, not required, and the official test suite
//   takes a label written otherwise as valid.
// - duration: RFC 3339 appendix A (2020-12 7.3.1): P, then weeks alone, or years, months, days
//   and/or T with hours, minutes, seconds, each run without a gap; whole numbers only.
// - json-pointer: RFC 6901 (2020-12 7.3.7), "" or "/"-led tokens, "~" escaping only 0 and 1.
// - relative-json-pointer: draft-handrews-relative-json-pointer-01 section 3, the draft the
//   validation vocabulary names from draft-07 to 2020-12 (7.3.7): a non-negative integer without
//   a leading zero, then "#" or a JSON pointer.
// - uri, uri-reference: RFC 3986 sections 3 and 4.1 (2020-12 7.3.5): a scheme, ":", an optional
//   "//" authority, a path, "?" query and "#" fragment; or, for a reference, a relative one too
//   (its first segment without ":"); ASCII only, "%" always before two hex digits.
// - hostname, idn-hostname: RFC 1123 section 2.1's labels and IDNA2008's A-labels, and for an
//   internationalized name U-labels too (2020-12 7.3.3; idna.hpp).
// - uri-template: RFC 6570 section 2 (2020-12 7.3.6), with its verified erratum 6937, which
//   lets a literal hold "'": literals and {expressions} of an optional operator and varspecs.
// - iri, iri-reference: RFC 3987 section 2.2, the same grammar with the code points of `ucschar`
//   where a URI takes unreserved characters (user information, host name, path, query, fragment)
//   and those of `iprivate` in the query too; never a bidirectional formatting character (4.1).
// Every other format is an annotation.

#include <handoff/detail/schema/idna.hpp>
#include <handoff/detail/text.hpp>

#include <algorithm>   // all_of, equal, min
#include <array>       // array
#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <optional>    // optional
#include <string>      // u32string
#include <string_view> // string_view
#include <utility>     // move
#include <vector>      // vector

namespace handoff::detail {

enum class format_kind : std::uint8_t {
    none,
    date,
    time,
    date_time,
    ipv4,
    ipv6,
    uuid,
    email,
    idn_email,
    duration,
    json_pointer,
    relative_json_pointer,
    uri,
    uri_reference,
    iri,
    iri_reference,
    hostname,
    idn_hostname,
    uri_template
};

/// The longest date, time, IP address or UUID (bytes); a longer string is refused before it is
/// read. Only a time's fraction of a second could be longer, and no writer writes one so long.
inline constexpr std::size_t max_format_length = 128;

/// The longest e-mail address: a path of RFC 5321 section 4.5.3.1.3 holds 256 octets, two of
/// them its angle brackets.
inline constexpr std::size_t max_email_length = 254;

/// The longest internationalized e-mail address in UTF-8: a local part of 64 octets, "@", and
/// the longest internationalized host name (its A-label form counts against the name's bound).
inline constexpr std::size_t max_idn_email_length = 64 + 1 + idna::max_unicode_name_bytes;

/// No bound but the string's own: a grammar that repeats (a duration's digits, a pointer's
/// tokens) is read in one pass however long it is.
inline constexpr std::size_t unbounded_format = static_cast<std::size_t>(-1);

/// Each asserted format: its name in a schema, what a failing string is told it must be, and
/// the longest string that can be one.
struct format_row {
    format_kind kind;
    std::string_view name;
    std::string_view description;
    std::size_t max_length;
};

inline constexpr std::array<format_row, 18> asserted_formats{{
    {format_kind::date, "date", "date (YYYY-MM-DD)", max_format_length},
    {format_kind::time, "time", "time (HH:MM:SS with a zone, Z or +HH:MM)", max_format_length},
    {format_kind::date_time, "date-time", "date-time (YYYY-MM-DDTHH:MM:SS with a zone)", max_format_length},
    {format_kind::ipv4, "ipv4", "IPv4 address (four decimal octets, 0-255)", max_format_length},
    {format_kind::ipv6, "ipv6", "IPv6 address (RFC 4291 text form)", max_format_length},
    {format_kind::uuid, "uuid", "UUID (8-4-4-4-12 hex digits)", max_format_length},
    {format_kind::email, "email", "e-mail address (local-part@domain, RFC 5321)", max_email_length},
    {format_kind::idn_email, "idn-email", "internationalized e-mail address (local-part@domain, RFC 6531)",
     max_idn_email_length},
    {format_kind::duration, "duration", "duration (P1Y2M3DT4H5M6S or P2W, RFC 3339 appendix A)", unbounded_format},
    {format_kind::json_pointer, "json-pointer", "JSON pointer (\"\" or /token/..., RFC 6901)", unbounded_format},
    {format_kind::relative_json_pointer, "relative-json-pointer",
     "relative JSON pointer (a non-negative integer, then # or a JSON pointer)", unbounded_format},
    {format_kind::uri, "uri", "URI (scheme:hier-part[?query][#fragment], RFC 3986)", unbounded_format},
    {format_kind::uri_reference, "uri-reference", "URI reference (a URI or a relative reference, RFC 3986)",
     unbounded_format},
    {format_kind::iri, "iri", "IRI (a URI that may hold non-ASCII characters, RFC 3987)", unbounded_format},
    {format_kind::iri_reference, "iri-reference", "IRI reference (an IRI or a relative reference, RFC 3987)",
     unbounded_format},
    {format_kind::hostname, "hostname", "host name (dot-separated labels of letters, digits and hyphens, RFC 1123)",
     idna::max_name_length},
    {format_kind::idn_hostname, "idn-hostname", "internationalized host name (labels of IDNA2008, RFC 5890)",
     idna::max_unicode_name_bytes},
    {format_kind::uri_template, "uri-template", "URI template (literals and {expressions}, RFC 6570)",
     unbounded_format},
}};

[[nodiscard]] constexpr format_kind format_of(std::string_view name) noexcept {
    for (const format_row& row : asserted_formats) {
        if (row.name == name) {
            return row.kind;
        }
    }
    return format_kind::none;
}

/// The row of `kind` (none: no name, no bound).
[[nodiscard]] constexpr format_row format_row_of(format_kind kind) noexcept {
    for (const format_row& row : asserted_formats) {
        if (row.kind == kind) {
            return row;
        }
    }
    return {format_kind::none, {}, {}, unbounded_format};
}

[[nodiscard]] constexpr std::string_view format_description(format_kind kind) noexcept {
    return format_row_of(kind).description;
}

namespace format_detail {

[[nodiscard]] inline bool digit(char c) noexcept { return c >= '0' && c <= '9'; }

/// `count` digits at s[at] forming a number in [lo, hi]; advances `at`.
[[nodiscard]] inline bool digits(std::string_view s, std::size_t& at, std::size_t count, int lo, int hi,
                                 int* out = nullptr) {
    int v = 0;
    for (std::size_t i = 0; i < count; ++i, ++at) {
        if (at >= s.size() || !digit(s[at])) {
            return false;
        }
        v = v * 10 + (s[at] - '0');
    }
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

[[nodiscard]] inline int days_in_month(int year, int month) noexcept {
    if (month == 2) {
        const bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
        return leap ? 29 : 28;
    }
    return month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
}

/// YYYY "-" MM "-" DD, the day within its month and year.
[[nodiscard]] inline bool date(std::string_view s, std::size_t& at) {
    int year = 0;
    int month = 0;
    int day = 0;
    return digits(s, at, 4, 0, 9999, &year) && expect(s, at, '-') && digits(s, at, 2, 1, 12, &month) &&
           expect(s, at, '-') && digits(s, at, 2, 1, 31, &day) && day <= days_in_month(year, month);
}

/// (Z|z|+HH:MM|-HH:MM), as minutes east of UTC in `offset`.
[[nodiscard]] inline bool time_offset(std::string_view s, std::size_t& at, int& offset) {
    offset = 0;
    if (expect(s, at, 'Z') || expect(s, at, 'z')) {
        return true;
    }
    const bool west = at < s.size() && s[at] == '-';
    if (!expect(s, at, '+') && !expect(s, at, '-')) {
        return false;
    }
    int hours = 0;
    int minutes = 0;
    if (!digits(s, at, 2, 0, 23, &hours) || !expect(s, at, ':') || !digits(s, at, 2, 0, 59, &minutes)) {
        return false;
    }
    offset = (west ? -1 : 1) * (hours * 60 + minutes);
    return true;
}

/// HH:MM:SS[.fraction](Z|z|+HH:MM|-HH:MM). A leap second (:60) is the last second of a UTC day,
/// so its clock must read 23:59 once the offset is taken away (RFC 3339 section 5.7:
/// "1990-12-31T15:59:60-08:00" is one).
[[nodiscard]] inline bool time(std::string_view s, std::size_t& at) {
    int hour = 0;
    int minute = 0;
    int second = 0;
    if (!digits(s, at, 2, 0, 23, &hour) || !expect(s, at, ':') || !digits(s, at, 2, 0, 59, &minute) ||
        !expect(s, at, ':') || !digits(s, at, 2, 0, 60, &second)) {
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
    int offset = 0;
    if (!time_offset(s, at, offset)) {
        return false;
    }
    constexpr int minutes_a_day = 24 * 60;
    const int utc_minute = ((hour * 60 + minute - offset) % minutes_a_day + minutes_a_day) % minutes_a_day;
    return second < 60 || utc_minute == minutes_a_day - 1;
}

/// A decimal octet 0-255 of one to three digits, without a leading zero unless `leading_zeros`
/// (RFC 5321's Snum takes them; RFC 2673's dotted-quad does not).
[[nodiscard]] inline bool octet(std::string_view s, std::size_t& at, bool leading_zeros) {
    const std::size_t start = at;
    int v = 0;
    while (at < s.size() && digit(s[at]) && at - start < 3) {
        v = v * 10 + (s[at++] - '0');
    }
    const std::size_t length = at - start;
    return length > 0 && v <= 255 && (leading_zeros || length == 1 || s[start] != '0');
}

/// Four octets joined by dots.
[[nodiscard]] inline bool dotted_quad(std::string_view s, std::size_t& at, bool leading_zeros) {
    return octet(s, at, leading_zeros) && expect(s, at, '.') && octet(s, at, leading_zeros) && expect(s, at, '.') &&
           octet(s, at, leading_zeros) && expect(s, at, '.') && octet(s, at, leading_zeros);
}

[[nodiscard]] inline bool ipv4(std::string_view s, std::size_t& at) { return dotted_quad(s, at, false); }

/// One to four hex digits; advances `at` past them.
[[nodiscard]] inline bool hex_group(std::string_view s, std::size_t& at) {
    const std::size_t start = at;
    while (at < s.size() && at - start < 4 && hex_digit_value(s[at]) >= 0) {
        ++at;
    }
    return at > start;
}

/// The two IPv6 text forms: RFC 4291 section 2.2's (format "ipv6"), where "::" stands for one
/// or more zero groups; and RFC 5321 section 4.1.3's (an e-mail address literal), where it
/// stands for at least two, so at most six groups are written beside it, and whose dotted-quad
/// tail is of Snum, leading zeros taken (its erratum 2467, asking for RFC 4291's reading, was
/// rejected).
enum class ipv6_grammar : std::uint8_t { rfc4291, rfc5321 };

/// The groups of an IPv6 address: `groups` counts 16-bit groups written (a dotted-quad as two).
[[nodiscard]] inline bool ipv6(std::string_view s, std::size_t& at, ipv6_grammar grammar = ipv6_grammar::rfc4291) {
    const bool mail = grammar == ipv6_grammar::rfc5321;
    int groups = 0;
    bool compressed = false;
    if (s.substr(at, 2) == "::") {
        compressed = true;
        at += 2;
    }
    while (at < s.size()) {
        std::size_t quad = at;
        if (groups <= 6 && dotted_quad(s, quad, mail) && quad == s.size()) {
            at = quad;
            groups += 2;
            break;
        }
        if (!hex_group(s, at)) {
            return false;
        }
        ++groups;
        if (at == s.size()) {
            break;
        }
        if (!expect(s, at, ':')) {
            return false;
        }
        if (expect(s, at, ':')) {
            if (compressed) {
                return false;
            }
            compressed = true;
        } else if (at == s.size()) {
            return false; // a single trailing colon
        }
    }
    return compressed ? groups <= (mail ? 6 : 7) : groups == 8;
}

/// 8-4-4-4-12 hex digits.
[[nodiscard]] inline bool uuid(std::string_view s, std::size_t& at) {
    constexpr std::array<std::size_t, 5> runs{8, 4, 4, 4, 12};
    for (std::size_t r = 0; r < runs.size(); ++r) {
        if (r > 0 && !expect(s, at, '-')) {
            return false;
        }
        for (std::size_t i = 0; i < runs[r]; ++i, ++at) {
            if (at >= s.size() || hex_digit_value(s[at]) < 0) {
                return false;
            }
        }
    }
    return true;
}

[[nodiscard]] inline bool alpha(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/// How many bytes at s[at] are one character beyond ASCII in UTF-8 (RFC 6532's UTF8-non-ascii)
/// when `international`, else 0.
[[nodiscard]] inline std::size_t non_ascii_at(std::string_view s, std::size_t at, bool international) noexcept {
    return international && static_cast<unsigned char>(s[at]) >= 0x80U ? utf8_sequence_length(s.substr(at)) : 0;
}

/// RFC 5321 Dot-string: atoms of atext joined by single dots; with `international`, atext
/// holds UTF8-non-ascii too (RFC 6531 section 3.3).
[[nodiscard]] inline bool dot_string(std::string_view s, std::size_t& at, bool international) {
    constexpr std::string_view atext_signs = "!#$%&'*+-/=?^_`{|}~";
    for (;;) {
        const std::size_t start = at;
        while (at < s.size()) {
            if (alpha(s[at]) || digit(s[at]) || atext_signs.find(s[at]) != std::string_view::npos) {
                ++at;
            } else if (const std::size_t n = non_ascii_at(s, at, international)) {
                at += n;
            } else {
                break;
            }
        }
        if (at == start) {
            return false;
        }
        if (!expect(s, at, '.')) {
            return true;
        }
    }
}

/// RFC 5321 Quoted-string: printable ASCII between double quotes, `\` quoting any of it; with
/// `international`, UTF8-non-ascii too (RFC 6531 section 3.3's qtextSMTP; only ASCII is quoted).
[[nodiscard]] inline bool quoted_string(std::string_view s, std::size_t& at, bool international) {
    if (!expect(s, at, '"')) {
        return false;
    }
    const auto printable = [](char c) { return c >= ' ' && c <= '~'; };
    while (at < s.size()) {
        if (const std::size_t n = non_ascii_at(s, at, international)) {
            at += n;
            continue;
        }
        if (!printable(s[at])) {
            return false;
        }
        if (s[at] == '"') {
            ++at;
            return true;
        }
        if (s[at] == '\\' && !(at + 1 < s.size() && printable(s[at + 1]))) {
            return false; // quoted-pairSMTP quotes printable ASCII only
        }
        at += s[at] == '\\' ? 2 : 1;
    }
    return false;
}

/// RFC 5321 Domain: labels of letters, digits and inner hyphens, 63 bytes at most each (RFC 1035
/// section 2.3.4), joined by dots.
[[nodiscard]] inline bool domain(std::string_view s, std::size_t& at) {
    constexpr std::size_t max_label = 63;
    for (;;) {
        const std::size_t start = at;
        while (at < s.size() && (alpha(s[at]) || digit(s[at]) || s[at] == '-')) {
            ++at;
        }
        if (at == start || at - start > max_label || s[start] == '-' || s[at - 1] == '-') {
            return false;
        }
        if (!expect(s, at, '.')) {
            return true;
        }
    }
}

/// RFC 5321 address-literal: [IPv4] or [IPv6:address], the tag in any case as ABNF strings are
/// (RFC 5234 section 2.3); IPv6 is the only tag IANA registers.
[[nodiscard]] inline bool address_literal(std::string_view s, std::size_t& at) {
    const std::size_t close = s.find(']', at);
    if (!expect(s, at, '[') || close == std::string_view::npos) {
        return false;
    }
    std::string_view inner = s.substr(at, close - at);
    constexpr std::string_view ipv6_tag = "ipv6:";
    const bool six = inner.size() > ipv6_tag.size() &&
                     std::equal(ipv6_tag.begin(), ipv6_tag.end(), inner.begin(), [](char tag, char c) {
                         return tag == (c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
                     });
    inner.remove_prefix(six ? ipv6_tag.size() : 0);
    std::size_t read = 0;
    at = close + 1;
    return (six ? ipv6(inner, read, ipv6_grammar::rfc5321) : dotted_quad(inner, read, true)) && read == inner.size();
}

/// RFC 6531 section 3.3 Domain: sub-domains that are RFC 5321's labels or U-labels, each judged
/// in NFC, joined by dots; its A-label form within a host name's bound, and RFC 5893's Bidi rule
/// met when it holds right-to-left text, A-labels read as their U-labels (as an idn-hostname).
[[nodiscard]] inline bool international_domain(std::string_view s, std::size_t& at) {
    std::vector<idna::label> labels;
    std::size_t length = 0;
    for (;;) {
        const std::size_t end = std::min(s.find('.', at), s.size());
        const std::string_view text = s.substr(at, end - at);
        std::size_t read = 0;
        const bool ascii = is_ascii(text);
        std::optional<std::u32string> points = ascii ? std::nullopt : idna::code_points(text);
        std::optional<idna::label> l = points ? idna::unicode_label(idna::nfc::normalized(*points)) : std::nullopt;
        if (ascii && domain(text, read) && read == text.size()) {
            // An A-label is read as its U-label for the Bidi rule; one that is no A-label stays
            // an RFC 5321 label, as format email takes it.
            l = idna::ascii_label(text, false);
            if (!l) {
                l = idna::label{std::u32string(text.begin(), text.end()), text.size()};
            }
        }
        if (!l) {
            return false;
        }
        length += l->ascii_length + (labels.empty() ? 0 : 1);
        labels.push_back(std::move(*l));
        at = end;
        if (!expect(s, at, '.')) {
            return length <= idna::max_name_length && idna::meets_bidi_rule(labels);
        }
    }
}

/// RFC 5321 Mailbox: a local part of at most 64 octets, "@", a domain or an address literal;
/// with `international`, RFC 6531's (UTF-8 in the local part, U-labels in the domain).
[[nodiscard]] inline bool email(std::string_view s, std::size_t& at, bool international = false) {
    constexpr std::size_t max_local_part = 64; // RFC 5321 section 4.5.3.1.1
    const std::size_t start = at;
    const bool local =
        at < s.size() && s[at] == '"' ? quoted_string(s, at, international) : dot_string(s, at, international);
    if (!local || at - start > max_local_part || !expect(s, at, '@')) {
        return false;
    }
    if (at < s.size() && s[at] == '[') {
        return address_literal(s, at);
    }
    return international ? international_domain(s, at) : domain(s, at);
}

/// Parts "digits unit" whose units follow one another in `units` without a gap: RFC 3339
/// appendix A lets years be followed by months and months by days, never years by days.
[[nodiscard]] inline bool unit_run(std::string_view s, std::size_t& at, std::string_view units) {
    std::size_t next = 0; // the unit the next part must have, once a part was read
    bool any = false;
    while (at < s.size() && digit(s[at])) {
        while (at < s.size() && digit(s[at])) {
            ++at;
        }
        const std::size_t unit = at < s.size() ? units.find(s[at]) : std::string_view::npos;
        if (unit == std::string_view::npos || (any && unit != next)) {
            return false;
        }
        ++at;
        next = unit + 1;
        any = true;
    }
    return any;
}

/// RFC 3339 appendix A duration: P, then weeks alone, or date units (Y M D) and/or T and time
/// units (H M S), each run without a gap.
[[nodiscard]] inline bool duration(std::string_view s, std::size_t& at) {
    if (!expect(s, at, 'P')) {
        return false;
    }
    if (std::size_t weeks = at; unit_run(s, weeks, "W") && weeks == s.size()) {
        at = weeks;
        return true;
    }
    const bool has_date = at < s.size() && digit(s[at]);
    if (has_date && !unit_run(s, at, "YMD")) {
        return false;
    }
    if (expect(s, at, 'T')) {
        return unit_run(s, at, "HMS");
    }
    return has_date;
}

/// RFC 6901: "" or "/"-led reference tokens, a "~" always escaping "0" or "1".
[[nodiscard]] inline bool json_pointer(std::string_view s, std::size_t& at) {
    if (at < s.size() && s[at] != '/') {
        return false;
    }
    for (; at < s.size(); ++at) {
        if (s[at] == '~' && (at + 1 == s.size() || (s[at + 1] != '0' && s[at + 1] != '1'))) {
            return false;
        }
    }
    return true;
}

/// A non-negative integer without a leading zero, then "#" or a JSON pointer.
[[nodiscard]] inline bool relative_json_pointer(std::string_view s, std::size_t& at) {
    const std::size_t start = at;
    while (at < s.size() && digit(s[at])) {
        ++at;
    }
    if (at == start || (s[start] == '0' && at - start > 1)) {
        return false;
    }
    return expect(s, at, '#') || json_pointer(s, at);
}

/// Which code points beyond ASCII a URI's character class takes: none (RFC 3986), RFC 3987's
/// `ucschar` (an IRI's unreserved characters), `ucschar` and `iprivate` (an IRI's query), or
/// both by the grammar alone (a URI template's literals, RFC 6570 section 2.1).
enum class beyond_ascii : std::uint8_t { none, ucschar, ucschar_or_private, template_literal };

/// RFC 3987 section 2.2's `ucschar`, and `iprivate` too unless `wide` is ucschar: the non-ASCII
/// code points an IRI or a URI template holds unencoded. Neither takes a plane's last two code
/// points (U+xFFFE, U+xFFFF); an IRI, by section 4.1's "MUST NOT", takes none of the
/// bidirectional formatting characters (LRM, RLM, LRE, RLE, PDF, LRO, RLO) either.
[[nodiscard]] constexpr bool wide_code_point(char32_t c, beyond_ascii wide) noexcept {
    const auto in = [c](char32_t lo, char32_t hi) { return c >= lo && c <= hi; };
    const bool ucschar = in(0xA0, 0xD7FF) || in(0xF900, 0xFDCF) || in(0xFDF0, 0xFFEF) ||
                         (in(0x10000, 0xDFFFD) && (c & 0xFFFFU) <= 0xFFFDU) || in(0xE1000, 0xEFFFD);
    const bool iprivate = in(0xE000, 0xF8FF) || (in(0xF0000, 0x10FFFD) && (c & 0xFFFFU) <= 0xFFFDU);
    const bool bidi_format = in(0x200E, 0x200F) || in(0x202A, 0x202E);
    return (ucschar || (wide != beyond_ascii::ucschar && iprivate)) &&
           (wide == beyond_ascii::template_literal || !bidi_format);
}

/// RFC 3986 section 2: one character of the class `unreserved / sub-delims` plus `extra` (and
/// the code points `wide` adds), or a percent-encoded octet (a "%" before anything but two hex
/// digits is none).
[[nodiscard]] inline bool uri_char(std::string_view s, std::size_t& at, std::string_view extra,
                                   beyond_ascii wide = beyond_ascii::none) {
    constexpr std::string_view marks = "-._~!$&'()*+,;="; // unreserved's and sub-delims' signs
    if (at >= s.size()) {
        return false;
    }
    const char c = s[at];
    if (static_cast<unsigned char>(c) >= 0x80U) {
        const std::size_t n = wide == beyond_ascii::none ? 0 : utf8_sequence_length(s.substr(at));
        const bool taken = n != 0 && wide_code_point(code_point_of(s.substr(at, n)), wide);
        at += taken ? n : 0;
        return taken;
    }
    if (c == '%') {
        const bool encoded = at + 2 < s.size() && hex_digit_value(s[at + 1]) >= 0 && hex_digit_value(s[at + 2]) >= 0;
        at += encoded ? 3 : 0;
        return encoded;
    }
    const bool in_class =
        alpha(c) || digit(c) || marks.find(c) != std::string_view::npos || extra.find(c) != std::string_view::npos;
    at += in_class ? 1 : 0;
    return in_class;
}

/// As many characters of uri_char's class as follow.
inline void uri_run(std::string_view s, std::size_t& at, std::string_view extra,
                    beyond_ascii wide = beyond_ascii::none) {
    while (uri_char(s, at, extra, wide)) {
    }
}

/// RFC 3986 section 3.2.2 IP-literal between brackets: an IPv6 address or an IPvFuture.
[[nodiscard]] inline bool ip_literal(std::string_view s, std::size_t& at) {
    const std::size_t close = s.find(']', at);
    if (!expect(s, at, '[') || close == std::string_view::npos) {
        return false;
    }
    const std::string_view inner = s.substr(at, close - at);
    at = close + 1;
    std::size_t read = 0;
    if (inner.empty() || (inner[0] != 'v' && inner[0] != 'V')) {
        return ipv6(inner, read) && read == inner.size();
    }
    // IPvFuture: "v", hex digits, ".", then unreserved, sub-delims and ":" (nothing encoded).
    const std::size_t dot = inner.find('.');
    if (dot == std::string_view::npos || dot < 2 || inner.find('%') != std::string_view::npos ||
        !std::all_of(inner.begin() + 1, inner.begin() + static_cast<std::ptrdiff_t>(dot),
                     [](char c) { return hex_digit_value(c) >= 0; })) {
        return false;
    }
    read = dot + 1;
    uri_run(inner, read, ":");
    return read > dot + 1 && read == inner.size();
}

/// RFC 3986 section 3.2: [userinfo "@"] host [":" port], up to the first "/", "?" or "#".
[[nodiscard]] inline bool authority(std::string_view s, std::size_t& at, beyond_ascii wide) {
    const std::size_t end = std::min(s.find_first_of("/?#", at), s.size());
    const std::string_view part = s.substr(at, end - at);
    std::size_t read = 0;
    if (const std::size_t sign = part.find('@'); sign != std::string_view::npos) {
        uri_run(part, read, ":", wide);
        if (read != sign) {
            return false;
        }
        ++read;
    }
    if (read < part.size() && part[read] == '[') {
        if (!ip_literal(part, read)) {
            return false;
        }
    } else {
        uri_run(part, read, "", wide); // reg-name, which an IPv4 address also is
    }
    if (expect(part, read, ':')) {
        while (read < part.size() && digit(part[read])) {
            ++read;
        }
    }
    at = end;
    return read == part.size();
}

/// RFC 3986 sections 3.3-3.5: the path, then "?" query and "#" fragment. After a scheme or an
/// authority any path of segments goes; a relative path's first segment holds no ":" (section
/// 4.2: it would read as a scheme). An IRI's query also takes `iprivate`, its fragment not.
[[nodiscard]] inline bool path_query_fragment(std::string_view s, std::size_t& at, bool relative_path,
                                              beyond_ascii wide) {
    if (relative_path) {
        uri_run(s, at, "@", wide);
        if (at < s.size() && s[at] == ':') {
            return false;
        }
    }
    uri_run(s, at, ":@/", wide);
    if (expect(s, at, '?')) {
        uri_run(s, at, ":@/?", wide == beyond_ascii::none ? wide : beyond_ascii::ucschar_or_private);
    }
    if (expect(s, at, '#')) {
        uri_run(s, at, ":@/?", wide);
    }
    return at == s.size();
}

/// RFC 3986 URI (`scheme ":" hier-part ...`), or with `reference` a URI-reference: a URI or a
/// relative reference (section 4.1); with `wide` (ucschar) an RFC 3987 IRI or IRI-reference.
[[nodiscard]] inline bool uri(std::string_view s, std::size_t& at, bool reference,
                              beyond_ascii wide = beyond_ascii::none) {
    const auto scheme_char = [](char c) { return alpha(c) || digit(c) || c == '+' || c == '-' || c == '.'; };
    std::size_t scheme_end = at < s.size() && alpha(s[at]) ? at + 1 : at;
    while (scheme_end > at && scheme_end < s.size() && scheme_char(s[scheme_end])) {
        ++scheme_end;
    }
    const bool has_scheme = scheme_end > at && scheme_end < s.size() && s[scheme_end] == ':';
    if (!has_scheme && !reference) {
        return false;
    }
    at = has_scheme ? scheme_end + 1 : at;
    const bool network_path = s.compare(at, 2, "//") == 0;
    if (network_path) {
        at += 2;
        if (!authority(s, at, wide)) {
            return false;
        }
    }
    const bool relative_path = !has_scheme && !network_path && at < s.size() && s[at] != '/';
    return path_query_fragment(s, at, relative_path, wide);
}

/// RFC 6570 varspec: a name of letters, digits, "_" and %XX, dots only between them, then ":"
/// and a length from 1 to 9999, or "*".
[[nodiscard]] inline bool varspec(std::string_view s, std::size_t& at) {
    const auto varchar = [&] {
        if (at < s.size() && (alpha(s[at]) || digit(s[at]) || s[at] == '_')) {
            ++at;
            return true;
        }
        return at < s.size() && s[at] == '%' && uri_char(s, at, "");
    };
    do {
        if (!varchar()) {
            return false;
        }
        while (varchar()) {
        }
    } while (expect(s, at, '.'));
    if (expect(s, at, ':')) {
        const std::size_t start = at;
        while (at < s.size() && digit(s[at]) && at - start < 4) {
            ++at;
        }
        return at > start && s[start] != '0';
    }
    static_cast<void>(expect(s, at, '*'));
    return true;
}

/// RFC 6570 URI-Template: literals (any character but controls, space, `"`, `%` before anything
/// but two hex digits, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|`, `}`; non-ASCII of ucschar or
/// iprivate, anywhere) and expressions.
[[nodiscard]] inline bool uri_template(std::string_view s, std::size_t& at) {
    constexpr std::string_view operators = "+#./;?&=,!@|";
    constexpr std::string_view not_literal = "\"%<>\\^`{|}";
    while (at < s.size()) {
        const char c = s[at];
        if (expect(s, at, '{')) {
            at += at < s.size() && operators.find(s[at]) != std::string_view::npos ? 1 : 0;
            do {
                if (!varspec(s, at)) {
                    return false;
                }
            } while (expect(s, at, ','));
            if (!expect(s, at, '}')) {
                return false;
            }
        } else if (c == '%' || static_cast<unsigned char>(c) >= 0x80U) {
            if (!uri_char(s, at, "", beyond_ascii::template_literal)) {
                return false;
            }
        } else if (c > ' ' && c < 0x7F && not_literal.find(c) == std::string_view::npos) {
            ++at;
        } else {
            return false;
        }
    }
    return true;
}

} // namespace format_detail

/// Whether `s` is a valid `kind` (none: always).
[[nodiscard]] inline bool check_format(format_kind kind, std::string_view s) {
    if (kind == format_kind::none) {
        return true;
    }
    if (s.size() > format_row_of(kind).max_length) {
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
    case format_kind::ipv4: ok = format_detail::ipv4(s, at); break;
    case format_kind::ipv6: ok = format_detail::ipv6(s, at); break;
    case format_kind::uuid: ok = format_detail::uuid(s, at); break;
    case format_kind::email: ok = format_detail::email(s, at); break;
    case format_kind::idn_email: ok = format_detail::email(s, at, true); break;
    case format_kind::duration: ok = format_detail::duration(s, at); break;
    case format_kind::json_pointer: ok = format_detail::json_pointer(s, at); break;
    case format_kind::relative_json_pointer: ok = format_detail::relative_json_pointer(s, at); break;
    case format_kind::uri: ok = format_detail::uri(s, at, false); break;
    case format_kind::uri_reference: ok = format_detail::uri(s, at, true); break;
    case format_kind::iri: ok = format_detail::uri(s, at, false, format_detail::beyond_ascii::ucschar); break;
    case format_kind::iri_reference: ok = format_detail::uri(s, at, true, format_detail::beyond_ascii::ucschar); break;
    case format_kind::uri_template: ok = format_detail::uri_template(s, at); break;
    case format_kind::hostname:
    case format_kind::idn_hostname: // a name is split into labels first: it is read whole
        ok = idna::host_name(s, kind == format_kind::idn_hostname);
        at = s.size();
        break;
    case format_kind::none: break;
    }
    return ok && at == s.size();
}

} // namespace handoff::detail
