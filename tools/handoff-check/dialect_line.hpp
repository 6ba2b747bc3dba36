// SPDX-License-Identifier: MIT
#pragma once
// The line `lint` and `schema --for` say the dialect of a task schema in, on stderr:
//   handoff-check lint: FILE: dialect: 2020-12 (from its keywords)
// "from $schema" when the schema names an official metaschema, "from --dialect" when the command
// line named one for a schema that names none, "from its keywords" otherwise
// (compiled_schema::dialect_of states the rule).

#include <handoff/detail/schema/dialect.hpp>
#include <handoff/enum_names.hpp>
#include <handoff/schema.hpp>

#include <nlohmann/json.hpp>

#include <string> // string

namespace handoff_cli {

/// "dialect: NAME (from SOURCE)" for `schema` read with `options`, as the receiver reads it.
[[nodiscard]] inline std::string dialect_line(const nlohmann::json& schema, const handoff::schema_options& options) {
    const auto declared = schema.find("$schema"); // end() for a schema that is not an object
    const bool official = declared != schema.end() && declared->is_string() &&
                          handoff::detail::official_dialect(declared->get_ref<const std::string&>());
    const char* const source = official ? "$schema" : options.dialect ? "--dialect" : "its keywords";
    return "dialect: " + std::string(handoff::to_string(handoff::compiled_schema::dialect_of(schema, options))) +
           " (from " + source + ")";
}

} // namespace handoff_cli
