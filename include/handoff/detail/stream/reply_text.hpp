// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>     // size_t
#include <string>      // string
#include <string_view> // string_view

namespace handoff::detail::stream {

/// A streamed reply's bytes as they arrive. The buffer is the thread's spare while the check
/// lives, and is given back when it ends: the replies a thread checks one after another grow one
/// buffer once, rather than each its own from nothing (every doubling an allocation, a copy and
/// a free). The spare keeps at most max_spare bytes of capacity, and no bytes of a reply.
class reply_text {
public:
    static constexpr std::size_t max_spare = std::size_t{256} * 1024;

    reply_text() noexcept {
        text_.swap(spare());
        text_.clear();
    }
    reply_text(const reply_text&) = default;
    reply_text(reply_text&&) noexcept = default;
    reply_text& operator=(const reply_text&) = default;
    reply_text& operator=(reply_text&&) noexcept = default;
    ~reply_text() {
        std::string& kept = spare();
        if (text_.capacity() <= max_spare && text_.capacity() > kept.capacity()) {
            text_.clear();
            kept.swap(text_);
        }
    }

    void append(std::string_view bytes) { text_.append(bytes.data(), bytes.size()); }
    [[nodiscard]] std::size_t size() const noexcept { return text_.size(); }
    [[nodiscard]] const char* data() const noexcept { return text_.data(); }
    [[nodiscard]] char operator[](std::size_t i) const noexcept { return text_[i]; }
    // NOLINTNEXTLINE(google-explicit-constructor): the text reads as the string it is
    operator std::string_view() const noexcept { return text_; }

private:
    static std::string& spare() noexcept {
        thread_local std::string buffer;
        return buffer;
    }

    std::string text_;
};

} // namespace handoff::detail::stream
