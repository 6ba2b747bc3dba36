// SPDX-License-Identifier: MIT
#pragma once

// decode()'s definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/decode.hpp>
#include <handoff/detail/json/builder.hpp>
#include <handoff/problem_codes.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <optional>    // optional, nullopt
#include <string>      // string, to_string
#include <string_view> // string_view
#include <utility>     // move
#include <vector>      // vector

namespace handoff {
namespace detail {

HANDOFF_INLINE problem parse_problem(std::string code, std::string message) {
    return problem{step::parse, std::move(code), "", std::move(message)};
}

/// Finds the JSON object inside model text: the first fenced block if there is one, then the
/// span from the first '{' to the last '}'. Never repairs what is inside.
[[nodiscard]] HANDOFF_INLINE std::optional<std::string_view> extract_object(std::string_view text,
                                                                            std::vector<tolerance>& applied) {
    std::string_view body = text;
    std::string_view before_fence;
    std::string_view after_fence;
    const std::size_t fence = text.find("```");
    // A fence after the first '{' is inside the JSON (a string quoting markdown), not around it.
    if (fence != std::string_view::npos && fence < text.find('{')) {
        // The info string ("json", "JSON", ...) runs to the end of the fence line.
        const std::size_t line_end = text.find('\n', fence);
        const std::size_t open_end = line_end == std::string_view::npos ? text.size() : line_end + 1;
        const std::size_t close = text.find("```", open_end);
        // An unclosed fence (a truncated reply) runs to the end of the text.
        const std::string_view fenced =
            text.substr(open_end, close == std::string_view::npos ? std::string_view::npos : close - open_end);
        // No object inside (```{...}``` on one line is inline code): the backticks are prose.
        const std::size_t open = fenced.find('{');
        const std::size_t shut = fenced.rfind('}');
        if (open != std::string_view::npos && shut != std::string_view::npos && shut > open) {
            before_fence = text.substr(0, fence);
            body = fenced;
            after_fence = close == std::string_view::npos ? std::string_view{} : text.substr(close + 3);
            applied.push_back(tolerance::code_fence);
        }
    }
    const std::size_t first = body.find('{');
    const std::size_t last = body.rfind('}');
    if (first == std::string_view::npos || last == std::string_view::npos || last < first) {
        return std::nullopt;
    }
    if (!is_blank(before_fence) || !is_blank(body.substr(0, first))) {
        applied.push_back(tolerance::leading_prose);
    }
    if (!is_blank(after_fence) || !is_blank(body.substr(last + 1))) {
        applied.push_back(tolerance::trailing_prose);
    }
    return body.substr(first, last - first + 1);
}

HANDOFF_INLINE std::optional<std::string_view> locate_json(std::string_view text, const decode_options& options,
                                                           decode_result& result) {
    if (text.size() > options.limits.max_bytes) {
        result.problems.push_back(
            detail::parse_problem(codes::parse_limit_bytes, "the reply exceeds the limit of " +
                                                                std::to_string(options.limits.max_bytes) + " bytes"));
        return std::nullopt;
    }
    std::string_view json_text = text;
    if (text.substr(0, detail::utf8_bom.size()) == detail::utf8_bom) {
        if (options.strict) {
            result.problems.push_back(detail::parse_problem(
                codes::parse_byte_order_mark,
                "the reply starts with a UTF-8 byte order mark; strict mode accepts plain JSON only"));
            return std::nullopt;
        }
        result.tolerances.push_back(tolerance::byte_order_mark);
        json_text.remove_prefix(detail::utf8_bom.size());
    }
    if (!options.strict) {
        const auto object = detail::extract_object(json_text, result.tolerances);
        if (!object) {
            result.problems.push_back(detail::parse_problem(
                codes::parse_no_object, detail::is_blank(json_text)
                                            ? "the reply is empty: expected one JSON object"
                                            : "no JSON object found: the reply has no '{' ... '}' span"));
            return std::nullopt;
        }
        json_text = *object;
    }
    return json_text;
}

HANDOFF_INLINE std::optional<problem> read_json(std::string_view json_text, json_builder& builder, std::size_t offset) {
    // Strict: the value must end the text; comments are not JSON.
    // https://json.nlohmann.me/api/basic_json/sax_parse/
    if (!nlohmann::json::sax_parse(json_text.begin(), json_text.end(), &builder, nlohmann::json::input_format_t::json,
                                   /*strict=*/true, /*ignore_comments=*/false) ||
        builder.failed()) {
        return builder.take_problem();
    }
    // "{...}\0{...}" would otherwise read as the first object, the rest dropped without a word.
    // A NUL inside a value fails above; one that follows a complete value is refused here.
    if (const std::size_t nul = json_text.find('\0'); nul != std::string_view::npos) {
        return parse_problem(codes::parse_nul_byte,
                             "a raw NUL byte at offset " + std::to_string(offset + nul) +
                                 " follows the JSON value; NUL is not JSON, and what follows it would be ignored");
    }
    return std::nullopt;
}

HANDOFF_INLINE std::optional<nlohmann::json> parse_document(std::string_view text, problem* failure) {
    json_builder builder = json_builder::for_document();
    if (auto why = read_json(text, builder)) {
        if (failure != nullptr) {
            *failure = std::move(*why);
        }
        return std::nullopt;
    }
    return builder.take_value();
}

} // namespace detail

HANDOFF_INLINE decode_result decode(std::string_view text, const decode_options& options) {
    decode_result result;
    const std::optional<std::string_view> located = detail::locate_json(text, options, result);
    if (!located) {
        return result;
    }
    const std::string_view json_text = *located;
    detail::json_builder builder(options.limits);
    if (auto failure =
            detail::read_json(json_text, builder, static_cast<std::size_t>(json_text.data() - text.data()))) {
        result.problems.push_back(std::move(*failure));
        return result;
    }
    result.value = builder.take_value();
    return result;
}

} // namespace handoff
