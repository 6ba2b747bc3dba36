// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef> // size_t

namespace handoff::detail::stream {

/// A buffer the thread lends to one owner at a time: the owner takes the thread's spare when it
/// is made and gives it back, emptied, when it ends. Buffers filled one after another on a thread
/// (the replies it checks, their member arrays) so grow one allocation once, rather than each its
/// own from nothing: every doubling an allocation, a copy and a free, and in glibc a large
/// allocation also sweeps every small block freed since the last one. The spare keeps at most
/// `MaxKept` of capacity and never the contents. Owners alive on one thread at once each have a
/// buffer of their own: the spare goes to the first, the others start empty.
template <class Buffer, std::size_t MaxKept>
class lent_buffer {
public:
    lent_buffer() noexcept {
        buffer_.swap(spare());
        buffer_.clear();
    }
    lent_buffer(const lent_buffer&) = default;
    lent_buffer(lent_buffer&&) noexcept = default;
    lent_buffer& operator=(const lent_buffer&) = default;
    lent_buffer& operator=(lent_buffer&&) noexcept = default;
    ~lent_buffer() {
        Buffer& kept = spare();
        if (buffer_.capacity() <= MaxKept && buffer_.capacity() > kept.capacity()) {
            buffer_.clear();
            kept.swap(buffer_);
        }
    }

    [[nodiscard]] Buffer& get() noexcept { return buffer_; }
    [[nodiscard]] const Buffer& get() const noexcept { return buffer_; }

private:
    static Buffer& spare() noexcept {
        thread_local Buffer buffer;
        return buffer;
    }

    Buffer buffer_;
};

} // namespace handoff::detail::stream
