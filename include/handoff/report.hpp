// SPDX-License-Identifier: MIT
#pragma once

// The failure report: dead letters (and handoff-check receipt lines) in, one count per failed
// attempt and class out (see failure_class.hpp for the classes and their precedence), with when
// each class was first and last seen, sample request ids, the pointers at fault and, for enum
// violations, the values the worker invented.
//
// Memory stays flat however many lines go in: a line is parsed, classified and dropped, and
// every aggregate is capped (samples, pointers, values, codes, skipped-line names, days); what
// a full map cannot name is counted under "(more)", so counts always add up.

#include <handoff/config.hpp>
#include <handoff/failure_class.hpp>

#include <nlohmann/json.hpp>

#include <array>       // array
#include <cstddef>     // size_t
#include <cstdint>     // int64_t
#include <map>         // map
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // pair, move
#include <vector>      // vector

namespace handoff {

struct report_options {
    /// Keep records whose `time` is at or after / before this instant (milliseconds since the
    /// Unix epoch, UTC; see parse_utc_time). A record without a time is outside any window.
    std::optional<std::int64_t> since_ms;
    std::optional<std::int64_t> until_ms;
    /// Count each class per UTC day too.
    bool by_day = false;
    /// A longer line is skipped as corrupt (a dead letter holds at most 8 KiB of raw text per
    /// attempt and 50 problems, far below this).
    std::size_t max_line_bytes = std::size_t{4} * 1024 * 1024;
    std::size_t max_samples = 5;
    std::size_t max_keys = 32;          // distinct pointers, codes, enum values per pointer
    std::size_t max_skipped_named = 20; // skipped lines named by source
    std::size_t max_days = 3660;
};

/// "2026-11-29", "2026-11-29T21:49:45Z", "2026-11-29T21:49:45.123Z" (also "+00:00" or no
/// zone, read as UTC) as milliseconds since the Unix epoch; nullopt when not of that form.
[[nodiscard]] std::optional<std::int64_t> parse_utc_time(std::string_view text);

namespace detail::report_detail {

/// A map of counts that names at most `cap` keys; later new keys count under "(more)".
class bounded_counts {
public:
    void add(const std::string& key, std::size_t cap, std::size_t n = 1);
    [[nodiscard]] const std::map<std::string, std::size_t>& counts() const noexcept { return counts_; }
    [[nodiscard]] bool empty() const noexcept { return counts_.empty(); }

    /// Most frequent first, then by name: a stable order for the same input.
    [[nodiscard]] std::vector<std::pair<std::string, std::size_t>> sorted() const;
    [[nodiscard]] nlohmann::ordered_json to_json() const;

private:
    std::map<std::string, std::size_t> counts_;
};

} // namespace detail::report_detail

/// What the report knows about one class.
struct class_stats {
    std::size_t count = 0;
    /// The record times, as written (RFC 3339 UTC), of the earliest and latest attempt.
    std::string first_seen;
    std::string last_seen;
    std::int64_t first_ms = 0;
    std::int64_t last_ms = 0;
    /// Request ids (receipt lines: their source) of the first attempts of this class.
    std::vector<std::string> samples;
    detail::report_detail::bounded_counts pointers;
    detail::report_detail::bounded_counts codes;
    /// enum_violation only: pointer -> invented value -> count.
    std::map<std::string, detail::report_detail::bounded_counts> values;
};

/// The aggregate. Counts are per failed attempt: every attempt of a dead letter (the loop
/// stops at the first success, so each recorded attempt failed), and each receipt line routed
/// REPAIR, ESCALATE or FAIL.
struct report {
    std::size_t total = 0;
    // No `{}`: each class_stats starts from its own member initializers either way, and the
    // braces would make every file that includes this header instantiate class_stats'
    // construction (its maps and vectors).
    std::array<class_stats, failure_class_count> classes;
    std::size_t dead_letters = 0;
    std::size_t receipts = 0;
    std::size_t receipts_passed = 0;
    std::size_t out_of_window = 0;
    std::size_t corrupt = 0;
    std::size_t foreign = 0;
    /// "source: corrupt: why" for the first skipped lines.
    std::vector<std::string> skipped_named;
    /// Tolerances on failed attempts: as receipt lines record them, and as read from each dead
    /// letter attempt's raw text. A tolerated fence is no failure, but it is a prompt bug.
    detail::report_detail::bounded_counts tolerances;
    detail::report_detail::bounded_counts outcomes;
    /// "YYYY-MM-DD" -> per-class counts; filled only with report_options::by_day.
    std::map<std::string, std::array<std::size_t, failure_class_count>> by_day;
    bool has_by_day = false;

    [[nodiscard]] const class_stats& operator[](failure_class c) const noexcept {
        return classes[static_cast<std::size_t>(c)];
    }

    /// The classes that occurred, most frequent first (ties in vocabulary order).
    [[nodiscard]] std::vector<failure_class> ranked() const;

    /// The class's share of all counted attempts, rounded to 4 decimals.
    [[nodiscard]] double share(failure_class c) const noexcept;

    [[nodiscard]] nlohmann::ordered_json to_json() const;
    [[nodiscard]] std::string to_text() const;
};

/// Feed it lines; read the report at any time.
class report_builder {
public:
    explicit report_builder(report_options options = {});

    /// One JSON Lines line (without its newline); `source` names it ("file:line") in samples of
    /// receipt lines and in the list of skipped lines. Blank lines are ignored. Never throws
    /// for any content.
    void add_line(std::string_view line, std::string_view source);

    /// One already-parsed record (a dead letter or a receipt line).
    void add_record(const nlohmann::json& record, std::string_view source);

    [[nodiscard]] const handoff::report& result() const noexcept { return report_; }

private:
    void skip(bool corrupt, std::string_view source, std::string_view why);
    [[nodiscard]] bool in_window(std::optional<std::int64_t> ms) const;
    void add_attempt(const nlohmann::json& attempt, std::string_view time, std::optional<std::int64_t> ms,
                     std::string_view sample);

    report_options options_;
    handoff::report report_;
};

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/report-inl.hpp>
#endif
