// SPDX-License-Identifier: MIT
#pragma once

// dead_letter's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/dead_letter.hpp>

#include <handoff/detail/text.hpp>
#include <handoff/problem_codes.hpp>

#include <cstdio>      // snprintf
#include <ctime>       // gmtime, time_t, tm
#include <mutex>       // lock_guard
#include <string_view> // string_view
#include <utility>     // move

namespace handoff {

namespace detail {

/// RFC 3339 UTC with milliseconds: 2026-11-29T21:49:45.123Z.
HANDOFF_INLINE std::string utc_timestamp(std::chrono::system_clock::time_point tp) {
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

HANDOFF_INLINE std::string base64(std::string_view bytes) {
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

HANDOFF_INLINE nlohmann::ordered_json problems_json(const problem_list& problems) {
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

HANDOFF_INLINE nlohmann::ordered_json to_json(const dead_letter& d, std::size_t max_raw_bytes) {
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

HANDOFF_INLINE std::string to_jsonl(const dead_letter& d, std::size_t max_raw_bytes) {
    std::string line = to_json(d, max_raw_bytes).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    line.push_back('\n');
    return line;
}

HANDOFF_INLINE memory_dead_letter_sink::memory_dead_letter_sink(std::size_t max_raw_bytes)
    : max_raw_bytes_(max_raw_bytes) {}

HANDOFF_INLINE bool memory_dead_letter_sink::write(const dead_letter& record) {
    std::string line = to_jsonl(record, max_raw_bytes_);
    const std::lock_guard<std::mutex> lock(mutex_);
    lines_.push_back(std::move(line));
    return true;
}

HANDOFF_INLINE std::vector<std::string> memory_dead_letter_sink::lines() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return lines_;
}

} // namespace handoff
