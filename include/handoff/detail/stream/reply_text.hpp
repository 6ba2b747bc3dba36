// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/stream/lent_buffer.hpp>

#include <cstddef>     // size_t
#include <cstring>     // memcpy
#include <limits>      // numeric_limits
#include <memory>      // unique_ptr
#include <string_view> // string_view
#include <utility>     // move, swap

namespace handoff::detail::stream {

/// Bytes kept in one allocation, appended at the end: a chunk of a few bytes is copied in line,
/// where std::string's append is a call out of line that weighs on every push of a streamed reply.
class byte_buffer {
public:
    byte_buffer() = default;
    byte_buffer(const byte_buffer&) = delete;
    byte_buffer& operator=(const byte_buffer&) = delete;
    /// A buffer moved from is left empty, with no capacity: it owns no bytes any more.
    byte_buffer(byte_buffer&& other) noexcept { swap(other); }
    byte_buffer& operator=(byte_buffer&& other) noexcept {
        byte_buffer(std::move(other)).swap(*this);
        return *this;
    }
    ~byte_buffer() = default;

    void append(const char* bytes, std::size_t n) {
        if (n > capacity_ - size_) {
            grow(size_ + n);
        }
        if (n != 0) {
            std::memcpy(data_.get() + size_, bytes, n);
        }
        size_ += n;
    }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
    [[nodiscard]] const char* data() const noexcept { return data_.get(); }
    void clear() noexcept { size_ = 0; }
    void swap(byte_buffer& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
        std::swap(capacity_, other.capacity_);
    }

private:
    /// Room for `needed` bytes at least, the contents kept: the capacity doubles, so a text
    /// appended a chunk at a time is copied a bounded number of times per byte.
    void grow(std::size_t needed) {
        std::size_t next = capacity_ < 256 ? 256 : capacity_;
        while (next < needed) {
            next = next > std::numeric_limits<std::size_t>::max() / 2 ? needed : next * 2;
        }
        std::unique_ptr<char[]> bigger(new char[next]); // NOLINT(cppcoreguidelines-avoid-c-arrays)
        if (size_ != 0) {
            std::memcpy(bigger.get(), data_.get(), size_);
        }
        data_ = std::move(bigger);
        capacity_ = next;
    }

    std::unique_ptr<char[]> data_; // NOLINT(cppcoreguidelines-avoid-c-arrays): raw bytes, never initialised
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};

/// A streamed reply's bytes as they arrive, in a buffer the thread lends while the check lives
/// (lent_buffer): the replies a thread checks one after another grow one buffer once.
class reply_text {
public:
    /// The most capacity the thread keeps for the next reply.
    static constexpr std::size_t max_spare = std::size_t{256} * 1024;

    void append(std::string_view bytes) { text_.get().append(bytes.data(), bytes.size()); }
    [[nodiscard]] std::size_t size() const noexcept { return text_.get().size(); }
    [[nodiscard]] const char* data() const noexcept { return text_.get().data(); }
    [[nodiscard]] char operator[](std::size_t i) const noexcept { return text_.get().data()[i]; }
    // NOLINTNEXTLINE(google-explicit-constructor): the text reads as the string it is
    operator std::string_view() const noexcept { return {text_.get().data(), text_.get().size()}; }

private:
    lent_buffer<byte_buffer, max_spare> text_;
};

} // namespace handoff::detail::stream
