// SPDX-License-Identifier: MIT
// handoff_bench_steps: Google Benchmark over each step of the receipt check, on the corpus of
// tests/bench/make_corpus.py (HANDOFF_BENCH_CORPUS, default: the one scripts/bench.sh makes).
// A program that prints figures; nothing here passes or fails on time.
//
//   step 1+2 fast path   read_envelope (typed envelope straight from the text)
//   step 1 diagnosing    decode (json_builder DOM), and nlohmann::json::parse for reference
//   step 2 diagnosing    envelope_checker on a DOM; valijson on the envelope schema for reference
//   step 3               compiled_schema::validate (subset validator, valijson when it refuses),
//                        and valijson alone on the task schema for reference (draft-07 only);
//                        also on the schema kits (kit-*.jsonl: Pydantic-shaped, 2020-12)
//   step 4               check_coverage
//   step 5               decide (constexpr table) and plan (routing a capped envelope)
//   all                  receiver<>::receive on the whole corpus, invalid envelopes included
//
// Every benchmark reports allocs/op, counted by the operator new below. BM_route also reports
// extra_allocs/op: allocations beyond the decision's own scope (its scope strings, its SPLIT
// ranges, a unit too long for the small-string buffer): routing promises 0.

#include "support/valijson.hpp"

#include <handoff/detail/envelope/check.hpp>
#include <handoff/detail/envelope/reader.hpp>

#include <handoff/handoff.hpp>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <cstddef>   // size_t
#include <cstdint>   // uint64_t
#include <cstdlib>   // getenv, malloc, free
#include <fstream>   // ifstream
#include <iostream>  // cerr
#include <new>       // bad_alloc
#include <optional>  // optional
#include <sstream>   // ostringstream
#include <stdexcept> // runtime_error
#include <string>    // string
#include <vector>    // vector

#ifndef HANDOFF_BENCH_CORPUS_DIR
#define HANDOFF_BENCH_CORPUS_DIR "bench-corpus"
#endif
#ifndef HANDOFF_SCHEMAS_DIR
#error "HANDOFF_SCHEMAS_DIR must name schemas/"
#endif

// --- Counting every allocation of this thread ------------------------------------------------

namespace {
thread_local std::uint64_t allocations = 0;
} // namespace

#if defined(__GNUC__)
#define HANDOFF_BENCH_NOINLINE __attribute__((noinline))
#else
#define HANDOFF_BENCH_NOINLINE
#endif

HANDOFF_BENCH_NOINLINE void* operator new(std::size_t size) {
    ++allocations;
    if (void* p = std::malloc(size == 0 ? 1 : size)) {
        return p;
    }
    throw std::bad_alloc();
}
HANDOFF_BENCH_NOINLINE void operator delete(void* p) noexcept { std::free(p); }
HANDOFF_BENCH_NOINLINE void operator delete(void* p, std::size_t /*size*/) noexcept { std::free(p); }

namespace {

using nlohmann::json;

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error("cannot read " + path + " (run tests/bench/make_corpus.py, or scripts/bench.sh)");
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string corpus_dir() {
    const char* dir = std::getenv("HANDOFF_BENCH_CORPUS");
    return dir != nullptr ? dir : HANDOFF_BENCH_CORPUS_DIR;
}

/// One size of the corpus (or one schema kit's corpus), with what each step needs prepared in advance.
struct corpus {
    std::string name;
    json task_schema;                                   // what partial_result must fit
    bool task_is_draft07;                               // valijson, the reference, reads draft-07 only
    std::vector<std::string> lines;                     // every envelope, invalid ones included
    std::vector<std::string> valid_lines;               // the ones that pass steps 1 and 2
    std::vector<json> documents;                        // their DOMs
    std::vector<handoff::envelope<json>> envelopes;     // their typed envelopes
    std::vector<const handoff::envelope<json>*> capped; // the capped ones among them
};

corpus load(const std::string& name, const std::string& task_schema_file, std::size_t max_lines) {
    corpus c;
    c.name = name;
    c.task_schema = json::parse(read_file(corpus_dir() + "/" + task_schema_file));
    c.task_is_draft07 = c.task_schema.value("$schema", "") == "http://json-schema.org/draft-07/schema#";
    std::ifstream in(corpus_dir() + "/" + name + ".jsonl", std::ios::binary);
    if (!in) {
        throw std::runtime_error("cannot read " + corpus_dir() + "/" + name + ".jsonl");
    }
    std::string line;
    while (c.lines.size() < max_lines && std::getline(in, line)) {
        c.lines.push_back(line);
        handoff::problem_list problems;
        const auto decoded = handoff::decode(line);
        if (!decoded.ok()) {
            continue;
        }
        auto env = handoff::detail::envelope_checker(problems).check(*decoded.value);
        if (env) {
            c.valid_lines.push_back(line);
            c.documents.push_back(*decoded.value);
            c.envelopes.push_back(std::move(*env));
        }
    }
    for (const auto& env : c.envelopes) {
        if (env.status == handoff::status::capped) {
            c.capped.push_back(&env);
        }
    }
    return c;
}

const json& envelope_schema_document() {
    static const json doc = json::parse(read_file(std::string(HANDOFF_SCHEMAS_DIR) + "/envelope.schema.json"));
    return doc;
}

/// valijson set up the naive way, for the reference benchmarks.
struct valijson_schema {
    explicit valijson_schema(const json& doc) {
        valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
        const valijson::adapters::NlohmannJsonAdapter adapter(doc);
        parser.populateSchema(adapter, schema);
    }
    valijson::Schema schema;
};

/// Runs `body(i)` over items 0..n-1 round-robin; reports items/s and allocations per item.
template <class Body>
void over(benchmark::State& state, std::size_t n, Body body) {
    if (n == 0) {
        state.SkipWithError("empty corpus");
        return;
    }
    std::size_t i = 0;
    const std::uint64_t before = allocations;
    for (auto _ : state) {
        body(i);
        i = i + 1 == n ? 0 : i + 1;
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
    state.counters["allocs/op"] =
        benchmark::Counter(static_cast<double>(allocations - before) / static_cast<double>(state.iterations()));
}

/// Allocations plan() may make for the decision's own scope.
std::uint64_t own_scope_allocations(const handoff::decision& d) {
    std::uint64_t n = 0;
    if (!d.scope.empty()) {
        n += 1;
        for (const std::string& s : d.scope) {
            n += s.size() > 15 ? 1U : 0U; // libstdc++'s small-string buffer holds 15 bytes
        }
    }
    n += d.ranges.empty() ? 0U : 1U;
    n += d.unit.size() > 15 ? 1U : 0U;
    return n;
}

void register_all(const corpus& c) {
    const corpus* p = &c;
    const std::string suffix = "/" + c.name;
    const handoff::parse_limits limits{};

    benchmark::RegisterBenchmark(("step1+2_fast/read_envelope" + suffix).c_str(), [p, limits](benchmark::State& s) {
        over(s, p->valid_lines.size(), [&](std::size_t i) {
            auto env = handoff::detail::read_envelope(p->valid_lines[i], limits);
            benchmark::DoNotOptimize(env);
        });
    });
    benchmark::RegisterBenchmark(("step1_diagnosing/decode" + suffix).c_str(), [p](benchmark::State& s) {
        over(s, p->valid_lines.size(), [&](std::size_t i) {
            auto r = handoff::decode(p->valid_lines[i]);
            benchmark::DoNotOptimize(r);
        });
    });
    benchmark::RegisterBenchmark(("step1_reference/nlohmann_parse" + suffix).c_str(), [p](benchmark::State& s) {
        over(s, p->valid_lines.size(), [&](std::size_t i) {
            auto doc = json::parse(p->valid_lines[i], nullptr, false);
            benchmark::DoNotOptimize(doc);
        });
    });
    benchmark::RegisterBenchmark(("step2_diagnosing/envelope_checker" + suffix).c_str(), [p](benchmark::State& s) {
        over(s, p->documents.size(), [&](std::size_t i) {
            handoff::problem_list problems;
            auto env = handoff::detail::envelope_checker(problems).check(p->documents[i]);
            benchmark::DoNotOptimize(env);
        });
    });
    benchmark::RegisterBenchmark(("step2_reference/valijson_envelope_schema" + suffix).c_str(),
                                 [p](benchmark::State& s) {
                                     const valijson_schema schema(envelope_schema_document());
                                     valijson::Validator validator;
                                     over(s, p->documents.size(), [&](std::size_t i) {
                                         const valijson::adapters::NlohmannJsonAdapter target(p->documents[i]);
                                         benchmark::DoNotOptimize(validator.validate(schema.schema, target, nullptr));
                                     });
                                 });
    benchmark::RegisterBenchmark(("step3/compiled_schema_validate" + suffix).c_str(), [p](benchmark::State& s) {
        const auto schema = handoff::compiled_schema::from_json(p->task_schema);
        over(s, p->envelopes.size(), [&](std::size_t i) {
            if (p->envelopes[i].partial_result) {
                auto problems =
                    schema.validate(*p->envelopes[i].partial_result, "/partial_result", handoff::step::task_schema);
                benchmark::DoNotOptimize(problems);
            }
        });
    });
    if (c.task_is_draft07) {
        benchmark::RegisterBenchmark(
            ("step3_reference/valijson_task_schema" + suffix).c_str(), [p](benchmark::State& s) {
                const valijson_schema schema(p->task_schema);
                valijson::Validator validator;
                over(s, p->envelopes.size(), [&](std::size_t i) {
                    if (p->envelopes[i].partial_result) {
                        const valijson::adapters::NlohmannJsonAdapter target(*p->envelopes[i].partial_result);
                        benchmark::DoNotOptimize(validator.validate(schema.schema, target, nullptr));
                    }
                });
            });
    }
    benchmark::RegisterBenchmark(("step4/check_coverage" + suffix).c_str(), [p](benchmark::State& s) {
        over(s, p->envelopes.size(), [&](std::size_t i) {
            auto problems = handoff::check_coverage(p->envelopes[i].status, p->envelopes[i].coverage);
            benchmark::DoNotOptimize(problems);
        });
    });
    benchmark::RegisterBenchmark(("step5/decide" + suffix).c_str(), [p](benchmark::State& s) {
        over(s, p->capped.size(), [&](std::size_t i) {
            const auto& env = *p->capped[i];
            benchmark::DoNotOptimize(handoff::decide(*env.reason_code, env.coverage.fraction));
        });
    });
    benchmark::RegisterBenchmark(("step5/route" + suffix).c_str(), [p](benchmark::State& s) {
        std::uint64_t extra = 0;
        over(s, p->capped.size(), [&](std::size_t i) {
            const auto& env = *p->capped[i];
            const std::uint64_t before = allocations;
            const handoff::decision d = handoff::plan(*env.reason_code, env.coverage, env.steps, env.retry_hint, true);
            extra += allocations - before - own_scope_allocations(d);
            benchmark::DoNotOptimize(d);
        });
        s.counters["extra_allocs/op"] =
            benchmark::Counter(static_cast<double>(extra) / static_cast<double>(s.iterations()));
    });
    benchmark::RegisterBenchmark(("all/receive" + suffix).c_str(), [p](benchmark::State& s) {
        const handoff::receiver<> receiver(p->task_schema);
        over(s, p->lines.size(), [&](std::size_t i) {
            auto r = receiver.receive(p->lines[i]);
            benchmark::DoNotOptimize(r);
        });
    });
    benchmark::RegisterBenchmark(("all/receive_valid_only" + suffix).c_str(), [p](benchmark::State& s) {
        const handoff::receiver<> receiver(p->task_schema);
        over(s, p->valid_lines.size(), [&](std::size_t i) {
            auto r = receiver.receive(p->valid_lines[i]);
            benchmark::DoNotOptimize(r);
        });
    });
}

} // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    // A slice of each corpus is plenty for per-step figures and keeps memory small.
    const std::size_t max_lines = 2000;
    static std::vector<corpus> corpora;
    try {
        corpora.push_back(load("small", "task.schema.json", max_lines));
        corpora.push_back(load("large", "task.schema.json", max_lines));
        // The schema kits of make_corpus.py: task schemas as today's generators write them.
        for (const char* kit : {"pydantic", "tuple", "unevaluated"}) {
            corpora.push_back(
                load(std::string("kit-") + kit, std::string("task.kit-") + kit + ".schema.json", max_lines));
        }
    } catch (const std::exception& e) {
        std::cerr << "handoff_bench_steps: " << e.what() << "\n";
        return 2;
    }
    for (const corpus& c : corpora) {
        std::cerr << c.name << ": " << c.lines.size() << " envelopes, " << c.valid_lines.size() << " pass steps 1-2, "
                  << c.capped.size() << " of them capped\n";
        register_all(c);
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
