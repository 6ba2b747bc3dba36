// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>     // size_t
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff::detail::stream {

/// One server-sent event: its `event:` name (empty when none) and its `data:` lines joined;
/// `cut` when a line or the data went past the reader's bound, so that `data` is not all of it.
struct sse_event {
    std::string name;
    std::string data;
    bool cut = false;
};

/// Server-sent events as the HTML standard's event stream interpretation reads them
/// (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
/// lines end at CR, LF or CRLF; a blank line dispatches the event; "data" lines join with LF;
/// one space after the colon is dropped; a line starting with ':' is a comment; a byte order
/// mark at the very start is ignored. Bytes may arrive split anywhere. A line longer than
/// `max_line`, or an event whose data lines together are, is cut and marked so: memory stays
/// within the bound however the lines come.
class sse_reader {
public:
    explicit sse_reader(std::size_t max_line) : max_line_(max_line) {}

    /// Reads `bytes`; appends each event they complete to `out`.
    void push(std::string_view bytes, std::vector<sse_event>& out) {
        for (const char c : bytes) {
            if (bom_read_ < bom.size()) {
                skip_bom(c, out);
            } else {
                feed(c, out);
            }
        }
    }

    /// The end of the stream. The standard drops an event not followed by a blank line; this
    /// reader dispatches it, with a last data line that has no line end, so that a provider that
    /// closes the connection right after its last event's data still ends the reply.
    void finish(std::vector<sse_event>& out) {
        if (bom_read_ < bom.size()) {
            skip_bom('\n', out); // a stream of a mark's first bytes alone: those bytes are its own
        }
        if (!line_.empty()) {
            line_done(out);
        }
        line_done(out);
    }

private:
    /// The byte order mark a stream may start with, which the standard ignores.
    static constexpr std::string_view bom = "\xEF\xBB\xBF";

    /// A byte of the stream's first three: passed over while they spell the mark; where they
    /// part from it, the bytes passed over are the stream's after all.
    void skip_bom(char c, std::vector<sse_event>& out) {
        if (c == bom[bom_read_]) {
            ++bom_read_;
            return;
        }
        const std::string_view passed = bom.substr(0, bom_read_);
        bom_read_ = bom.size();
        for (const char b : passed) {
            feed(b, out);
        }
        feed(c, out);
    }

    void feed(char c, std::vector<sse_event>& out) {
        if (after_cr_ && c == '\n') {
            after_cr_ = false;
            return; // the LF of a CRLF
        }
        after_cr_ = c == '\r';
        if (c == '\r' || c == '\n') {
            line_done(out);
        } else if (line_.size() < max_line_) {
            line_.push_back(c);
        } else {
            line_cut_ = true;
        }
    }

    void line_done(std::vector<sse_event>& out) {
        if (line_.empty() && !line_cut_) {
            if (has_data_) {
                out.push_back(std::move(event_));
            }
            event_ = sse_event{};
            has_data_ = false;
            return;
        }
        const std::string_view line = line_;
        const std::size_t colon = line.find(':');
        const std::string_view field = line.substr(0, colon);
        // A cut comment or id line loses nothing the event carries.
        event_.cut = event_.cut || (line_cut_ && (field == "data" || field == "error"));
        line_cut_ = false;
        std::string_view value = colon == std::string_view::npos ? std::string_view{} : line.substr(colon + 1);
        if (!value.empty() && value.front() == ' ') {
            value.remove_prefix(1);
        }
        if (field == "data") {
            if (event_.data.size() + 1 + value.size() > max_line_) {
                event_.cut = true;
            } else {
                event_.data.append(has_data_ ? "\n" : "").append(value);
            }
            has_data_ = true;
        } else if (field == "event") {
            event_.name = std::string(value);
        } else if (field == "error" && !has_data_) {
            // Not a field of the standard, which ignores it: llama-server's builds before its
            // data-only events wrote a stream's error as an "error:" line
            // (server_sent_event(sink, "error", ...) in tools/server/utils.hpp of
            // github.com/ggml-org/llama.cpp). Read as an event named "error" with that data.
            event_.name = "error";
            event_.data.assign(value.substr(0, max_line_));
            has_data_ = true;
        }
        line_.clear();
    }

    std::size_t max_line_;
    std::string line_;
    sse_event event_;
    bool has_data_ = false;
    bool after_cr_ = false;
    bool line_cut_ = false;    // the line being read went past max_line_
    std::size_t bom_read_ = 0; // bom.size() once the stream's first bytes are past
};

} // namespace handoff::detail::stream
