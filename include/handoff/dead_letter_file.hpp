// SPDX-License-Identifier: MIT
#pragma once

// The dead-letter sink that appends to a file: in a header of its own, so that only the files
// that write dead letters to disk include the operating system's file interface (in its
// -inl.hpp file, compiled once when HANDOFF_COMPILED_LIB is set).

#include <handoff/config.hpp>
#include <handoff/dead_letter.hpp>

#include <cstddef>     // size_t
#include <cstdio>      // FILE on Windows
#include <mutex>       // mutex
#include <string>      // string
#include <string_view> // string_view

namespace handoff {

// Its virtual functions are declared HANDOFF_INLINE in the class (see dead_letter.hpp).

/// Appends records to a JSON Lines file. Thread-safe (a mutex, one write per line) and safe
/// across processes on POSIX (O_APPEND: each write() lands whole at the end of the file).
class file_dead_letter_sink final : public dead_letter_sink {
public:
    explicit file_dead_letter_sink(std::string path, std::size_t max_raw_bytes = default_dead_letter_raw_bytes);
    HANDOFF_INLINE ~file_dead_letter_sink() override;

    /// False when the file could not be opened; error() says why.
    [[nodiscard]] bool ok() const noexcept;

    [[nodiscard]] std::string error() const;

    [[nodiscard]] const std::string& path() const noexcept { return path_; }

    [[nodiscard]] HANDOFF_INLINE bool write(const dead_letter& record) override;

    /// Appends one line (which must end in '\n' and contain no other newline) in one call.
    [[nodiscard]] bool write_line(std::string_view line);

private:
    std::string path_;
    std::size_t max_raw_bytes_;
    /// Held by every write and by error().
    mutable std::mutex mutex_;
    std::string error_;
#if defined(_WIN32)
    std::FILE* file_ = nullptr;
#else
    int fd_ = -1;
#endif
};

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/dead_letter_file-inl.hpp>
#endif
