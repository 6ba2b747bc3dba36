// SPDX-License-Identifier: MIT
// The provider keyword matrix (detail/provider/rules.hpp) is the one source of what each provider
// takes: docs/providers.md's tables are rendered from it here and must equal it. Run with
// HANDOFF_WRITE_DOCS=1 to write the rendering into docs/providers.md between its markers.

#include "support/catch.hpp"
#include "support/fixtures.hpp"

#include <handoff/detail/provider/rules.hpp>
#include <handoff/provider.hpp>

#include <cstddef>     // size_t
#include <cstdlib>     // getenv
#include <fstream>     // ofstream
#include <set>         // set
#include <sstream>     // ostringstream
#include <string>      // string
#include <string_view> // string_view

namespace test_provider_matrix { // this file's own names: see "unity build" in tests/CMakeLists.txt

#ifndef HANDOFF_SOURCE_DIR
#error "HANDOFF_SOURCE_DIR must name the repository"
#endif

namespace {

using handoff::detail::keep_when;

/// The columns of the docs, in the order a reader compares them (json_schema keeps everything).
constexpr handoff::provider columns[] = {handoff::provider::openai, handoff::provider::anthropic,
                                         handoff::provider::gemini, handoff::provider::gemini_openapi,
                                         handoff::provider::llama_cpp};

std::string cell_text(keep_when when) {
    switch (when) {
    case keep_when::always: return "yes";
    case keep_when::never: return "no";
    case keep_when::annotation: return "annotation";
    case keep_when::converted: return "converted";
    case keep_when::rewritten_after: return "rewritten";
    case keep_when::items_schema: return "one schema, not beside a dropped prefixItems";
    case keep_when::false_only: return "false only (objects closed)";
    case keep_when::min_items_zero_or_one: return "0 or 1";
    case keep_when::known_format: return "listed formats";
    case keep_when::pattern_openai: return "no lookaround, no \\p{...}";
    case keep_when::pattern_anthropic:
        return "no lookaround, backreferences, \\b, {n,m} over " +
               std::to_string(handoff::detail::anthropic_quantifier_bound);
    case keep_when::pattern_llama: return "anchored ^...$, no lookaround or backreferences";
    case keep_when::pattern_re2: return "no lookaround or backreferences";
    case keep_when::integer_only: return "integers only";
    case keep_when::without_properties: return "not beside properties";
    case keep_when::primitive_values: return "primitive values";
    case keep_when::string_values: return "string values";
    case keep_when::without_ref_member: return "no $ref member";
    case keep_when::llama_members: return "$ref/properties/enum members, not beside properties";
    case keep_when::without_pattern_format: return "not beside a pattern or format";
    }
    return "?";
}

std::size_t source_number(handoff::detail::rule_source s) { return static_cast<std::size_t>(s) + 1; }

std::string rendered_matrix() {
    std::ostringstream out;
    out << "| keyword |";
    for (const handoff::provider p : columns) {
        out << " " << handoff::detail::profile_of(p).display_name << " |";
    }
    out << "\n|---|";
    for (std::size_t i = 0; i < std::size(columns); ++i) {
        out << "---|";
    }
    out << "\n";
    for (const auto& row : handoff::detail::keyword_matrix) {
        out << "| `" << row.keyword << "` |";
        for (const handoff::provider p : columns) {
            const auto& cell = row.cells[static_cast<std::size_t>(p)];
            out << " " << cell_text(cell.when) << " [" << source_number(cell.source) << "] |";
        }
        out << "\n";
    }
    out << "\nKeywords beside `$ref`: ";
    for (const handoff::provider p : columns) {
        const auto& profile = handoff::detail::profile_of(p);
        using handoff::detail::ref_siblings;
        const char* how = profile.siblings == ref_siblings::wrapped   ? "wrapped in `anyOf: [{$ref}]`"
                          : profile.siblings == ref_siblings::dropped ? "dropped, reported"
                          : profile.siblings == ref_siblings::inlined ? "inlined with the target"
                                                                      : "kept";
        out << profile.display_name << " " << how << (p == columns[std::size(columns) - 1] ? ".\n" : "; ");
    }
    out << "Required properties written first: ";
    bool first = true;
    for (const handoff::provider p : columns) {
        if (handoff::detail::profile_of(p).required_first) {
            out << (first ? "" : ", ") << handoff::detail::profile_of(p).display_name;
            first = false;
        }
    }
    out << ".\n\n| limit | provider | maximum | kind | over the whole request | source |\n|---|---|---|---|---|---|\n";
    for (const auto& limit : handoff::detail::schema_limits) {
        out << "| `" << limit.name << "` | " << handoff::detail::profile_of(limit.target).display_name << " | "
            << limit.maximum << " | "
            << (limit.severity == handoff::detail::limit_severity::refuse ? "refused" : "warning") << " | "
            << (limit.whole_request ? "yes" : "no") << " | [" << source_number(limit.source) << "] |\n";
    }
    out << "\nSources:\n\n";
    for (const auto& source : handoff::detail::rule_sources) {
        out << source_number(source.id) << ". " << source.name << ": " << source.where << "\n";
    }
    return out.str();
}

const std::string begin_marker = "<!-- provider matrix: begin (rendered by tests/test_provider_matrix.cpp) -->\n";
const std::string end_marker = "<!-- provider matrix: end -->\n";

std::string read_docs() { return handoff_test::read_file(std::string(HANDOFF_SOURCE_DIR) + "/docs/providers.md"); }

} // namespace

TEST_CASE("docs/providers.md shows the keyword matrix, the limits and their sources as rules.hpp holds them",
          "[provider_matrix]") {
    std::string docs = read_docs();
    const std::size_t begin = docs.find(begin_marker);
    const std::size_t end = docs.find(end_marker);
    REQUIRE(begin != std::string::npos);
    REQUIRE(end != std::string::npos);
    const std::string rendered = rendered_matrix();
    const std::size_t from = begin + begin_marker.size();
    if (std::getenv("HANDOFF_WRITE_DOCS") != nullptr) {
        docs.replace(from, end - from, rendered);
        std::ofstream(std::string(HANDOFF_SOURCE_DIR) + "/docs/providers.md", std::ios::binary) << docs;
        return;
    }
    CHECK(docs.substr(from, end - from) == rendered);
}

TEST_CASE("every matrix row names a keyword once and gives every provider a cell with a source", "[provider_matrix]") {
    std::set<std::string_view> seen;
    for (const auto& row : handoff::detail::keyword_matrix) {
        INFO(row.keyword);
        CHECK(seen.insert(row.keyword).second);
        // json_schema keeps every keyword as written: its column says so.
        CHECK(row.cells[static_cast<std::size_t>(handoff::provider::json_schema)].when == keep_when::always);
    }
    for (const auto& source : handoff::detail::rule_sources) {
        CHECK(&handoff::detail::source_of(source.id) == &source); // the table is in enum order
        CHECK_FALSE(source.where.empty());
    }
}

} // namespace test_provider_matrix
