// SPDX-License-Identifier: MIT
// handoff_bench_stream: what checking a reply as it arrives costs, and what it saves.
//
//   handoff_bench_stream [--fixtures DIR] [--corpus NAME=JSONL:SCHEMA]... [--count N]
//                        [--chunk BYTES] [--rounds N] [--json]
//
// Prints two tables (a program that prints figures, never a test; it never fails on time):
// 1. complete replies pushed through stream_check in BYTES-sized chunks (32 unless told) and
//    finished, against receive on the whole text: CPU microseconds per reply and the ratio (the
//    median of the per-round ratios of interleaved passes), and the same with the whole reply in
//    one push (what the check costs apart from taking the reply in pieces), for the worked
//    example's three runs and a 400-record reply built from the first, and for the first N
//    (2000) envelopes of each corpus given (the benchmark kit's: one JSON envelope a line, with
//    its task schema);
// 2. replies that go wrong: the bytes read before the verdict against the whole reply, i.e. the
//    output tokens and the generation an early stop saves, and the CPU time to the verdict
//    against receive on the whole text. For the hand-made wrong replies of the 400-record reply
//    (a status misspelt, an unknown key, a bad record 40 of 400, a stray brace in the prose
//    after the object), and for each corpus's envelopes that fail steps 1 to 3.
// --json prints both as one JSON document instead (run_bench.py reads it for the report).
//
//   handoff_bench_stream --profile receive|stream|one-push --corpus NAME=JSONL:SCHEMA... [--count N]
//                        [--chunk BYTES]
//
// runs one contestant once over the first N envelopes of each corpus, timing nothing: a run
// for a profiler (scripts/profile-stream.sh runs it under Valgrind at two counts and takes the
// difference, so that loading the corpus and compiling the schema cancel out).

#include "cpu_time.hpp"

#include <handoff/handoff.hpp>

#include <nlohmann/json.hpp>

#include <algorithm> // max, min, sort
#include <cmath>     // round
#include <cstddef>   // size_t
#include <cstdio>    // printf
#include <cstdlib>   // strtoul
#include <fstream>   // ifstream
#include <iostream>  // cout, cerr
#include <memory>    // unique_ptr
#include <sstream>   // ostringstream
#include <string>    // string
#include <utility>   // move, pair
#include <vector>    // vector

namespace {

using nlohmann::json;

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> read_lines(const std::string& path, std::size_t count) {
    std::ifstream in(path, std::ios::binary);
    std::vector<std::string> lines;
    std::string line;
    while (lines.size() < count && std::getline(in, line)) {
        if (!line.empty()) {
            lines.push_back(line);
        }
    }
    return lines;
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

/// CPU microseconds per reply of `f` over `replies`, repeated until about 0.1 s has passed.
template <class F>
double pass_us(const std::vector<std::string>& replies, F&& f) {
    std::size_t calls = 0;
    const double start = handoff_bench::cpu_us();
    double used = 0;
    while (used < 100000.0) {
        for (const std::string& text : replies) {
            f(text);
        }
        calls += replies.size();
        used = handoff_bench::cpu_us() - start;
    }
    return used / static_cast<double>(calls);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct settings {
    std::size_t chunk = 32;
    std::size_t rounds = 5;
};

/// Pushes `text` in chunks until the end or the verdict; the offset after which nothing more
/// was needed (the whole text when no verdict came).
std::size_t push_in_chunks(handoff::stream_check<>& check, const std::string& text, std::size_t chunk) {
    for (std::size_t at = 0; at < text.size() && !check.doomed(); at += chunk) {
        check.push(std::string_view(text).substr(at, chunk));
    }
    return check.doomed() ? check.doomed()->offset + 1 : text.size();
}

/// `text` pushed through a stream check `chunk` bytes a push (the whole reply in one push when
/// `chunk` is 0), then finished.
handoff::receipt<> stream_whole(const handoff::receiver<>& receiver, const std::string& text, std::size_t chunk) {
    handoff::stream_check<> check(receiver);
    const std::size_t step = chunk == 0 ? text.size() : chunk;
    for (std::size_t at = 0; at < text.size(); at += step) {
        check.push(std::string_view(text).substr(at, step));
    }
    return check.finish();
}

/// One row of table 1: `replies` received whole and streamed to the end then finished.
json complete_row(const std::string& name, const handoff::receiver<>& receiver, const std::vector<std::string>& replies,
                  const settings& s) {
    std::vector<double> whole;
    std::vector<double> streamed;
    std::vector<double> one_push;
    std::vector<double> ratios;
    std::vector<double> one_push_ratios;
    const auto receive_pass = [&] {
        whole.push_back(pass_us(replies, [&](const std::string& text) { static_cast<void>(receiver.receive(text)); }));
    };
    // `chunk` bytes a push; the whole reply in one push when `chunk` is 0.
    const auto stream_pass = [&](std::vector<double>& into, std::size_t chunk) {
        into.push_back(
            pass_us(replies, [&](const std::string& text) { static_cast<void>(stream_whole(receiver, text, chunk)); }));
    };
    for (std::size_t r = 0; r < s.rounds; ++r) { // interleaved, the order alternating
        if (r % 2 == 0) {
            receive_pass();
            stream_pass(streamed, s.chunk);
            stream_pass(one_push, 0);
        } else {
            stream_pass(one_push, 0);
            stream_pass(streamed, s.chunk);
            receive_pass();
        }
        ratios.push_back(streamed.back() / whole.back());
        one_push_ratios.push_back(one_push.back() / whole.back());
    }
    std::size_t bytes = 0;
    for (const std::string& text : replies) {
        bytes += text.size();
    }
    return json{{"name", name},
                {"replies", replies.size()},
                {"mean_bytes", bytes / replies.size()},
                {"receive_us", median(whole)},
                {"stream_us", median(streamed)},
                {"ratio", median(ratios)},
                {"one_push_us", median(one_push)},
                {"one_push_ratio", median(one_push_ratios)}};
}

/// One row of table 2: `replies` that fail steps 1 to 3, pushed until the verdict.
json wrong_row(const std::string& name, const handoff::receiver<>& receiver, const std::vector<std::string>& replies,
               const settings& s) {
    std::size_t doomed = 0;
    std::size_t bytes = 0;
    std::size_t read = 0;
    for (const std::string& text : replies) {
        handoff::stream_check<> check(receiver);
        read += push_in_chunks(check, text, s.chunk);
        bytes += text.size();
        doomed += check.doomed() ? 1U : 0U;
    }
    std::vector<double> to_verdict;
    std::vector<double> whole;
    for (std::size_t r = 0; r < s.rounds; ++r) {
        to_verdict.push_back(pass_us(replies, [&](const std::string& text) {
            handoff::stream_check<> check(receiver);
            static_cast<void>(push_in_chunks(check, text, s.chunk));
        }));
        whole.push_back(pass_us(replies, [&](const std::string& text) { static_cast<void>(receiver.receive(text)); }));
    }
    return json{{"name", name},
                {"replies", replies.size()},
                {"doomed", doomed},
                {"mean_bytes", bytes / replies.size()},
                {"mean_read", read / replies.size()},
                {"saved_percent", 100.0 * static_cast<double>(bytes - read) / static_cast<double>(bytes)},
                {"stream_us", median(to_verdict)},
                {"receive_us", median(whole)}};
}

/// The hand-made wrong replies, each a one-line change of the 400-record reply.
std::vector<std::pair<std::string, std::string>> wrong_variants(const std::string& big) {
    const auto replaced = [&](const std::string& from, const std::string& to, std::size_t nth = 0) {
        std::string text = big;
        std::size_t at = text.find(from);
        for (std::size_t i = 0; i < nth; ++i) {
            at = text.find(from, at + 1);
        }
        return text.replace(at, from.size(), to);
    };
    return {
        {"status misspelt", replaced("\"capped\"", "\"okay\"")},
        {"reason code misspelt", replaced("\"TOKEN_CAP\"", "\"TOKENS_CAP\"")},
        {"unknown top-level key", replaced("\"partial_result\"", "\"result\"")},
        {"record 40 price text", replaced("\"price\": 39.9", "\"price\": \"39.90 EUR\"", 7)},
        {"brace in prose after", big + "\nThat is all {done}."},
    };
}

/// A corpus of the benchmark kit: its envelopes, and those failing steps 1 to 3 apart.
struct corpus {
    std::string name;
    std::unique_ptr<handoff::receiver<>> receiver;
    std::vector<std::string> replies;
    std::vector<std::string> failing;
};

/// `set_failing_apart`: also the envelopes that fail steps 1 to 3 (receive reads each once).
corpus load_corpus(const std::string& spec, std::size_t count, bool set_failing_apart = true) {
    const auto eq = spec.find('=');
    const auto colon = spec.find(':', eq);
    corpus c;
    c.name = spec.substr(0, eq);
    c.receiver = std::make_unique<handoff::receiver<>>(handoff::compiled_schema::from_file(spec.substr(colon + 1)));
    c.replies = read_lines(spec.substr(eq + 1, colon - eq - 1), count);
    if (!set_failing_apart) {
        return c;
    }
    for (const std::string& text : c.replies) {
        const handoff::receipt<> r = c.receiver->receive(text);
        const bool early = r.failed_step == handoff::step::parse || r.failed_step == handoff::step::envelope_schema ||
                           r.failed_step == handoff::step::task_schema;
        if (early) {
            c.failing.push_back(text);
        }
    }
    return c;
}

/// How many envelopes a profiler's run loads, whatever it reads of them: runs at two counts
/// then differ only in the contestant's work.
constexpr std::size_t profile_loaded = 1000;

/// One pass of `contestant` (receive, stream, or one-push: the stream with each reply in one
/// push) over the first `count` envelopes of the corpus given by `spec`, each streamed reply
/// finished: how many were accepted.
std::size_t profile_pass(const std::string& contestant, const std::string& spec, std::size_t count, std::size_t chunk) {
    const corpus c = load_corpus(spec, std::max(count, profile_loaded), false);
    std::size_t accepted = 0;
    for (std::size_t i = 0; i < std::min(count, c.replies.size()); ++i) {
        const std::string& text = c.replies[i];
        const handoff::receipt<> r = contestant == "receive"
                                         ? c.receiver->receive(text)
                                         : stream_whole(*c.receiver, text, contestant == "one-push" ? 0 : chunk);
        accepted += r.accepted() ? 1U : 0U;
    }
    return accepted;
}

void print_tables(const json& out, std::size_t chunk) {
    std::printf("complete replies: stream_check (%zu-byte chunks, then finish) vs receive, CPU us per reply\n", chunk);
    std::printf("  %-26s %7s %8s %11s %11s %7s %11s %7s\n", "replies", "count", "bytes", "receive us", "stream us",
                "ratio", "1 push us", "ratio");
    for (const json& row : out["complete"]) {
        std::printf("  %-26s %7zu %8zu %11.1f %11.1f %6.2fx %11.1f %6.2fx\n", row["name"].get<std::string>().c_str(),
                    row["replies"].get<std::size_t>(), row["mean_bytes"].get<std::size_t>(),
                    row["receive_us"].get<double>(), row["stream_us"].get<double>(), row["ratio"].get<double>(),
                    row["one_push_us"].get<double>(), row["one_push_ratio"].get<double>());
    }
    std::printf("replies that go wrong: bytes read before the verdict (means), CPU to the verdict\n");
    std::printf("  %-26s %7s %7s %8s %8s %7s %11s %11s\n", "replies", "count", "doomed", "bytes", "read", "saved",
                "stream us", "receive us");
    for (const json& row : out["wrong"]) {
        std::printf("  %-26s %7zu %7zu %8zu %8zu %6.1f%% %11.1f %11.1f\n", row["name"].get<std::string>().c_str(),
                    row["replies"].get<std::size_t>(), row["doomed"].get<std::size_t>(),
                    row["mean_bytes"].get<std::size_t>(), row["mean_read"].get<std::size_t>(),
                    row["saved_percent"].get<double>(), row["stream_us"].get<double>(),
                    row["receive_us"].get<double>());
    }
}

} // namespace

int main(int argc, char** argv) {
    std::string fixtures = HANDOFF_FIXTURES_DIR;
    std::vector<std::string> corpus_specs;
    std::size_t count = 2000;
    settings s;
    bool as_json = false;
    std::string profile; // the contestant of a profiler's run, or none
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--json") {
            as_json = true;
        } else if (arg == "--profile" && has_value) {
            profile = argv[++i];
        } else if (arg == "--fixtures" && has_value) {
            fixtures = argv[++i];
        } else if (arg == "--corpus" && has_value) {
            corpus_specs.emplace_back(argv[++i]);
        } else if ((arg == "--count" || arg == "--chunk" || arg == "--rounds") && has_value) {
            const std::size_t n = std::strtoul(argv[++i], nullptr, 10);
            (arg == "--count" ? count : arg == "--chunk" ? s.chunk : s.rounds) = n == 0 ? 1 : n;
        } else {
            std::cerr << "usage: handoff_bench_stream [--fixtures DIR] [--corpus NAME=JSONL:SCHEMA]... [--count N] "
                         "[--chunk BYTES] [--rounds N] [--json]\n"
                         "       handoff_bench_stream --profile receive|stream|one-push "
                         "--corpus NAME=JSONL:SCHEMA... [--count N] [--chunk BYTES]\n";
            return 2;
        }
    }
    if (!profile.empty() && profile != "receive" && profile != "stream" && profile != "one-push") {
        std::cerr << "handoff_bench_stream: --profile takes receive, stream or one-push, not " << profile << "\n";
        return 2;
    }
    if (!profile.empty() && corpus_specs.empty()) {
        std::cerr << "handoff_bench_stream: --profile runs over the corpora --corpus names: none was given\n";
        return 2;
    }
    try {
        if (!profile.empty()) {
            for (const std::string& spec : corpus_specs) {
                std::printf("%s: %zu accepted\n", spec.c_str(), profile_pass(profile, spec, count, s.chunk));
            }
            return 0;
        }
        const handoff::receiver<> receiver(
            handoff::compiled_schema::from_file(fixtures + "/schemas/product_records.schema.json"));
        std::vector<std::string> runs;
        for (const char* run : {"run1_token_cap", "run2_time_cap", "run3_dependency_failed"}) {
            runs.push_back(read_file(fixtures + "/worked_example/" + run + ".json"));
        }
        const std::string big = big_reply(nlohmann::ordered_json::parse(runs[0]), 400);
        json out = {{"chunk", s.chunk}, {"rounds", s.rounds}, {"complete", json::array()}, {"wrong", json::array()}};
        out["complete"].push_back(complete_row("worked example, 3 runs", receiver, runs, s));
        out["complete"].push_back(complete_row("400 records", receiver, {big}, s));
        for (const auto& [name, text] : wrong_variants(big)) {
            out["wrong"].push_back(wrong_row(name, receiver, {text}, s));
        }
        for (const std::string& spec : corpus_specs) {
            const corpus c = load_corpus(spec, count);
            out["complete"].push_back(complete_row(c.name + " corpus", *c.receiver, c.replies, s));
            if (!c.failing.empty()) {
                out["wrong"].push_back(wrong_row(c.name + " corpus, steps 1-3", *c.receiver, c.failing, s));
            }
        }
        if (as_json) {
            std::cout << out.dump(1) << "\n";
        } else {
            print_tables(out, s.chunk);
        }
    } catch (const std::exception& e) {
        std::cerr << "handoff_bench_stream: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
