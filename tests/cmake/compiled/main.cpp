// SPDX-License-Identifier: MIT
// A consumer of the compiled form: its files see declarations only, and receiving works.
#include <handoff/handoff.hpp>

#include <iostream>

#if !defined(HANDOFF_COMPILED_LIB)
#error "linking handoff::compiled must define HANDOFF_COMPILED_LIB for this file"
#endif

namespace {

const char* const task_schema = R"({"type": "object", "required": ["sku"],
  "properties": {"sku": {"type": "string", "pattern": "^[A-Z0-9-]{4,20}$"}}})";

std::string reply(const char* sku) {
    return std::string(R"({"status": "ok", "partial_result": {"sku": ")") + sku + R"("}, "schema_ok": true,
      "coverage": {"items_expected": 1, "items_completed": 1, "unit": "records", "fraction": 1.0},
      "steps": {"completed": ["lookup"], "remaining": []},
      "trace": {"trace_id": "4bf92f3577b34da6", "span_id": "00f067aa0ba902b7", "parent_span_id": null}})";
}

} // namespace

int main() {
    const handoff::receiver<> receiver(nlohmann::json::parse(task_schema));
    const handoff::receipt<> good = receiver.receive(reply("AB-1234"));
    const handoff::receipt<> bad = receiver.receive(reply("ab"));
    if (!good.accepted() || bad.route != handoff::route::repair || bad.problems.empty() ||
        bad.problems.front().pointer != "/partial_result/sku") {
        std::cerr << "the compiled form judged wrongly\n";
        return 1;
    }
    std::cout << "compiled form: accepted a good reply, refused a bad one at " << bad.problems.front().pointer << "\n";
    return 0;
}
