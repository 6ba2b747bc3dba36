// SPDX-License-Identifier: MIT
// The worked example: an orchestrator asks subagents for 40 product records (token cap
// 60,000, time cap 10 minutes, 100 tool calls) and routes the three envelopes it gets back.
//
//   run 1: TOKEN_CAP at 0.35 (14 of 40)      -> SPLIT the 26 records left
//   run 2: TIME_CAP at 0.60 (6 of 10)        -> NARROW to the four records left
//   run 3: DEPENDENCY_FAILED (source gone)   -> ESCALATE with the partial result, spend nothing
//
// Usage: worked_example [FIXTURE_DIR]   (default: the bundled tests/fixtures/worked_example)
// Exits 0 when every run routes as the seed says, 1 otherwise: CTest runs it.

#include <handoff/handoff.hpp>

#include <fstream>  // ifstream
#include <iostream> // cout, cerr
#include <sstream>  // ostringstream
#include <string>   // string
#include <vector>   // vector

#ifndef HANDOFF_WORKED_EXAMPLE_DIR
#define HANDOFF_WORKED_EXAMPLE_DIR "tests/fixtures/worked_example"
#endif
#ifndef HANDOFF_TASK_SCHEMA_FILE
#define HANDOFF_TASK_SCHEMA_FILE "tests/fixtures/schemas/product_records.schema.json"
#endif

namespace shop {

// The task type: what one worker extracts. handoff fills it through nlohmann's from_json,
// after the task schema has checked the JSON.
struct product_record {
    std::string id;
    std::string name;
    double price = 0.0;
};

struct product_batch {
    std::vector<product_record> records;
};

inline void from_json(const nlohmann::json& j, product_record& r) {
    j.at("id").get_to(r.id);
    j.at("name").get_to(r.name);
    j.at("price").get_to(r.price);
}

inline void from_json(const nlohmann::json& j, product_batch& b) { j.at("records").get_to(b.records); }

} // namespace shop

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void print_decision(const std::string& title, const handoff::receipt<shop::product_batch>& receipt) {
    std::cout << title << "\n  route: " << handoff::to_string(receipt.route) << "\n";
    if (!receipt.decision) {
        for (const auto& p : receipt.problems) {
            std::cout << "  problem: " << p.message << "\n";
        }
        return;
    }
    const handoff::decision& d = *receipt.decision;
    std::cout << "  why: " << d.rationale << "\n";
    if (!d.ranges.empty()) {
        std::cout << "  workers: " << d.ranges.size() << " (at most " << d.chunk << " " << d.unit << " each)\n";
        for (const auto& r : d.ranges) {
            std::cout << "    " << d.unit << " " << r.from << "-" << r.to << "\n";
        }
    }
    if (!d.scope.empty()) {
        std::cout << "  scope:";
        for (const auto& s : d.scope) {
            std::cout << " [" << s << "]";
        }
        std::cout << "\n";
    }
    std::cout << "  budget multiplier (policy's): " << d.budget_multiplier << "\n";
    if (d.action == handoff::action::escalate && receipt.envelope && receipt.envelope->partial_result) {
        std::cout << "  attached: " << receipt.envelope->partial_result->records.size()
                  << " records already extracted, " << receipt.problems.size() << " problems\n";
    }
    if (d.disagreement) {
        std::cout << "  hint overruled: worker suggested " << handoff::to_string(d.disagreement->hint_action)
                  << ", table says " << handoff::to_string(d.disagreement->table_action) << "\n";
    }
}

} // namespace

int main(int argc, char** argv) {
    const std::string dir = argc > 1 ? argv[1] : HANDOFF_WORKED_EXAMPLE_DIR;

    handoff::disagreement_ledger ledger;
    handoff::receiver_options options;
    options.ledger = &ledger;
    // Compiled once; every envelope below is checked against the same schemas.
    const handoff::receiver<shop::product_batch> receiver(handoff::compiled_schema::from_file(HANDOFF_TASK_SCHEMA_FILE),
                                                          options);

    struct run {
        const char* title;
        const char* file;
        handoff::route expected;
    };
    const run runs[] = {
        {"run 1: one worker, 40 records", "run1_token_cap.json", handoff::route::split},
        {"run 2: worker 2 of the split, 10 records", "run2_time_cap.json", handoff::route::narrow},
        {"run 3: the worker whose source is unreachable", "run3_dependency_failed.json", handoff::route::escalate},
    };
    bool as_expected = true;
    for (const run& r : runs) {
        const auto receipt = receiver.receive(read_file(dir + "/" + r.file));
        print_decision(r.title, receipt);
        if (receipt.route != r.expected) {
            std::cerr << "unexpected route for " << r.file << ": " << handoff::to_string(receipt.route) << " (expected "
                      << handoff::to_string(r.expected) << ")\n";
            as_expected = false;
        }
    }
    std::cout << "disagreement ledger: " << ledger.to_json().dump() << "\n";
    return as_expected ? 0 : 1;
}
