// SPDX-License-Identifier: MIT
#pragma once

// envelope_schema()'s definition: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/decode.hpp>
#include <handoff/detail/envelope/schema_text.hpp>
#include <handoff/envelope_schema.hpp>

#include <nlohmann/json.hpp>

namespace handoff {

HANDOFF_INLINE const nlohmann::json& envelope_schema() {
    // The text is a compile-time constant that the tests parse: it cannot be invalid here.
    static const nlohmann::json document = detail::parse_document(detail::envelope_schema_text).value();
    return document;
}

} // namespace handoff
