// SPDX-License-Identifier: MIT
#pragma once

// The dead-letter sink that appends to a file: in a header of its own, so that only the files
// that write dead letters to disk include the operating system's file interface.

#include <handoff/dead_letter.hpp>

#include <cstddef>     // size_t
#include <cstdio>      // FILE, fopen, fwrite on Windows
#include <mutex>       // mutex, lock_guard
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move

#if !defined(_WIN32)
#include <cerrno>   // errno, EINTR
#include <cstring>  // strerror
#include <fcntl.h>  // open, O_*
#include <unistd.h> // write, close
#endif

namespace handoff {

/// Appends records to a JSON Lines file. Thread-safe (a mutex, one write per line) and safe
/// across processes on POSIX (O_APPEND: each write() lands whole at the end of the file).
class file_dead_letter_sink final : public dead_letter_sink {
public:
    explicit file_dead_letter_sink(std::string path, std::size_t max_raw_bytes = default_dead_letter_raw_bytes)
        : path_(std::move(path)), max_raw_bytes_(max_raw_bytes) {
#if defined(_WIN32)
        file_ = std::fopen(path_.c_str(), "ab");
        if (file_ == nullptr) {
            error_ = "cannot open " + path_ + " for appending";
        }
#else
        fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd_ < 0) {
            error_ = "cannot open " + path_ + " for appending: " + std::strerror(errno);
        }
#endif
    }

    ~file_dead_letter_sink() override {
#if defined(_WIN32)
        if (file_ != nullptr) {
            std::fclose(file_);
        }
#else
        if (fd_ >= 0) {
            ::close(fd_);
        }
#endif
    }

    /// False when the file could not be opened; error() says why.
    [[nodiscard]] bool ok() const noexcept {
#if defined(_WIN32)
        return file_ != nullptr;
#else
        return fd_ >= 0;
#endif
    }

    [[nodiscard]] std::string error() const {
        const std::lock_guard<std::mutex> lock(mutex_);
        return error_;
    }

    [[nodiscard]] const std::string& path() const noexcept { return path_; }

    [[nodiscard]] bool write(const dead_letter& record) override {
        return write_line(to_jsonl(record, max_raw_bytes_));
    }

    /// Appends one line (which must end in '\n' and contain no other newline) in one call.
    [[nodiscard]] bool write_line(std::string_view line) {
        const std::lock_guard<std::mutex> lock(mutex_);
#if defined(_WIN32)
        if (file_ == nullptr) {
            return false;
        }
        if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0) {
            error_ = "cannot write to " + path_;
            return false;
        }
        return true;
#else
        if (fd_ < 0) {
            return false;
        }
        std::size_t done = 0;
        while (done < line.size()) {
            const ::ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
            if (n < 0) {
                if (errno == EINTR) {
                    continue; // interrupted before anything was written: the line is still whole
                }
                error_ = "cannot write to " + path_ + ": " + std::strerror(errno);
                return false;
            }
            // A regular file takes the whole buffer in one write() unless the disk is full;
            // finishing a short write keeps the line whole in this process at least.
            done += static_cast<std::size_t>(n);
        }
        return true;
#endif
    }

private:
    std::string path_;
    std::size_t max_raw_bytes_;
    mutable std::mutex mutex_;
    std::string error_;
#if defined(_WIN32)
    std::FILE* file_ = nullptr;
#else
    int fd_ = -1;
#endif
};

} // namespace handoff
