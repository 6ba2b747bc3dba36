// SPDX-License-Identifier: MIT
#pragma once
// A command's inputs: a file or standard input ("-"), read line by line in flat memory (the
// check's --jsonl input, the report's JSON Lines files). Whole files are read with
// handoff::detail::read_file.

#include <algorithm> // max, min
#include <array>     // array
#include <cstddef>   // size_t
#include <cstdio>    // EOF
#include <cstring>   // memchr
#include <fstream>   // ifstream
#include <ios>       // ios, ios_base, streamsize
#include <istream>   // istream
#include <optional>  // optional, nullopt
#include <streambuf> // streambuf
#include <string>    // string

namespace handoff_cli {

/// The stream to read `path` from: `standard_input` for "-", else `file`, opened here; nullptr
/// when the file cannot be opened.
inline std::istream* open_input(const std::string& path, std::ifstream& file, std::istream& standard_input) {
    if (path == "-") {
        return &standard_input;
    }
    file.open(path, std::ios::binary);
    return file ? &file : nullptr;
}

/// The lines of a JSON Lines stream, read a block at a time. Each line keeps at most `limit`
/// + 1 bytes (the rest of an overlong line is skipped) so memory stays flat whatever the input.
/// A block is what the stream has at hand (one read() on a pipe), so a line is checked as soon
/// as it arrives instead of when 64 KiB have. A failed read() (a directory, EIO, a reset
/// connection: libstdc++'s filebuf throws std::ios_base::failure) ends the input like its end
/// does, and error() then says why, so lines already read keep their results.
class line_reader {
public:
    explicit line_reader(std::streambuf& in) : in_(in) {}

    /// The next line, without its "\n" or "\r\n"; false at end of input or after a read
    /// error (error()). A line a read error cut short is not returned.
    bool next(std::string& line, std::size_t limit) {
        line.clear();
        bool any = false;
        bool cut = false; // bytes past limit + 1 were dropped
        for (;;) {
            if (pos_ == end_ && !refill()) {
                if (!any || error_) {
                    line.clear();
                    return false;
                }
                break;
            }
            any = true;
            const char* start = buffer_.data() + pos_;
            const auto* newline = static_cast<const char*>(std::memchr(start, '\n', end_ - pos_));
            const std::size_t n = newline != nullptr ? static_cast<std::size_t>(newline - start) : end_ - pos_;
            const std::size_t room = line.size() <= limit ? limit + 1 - line.size() : 0;
            line.append(start, std::min(n, room));
            cut = cut || n > room;
            pos_ += n;
            if (newline != nullptr) {
                ++pos_;
                break;
            }
        }
        // A cut line keeps limit + 1 bytes, so the receiver refuses it by size, even when the
        // byte it was cut after is a '\r'.
        if (!cut && !line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        return true;
    }

    /// Why reading stopped early (the system's words, "Is a directory"); nullopt while the
    /// input has been read without error.
    [[nodiscard]] const std::optional<std::string>& error() const noexcept { return error_; }

private:
    /// Reads the next block; false at end of input and after a read error (error_ set, and no
    /// read is tried again).
    bool refill() {
        if (error_) {
            return false;
        }
        pos_ = 0;
        end_ = 0;
        try {
            if (in_.sgetc() == EOF) { // one underflow: a single read() of what is there
                return false;
            }
            const std::streamsize ready = std::max<std::streamsize>(in_.in_avail(), 1);
            const std::streamsize got = in_.sgetn(
                buffer_.data(), std::min<std::streamsize>(ready, static_cast<std::streamsize>(buffer_.size())));
            end_ = static_cast<std::size_t>(std::max<std::streamsize>(got, 0));
        } catch (const std::ios_base::failure& e) {
            error_ = e.code().message();
            return false;
        }
        return end_ > 0;
    }

    std::streambuf& in_;
    std::array<char, 65536> buffer_{};
    std::size_t pos_ = 0;
    std::size_t end_ = 0;
    std::optional<std::string> error_;
};

} // namespace handoff_cli
