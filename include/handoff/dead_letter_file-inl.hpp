// SPDX-License-Identifier: MIT
#pragma once

// dead_letter_file's definitions, with the operating system's file interface: inline in every
// file header-only, compiled once in <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/dead_letter_file.hpp>

#include <cstdio>  // fopen, fwrite, fflush, fclose on Windows
#include <mutex>   // lock_guard
#include <utility> // move

#if !defined(_WIN32)
#include <cerrno>   // errno, EINTR
#include <cstring>  // strerror
#include <fcntl.h>  // open, O_*
#include <unistd.h> // write, close
#endif

namespace handoff {

HANDOFF_INLINE file_dead_letter_sink::file_dead_letter_sink(std::string path, std::size_t max_raw_bytes)
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

HANDOFF_INLINE file_dead_letter_sink::~file_dead_letter_sink() {
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

HANDOFF_INLINE bool file_dead_letter_sink::ok() const noexcept {
#if defined(_WIN32)
    return file_ != nullptr;
#else
    return fd_ >= 0;
#endif
}

HANDOFF_INLINE std::string file_dead_letter_sink::error() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return error_;
}

HANDOFF_INLINE bool file_dead_letter_sink::write(const dead_letter& record) {
    return write_line(to_jsonl(record, max_raw_bytes_));
}

HANDOFF_INLINE bool file_dead_letter_sink::write_line(std::string_view line) {
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

} // namespace handoff
