// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/config.hpp>
#include <handoff/limits.hpp>
#include <handoff/problem.hpp>
#include <handoff/problem_codes.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace handoff {

struct decode_options {
    /// Strict: the text must be exactly one JSON value (whitespace around it is JSON's own);
    /// no fence, prose or BOM is removed.
    bool strict = false;
    parse_limits limits{};
};

/// The outcome of step 1: a JSON value, or the problems that prevented one.
struct [[nodiscard]] decode_result {
    std::optional<nlohmann::json> value;
    std::vector<tolerance> tolerances;
    problem_list problems;

    [[nodiscard]] bool ok() const noexcept { return value.has_value(); }
};

namespace detail {

inline constexpr std::string_view utf8_bom = "\xEF\xBB\xBF";

[[nodiscard]] inline bool is_blank(std::string_view s) noexcept {
    return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

/// Step 1 up to the JSON text itself: the byte limit, the BOM and, unless strict, the fence
/// and prose around the object (recorded in `result.tolerances`). nullopt with a problem in
/// `result.problems` when there is no JSON text to parse. The receiver's fast path
/// (detail/envelope/reader.hpp) starts from here too.
[[nodiscard]] std::optional<std::string_view> locate_json(std::string_view text, const decode_options& options,
                                                          decode_result& result);

class json_builder; // detail/json/builder.hpp

/// Reads `json_text` as one JSON value into `builder` with nlohmann's parser, strictly: nothing
/// but whitespace after the value, no comments, no NUL byte (nlohmann takes one for the end of
/// the input and would drop what follows it). Every JSON text handoff parses goes through here,
/// so a file that reads JSON instantiates nlohmann's parser once. `offset` is where `json_text`
/// starts in the text a problem's offsets count in. nullopt when the value was read.
[[nodiscard]] std::optional<problem> read_json(std::string_view json_text, json_builder& builder,
                                               std::size_t offset = 0);

/// A JSON document that is not a reply (a schema file, handoff's own schema texts), read as
/// nlohmann::json::parse reads it (json_builder::for_document). nullopt when it is not JSON,
/// with the reason in `*failure` when given.
[[nodiscard]] std::optional<nlohmann::json> parse_document(std::string_view text, problem* failure = nullptr);

} // namespace detail

/// Step 1 of the receipt check, parse. Never throws for any input; never "fixes" single quotes, trailing commas,
/// comments or NaN: those are `parse` problems that name the offending token.
[[nodiscard]] decode_result decode(std::string_view text, const decode_options& options = {});

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/decode-inl.hpp>
#endif
