// SPDX-License-Identifier: MIT
#pragma once

// Shared by the unit tests: reading fixture files (failing loudly when one is missing, never
// skipping) and printing handoff's enums by name when an assertion fails.

#include "support/catch.hpp"

#include <handoff/handoff.hpp>

#include <nlohmann/json.hpp>

#include <fstream>   // ifstream
#include <optional>  // optional
#include <sstream>   // ostringstream
#include <stdexcept> // runtime_error
#include <string>    // string
#include <vector>    // vector

#ifndef HANDOFF_FIXTURES_DIR
#error "HANDOFF_FIXTURES_DIR must name tests/fixtures (tests/CMakeLists.txt defines it)"
#endif
#ifndef HANDOFF_SCHEMAS_DIR
#error "HANDOFF_SCHEMAS_DIR must name schemas/ (tests/CMakeLists.txt defines it)"
#endif

namespace handoff_test {

/// A path under tests/fixtures/.
inline std::string fixture_path(const std::string& relative) {
    return std::string(HANDOFF_FIXTURES_DIR) + "/" + relative;
}

/// A path under schemas/ (the shipped schemas).
inline std::string shipped_schema_path(const std::string& name) {
    return std::string(HANDOFF_SCHEMAS_DIR) + "/" + name;
}

/// The bytes of a file; throws (so the test fails, never silently skips) when it is missing.
inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error("test fixture missing or unreadable: " + path);
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

inline std::string read_fixture(const std::string& relative) { return read_file(fixture_path(relative)); }

inline nlohmann::json read_fixture_json(const std::string& relative) {
    return nlohmann::json::parse(read_fixture(relative));
}

/// An ok, complete envelope (envelopes/ok_complete.json) whose whole result is `data`: valid in
/// every step but, maybe, the task schema's.
inline std::string envelope_around(const nlohmann::json& data) {
    nlohmann::json envelope = read_fixture_json("envelopes/ok_complete.json");
    envelope["partial_result"] = data;
    return envelope.dump();
}

/// The task schema of seed 000's example envelope: {sections: [string], claims: integer}.
inline nlohmann::json sections_schema() { return read_fixture_json("schemas/seed_000_sections.schema.json"); }

/// The task schema of the worked example: {records: [{id, name, price, currency, sku}]}.
inline nlohmann::json records_schema() { return read_fixture_json("schemas/product_records.schema.json"); }

/// A reply under tests/fixtures/replies/ (seed 001's invoices, the repair-loop turns).
inline std::string reply(const std::string& name) { return read_fixture("replies/" + name); }

/// The invoice task schema of seed 001, as examples/invoice_extractor.cpp ships it.
inline nlohmann::json invoice_schema() {
    return nlohmann::json::parse(read_fixture("../../examples/schemas/invoice.schema.json"));
}

/// The invoice receiver of seed 001: stated vs summed total, the model's own sum, provenance.
inline handoff::receiver<> invoice_receiver() {
    handoff::receiver<> r(invoice_schema());
    r.add_check(handoff::total_matches_sum("/stated_total", "/line_items/*/amount", {}, "/calculated_total"));
    r.add_check(handoff::quote_in_source("/vendor_quote"));
    return r;
}

/// The codes of a problem list, in order: one CHECK shows every problem at once.
inline std::vector<std::string> codes(const handoff::problem_list& problems) {
    std::vector<std::string> out;
    for (const auto& p : problems) {
        out.push_back(p.code);
    }
    return out;
}

inline std::vector<std::string> pointers(const handoff::problem_list& problems) {
    std::vector<std::string> out;
    for (const auto& p : problems) {
        out.push_back(p.pointer);
    }
    return out;
}

inline std::vector<std::string> messages(const handoff::problem_list& problems) {
    std::vector<std::string> out;
    for (const auto& p : problems) {
        out.push_back(p.message);
    }
    return out;
}

/// The message of the schema_error `compile` throws (a receiver's, or any schema compile), or
/// "(compiled)" when it compiles.
template <class Compile>
std::string receiver_refusal(Compile compile) {
    try {
        static_cast<void>(compile());
    } catch (const handoff::schema_error& e) {
        return e.what();
    }
    return "(compiled)";
}

} // namespace handoff_test

// Failed assertions print RESUME, not 0.
namespace Catch {
template <>
struct StringMaker<handoff::route> {
    static std::string convert(handoff::route v) { return std::string(handoff::to_string(v)); }
};
template <>
struct StringMaker<handoff::action> {
    static std::string convert(handoff::action v) { return std::string(handoff::to_string(v)); }
};
template <>
struct StringMaker<handoff::reason_code> {
    static std::string convert(handoff::reason_code v) { return std::string(handoff::to_string(v)); }
};
template <>
struct StringMaker<handoff::band> {
    static std::string convert(handoff::band v) { return std::string(handoff::to_string(v)); }
};
template <>
struct StringMaker<handoff::step> {
    static std::string convert(handoff::step v) { return std::string(handoff::to_string(v)); }
};
template <>
struct StringMaker<handoff::status> {
    static std::string convert(handoff::status v) { return std::string(handoff::to_string(v)); }
};
template <>
struct StringMaker<handoff::tolerance> {
    static std::string convert(handoff::tolerance v) { return std::string(handoff::to_string(v)); }
};
template <>
struct StringMaker<handoff::table_rule> {
    static std::string convert(handoff::table_rule v) { return std::string(handoff::to_string(v)); }
};
template <>
struct StringMaker<handoff::item_range> {
    static std::string convert(const handoff::item_range& r) {
        return std::to_string(r.from) + ".." + std::to_string(r.to);
    }
};
} // namespace Catch

namespace handoff_test {

/// The failed step of a receipt by name, "null" when none: readable in a failed CHECK.
inline std::string step_name(const std::optional<handoff::step>& s) {
    return s ? std::string(handoff::to_string(*s)) : std::string("null");
}

} // namespace handoff_test
