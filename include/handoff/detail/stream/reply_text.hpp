// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/stream/lent_buffer.hpp>

#include <cstddef>     // size_t
#include <string>      // string
#include <string_view> // string_view

namespace handoff::detail::stream {

/// A streamed reply's bytes as they arrive, in a buffer the thread lends while the check lives
/// (lent_buffer): the replies a thread checks one after another grow one buffer once.
class reply_text {
public:
    /// The most capacity the thread keeps for the next reply.
    static constexpr std::size_t max_spare = std::size_t{256} * 1024;

    void append(std::string_view bytes) { text_.get().append(bytes.data(), bytes.size()); }
    [[nodiscard]] std::size_t size() const noexcept { return text_.get().size(); }
    [[nodiscard]] const char* data() const noexcept { return text_.get().data(); }
    [[nodiscard]] char operator[](std::size_t i) const noexcept { return text_.get()[i]; }
    // NOLINTNEXTLINE(google-explicit-constructor): the text reads as the string it is
    operator std::string_view() const noexcept { return text_.get(); }

private:
    lent_buffer<std::string, max_spare> text_;
};

} // namespace handoff::detail::stream
