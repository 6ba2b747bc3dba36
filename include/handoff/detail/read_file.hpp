// SPDX-License-Identifier: MIT
#pragma once

// Every file handoff and handoff-check read goes through here: schema files, fixtures, manifests,
// replies. A bound is applied while reading, so a hostile multi-gigabyte input is never held
// whole in memory: reading stops one byte past the bound, enough for the caller to see that the
// input is over it and say so.

#include <algorithm>  // min
#include <array>      // array
#include <cstddef>    // size_t
#include <filesystem> // path
#include <fstream>    // ifstream
#include <istream>    // istream
#include <limits>     // numeric_limits
#include <optional>   // optional, nullopt
#include <string>     // string

namespace handoff::detail {

/// No bound: the whole input is read.
inline constexpr std::size_t unbounded_read = std::numeric_limits<std::size_t>::max();

/// At most `limit` + 1 bytes of `in` (all of it when shorter): a result longer than `limit`
/// means the input is over it. nullopt when reading fails (a directory, EIO, a reset
/// connection): an input that cannot be read is never taken for an empty one.
[[nodiscard]] inline std::optional<std::string> read_bounded(std::istream& in, std::size_t limit = unbounded_read) {
    const std::size_t keep = limit == unbounded_read ? limit : limit + 1;
    std::string text;
    std::array<char, 65536> buffer{};
    while (text.size() < keep && in.read(buffer.data(), buffer.size()).gcount() > 0) {
        text.append(buffer.data(), std::min(static_cast<std::size_t>(in.gcount()), keep - text.size()));
    }
    // istream::read turns a failed read() (libstdc++'s filebuf throws) into badbit; the end of
    // the input sets only eofbit and failbit.
    if (in.bad()) {
        return std::nullopt;
    }
    return text;
}

/// The bytes of the file at `path`, at most `limit` + 1 of them (read_bounded); nullopt when
/// the file cannot be opened or read.
[[nodiscard]] inline std::optional<std::string> read_file(const std::filesystem::path& path,
                                                          std::size_t limit = unbounded_read) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return std::nullopt;
    }
    return read_bounded(in, limit);
}

} // namespace handoff::detail
