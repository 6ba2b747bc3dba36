// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/config.hpp>
#include <handoff/decision.hpp>
#include <handoff/enums.hpp>
#include <handoff/fixture_manifest.hpp>
#include <handoff/receipt.hpp>

#include <nlohmann/json.hpp>

#include <optional> // optional
#include <string>   // string
#include <vector>   // vector

namespace handoff::testing {

/// One fixture of a directory written by `handoff-check fixtures`: the text to receive and
/// its manifest line, which says how the receiver must route it (`entry.route`,
/// `entry.failed_step`, `entry.action`). Pass `entry.context` to receive(): the FAIL fixture
/// is a run on its last attempt. Framework-neutral: loop, receive, check.
struct fixture_case {
    manifest_entry entry;
    std::string text;
};

namespace detail {

/// The whole file at `path`; throws manifest_error naming `where` when it cannot be read.
[[nodiscard]] std::string read_whole_file(const std::string& path, const std::string& where);

/// The fixture of one manifest line, its file read from `dir`; throws manifest_error naming
/// `where` for a line that is not an entry or names a file outside `dir`.
[[nodiscard]] fixture_case case_from_line(const std::string& dir, const std::string& line, const std::string& where);

} // namespace detail

/// Every fixture listed in `dir`/manifest.jsonl, in order, with its file's text. Throws
/// manifest_error naming manifest.jsonl:LINE for a line that is not a manifest entry or names
/// a file that cannot be read, and for a manifest that is missing or lists nothing: a fixture
/// directory that cannot be read is a broken test setup, never an empty, passing loop.
[[nodiscard]] std::vector<fixture_case> load_fixtures(const std::string& dir);

/// Empty when the receipt routes as the case expects (route, failed step, decision action),
/// else one line saying what differs, with the receipt's first problem.
template <class Task>
[[nodiscard]] std::optional<std::string> check(const receipt<Task>& r, const fixture_case& c) {
    return handoff::detail::routing_mismatch(r, c.entry.file, c.entry.route, c.entry.failed_step, c.entry.action);
}

} // namespace handoff::testing

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/testing-inl.hpp>
#endif
