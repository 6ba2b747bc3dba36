// SPDX-License-Identifier: MIT
#pragma once

// handoff::testing's fixture loading: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/testing.hpp>

#include <handoff/detail/read_file.hpp>
#include <handoff/fixture_manifest.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>  // size_t
#include <optional> // optional
#include <sstream>  // istringstream
#include <string>   // string, getline, to_string
#include <utility>  // move
#include <vector>   // vector

namespace handoff::testing {

namespace detail {

HANDOFF_INLINE std::string read_whole_file(const std::string& path, const std::string& where) {
    std::optional<std::string> text = handoff::detail::read_file(path);
    if (!text) {
        throw manifest_error(where + ": cannot read " + path);
    }
    return std::move(*text);
}

HANDOFF_INLINE fixture_case case_from_line(const std::string& dir, const std::string& line, const std::string& where) {
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
HANDOFF_INLINE std::vector<fixture_case> load_fixtures(const std::string& dir) {
    const std::string manifest = dir + "/manifest.jsonl";
    const std::optional<std::string> text = handoff::detail::read_file(manifest);
    if (!text) {
        throw manifest_error("cannot read " + manifest);
    }
    std::istringstream in(*text);
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

} // namespace handoff::testing
