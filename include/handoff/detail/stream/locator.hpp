// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/decode.hpp>

#include <cstddef> // size_t
#include <cstdint> // uint8_t

namespace handoff::detail::stream {

/// What the byte just read is to the streaming check.
enum class byte_role : std::uint8_t {
    prose,       // outside the JSON text: tolerated, nothing to check
    json,        // part of the JSON text: the tokenizer reads it
    stray_brace, // a '}' after the object closed: the JSON span now ends past prose
    fence_cut,   // a fence closed while the object was open, after a '}': the span is cut short
    unsure,      // a layout the streaming check does not follow: only finish() decides
};

/// Step 1's tolerant layout (decode.hpp's extract_object) followed byte by byte: the JSON text
/// runs from the first '{' to the last '}', or inside the first code fence when that fence
/// comes before the first '{' and holds a '{' ... '}' span. Strict mode: every byte is JSON.
/// The JSON text never depends on bytes not yet seen except where the roles above say so.
class locator {
public:
    explicit locator(bool strict) : phase_(strict ? phase::strict : phase::prose) {}

    /// The role of byte `c`; `object_done` says whether the JSON object has closed.
    byte_role feed(char c, bool object_done) {
        const bool tick = c == '`';
        ticks_ = tick ? ticks_ + 1 : 0;
        const bool fence = ticks_ == 3;
        switch (phase_) {
        case phase::strict: return byte_role::json;
        case phase::prose:
        case phase::prose_unfenced:
            if (fence && phase_ == phase::prose) {
                phase_ = phase::fence_line;
                return byte_role::prose;
            }
            return c == '{' ? start(false) : byte_role::prose;
        case phase::fence_line:
            if (c == '{') {
                phase_ = phase::unsure; // "```{" ...: the info line holds a brace
                return byte_role::unsure;
            }
            if (c == '\n') {
                phase_ = phase::fence_body;
                ticks_ = 0;
            }
            return byte_role::prose;
        case phase::fence_body:
            if (fence) {
                phase_ = phase::prose_unfenced; // an empty fence is prose: look in the whole text
                return byte_role::prose;
            }
            return c == '{' ? start(true) : byte_role::prose;
        case phase::json: return json_byte(c, fence, object_done);
        case phase::settled:
        case phase::unsure: return phase_ == phase::unsure ? byte_role::unsure : byte_role::prose;
        }
        return byte_role::unsure;
    }

    /// Whether the bytes of a JSON string matter only to the tokenizer: inside the object, no
    /// fence being watched for (a fence closing inside a string would change the span).
    [[nodiscard]] bool strings_opaque() const noexcept {
        return phase_ == phase::strict || (phase_ == phase::json && !fenced_);
    }

    /// Where the JSON text starts in the reply (valid once a byte was json).
    [[nodiscard]] std::size_t json_start() const noexcept { return start_; }
    void set_offset(std::size_t offset) noexcept { offset_ = offset; }

private:
    enum class phase : std::uint8_t { strict, prose, prose_unfenced, fence_line, fence_body, json, settled, unsure };

    byte_role start(bool fenced) {
        phase_ = phase::json;
        fenced_ = fenced;
        start_ = offset_;
        return byte_role::json;
    }

    byte_role json_byte(char c, bool fence, bool object_done) {
        if (fence && fenced_) {
            if (object_done) {
                phase_ = phase::settled; // the fence closed after the object: the rest is prose
                return byte_role::prose;
            }
            if (brace_seen_) {
                return byte_role::fence_cut;
            }
            fenced_ = false; // no '}' in the fence: decode ignores it and reads the whole text
        }
        brace_seen_ = brace_seen_ || c == '}';
        if (object_done) {
            return c == '}' ? byte_role::stray_brace : byte_role::prose;
        }
        return byte_role::json;
    }

    phase phase_;
    unsigned ticks_ = 0;
    bool fenced_ = false;
    bool brace_seen_ = false;
    std::size_t start_ = 0;
    std::size_t offset_ = 0;
};

} // namespace handoff::detail::stream
