// SPDX-License-Identifier: MIT
// Layer 1 for the invoice schema, with scripted provider replies in place of HTTP calls.
//
//   provider_requests
//
// 1. For each provider, the request-body fragment that turns on its structured-output mode,
//    built from the receiver's own schemas (the envelope with the invoice schema at
//    partial_result), and every constraint the provider will not enforce.
// 2. A reply in each provider's wire format goes through the repair loop: OpenAI Chat, Anthropic
//    (as a tool call), Gemini and llama-server answer with a valid envelope; an OpenAI refusal
//    ends the loop `refused`; a Gemini MAX_TOKENS reply ends it `truncated`. No network.
// Exits 0 when every reply ends as it should.

#include <handoff/handoff.hpp>

#include <nlohmann/json.hpp>

#include <fstream>     // ifstream
#include <iostream>    // cout, cerr
#include <iterator>    // istreambuf_iterator
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json read_schema() {
    std::ifstream in(std::string(HANDOFF_EXAMPLES_DIR) + "/schemas/invoice.schema.json");
    return ordered_json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
}

/// Where each provider takes the schema in its request body.
ordered_json request_fragment(handoff::provider target, const ordered_json& schema) {
    switch (target) {
    case handoff::provider::openai:
        return {
            {"response_format",
             {{"type", "json_schema"}, {"json_schema", {{"name", "envelope"}, {"strict", true}, {"schema", schema}}}}}};
    case handoff::provider::anthropic:
        return {{"output_config", {{"format", {{"type", "json_schema"}, {"schema", schema}}}}}};
    case handoff::provider::gemini:
        return {{"generationConfig", {{"responseMimeType", "application/json"}, {"responseJsonSchema", schema}}}};
    case handoff::provider::llama_cpp: return {{"json_schema", schema}};
    case handoff::provider::json_schema: return {{"schema", schema}};
    case handoff::provider::gemini_openapi:
        return {{"generationConfig", {{"responseMimeType", "application/json"}, {"responseSchema", schema}}}};
    }
    return {};
}

void print_requests(const ordered_json& task) {
    for (const handoff::provider target : handoff::all_providers) {
        const handoff::provider_schema_result sent = handoff::provider_schema(target, &task);
        const std::string body = request_fragment(target, sent.schema).dump();
        std::cout << "== " << handoff::to_string(target) << ": " << body.size() << " bytes of request body, "
                  << sent.notes.size() << " notes" << (sent.within_limits() ? "" : " (OVER A LIMIT)") << "\n  "
                  << body.substr(0, 160) << "...\n";
        for (const handoff::schema_note& note : sent.notes) {
            std::cout << "  " << (note.pointer.empty() ? "(root)" : note.pointer) << ": " << note.keyword << " "
                      << note.value.dump() << " -- " << note.note << "\n";
        }
    }
}

const std::string envelope_text = R"json({"status": "ok", "reason_code": null, "schema_ok": true,
 "coverage": {"items_expected": 1, "items_completed": 1, "unit": "invoice", "fraction": 1.0},
 "steps": {"completed": ["extract"], "remaining": []},
 "partial_result": {"invoice_number": "INV-2041", "vendor": "Northwind Office Supply Ltd.",
  "vendor_quote": "Northwind Office Supply Ltd., 12 Harbour Road", "currency": "EUR",
  "line_items": [{"description": "Desk chair (4 x 80.00)", "amount": 320.00},
                 {"description": "Standing desk", "amount": 150.00},
                 {"description": "Delivery and assembly", "amount": 50.00}],
  "stated_total": 520.00, "calculated_total": 520.00}})json";

struct scripted_reply {
    std::string name;
    std::string body; // the provider's response body, as the HTTP client would return it
    handoff::loop_outcome expected;
};

std::vector<scripted_reply> replies() {
    const nlohmann::json envelope = nlohmann::json::parse(envelope_text);
    const std::string text = envelope.dump();
    const auto openai = [](const nlohmann::json& message, const char* finish) {
        return nlohmann::json{{"object", "chat.completion"},
                              {"choices", {{{"index", 0}, {"message", message}, {"finish_reason", finish}}}}}
            .dump();
    };
    return {
        {"openai chat, strict json_schema", openai({{"role", "assistant"}, {"content", text}}, "stop"),
         handoff::loop_outcome::succeeded},
        {"anthropic, a strict tool's input",
         nlohmann::json{
             {"type", "message"},
             {"role", "assistant"},
             {"content", {{{"type", "tool_use"}, {"id", "toolu_1"}, {"name", "envelope"}, {"input", envelope}}}},
             {"stop_reason", "tool_use"}}
             .dump(),
         handoff::loop_outcome::succeeded},
        {"gemini, responseJsonSchema",
         nlohmann::json{{"candidates",
                         {{{"content", {{"parts", {{{"text", text}}}}, {"role", "model"}}}, {"finishReason", "STOP"}}}}}
             .dump(),
         handoff::loop_outcome::succeeded},
        {"llama-server /completion", nlohmann::json{{"content", text}, {"stop", true}, {"stop_type", "eos"}}.dump(),
         handoff::loop_outcome::succeeded},
        {"openai chat, a refusal",
         openai({{"role", "assistant"}, {"content", nullptr}, {"refusal", "I can't help with that request."}}, "stop"),
         handoff::loop_outcome::refused},
        {"gemini, cut off at MAX_TOKENS",
         nlohmann::json{{"candidates",
                         {{{"content", {{"parts", {{{"text", text.substr(0, 200)}}}}, {"role", "model"}}},
                           {"finishReason", "MAX_TOKENS"}}}}}
             .dump(),
         handoff::loop_outcome::truncated},
    };
}

} // namespace

int main() {
    const ordered_json task = read_schema();
    print_requests(task);

    const handoff::receiver<> receiver(nlohmann::json::parse(task.dump()));
    handoff::memory_dead_letter_sink dead_letters;
    handoff::repair_options options;
    options.dead_letters = &dead_letters;
    const handoff::repair_loop<> loop(receiver, options);
    bool all_ok = true;
    std::cout << "\n== replies in each provider's wire format, through the repair loop\n";
    for (const scripted_reply& r : replies()) {
        handoff::repair_request request;
        request.prompt = "Extract the invoice as a handoff envelope.";
        request.request_id = r.name;
        const auto result = loop.run(request, [&](std::string_view) { return handoff::model_reply_from_body(r.body); });
        const bool ok = result.outcome == r.expected;
        all_ok = all_ok && ok;
        std::cout << (ok ? "  ok   " : "  FAIL ") << r.name << ": " << handoff::to_string(result.outcome)
                  << (result.reason.empty() ? "" : " -- " + result.reason) << "\n";
    }
    std::cout << "dead letters written: " << dead_letters.lines().size() << " (the refusal and the truncation)\n";
    all_ok = all_ok && dead_letters.lines().size() == 2;
    if (!all_ok) {
        std::cerr << "provider_requests: a reply did not end as expected\n";
    }
    return all_ok ? 0 : 1;
}
