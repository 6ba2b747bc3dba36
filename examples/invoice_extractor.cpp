// SPDX-License-Identifier: MIT
// A nightly invoice extractor, with a scripted model in place of an LLM.
//
//   invoice_extractor [--dead-letter FILE]
//
// Four runs, each through the same receiver (one compiled schema, two semantic checks):
//   1. a fabricated total (480.00 stated, 520.00 summed) caught by layer 2, reconciled on the
//      one repair retry;
//   2. an invoice whose own total is wrong: the mismatch persists, the budget is spent, the
//      fallback hook queues it for a human and a dead letter is written;
//   3. a long invoice cut off at max_tokens with no cap policy: not retried on the same budget,
//      a truncated outcome carrying the partial text, and a dead letter;
//   4. the same invoice with a cap policy: the cap is raised, the model is told its output was
//      cut off, and the retry succeeds.
// It prints every prompt after the first and each outcome, and exits 0 when all four runs end
// as described. Dead letters go to FILE with --dead-letter, else they are printed.

#include <handoff/handoff.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // min
#include <cstddef>     // size_t
#include <cstdio>      // printf
#include <fstream>     // ifstream
#include <iostream>    // cout, cerr
#include <memory>      // unique_ptr
#include <optional>    // optional
#include <sstream>     // ostringstream
#include <string>      // string
#include <string_view> // string_view
#include <vector>      // vector

namespace {

// --- The documents the worker reads -------------------------------------------

struct line {
    std::string description;
    double amount;
};

std::string money(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

std::string invoice_text(const std::string& number, const std::vector<line>& lines, double total_printed) {
    std::string text = "INVOICE  No. " + number +
                       "\nNorthwind Office Supply Ltd., 12 Harbour Road, Leeds\n"
                       "Bill to: Contoso Analytics\n\n";
    for (const line& l : lines) {
        text += "  " + l.description + std::string(34 - std::min<std::size_t>(33, l.description.size()), ' ') +
                money(l.amount) + "\n";
    }
    text += "\n  TOTAL DUE (EUR)                 " + money(total_printed) + "\n";
    return text;
}

/// What a worker answers: the envelope around the extracted invoice.
std::string reply_for(const std::string& number, const std::vector<line>& lines, double stated) {
    nlohmann::json items = nlohmann::json::array();
    double sum = 0;
    for (const line& l : lines) {
        items.push_back({{"description", l.description}, {"amount", l.amount}});
        sum += l.amount;
    }
    const nlohmann::json env = {
        {"status", "ok"},
        {"reason_code", nullptr},
        {"partial_result",
         {{"invoice_number", number},
          {"vendor", "Northwind Office Supply Ltd."},
          {"vendor_quote", "Northwind Office Supply Ltd., 12 Harbour Road"},
          {"currency", "EUR"},
          {"line_items", items},
          {"stated_total", stated},
          {"calculated_total", sum}}},
        {"schema_ok", true},
        {"coverage", {{"items_expected", 1}, {"items_completed", 1}, {"unit", "invoice"}, {"fraction", 1.0}}},
        {"steps",
         {{"completed", {"read header", "read line items", "re-sum line items"}},
          {"remaining", nlohmann::json::array()}}},
    };
    return env.dump(2);
}

// --- The scripted model ---------------------------------------------------------

/// Plays back replies in order. `max_tokens` is the output cap of the caller's model client
/// (a token is taken as 4 bytes): a longer reply is cut there with stop_reason "max_tokens",
/// as a real API does.
struct scripted_model {
    std::vector<std::string> replies;
    std::size_t max_tokens = 4096;
    std::size_t calls = 0;

    handoff::model_reply operator()(std::string_view prompt) {
        ++calls;
        if (calls > 1) {
            std::cout << "\n  >>> prompt for attempt " << calls << " (max_tokens " << max_tokens << "):\n"
                      << indent(prompt) << "\n";
        } else {
            std::cout << "  >>> attempt 1: the original prompt (" << prompt.size() << " bytes, max_tokens "
                      << max_tokens << ")\n";
        }
        const std::string& text = replies.at(std::min(calls, replies.size()) - 1);
        if (text.size() > max_tokens * 4) {
            return {text.substr(0, max_tokens * 4), "max_tokens"};
        }
        return {text, "end_turn"};
    }

    static std::string indent(std::string_view text) {
        std::string out = "      | ";
        for (char c : text) {
            out.push_back(c);
            if (c == '\n') {
                out += "      | ";
            }
        }
        return out;
    }
};

// --- Running one story ------------------------------------------------------------

const std::string instructions =
    "Extract this invoice as a handoff envelope. partial_result follows the invoice schema: copy the "
    "document's total into stated_total, add up the line items yourself into calculated_total, and "
    "quote the line you read the vendor from in vendor_quote.\n\n";

void print_result(const handoff::repair_result<>& result) {
    for (const auto& a : result.history) {
        std::cout << "  attempt " << a.number << ": stop_reason " << a.reply.stop_reason << ", " << a.reply.text.size()
                  << " bytes";
        if (a.truncated) {
            std::cout << ", cut off: not checked\n";
            continue;
        }
        const auto& r = *a.checked;
        std::cout << ", route " << handoff::to_string(r.route);
        if (r.failed_step) {
            std::cout << " (failed step " << handoff::to_string(*r.failed_step) << ", schema_ok "
                      << (r.schema_ok ? "true" : "false") << ")";
        }
        std::cout << "\n";
        for (const auto& p : r.problems) {
            std::cout << "    - [" << p.code << "] " << p.message << "\n";
        }
    }
    std::cout << "  OUTCOME: " << handoff::to_string(result.outcome) << " after " << result.attempts << " attempt"
              << (result.attempts == 1 ? "" : "s") << " -- " << result.reason << "\n";
    if (const auto* invoice = result.value()) {
        std::cout << "  accepted total: " << money((*invoice)["stated_total"].get<double>()) << " EUR\n";
    }
    if (!result.partial_text().empty()) {
        std::cout << "  partial text kept: " << result.partial_text().size() << " bytes\n";
    }
    if (result.dead_letter_due) {
        std::cout << "  dead letter: " << (result.dead_letter_written ? "written" : "NOT WRITTEN") << "\n";
    }
}

bool expect(bool ok, const std::string& what) {
    std::cout << (ok ? "  as expected: " : "  UNEXPECTED: ") << what << "\n";
    return ok;
}

} // namespace

int main(int argc, char** argv) {
    std::string dead_letter_path;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--dead-letter" && i + 1 < argc) {
            dead_letter_path = argv[++i];
        } else {
            std::cerr << "usage: invoice_extractor [--dead-letter FILE]\n";
            return 2;
        }
    }

    // One receiver for every attempt of every run: the schema is compiled once and never
    // changes between retries (a schema that changed would pay for grammar compilation again).
    handoff::receiver<> receiver(
        handoff::compiled_schema::from_file(HANDOFF_EXAMPLES_DIR "/schemas/invoice.schema.json"));
    receiver.add_check(handoff::total_matches_sum("/stated_total", "/line_items/*/amount", {}, "/calculated_total"));
    receiver.add_check(handoff::quote_in_source("/vendor_quote"));

    std::unique_ptr<handoff::dead_letter_sink> sink;
    handoff::memory_dead_letter_sink* memory = nullptr;
    if (dead_letter_path.empty()) {
        auto m = std::make_unique<handoff::memory_dead_letter_sink>();
        memory = m.get();
        sink = std::move(m);
    } else {
        auto file = std::make_unique<handoff::file_dead_letter_sink>(dead_letter_path);
        if (!file->ok()) {
            std::cerr << "invoice_extractor: " << file->error() << "\n";
            return 2;
        }
        sink = std::move(file);
    }

    const std::vector<line> lines = {
        {"Desk chair (4 x 80.00)", 320.00}, {"Standing desk", 150.00}, {"Delivery and assembly", 50.00}};
    bool all_ok = true;

    // Run 1 -----------------------------------------------------------------------
    std::cout << "== run 1: a fabricated total, reconciled on the retry ==\n";
    {
        handoff::repair_request request;
        request.source_text = invoice_text("INV-2041", lines, 520.00);
        request.prompt = instructions + request.source_text;
        request.request_id = "invoice-INV-2041";
        request.trace_id = "0af7651916cd43dd8448eb211c80319c";
        scripted_model model{{reply_for("INV-2041", lines, 480.00), reply_for("INV-2041", lines, 520.00)}};
        handoff::repair_options options;
        options.dead_letters = sink.get();
        const auto result = handoff::repair_loop<>(receiver, options).run(request, model);
        print_result(result);
        all_ok &= expect(result.succeeded() && result.attempts == 2 &&
                             result.history[0].checked->failed_step == handoff::step::semantic &&
                             result.history[0].checked->schema_ok,
                         "layer 2 caught 480.00 vs 520.00 with schema_ok still true; success on attempt 2");
    }

    // Run 2 -----------------------------------------------------------------------
    std::cout << "\n== run 2: the invoice's own total is wrong; the mismatch persists ==\n";
    {
        handoff::repair_request request;
        request.source_text = invoice_text("INV-2042", lines, 480.00); // the document says 480.00
        request.prompt = instructions + request.source_text;
        request.request_id = "invoice-INV-2042";
        request.trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
        request.span_id = "00f067aa0ba902b7";
        scripted_model model{{reply_for("INV-2042", lines, 480.00), reply_for("INV-2042", lines, 480.00)}};
        handoff::repair_options options;
        options.dead_letters = sink.get();
        bool queued = false;
        options.on_exhausted = [&](const handoff::fallback_request& f) -> std::optional<handoff::model_reply> {
            std::cout << "  fallback: " << f.request.request_id << " queued for human review after " << f.attempts
                      << " attempts (never bill the cheaper of two totals)\n";
            queued = true;
            return std::nullopt;
        };
        const auto result = handoff::repair_loop<>(receiver, options).run(request, model);
        print_result(result);
        all_ok &= expect(result.outcome == handoff::loop_outcome::retries_exhausted && result.attempts == 2 &&
                             model.calls == 2 && queued && result.dead_letter_written,
                         "budget of one retry spent, fallback called, dead letter written");
    }

    // Runs 3 and 4 ----------------------------------------------------------------
    std::vector<line> long_lines;
    double long_total = 0;
    for (int i = 1; i <= 40; ++i) {
        const double amount = 10.0 * i + 0.25;
        long_lines.push_back({"Toner cartridge, batch " + std::to_string(i), amount});
        long_total += amount;
    }
    handoff::repair_request long_request;
    long_request.source_text = invoice_text("INV-2043", long_lines, long_total);
    long_request.prompt = instructions + long_request.source_text;
    long_request.request_id = "invoice-INV-2043";
    const std::string long_reply = reply_for("INV-2043", long_lines, long_total);

    std::cout << "\n== run 3: cut off at max_tokens, no cap policy: not retried on the same budget ==\n";
    {
        scripted_model model{{long_reply, long_reply}, 512};
        handoff::repair_options options;
        options.max_retries = 2; // retries are available; none is spent on the same budget
        options.dead_letters = sink.get();
        const auto result = handoff::repair_loop<>(receiver, options).run(long_request, model);
        print_result(result);
        all_ok &= expect(result.outcome == handoff::loop_outcome::truncated && model.calls == 1 &&
                             result.partial_text().size() == 512 * 4 && result.dead_letter_written,
                         "one call, a truncated outcome with the partial text, a dead letter");
    }

    std::cout << "\n== run 4: the same invoice with a cap policy: raise the cap, say it was cut off ==\n";
    {
        scripted_model model{{long_reply, long_reply}, 512};
        handoff::repair_options options;
        options.dead_letters = sink.get();
        options.raise_cap = [&](const handoff::truncation_event& e) {
            if (model.max_tokens >= 8192) {
                return false; // the policy's ceiling
            }
            model.max_tokens *= 4;
            std::cout << "  cap policy: attempt " << e.attempt << " was cut off after " << e.reply_bytes
                      << " bytes; max_tokens raised to " << model.max_tokens << "\n";
            return true;
        };
        const auto result = handoff::repair_loop<>(receiver, options).run(long_request, model);
        print_result(result);
        all_ok &= expect(result.succeeded() && result.attempts == 2 && result.history[0].truncated &&
                             result.history[1].prompt.find("was cut off at the output limit") != std::string::npos,
                         "the cap was raised once and the retry succeeded");
    }

    if (memory != nullptr) {
        std::cout << "\n== dead letters (JSON Lines; pass --dead-letter FILE to append them to a file) ==\n";
        for (const std::string& record : memory->lines()) {
            std::cout << record;
        }
        all_ok &= expect(memory->lines().size() == 2, "two dead letters: runs 2 and 3");
    } else {
        std::cout << "\n== dead letters appended to " << dead_letter_path << " ==\n";
    }

    std::cout << "\n" << (all_ok ? "all four runs ended as they should" : "SOME RUNS DID NOT") << "\n";
    return all_ok ? 0 : 1;
}
