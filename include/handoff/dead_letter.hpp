// SPDX-License-Identifier: MIT
#pragma once

// Dead letters: every final failure of the repair loop leaves one JSON
// Lines record with what a person needs to see why, a week later, without rerunning anything:
// the request id, the trace ids, the raw text of every attempt (capped at 8 KiB each, cut on a
// UTF-8 boundary and marked as cut), the problems, the outcome and a UTC timestamp.
//
// One record, one line: JSON escapes every control character, so a reply's newlines cannot
// split a record. A sink writes each line with one call; file_dead_letter_sink (in
// dead_letter_file.hpp, with the operating system's file calls) also holds a mutex, and opens
// its file with O_APPEND so that processes sharing the file do not interleave.

#include <handoff/detail/text.hpp>
#include <handoff/enums.hpp>
#include <handoff/envelope.hpp>
#include <handoff/problem.hpp>
#include <handoff/problem_codes.hpp>

#include <nlohmann/json.hpp>

#include <chrono>      // system_clock
#include <cstddef>     // size_t
#include <cstdint>     // uint32_t
#include <cstdio>      // snprintf; FILE on Windows
#include <ctime>       // gmtime, time_t, tm
#include <mutex>       // mutex, lock_guard
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move
#include <vector>      // vector

namespace handoff {

/// Raw text kept per attempt, in bytes: enough to see what the model wrote, bounded so one
/// runaway reply cannot grow the dead-letter file without limit.
inline constexpr std::size_t default_dead_letter_raw_bytes = std::size_t{8} * 1024;

/// One model reply as the dead letter keeps it.
struct dead_letter_attempt {
    std::uint32_t number = 1;
    /// The reply exactly as the model sent it; capped only when serialised.
    std::string raw_text;
    std::string stop_reason;
    /// A refusal message the provider sent apart from the text (empty when none).
    std::string refusal{};
    /// The receipt's route, absent when the reply was not checked (a truncated reply).
    std::optional<handoff::route> route;
    std::optional<handoff::step> failed_step;
    problem_list problems;
    /// The worker's own trace ids, when its envelope got far enough to be read.
    std::optional<trace_info> worker_trace;
};

/// The record of one final failure.
struct dead_letter {
    std::string request_id;
    /// The orchestrator's trace ids for this request (empty: not traced).
    std::string trace_id;
    std::string span_id;
    /// How the loop ended: retries_exhausted, truncated, not_retryable or refused.
    loop_outcome outcome = loop_outcome::retries_exhausted;
    /// One sentence: why the loop ended there.
    std::string reason;
    std::vector<dead_letter_attempt> attempts;
    /// The problems that ended the loop (the last attempt's).
    problem_list problems;
    std::chrono::system_clock::time_point time = std::chrono::system_clock::now();
};

namespace detail {

/// RFC 3339 UTC with milliseconds: 2026-11-29T21:49:45.123Z.
[[nodiscard]] inline std::string utc_timestamp(std::chrono::system_clock::time_point tp) {
    const auto since_epoch = std::chrono::duration_cast<std::chrono::milliseconds>(tp.time_since_epoch()).count();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(tp);
    std::tm utc{};
#if defined(_WIN32)
    gmtime_s(&utc, &seconds);
#else
    gmtime_r(&seconds, &utc);
#endif
    char buf[128]; // room for any int the format could print: no truncation warning
    const auto millis = static_cast<int>(((since_epoch % 1000) + 1000) % 1000);
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                  utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
    return buf;
}

[[nodiscard]] inline std::string base64(std::string_view bytes) {
    static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        std::uint32_t v = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16U;
        if (i + 1 < bytes.size()) {
            v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8U;
        }
        if (i + 2 < bytes.size()) {
            v |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 2]));
        }
        out.push_back(alphabet[(v >> 18U) & 63U]);
        out.push_back(alphabet[(v >> 12U) & 63U]);
        out.push_back(i + 1 < bytes.size() ? alphabet[(v >> 6U) & 63U] : '=');
        out.push_back(i + 2 < bytes.size() ? alphabet[v & 63U] : '=');
    }
    return out;
}

[[nodiscard]] inline nlohmann::ordered_json problems_json(const problem_list& problems) {
    // Bounded like everything else in the record: a reply with 10,000 bad items yields 10,000
    // problems, and the first ones say what went wrong.
    constexpr std::size_t max_problems = 50;
    constexpr std::size_t max_message_bytes = 1024;
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < problems.size() && i < max_problems; ++i) {
        const problem& p = problems[i];
        const std::string message = clip_untrusted(p.message, max_message_bytes, clip_form::as_is);
        out.push_back({{"step", to_string(p.step)}, {"code", p.code}, {"pointer", p.pointer}, {"message", message}});
    }
    if (problems.size() > max_problems) {
        out.push_back({{"step", nullptr},
                       {"code", codes::dead_letter_problems_cut},
                       {"pointer", ""},
                       {"message", std::to_string(problems.size() - max_problems) + " more problems not kept"}});
    }
    return out;
}

} // namespace detail

/// The record as JSON, fields in a fixed order (type, time, request_id, ... attempts, problems)
/// so that a person reading the file sees the same layout every time. Each attempt's raw text is cut to `max_raw_bytes`
/// on a UTF-8 boundary, with `raw_cut` true and `raw_bytes` the full length. Text that is not valid UTF-8 (a model can
/// emit anything) is kept byte for byte as base64, `raw_encoding` "base64", so nothing the worker wrote is lost or
/// altered on the way to the dead letter.
[[nodiscard]] inline nlohmann::ordered_json to_json(const dead_letter& d,
                                                    std::size_t max_raw_bytes = default_dead_letter_raw_bytes) {
    nlohmann::ordered_json attempts = nlohmann::ordered_json::array();
    for (const dead_letter_attempt& a : d.attempts) {
        const std::size_t keep = detail::utf8_prefix_length(a.raw_text, max_raw_bytes);
        const std::string_view kept = std::string_view(a.raw_text).substr(0, keep);
        const bool utf8 = detail::is_valid_utf8(kept);
        nlohmann::ordered_json attempt = {
            {"attempt", a.number},
            {"stop_reason", a.stop_reason},
            {"route", a.route ? nlohmann::ordered_json(to_string(*a.route)) : nlohmann::ordered_json(nullptr)},
            {"step",
             a.failed_step ? nlohmann::ordered_json(to_string(*a.failed_step)) : nlohmann::ordered_json(nullptr)},
            {"raw_bytes", a.raw_text.size()},
            {"raw_cut", keep < a.raw_text.size()},
            {"raw_encoding", utf8 ? "utf-8" : "base64"},
            {"raw_text", utf8 ? std::string(kept) : detail::base64(kept)},
            {"problems", detail::problems_json(a.problems)},
        };
        if (!a.refusal.empty()) { // capped like the raw text: the provider's words are untrusted too
            attempt["refusal"] = a.refusal.substr(0, detail::utf8_prefix_length(a.refusal, max_raw_bytes));
        }
        if (a.worker_trace) {
            attempt["worker_trace"] = {{"trace_id", a.worker_trace->trace_id},
                                       {"span_id", a.worker_trace->span_id},
                                       {"parent_span_id", a.worker_trace->parent_span_id
                                                              ? nlohmann::ordered_json(*a.worker_trace->parent_span_id)
                                                              : nlohmann::ordered_json(nullptr)}};
        }
        attempts.push_back(std::move(attempt));
    }
    return {
        {"type", "handoff.dead_letter"},
        {"time", detail::utc_timestamp(d.time)},
        {"request_id", d.request_id},
        {"trace_id", d.trace_id.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(d.trace_id)},
        {"span_id", d.span_id.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(d.span_id)},
        {"outcome", to_string(d.outcome)},
        {"reason", d.reason},
        {"attempts", std::move(attempts)},
        {"problems", detail::problems_json(d.problems)},
    };
}

/// The record as one JSON Lines line, newline included. Never throws for odd bytes: invalid
/// UTF-8 left in a message is replaced (U+FFFD) rather than allowed to abort the write.
[[nodiscard]] inline std::string to_jsonl(const dead_letter& d,
                                          std::size_t max_raw_bytes = default_dead_letter_raw_bytes) {
    std::string line = to_json(d, max_raw_bytes).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    line.push_back('\n');
    return line;
}

/// Where dead letters go. Implementations must write each record as one whole line and be
/// safe to call from many threads.
class dead_letter_sink {
public:
    dead_letter_sink() = default;
    dead_letter_sink(const dead_letter_sink&) = delete;
    dead_letter_sink& operator=(const dead_letter_sink&) = delete;
    virtual ~dead_letter_sink() = default;

    /// False when the record could not be written; a dead letter that fails is reported, never
    /// thrown (the caller already has a failure to handle).
    [[nodiscard]] virtual bool write(const dead_letter& record) = 0;
};

/// Keeps records in memory: for tests, and for callers that forward them elsewhere.
class memory_dead_letter_sink final : public dead_letter_sink {
public:
    explicit memory_dead_letter_sink(std::size_t max_raw_bytes = default_dead_letter_raw_bytes)
        : max_raw_bytes_(max_raw_bytes) {}

    [[nodiscard]] bool write(const dead_letter& record) override {
        std::string line = to_jsonl(record, max_raw_bytes_);
        const std::lock_guard<std::mutex> lock(mutex_);
        lines_.push_back(std::move(line));
        return true;
    }

    /// The lines written so far, each ending in '\n'.
    [[nodiscard]] std::vector<std::string> lines() const {
        const std::lock_guard<std::mutex> lock(mutex_);
        return lines_;
    }

private:
    std::size_t max_raw_bytes_;
    mutable std::mutex mutex_;
    std::vector<std::string> lines_;
};

} // namespace handoff
