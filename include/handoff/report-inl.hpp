// SPDX-License-Identifier: MIT
#pragma once

// The failure report's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/report.hpp>

#include <handoff/detail/schema/format_check.hpp> // days_in_month
#include <handoff/detail/text.hpp>
#include <handoff/failure_class.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // stable_sort, min
#include <array>       // array
#include <cmath>       // round
#include <cstddef>     // size_t
#include <cstdint>     // int64_t
#include <cstdio>      // snprintf
#include <map>         // map
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // pair, move
#include <vector>      // vector

namespace handoff {

namespace detail::report_detail {

HANDOFF_INLINE void bounded_counts::add(const std::string& key, std::size_t cap, std::size_t n) {
    auto it = counts_.find(key);
    if (it == counts_.end() && counts_.size() >= cap) {
        it = counts_.emplace("(more)", 0).first;
    } else if (it == counts_.end()) {
        it = counts_.emplace(key, 0).first;
    }
    it->second += n;
}

HANDOFF_INLINE std::vector<std::pair<std::string, std::size_t>> bounded_counts::sorted() const {
    std::vector<std::pair<std::string, std::size_t>> out(counts_.begin(), counts_.end());
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return out;
}

HANDOFF_INLINE nlohmann::ordered_json bounded_counts::to_json() const {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& [key, n] : bounded_counts::sorted()) {
        out[key] = n;
    }
    return out;
}

HANDOFF_INLINE std::optional<int> digits(std::string_view text, std::size_t at, std::size_t n) {
    if (at + n > text.size()) {
        return std::nullopt;
    }
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
        if (text[i] < '0' || text[i] > '9') {
            return std::nullopt;
        }
        v = v * 10 + (text[i] - '0');
    }
    return v;
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
[[nodiscard]] constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
    y -= m <= 2 ? 1 : 0;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

/// Array indices become "*": one pointer per field, however long the arrays.
HANDOFF_INLINE std::string normalise_pointer(std::string_view pointer) {
    std::string out;
    std::size_t i = 0;
    while (i < pointer.size()) {
        const std::size_t next = pointer.find('/', i + 1);
        const std::string_view token = pointer.substr(i, next == std::string_view::npos ? next : next - i);
        const bool index = token.size() > 1 && token.find_first_not_of("0123456789", 1) == std::string_view::npos;
        out += index ? std::string_view("/*") : token;
        i = next == std::string_view::npos ? pointer.size() : next;
    }
    return out.empty() ? std::string("(document)") : out;
}

HANDOFF_INLINE bool blank(std::string_view text) { return text.find_first_not_of(" \t\r\n") == std::string_view::npos; }

/// What the tolerant decode strips from a reply, read back from a dead letter's raw text
/// (dead letters keep the text, not the tolerances): the decoder's rule in short, a fence
/// before the first '{', non-blank text before it or after the last '}' (and its fence).
HANDOFF_INLINE void add_raw_tolerances(bounded_counts& counts, std::string_view raw, std::size_t cap) {
    const std::size_t first = raw.find('{');
    const std::size_t last = raw.rfind('}');
    if (first == std::string_view::npos || last == std::string_view::npos || last < first) {
        return;
    }
    const std::size_t fence = raw.find("```");
    const bool fenced = fence < first;
    std::string_view after = raw.substr(last + 1);
    if (const std::size_t close = after.find("```"); fenced && close != std::string_view::npos) {
        after = after.substr(close + 3);
    }
    if (fenced) {
        counts.add("code_fence", cap);
    }
    if (!blank(raw.substr(0, fenced ? fence : first))) {
        counts.add("leading_prose", cap);
    }
    if (!blank(after)) {
        counts.add("trailing_prose", cap);
    }
}

HANDOFF_INLINE std::string_view text_field(const nlohmann::json& object, const char* key) {
    return failure_rules::string_at(object, key);
}

} // namespace detail::report_detail

HANDOFF_INLINE std::optional<std::int64_t> parse_utc_time(std::string_view text) {
    using detail::report_detail::digits;
    const auto y = digits(text, 0, 4);
    const auto mo = digits(text, 5, 2);
    const auto d = digits(text, 8, 2);
    if (!y || !mo || !d || text[4] != '-' || text[7] != '-' || *mo < 1 || *mo > 12 || *d < 1 ||
        *d > detail::format_detail::days_in_month(*y, *mo)) {
        return std::nullopt;
    }
    std::int64_t ms =
        detail::report_detail::days_from_civil(*y, static_cast<unsigned>(*mo), static_cast<unsigned>(*d)) * 86400000;
    if (text.size() == 10) {
        return ms;
    }
    const auto h = digits(text, 11, 2);
    const auto mi = digits(text, 14, 2);
    if ((text[10] != 'T' && text[10] != ' ') || !h || !mi || text[13] != ':' || *h > 23 || *mi > 59) {
        return std::nullopt;
    }
    ms += (std::int64_t{*h} * 60 + *mi) * 60000;
    std::size_t at = 16;
    if (at < text.size() && text[at] == ':') {
        const auto s = digits(text, at + 1, 2);
        if (!s || *s > 60) {
            return std::nullopt;
        }
        ms += std::int64_t{*s} * 1000;
        at += 3;
        if (at < text.size() && text[at] == '.') {
            const std::size_t end = std::min(text.find_first_not_of("0123456789", at + 1), text.size());
            std::int64_t frac = 0;
            for (std::size_t i = at + 1; i < at + 4; ++i) {
                frac = frac * 10 + (i < end ? text[i] - '0' : 0);
            }
            ms += frac;
            at = end;
        }
    }
    const std::string_view zone = text.substr(at);
    return zone.empty() || zone == "Z" || zone == "+00:00" ? std::optional<std::int64_t>(ms) : std::nullopt;
}

HANDOFF_INLINE std::vector<failure_class> report::ranked() const {
    std::vector<failure_class> out;
    for (std::size_t i = 0; i < failure_class_count; ++i) {
        if (classes[i].count > 0) {
            out.push_back(static_cast<failure_class>(i));
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [this](failure_class a, failure_class b) { return (*this)[a].count > (*this)[b].count; });
    return out;
}

HANDOFF_INLINE double report::share(failure_class c) const noexcept {
    return total == 0
               ? 0.0
               : std::round(static_cast<double>((*this)[c].count) * 10000.0 / static_cast<double>(total)) / 10000.0;
}

HANDOFF_INLINE report_builder::report_builder(report_options options) : options_(options) {
    report_.has_by_day = options_.by_day;
}

HANDOFF_INLINE void report_builder::add_line(std::string_view line, std::string_view source) {
    if (line.find_first_not_of(" \t\r\n") == std::string_view::npos) {
        return;
    }
    if (line.size() > options_.max_line_bytes) {
        skip(true, source, "longer than " + std::to_string(options_.max_line_bytes) + " bytes");
        return;
    }
    const nlohmann::json record = nlohmann::json::parse(line, nullptr, false);
    if (record.is_discarded() || !record.is_object()) {
        skip(true, source, record.is_discarded() ? "not JSON" : "not a JSON object");
        return;
    }
    add_record(record, source);
}

HANDOFF_INLINE void report_builder::add_record(const nlohmann::json& record, std::string_view source) {
    using detail::report_detail::text_field;
    const std::string_view time = text_field(record, "time");
    const std::optional<std::int64_t> ms = parse_utc_time(time);
    if (text_field(record, "type") == "handoff.dead_letter") {
        const auto attempts = record.find("attempts");
        if (attempts == record.end() || !attempts->is_array() || !ms) {
            skip(true, source, !ms ? "dead letter without a valid time" : "dead letter without attempts");
            return;
        }
        if (!in_window(ms)) {
            ++report_.out_of_window;
            return;
        }
        ++report_.dead_letters;
        report_.outcomes.add(std::string(text_field(record, "outcome")), options_.max_keys);
        const std::string_view id = text_field(record, "request_id");
        for (const auto& attempt : *attempts) {
            detail::report_detail::add_raw_tolerances(report_.tolerances, detail::failure_rules::raw_text(attempt),
                                                      options_.max_keys);
            add_attempt(attempt, time, ms, id.empty() ? source : id);
        }
        return;
    }
    const auto problems = record.find("problems");
    if (text_field(record, "route").empty() || problems == record.end() || !problems->is_array()) {
        skip(false, source, "neither a dead letter nor a receipt");
        return;
    }
    if (!in_window(ms)) {
        ++report_.out_of_window;
        return;
    }
    ++report_.receipts;
    const std::string_view route = text_field(record, "route");
    if (route != "REPAIR" && route != "ESCALATE" && route != "FAIL") {
        ++report_.receipts_passed;
        return;
    }
    if (const auto t = record.find("tolerances"); t != record.end() && t->is_array()) {
        for (const auto& name : *t) {
            report_.tolerances.add(name.is_string() ? name.get<std::string>() : "?", options_.max_keys);
        }
    }
    // handoff-check names each receipt's input in "source": a better sample than this line.
    const std::string_view named = text_field(record, "source");
    add_attempt(record, time, ms, named.empty() ? source : named);
}

HANDOFF_INLINE bool report_builder::in_window(std::optional<std::int64_t> ms) const {
    if (!options_.since_ms && !options_.until_ms) {
        return true;
    }
    return ms && (!options_.since_ms || *ms >= *options_.since_ms) && (!options_.until_ms || *ms < *options_.until_ms);
}

HANDOFF_INLINE void report_builder::skip(bool corrupt, std::string_view source, std::string_view why) {
    ++(corrupt ? report_.corrupt : report_.foreign);
    if (report_.skipped_named.size() < options_.max_skipped_named) {
        report_.skipped_named.push_back(std::string(source) + (corrupt ? ": corrupt: " : ": foreign: ") +
                                        std::string(why));
    }
}

HANDOFF_INLINE void report_builder::add_attempt(const nlohmann::json& attempt, std::string_view time,
                                                std::optional<std::int64_t> ms, std::string_view sample) {
    const attempt_class found = classify_attempt(attempt);
    class_stats& s = report_.classes[static_cast<std::size_t>(found.kind)];
    ++report_.total;
    ++s.count;
    if (ms && (s.first_seen.empty() || *ms < s.first_ms)) {
        s.first_seen = std::string(time);
        s.first_ms = *ms;
    }
    if (ms && (s.last_seen.empty() || *ms > s.last_ms)) {
        s.last_seen = std::string(time);
        s.last_ms = *ms;
    }
    if (s.samples.size() < options_.max_samples &&
        std::find(s.samples.begin(), s.samples.end(), sample) == s.samples.end()) {
        s.samples.emplace_back(sample);
    }
    const std::string pointer = detail::report_detail::normalise_pointer(found.pointer);
    if (!found.code.empty()) {
        s.pointers.add(pointer, options_.max_keys);
        s.codes.add(found.code, options_.max_keys);
    }
    for (const invented_value& v : found.values) {
        const std::string at = detail::report_detail::normalise_pointer(v.pointer);
        auto it = s.values.find(at);
        if (it == s.values.end()) {
            it = s.values
                     .emplace(s.values.size() < options_.max_keys ? at : "(more)",
                              detail::report_detail::bounded_counts{})
                     .first;
        }
        it->second.add(v.value, options_.max_keys);
    }
    if (options_.by_day && time.size() >= 10 && ms) {
        const std::string day(time.substr(0, 10));
        if (report_.by_day.count(day) > 0 || report_.by_day.size() < options_.max_days) {
            ++report_.by_day[day][static_cast<std::size_t>(found.kind)];
        }
    }
}

namespace detail::report_detail {

HANDOFF_INLINE nlohmann::ordered_json class_json(const report& r, failure_class c) {
    const class_stats& s = r[c];
    nlohmann::ordered_json out = {
        {"count", s.count},
        {"share", r.share(c)},
        {"first_seen", s.first_seen.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.first_seen)},
        {"last_seen", s.last_seen.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.last_seen)},
        {"samples", s.samples},
        {"pointers", s.pointers.to_json()},
        {"codes", s.codes.to_json()},
    };
    if (c == failure_class::enum_violation) {
        nlohmann::ordered_json values = nlohmann::ordered_json::object();
        for (const auto& [pointer, counts] : s.values) {
            values[pointer] = counts.to_json();
        }
        out["values"] = std::move(values);
    }
    return out;
}

HANDOFF_INLINE nlohmann::ordered_json by_day_json(const report& r) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& [day, counts] : r.by_day) {
        nlohmann::ordered_json row = nlohmann::ordered_json::object();
        for (std::size_t i = 0; i < failure_class_count; ++i) {
            if (counts[i] > 0) {
                row[std::string(to_string(static_cast<failure_class>(i)))] = counts[i];
            }
        }
        out[day] = std::move(row);
    }
    return out;
}

} // namespace detail::report_detail

/// {"total", "classes" (most frequent first), "skipped", "records", "outcomes", "tolerances",
/// and "by_day" when asked for}.
HANDOFF_INLINE nlohmann::ordered_json report::to_json() const {
    nlohmann::ordered_json class_map = nlohmann::ordered_json::object();
    for (const failure_class c : ranked()) {
        class_map[std::string(handoff::to_string(c))] = detail::report_detail::class_json(*this, c);
    }
    nlohmann::ordered_json out = {
        {"total", total},
        {"classes", std::move(class_map)},
        {"skipped", {{"corrupt", corrupt}, {"foreign", foreign}, {"lines", skipped_named}}},
        {"records",
         {{"dead_letters", dead_letters},
          {"receipts", receipts},
          {"receipts_passed", receipts_passed},
          {"out_of_window", out_of_window}}},
        {"outcomes", outcomes.to_json()},
        {"tolerances", tolerances.to_json()},
    };
    if (has_by_day) {
        out["by_day"] = detail::report_detail::by_day_json(*this);
    }
    return out;
}

namespace detail::report_detail {

// The text table is read on a terminal: every string in it that came from a record (a request
// id, a pointer, a code, an invented value, a file name) is escaped and capped as a message is
// (docs/security.md), never printed raw. The JSON form keeps them exact; the HTML form escapes
// them for HTML.
inline constexpr std::size_t text_pointer_bytes = 160; // as message_pointer
inline constexpr std::size_t text_value_bytes = 64;    // as quote_untrusted
inline constexpr std::size_t text_sample_bytes = 200;  // as the HTML report's cells
inline constexpr std::size_t text_line_bytes = 1024;   // a skipped line: "source: corrupt: why"

/// The `n` most frequent keys with their counts, each key escaped and capped at `max_bytes`;
/// `quote` puts a key between single quotes and says "times" (invented values).
HANDOFF_INLINE std::string top_counts(const bounded_counts& counts, std::size_t n, bool quote, std::size_t max_bytes) {
    std::string out;
    std::size_t shown = 0;
    for (const auto& [key, count] : counts.sorted()) {
        if (shown++ == n) {
            break;
        }
        const std::string shown_key = escape_untrusted(key, max_bytes);
        out += (out.empty() ? "" : ", ") + (quote ? "'" + shown_key + "'" : shown_key) + " " + std::to_string(count) +
               (quote ? " times" : "");
    }
    return out;
}

HANDOFF_INLINE std::string class_row(const report& r, failure_class c) {
    const class_stats& s = r[c];
    char head[160];
    std::snprintf(head, sizeof head, "%-17s %7zu %6.1f%%  %-24s  %-24s  ", std::string(to_string(c)).c_str(), s.count,
                  r.share(c) * 100.0, s.first_seen.empty() ? "-" : s.first_seen.c_str(),
                  s.last_seen.empty() ? "-" : s.last_seen.c_str());
    std::string out = head;
    for (std::size_t i = 0; i < s.samples.size(); ++i) {
        out += (i == 0 ? "" : ", ") + escape_untrusted(s.samples[i], text_sample_bytes);
    }
    out += "\n";
    if (!s.pointers.empty()) {
        out += "    pointers: " + top_counts(s.pointers, 5, false, text_pointer_bytes) + "\n";
    }
    if (c == failure_class::semantic && !s.codes.empty()) {
        out += "    checks: " + top_counts(s.codes, 5, false, text_value_bytes) + "\n";
    }
    for (const auto& [pointer, values] : s.values) {
        out += "    " + escape_untrusted(pointer, text_pointer_bytes) + ": " +
               top_counts(values, 5, true, text_value_bytes) + "\n";
    }
    return out;
}

} // namespace detail::report_detail

/// A table for people: one row per class, most frequent first, then the skipped lines.
HANDOFF_INLINE std::string report::to_text() const {
    std::string out = "failed attempts: " + std::to_string(total) + " (" + std::to_string(dead_letters) +
                      " dead letters, " + std::to_string(receipts - receipts_passed) + " failed receipts of " +
                      std::to_string(receipts) + ")\n";
    char head[160];
    std::snprintf(head, sizeof head, "%-17s %7s %7s  %-24s  %-24s  %s\n", "class", "count", "share", "first seen",
                  "last seen", "samples");
    out += head;
    for (const failure_class c : ranked()) {
        out += detail::report_detail::class_row(*this, c);
    }
    for (const auto& [day, counts] : by_day) {
        out += day + ":";
        for (std::size_t i = 0; i < failure_class_count; ++i) {
            if (counts[i] > 0) {
                out += " " + std::string(handoff::to_string(static_cast<failure_class>(i))) + " " +
                       std::to_string(counts[i]);
            }
        }
        out += "\n";
    }
    out += "skipped: " + std::to_string(corrupt) + " corrupt, " + std::to_string(foreign) + " foreign\n";
    for (const std::string& line : skipped_named) {
        out += "  " + detail::escape_untrusted(line, detail::report_detail::text_line_bytes) + "\n";
    }
    return out;
}

} // namespace handoff
