// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef> // size_t

namespace handoff::detail::stream {

/// A buffer the thread lends to one owner at a time: the owner takes the thread's spare when it
/// is made and gives it back, emptied, when it ends. Buffers filled one after another on a thread
/// (the replies it checks, their member arrays) so grow one allocation once, rather than each its
/// own from nothing: every doubling an allocation, a copy and a free (and in glibc a request of
/// 1 KiB or more first merges the small blocks freed since the last such request, after which
/// small requests are slower). The spare keeps at most `MaxKept` of capacity and never the
/// contents. Owners alive on one thread at once each have a buffer of their own: the spare goes to
/// the first, the others start empty. An owner that ends after its thread's spare did (one held
/// by a static, or by a thread_local made before the spare) keeps its buffer to itself.
template <class Buffer, std::size_t MaxKept>
class lent_buffer {
public:
    lent_buffer() noexcept {
        if (Buffer* kept = spare()) {
            buffer_.swap(*kept);
            buffer_.clear();
        }
    }
    lent_buffer(const lent_buffer&) = default;
    lent_buffer(lent_buffer&&) noexcept = default;
    lent_buffer& operator=(const lent_buffer&) = default;
    lent_buffer& operator=(lent_buffer&&) noexcept = default;
    ~lent_buffer() {
        Buffer* kept = spare();
        if (kept != nullptr && buffer_.capacity() <= MaxKept && buffer_.capacity() > kept->capacity()) {
            buffer_.clear();
            kept->swap(buffer_);
        }
    }

    [[nodiscard]] Buffer& get() noexcept { return buffer_; }
    [[nodiscard]] const Buffer& get() const noexcept { return buffer_; }

private:
    /// The thread's spare, or null once the thread has destroyed it: `gone` has no destructor,
    /// so it can still be read while the thread's other objects are destroyed.
    static Buffer* spare() noexcept {
        thread_local bool gone = false;
        struct holder {
            Buffer buffer;
            holder() noexcept = default;
            holder(const holder&) = delete;
            holder& operator=(const holder&) = delete;
            ~holder() { gone = true; }
        };
        if (gone) {
            return nullptr;
        }
        thread_local holder kept;
        return &kept.buffer;
    }

    Buffer buffer_;
};

} // namespace handoff::detail::stream
