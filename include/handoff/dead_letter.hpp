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

#include <handoff/config.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/enums.hpp>
#include <handoff/envelope.hpp>
#include <handoff/problem.hpp>
#include <handoff/problem_codes.hpp>

#include <nlohmann/json.hpp>

#include <chrono>   // system_clock
#include <cstddef>  // size_t
#include <cstdint>  // uint32_t
#include <mutex>    // mutex
#include <optional> // optional
#include <string>   // string
#include <vector>   // vector

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
[[nodiscard]] std::string utc_timestamp(std::chrono::system_clock::time_point tp);

} // namespace detail

/// The record as JSON, fields in a fixed order (type, time, request_id, ... attempts, problems)
/// so that a person reading the file sees the same layout every time. Each attempt's raw text is cut to `max_raw_bytes`
/// on a UTF-8 boundary, with `raw_cut` true and `raw_bytes` the full length. Text that is not valid UTF-8 (a model can
/// emit anything) is kept byte for byte as base64, `raw_encoding` "base64", so nothing the worker wrote is lost or
/// altered on the way to the dead letter.
[[nodiscard]] nlohmann::ordered_json to_json(const dead_letter& d,
                                             std::size_t max_raw_bytes = default_dead_letter_raw_bytes);

/// The record as one JSON Lines line, newline included. Never throws for odd bytes: invalid
/// UTF-8 left in a message is replaced (U+FFFD) rather than allowed to abort the write.
[[nodiscard]] std::string to_jsonl(const dead_letter& d, std::size_t max_raw_bytes = default_dead_letter_raw_bytes);

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

// The sinks' virtual functions are declared HANDOFF_INLINE in their classes, not only where
// they are defined: header-only, a virtual function not inline in its class is the class's key
// function, and every file that included the header would emit the vtable and all it reaches.

/// Keeps records in memory: for tests, and for callers that forward them elsewhere.
class memory_dead_letter_sink final : public dead_letter_sink {
public:
    explicit memory_dead_letter_sink(std::size_t max_raw_bytes = default_dead_letter_raw_bytes);

    [[nodiscard]] HANDOFF_INLINE bool write(const dead_letter& record) override;

    /// The lines written so far, each ending in '\n'.
    [[nodiscard]] std::vector<std::string> lines() const;

private:
    std::size_t max_raw_bytes_;
    /// Held by write() and lines().
    mutable std::mutex mutex_;
    std::vector<std::string> lines_;
};

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/dead_letter-inl.hpp>
#endif
