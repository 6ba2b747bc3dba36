// SPDX-License-Identifier: MIT
// handoff_bench_stream: what checking a reply as it arrives costs, and what it saves.
//
//   handoff_bench_stream [FIXTURES_DIR]
//
// Prints two figures (a program that prints, not a test):
// 1. a complete reply pushed through stream_check in 64-byte chunks and finished, against
//    receive on the whole text: CPU time per reply and the ratio, for the worked example's
//    three runs and a 400-record reply built from the first;
// 2. replies that go wrong (a status misspelt, an unknown key, a bad record 40 of 400, a
//    stray brace in the prose after the object): the bytes read before the verdict against
//    the whole reply, i.e. the output tokens and the generation time an early stop saves.

#include <handoff/handoff.hpp>

#include <nlohmann/json.hpp>

#include <chrono>  // steady_clock
#include <cmath>   // round
#include <cstddef> // size_t
#include <cstdio>  // printf
#include <fstream> // ifstream
#include <sstream> // ostringstream
#include <string>  // string
#include <utility> // pair
#include <vector>  // vector

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The first run with `records` records (the first five repeated), pretty-printed.
std::string big_reply(const nlohmann::ordered_json& run, std::size_t records) {
    nlohmann::ordered_json reply = run;
    nlohmann::ordered_json& list = reply["partial_result"]["records"];
    const nlohmann::ordered_json seed = list;
    list = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < records; ++i) {
        nlohmann::ordered_json r = seed[i % seed.size()];
        r["id"] = "record " + std::to_string(i + 1);
        list.push_back(std::move(r));
    }
    reply["coverage"]["items_expected"] = records + 100;
    reply["coverage"]["items_completed"] = records;
    reply["coverage"]["fraction"] =
        std::round(100.0 * static_cast<double>(records) / static_cast<double>(records + 100)) / 100.0;
    return reply.dump(2);
}

/// Microseconds per call of `f`, over enough calls to take about 0.2 s.
template <class F>
double us_per_call(F&& f) {
    using clock = std::chrono::steady_clock;
    std::size_t calls = 0;
    const auto start = clock::now();
    auto elapsed = clock::duration::zero();
    while (elapsed < std::chrono::milliseconds(200)) {
        f();
        ++calls;
        elapsed = clock::now() - start;
    }
    return std::chrono::duration<double, std::micro>(elapsed).count() / static_cast<double>(calls);
}

void push_in_chunks(handoff::stream_check<>& check, const std::string& text) {
    for (std::size_t at = 0; at < text.size() && !check.doomed(); at += 64) {
        check.push(std::string_view(text).substr(at, 64));
    }
}

void complete_replies(const handoff::receiver<>& receiver,
                      const std::vector<std::pair<std::string, std::string>>& corpus) {
    std::printf("complete replies: stream_check (64-byte chunks, then finish) vs receive\n");
    std::printf("  %-22s %8s %12s %12s %7s\n", "reply", "bytes", "receive us", "stream us", "ratio");
    for (const auto& entry : corpus) {
        // A named reference, not a structured binding: C++17 lambdas cannot capture those.
        const std::string& name = entry.first;
        const std::string& text = entry.second;
        const double whole = us_per_call([&] { static_cast<void>(receiver.receive(text)); });
        const double streamed = us_per_call([&] {
            handoff::stream_check<> check(receiver);
            push_in_chunks(check, text);
            static_cast<void>(check.finish());
        });
        std::printf("  %-22s %8zu %12.1f %12.1f %6.2fx\n", name.c_str(), text.size(), whole, streamed,
                    streamed / whole);
    }
}

void wrong_replies(const handoff::receiver<>& receiver, const std::string& big) {
    const auto replaced = [&](const std::string& from, const std::string& to, std::size_t nth = 0) {
        std::string text = big;
        std::size_t at = text.find(from);
        for (std::size_t i = 0; i < nth; ++i) {
            at = text.find(from, at + 1);
        }
        return text.replace(at, from.size(), to);
    };
    const std::vector<std::pair<std::string, std::string>> corpus = {
        {"status misspelt", replaced("\"capped\"", "\"okay\"")},
        {"reason code misspelt", replaced("\"TOKEN_CAP\"", "\"TOKENS_CAP\"")},
        {"unknown top-level key", replaced("\"partial_result\"", "\"result\"")},
        {"record 40 price text", replaced("\"price\": 39.9", "\"price\": \"39.90 EUR\"", 7)},
        {"brace in prose after", big + "\nThat is all {done}."},
    };
    std::printf("replies that go wrong: bytes read before the verdict\n");
    std::printf("  %-22s %8s %8s %7s %12s %12s\n", "reply", "bytes", "doomed@", "saved", "stream us", "receive us");
    for (const auto& entry : corpus) {
        const std::string& name = entry.first;
        const std::string& text = entry.second;
        handoff::stream_check<> probe(receiver);
        push_in_chunks(probe, text);
        const std::size_t at = probe.doomed() ? probe.doomed()->offset + 1 : text.size();
        const double to_verdict = us_per_call([&] {
            handoff::stream_check<> check(receiver);
            push_in_chunks(check, text);
        });
        const double whole = us_per_call([&] { static_cast<void>(receiver.receive(text)); });
        std::printf("  %-22s %8zu %8zu %6.1f%% %12.1f %12.1f\n", name.c_str(), text.size(), at,
                    100.0 * static_cast<double>(text.size() - at) / static_cast<double>(text.size()), to_verdict,
                    whole);
    }
}

} // namespace

int main(int argc, char** argv) {
    const std::string fixtures = argc > 1 ? argv[1] : HANDOFF_FIXTURES_DIR;
    const handoff::receiver<> receiver(
        handoff::compiled_schema::from_file(fixtures + "/schemas/product_records.schema.json"));
    std::vector<std::pair<std::string, std::string>> corpus;
    for (const char* run : {"run1_token_cap", "run2_time_cap", "run3_dependency_failed"}) {
        corpus.emplace_back(run, read_file(fixtures + "/worked_example/" + run + ".json"));
    }
    const std::string big = big_reply(nlohmann::ordered_json::parse(corpus[0].second), 400);
    corpus.emplace_back("400 records", big);
    complete_replies(receiver, corpus);
    wrong_replies(receiver, big);
    return 0;
}
