// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/decision.hpp>
#include <handoff/enums.hpp>
#include <handoff/fixture_manifest.hpp>
#include <handoff/receipt.hpp>

#include <nlohmann/json.hpp>

#include <fstream>  // ifstream
#include <optional> // optional
#include <sstream>  // ostringstream
#include <string>   // string, getline
#include <utility>  // move
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

[[nodiscard]] inline std::string read_whole_file(const std::string& path, const std::string& where) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw manifest_error(where + ": cannot read " + path);
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

[[nodiscard]] inline fixture_case case_from_line(const std::string& dir, const std::string& line,
                                                 const std::string& where) {
    const nlohmann::json parsed = nlohmann::json::parse(line, nullptr, false);
    if (parsed.is_discarded()) {
        throw manifest_error(where + ": not a JSON object");
    }
    manifest_entry entry;
    try {
        entry = manifest_entry_from_json(parsed);
    } catch (const manifest_error& e) {
        throw manifest_error(where + ": " + e.what());
    }
    if (entry.file.empty() || entry.file.find('/') != std::string::npos || entry.file.find('\\') != std::string::npos) {
        throw manifest_error(where + ": \"file\" must name a file in the fixture directory");
    }
    std::string text = read_whole_file(dir + "/" + entry.file, where);
    return fixture_case{std::move(entry), std::move(text)};
}

} // namespace detail

/// Every fixture listed in `dir`/manifest.jsonl, in order, with its file's text. Throws
/// manifest_error naming manifest.jsonl:LINE for a line that is not a manifest entry or names
/// a file that cannot be read, and for a manifest that is missing or lists nothing: a fixture
/// directory that cannot be read is a broken test setup, never an empty, passing loop.
[[nodiscard]] inline std::vector<fixture_case> load_fixtures(const std::string& dir) {
    const std::string manifest = dir + "/manifest.jsonl";
    std::ifstream in(manifest, std::ios::binary);
    if (!in) {
        throw manifest_error("cannot read " + manifest);
    }
    std::vector<fixture_case> cases;
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
        if (!line.empty() && line.back() == '\r') {
            line.pop_back();
        }
        if (line.find_first_not_of(" \t") == std::string::npos) {
            continue;
        }
        cases.push_back(detail::case_from_line(dir, line, manifest + ":" + std::to_string(number)));
    }
    if (cases.empty()) {
        throw manifest_error(manifest + ": lists no fixtures");
    }
    return cases;
}

/// Empty when the receipt routes as the case expects (route, failed step, decision action),
/// else one line saying what differs, with the receipt's first problem.
template <class Task>
[[nodiscard]] std::optional<std::string> check(const receipt<Task>& r, const fixture_case& c) {
    return handoff::detail::routing_mismatch(r, c.entry.file, c.entry.route, c.entry.failed_step, c.entry.action);
}

} // namespace handoff::testing
