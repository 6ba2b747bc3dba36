// SPDX-License-Identifier: MIT
#pragma once

// A reply checked as it arrives:
//
//   handoff::stream_check<> check(receiver);
//   for (const std::string& chunk : provider_stream) {
//       check.push(chunk);
//       if (check.doomed()) { break; } // no continuation can pass steps 1 to 3: stop paying
//   }
//   handoff::receipt<> r = check.finish(); // exactly receiver.receive(the text pushed)
//
// A verdict is only given when it is certain: steps 1 and 2 are followed byte by byte (the
// tolerant layout of step 1, the JSON grammar and parse limits, every envelope rule once the
// value it is about is complete), and step 3 on each array item and member of partial_result
// the task schema judges on its own, and on partial_result once it closes.

#include <handoff/detail/stream/checker.hpp>
#include <handoff/receipt.hpp>
#include <handoff/receiver.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <optional>    // optional
#include <string_view> // string_view
#include <utility>     // move

namespace handoff {

/// Moved, never copied (a check is the state of one reply as it arrives).
template <class Task = nlohmann::json>
class stream_check {
public:
    /// `checker` must outlive the stream_check; its options and task schema apply.
    explicit stream_check(const receiver<Task>& checker)
        : receiver_(&checker), state_(checker.options(), checker.task_schema() ? &*checker.task_schema() : nullptr) {}

    /// The next bytes of the reply, any number, split anywhere (inside a UTF-8 sequence too).
    void push(std::string_view chunk) { state_.push(chunk); }

    /// Set once no continuation of the bytes pushed can pass steps 1 to 3; never cleared.
    [[nodiscard]] const std::optional<stream_verdict>& doomed() const noexcept { return state_.doomed(); }

    /// The envelope's status, once its value was read: before any verdict, or after one of the
    /// task schema (which does not stop the reading, as one of steps 1 and 2 does). A
    /// task-schema verdict decides the route (REPAIR) only beside "ok": beside "capped" it
    /// discards the partial result, and the routing table still routes the envelope on the rest
    /// of it.
    [[nodiscard]] std::optional<status> envelope_status() const { return state_.status_read(); }

    [[nodiscard]] std::size_t bytes_seen() const noexcept { return state_.bytes_seen(); }

    /// The receipt of the whole text pushed, exactly as receiver::receive returns it. Where
    /// the stream established steps 1 and 2 (and judged partial_result), the steps after them
    /// run on what it built; otherwise, and on a second call, the text is received whole.
    [[nodiscard]] receipt<Task> finish(const attempt_context& context = {}, std::string_view source_text = {}) {
        if (std::optional<detail::stream::established_reply> reply = state_.take_established()) {
            receipt<nlohmann::json> out;
            out.tolerances = std::move(reply->tolerances);
            return receiver_->after_envelope(std::move(reply->env), std::move(out), reply->result_valid, context,
                                             source_text);
        }
        return receiver_->receive(state_.text(), context, source_text);
    }

    /// When the reply stopped inside its object (the provider's token cap): the complete,
    /// passing part of partial_result. Empty for a reply whose object closed (after a verdict of
    /// step 1 or 2, its brackets closed in the text), that was cut before partial_result began,
    /// or that said `"schema_ok": false` (its partial_result is not judged; receive treats it as
    /// absent). After a verdict of step 1 or 2, what was complete when it came. Never a result:
    /// finish() reports the cut reply as a parse failure.
    [[nodiscard]] std::optional<stream_salvage> salvage() const { return state_.salvage(); }

private:
    const receiver<Task>* receiver_;
    detail::stream::checker state_;
};

} // namespace handoff
