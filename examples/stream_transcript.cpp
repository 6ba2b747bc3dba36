// SPDX-License-Identifier: MIT
// A reply checked as it streams, from recorded provider transcripts (tests/fixtures/streams/):
//
// 1. Anthropic stops at max_tokens in the third record: the receipt is a parse failure, and
//    the salvage keeps the two whole records, so the orchestrator resumes from record 3.
// 2. An OpenAI reply writes "status": "okay": the check is doomed 16 bytes in, and the
//    orchestrator drops the connection instead of paying for the remaining 2 KiB.
//
// Exits 0 when both play out as described.

#include <handoff/handoff.hpp>

#include <cstddef>     // size_t
#include <fstream>     // ifstream
#include <iostream>    // cout, cerr
#include <sstream>     // ostringstream
#include <string>      // string
#include <string_view> // string_view

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// Replays a transcript as a socket would deliver it (`step` bytes per read) into the check;
/// returns the bytes of the transcript read before the check stopped.
std::size_t replay(const std::string& transcript, handoff::provider_stream& events, handoff::stream_check<>& check) {
    constexpr std::size_t step = 64;
    std::size_t read = 0;
    for (; read < transcript.size() && !check.doomed(); read += step) {
        check.push(events.push(std::string_view(transcript).substr(read, step)));
    }
    check.push(events.finish());
    return read < transcript.size() ? read : transcript.size();
}

bool cut_at_the_cap(const handoff::receiver<>& receiver) {
    const std::string transcript = read_file(std::string(HANDOFF_STREAMS_DIR) + "/anthropic_max_tokens.sse");
    handoff::provider_stream events(handoff::provider::anthropic);
    handoff::stream_check<> check(receiver);
    replay(transcript, events, check);
    const handoff::receipt<> receipt = check.finish();
    const auto salvage = check.salvage();
    std::cout << "anthropic: stop " << handoff::to_string(events.stop()) << " (" << events.stop_reason() << "), route "
              << handoff::to_string(receipt.route) << "\n";
    if (!handoff::is_truncation(events.stop()) || receipt.accepted() || !salvage) {
        return false;
    }
    std::cout << "  salvage: " << salvage->complete_items << " whole items at " << salvage->largest_array
              << ": resume from item " << salvage->complete_items + 1 << "\n";
    return salvage->complete_items == 2;
}

bool doomed_early(const handoff::receiver<>& receiver) {
    const std::string transcript = read_file(std::string(HANDOFF_STREAMS_DIR) + "/openai_chat_doomed.sse");
    handoff::provider_stream events(handoff::provider::openai);
    handoff::stream_check<> check(receiver);
    const std::size_t read = replay(transcript, events, check);
    if (!check.doomed()) {
        return false;
    }
    std::cout << "openai: doomed at byte " << check.doomed()->offset
              << " of the reply: " << check.doomed()->what.message << "\n"
              << "  read " << read << " of " << transcript.size() << " bytes of the stream before dropping it\n";
    return read < transcript.size() / 10;
}

} // namespace

int main() {
    try {
        const handoff::receiver<> receiver(handoff::compiled_schema::from_file(HANDOFF_TASK_SCHEMA_FILE));
        const bool ok = cut_at_the_cap(receiver) && doomed_early(receiver);
        std::cout << (ok ? "both streams played out as described\n" : "a stream did not play out as described\n");
        return ok ? 0 : 1;
    } catch (const handoff::schema_error& e) {
        std::cerr << "stream_transcript: " << e.what() << "\n";
        return 2;
    }
}
