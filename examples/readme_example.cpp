// SPDX-License-Identifier: MIT
// The example on the README's first screen, compiled and run by CTest. The lines between the
// README markers appear verbatim in README.md (tests/test_readme.cpp checks that).

#include <handoff/handoff.hpp>

#include <iostream> // cout
#include <string>   // string
#include <vector>   // vector

namespace {

// What an orchestrator would do; here each step only says what it would do.
int outcomes = 0;
void use(const nlohmann::json& result) {
    std::cout << "accept " << result.dump() << "\n";
    ++outcomes;
}
void reprompt(const handoff::problem_list& problems) {
    for (const auto& p : problems) {
        std::cout << "repair " << p.message << "\n";
    }
    ++outcomes;
}
int split_workers = 0;
void spawn(std::uint64_t from, std::uint64_t to) {
    std::cout << "split worker " << from << "-" << to << "\n";
    if (split_workers++ == 0) {
        ++outcomes;
    }
}
void rerun(const std::vector<std::string>& scope, double budget_multiplier) {
    std::cout << "rerun " << scope.size() << " steps at budget x" << budget_multiplier << "\n";
    ++outcomes;
}
void to_humans(const handoff::receipt<>& receipt) {
    std::cout << "escalate, " << receipt.problems.size() << " problems\n";
    ++outcomes;
}
void give_up(const handoff::receipt<>& /*receipt*/) {
    std::cout << "fail\n";
    ++outcomes;
}

} // namespace

int main() {
    const auto schema = nlohmann::json::parse(R"({"type":"object","additionalProperties":false,
        "required":["sections"],"properties":{"sections":{"type":"array","maxItems":64,
        "items":{"type":"string","maxLength":64}}}})");
    const std::string replies[] = {
        R"({"status":"ok","partial_result":{"sections":["intro"]},"schema_ok":true,
            "coverage":{"items_expected":1,"items_completed":1,"unit":"sections","fraction":1},
            "steps":{"completed":["all"],"remaining":[]}})",
        R"(Here you go: {"status":"ok","partial_result":{"sections":[1]},"schema_ok":true})",
        R"({"status":"capped","reason_code":"TOKEN_CAP","partial_result":{"sections":["a"]},"schema_ok":true,
            "coverage":{"items_expected":10,"items_completed":2,"unit":"sections","fraction":0.2},
            "steps":{"completed":["a"],"remaining":["the rest"]}})",
        R"({"status":"capped","reason_code":"TIME_CAP","partial_result":{"sections":["a"]},"schema_ok":true,
            "coverage":{"items_expected":10,"items_completed":9,"unit":"sections","fraction":0.9},
            "steps":{"completed":["a"],"remaining":["section 10"]}})",
        R"({"status":"capped","reason_code":"DEPENDENCY_FAILED","partial_result":null,"schema_ok":false,
            "coverage":{"items_expected":10,"items_completed":0,"unit":"sections","fraction":0},
            "steps":{"completed":[],"remaining":["all"]}})",
    };
    const nlohmann::json& task_schema_json = schema;
    // README.md shows these lines as they are:
    // clang-format off
    // README begin
const handoff::receiver<> receiver(task_schema_json);      // schemas compiled once
for (const std::string& model_text : replies) {
    const auto receipt = receiver.receive(model_text);     // untrusted text in, never throws
    switch (receipt.route) {
    case handoff::route::accept: use(*receipt.envelope->partial_result); break;
    case handoff::route::repair: reprompt(receipt.problems); break;   // pointer + message each
    case handoff::route::split: for (auto r : receipt.decision->ranges) spawn(r.from, r.to); break;
    case handoff::route::resume:
    case handoff::route::narrow: rerun(receipt.decision->scope, receipt.decision->budget_multiplier); break;
    case handoff::route::escalate: to_humans(receipt); break;         // partial result attached
    case handoff::route::fail: give_up(receipt); break;
    }
}
static_assert(handoff::decide(handoff::reason_code::context_overflow, 0.95) != handoff::action::resume);
    // README end
    // clang-format on
    // accept, repair, split, resume, escalate: one outcome each
    return outcomes == 5 ? 0 : 1;
}
