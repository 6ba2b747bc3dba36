// SPDX-License-Identifier: MIT
// handoff_bench_compare: the C++ contestants of the side-by-side benchmark (run_bench.py).
//
//   handoff_bench_compare --contestant handoff|naive|envelope-only|dom-only --envelope-schema FILE
//                         --task-schema FILE [--stride K] --serve NAME=FILE...
//       loads each corpus into memory, then answers "run NAME" lines on stdin with one JSON
//       line: the microseconds per envelope of one pass over corpus NAME, and the verdicts;
//       "verdicts NAME" with one letter per envelope (verdict_letters), untimed.
//   handoff_bench_compare --contestant naive --envelope-schema FILE --task-schema FILE
//                         --stream [FILE|-]
//       the naive stack as a whole process: one JSON line per envelope, like handoff-check.
//
// Both contestants do the full check: parse, envelope schema, task schema (when the worker
// claims schema_ok), coverage arithmetic. `handoff` is receiver<>::receive (which routes too);
// `naive` is what one writes first: nlohmann::json::parse into a DOM, then valijson on the
// envelope schema file and on the task schema, with one Validator reused for every envelope.
// `envelope-only` is handoff's receive without a task schema (steps 1 and 2, the result's DOM
// built and freed): the part of receive that step 3 is added to. `dom-only` reads and judges
// nothing: it copies and frees partial_result's DOM, parsed before any timing, the cost of the
// nlohmann::json a receipt returns whatever builds it.

#include "cpu_time.hpp"
#include "support/valijson.hpp"

#include <handoff/handoff.hpp>

#include <nlohmann/json.hpp>

#include <chrono>        // steady_clock
#include <cmath>         // fabs
#include <cstdlib>       // strtoul
#include <fstream>       // ifstream
#include <iostream>      // cin, cout, cerr
#include <map>           // map
#include <sstream>       // ostringstream
#include <stdexcept>     // runtime_error
#include <string>        // string
#include <unordered_map> // unordered_map
#include <utility>       // move
#include <vector>        // vector

namespace {

using nlohmann::json;

/// What a contestant concluded about one envelope: the first step that found a problem
/// ("" when the envelope passed every check) and how many problems it reported.
struct verdict {
    const char* step = "";
    std::size_t problems = 0;
};

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error("cannot read " + path);
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> read_lines(const std::string& path, std::size_t stride) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw std::runtime_error("cannot read " + path);
    }
    std::vector<std::string> lines;
    std::string line;
    for (std::size_t i = 0; std::getline(in, line); ++i) {
        if (i % stride == 0 && !line.empty()) {
            lines.push_back(line);
        }
    }
    return lines;
}

class handoff_contestant {
public:
    handoff_contestant(const std::string& /*envelope_schema*/, const std::string& task_schema)
        : receiver_(handoff::compiled_schema::from_file(task_schema)) {}
    explicit handoff_contestant(handoff::receiver<> receiver) : receiver_(std::move(receiver)) {}

    verdict check(const std::string& text) const {
        const handoff::receipt<> r = receiver_.receive(text);
        verdict v;
        if (!r.problems.empty()) {
            v.step = handoff::to_string(r.problems.front().step).data();
            v.problems = r.problems.size();
        }
        return v;
    }

private:
    handoff::receiver<> receiver_;
};

/// handoff's receive without a task schema: steps 1 and 2 and the route, the result's DOM built
/// and freed, step 3 skipped. Not a contestant of the verdict comparison (it judges less): what
/// it measures is the part of receive that any check returning that DOM pays before step 3.
class envelope_only_contestant : public handoff_contestant {
public:
    envelope_only_contestant(const std::string& /*envelope_schema*/, const std::string& /*task_schema*/)
        : handoff_contestant(handoff::receiver<>()) {}
};

/// The DOM alone: each envelope's partial_result, parsed before any timing, copied and freed
/// per envelope. A copy allocates exactly the nodes of the DOM (one per string, object, array
/// and member, as nlohmann::json lays them out) and copies a map's tree without comparing keys,
/// so this is a lower bound on what any receive that returns that DOM pays, whatever reads the
/// text and whatever judges it. Not a contestant of the verdict comparison: it checks nothing.
class dom_only_contestant {
public:
    dom_only_contestant(const std::string& /*envelope_schema*/, const std::string& /*task_schema*/) {}

    void prepare(const std::vector<std::string>& lines) {
        for (const std::string& text : lines) {
            results_[&text] = result_of(text);
        }
    }

    verdict check(const std::string& text) {
        // A line read as it comes (--stream, untimed) was not prepared: it is parsed here.
        const auto prepared = results_.find(&text);
        const json copy = prepared != results_.end() ? prepared->second : result_of(text);
        kept_values_ += copy.size(); // read, so the copy is not optimised away
        return verdict{};
    }

private:
    static json result_of(const std::string& text) {
        const json doc = json::parse(text, nullptr, false);
        return doc.is_object() ? doc.value("partial_result", json()) : json();
    }

    std::unordered_map<const std::string*, json> results_;
    std::size_t kept_values_ = 0;
};

/// Work done once a corpus is loaded, before anything is timed: none for the checks.
template <class Contestant>
void prepare(Contestant& /*contestant*/, const std::vector<std::string>& /*lines*/) {}
void prepare(dom_only_contestant& contestant, const std::vector<std::string>& lines) { contestant.prepare(lines); }

class naive_contestant {
public:
    naive_contestant(const std::string& envelope_schema, const std::string& task_schema) {
        load(envelope_schema, envelope_);
        load(task_schema, task_);
    }

    /// Validation runs without a results object (valijson then stops at the first failure)
    /// and again with one only when it failed, to collect the messages for the repair prompt.
    verdict check(const std::string& text) {
        verdict v;
        const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
        if (doc.is_discarded()) {
            v.step = "parse";
            v.problems = 1;
            return v;
        }
        const valijson::adapters::NlohmannJsonAdapter target(doc);
        if (!validator_.validate(envelope_, target, nullptr)) {
            v.step = "envelope_schema";
            v.problems = errors(envelope_, target);
            return v;
        }
        const json& partial = doc["partial_result"];
        if (doc["schema_ok"].get<bool>() && partial.is_object()) {
            const valijson::adapters::NlohmannJsonAdapter task(partial);
            if (!validator_.validate(task_, task, nullptr)) {
                v.step = "task_schema";
                v.problems = errors(task_, task);
            }
        }
        const std::size_t coverage = coverage_problems(doc);
        if (coverage > 0 && v.problems == 0) {
            v.step = "coverage";
        }
        v.problems += coverage;
        return v;
    }

private:
    static void load(const std::string& path, valijson::Schema& out) {
        const json doc = json::parse(read_file(path));
        valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
        const valijson::adapters::NlohmannJsonAdapter adapter(doc);
        parser.populateSchema(adapter, out);
    }

    std::size_t errors(const valijson::Schema& schema, const valijson::adapters::NlohmannJsonAdapter& target) {
        valijson::ValidationResults results;
        validator_.validate(schema, target, &results);
        std::size_t n = 0;
        valijson::ValidationResults::Error error;
        while (results.popError(error)) {
            messages_ += error.description.size(); // the messages are read, as a receiver would
            ++n;
        }
        return n;
    }

    /// SPEC §3 step 4, as handoff's check_coverage does it.
    static std::size_t coverage_problems(const json& doc) {
        const json& c = doc["coverage"];
        const auto expected = c["items_expected"].get<std::uint64_t>();
        const auto completed = c["items_completed"].get<std::uint64_t>();
        const double fraction = c["fraction"].get<double>();
        const bool ok = doc["status"] == "ok";
        if (completed > expected) {
            return 1;
        }
        std::size_t n = 0;
        if (expected > 0) {
            const double ratio = static_cast<double>(completed) / static_cast<double>(expected);
            n += std::fabs(fraction - ratio) > handoff::default_fraction_tolerance ? 1U : 0U;
            n += ok && completed != expected ? 1U : 0U;
        } else if (ok && std::fabs(fraction - 1.0) > handoff::default_fraction_tolerance) {
            ++n;
        }
        return n;
    }

    valijson::Schema envelope_;
    valijson::Schema task_;
    valijson::Validator validator_; // reused: a fresh one per envelope halves throughput
    std::size_t messages_ = 0;
};

/// One letter per envelope: the first letter of the step that found a problem, 'v' when none did.
template <class Contestant>
std::string verdict_letters(Contestant& contestant, const std::vector<std::string>& lines) {
    std::string letters;
    letters.reserve(lines.size());
    for (const std::string& text : lines) {
        const verdict v = contestant.check(text);
        letters += v.problems == 0 ? 'v' : v.step[0];
    }
    return letters;
}

template <class Contestant>
int serve(Contestant& contestant, const std::map<std::string, std::string>& corpora, std::size_t stride) {
    std::map<std::string, std::vector<std::string>> loaded;
    for (const auto& [name, path] : corpora) {
        loaded[name] = read_lines(path, stride);
        prepare(contestant, loaded[name]);
    }
    std::cout << "{\"ready\": true}" << std::endl;
    std::string command;
    while (std::getline(std::cin, command)) {
        if (command == "quit") {
            break;
        }
        const bool verdicts_asked = command.rfind("verdicts ", 0) == 0;
        const std::string name = command.rfind("run ", 0) == 0 ? command.substr(4)
                                 : verdicts_asked              ? command.substr(9)
                                                               : std::string();
        const auto it = loaded.find(name);
        if (it == loaded.end()) {
            std::cout << "{\"error\": \"unknown command\"}" << std::endl;
            continue;
        }
        if (verdicts_asked) { // untimed: what run_bench.py compares across contestants
            std::cout << json{{"corpus", name}, {"verdicts", verdict_letters(contestant, it->second)}}.dump()
                      << std::endl;
            continue;
        }
        std::map<std::string, std::size_t> steps;
        std::size_t problems = 0;
        const double cpu_start = handoff_bench::cpu_us();
        const auto start = std::chrono::steady_clock::now();
        for (const std::string& text : it->second) {
            const verdict v = contestant.check(text);
            ++steps[v.step];
            problems += v.problems;
        }
        const auto stop = std::chrono::steady_clock::now();
        const double cpu = handoff_bench::cpu_us() - cpu_start;
        const double us = std::chrono::duration<double, std::micro>(stop - start).count();
        json out = {{"corpus", name},
                    {"envelopes", it->second.size()},
                    {"us_per_envelope", us / static_cast<double>(it->second.size())},
                    {"cpu_us_per_envelope", cpu / static_cast<double>(it->second.size())},
                    {"problems", problems}};
        for (const auto& [step, count] : steps) {
            out["steps"][step.empty() ? "valid" : step] = count;
        }
        std::cout << out.dump() << std::endl;
    }
    return 0;
}

template <class Contestant>
int stream(Contestant& contestant, const std::string& input) {
    std::ifstream file;
    if (input != "-") {
        file.open(input, std::ios::binary);
        if (!file) {
            std::cerr << "cannot read " << input << "\n";
            return 2;
        }
    }
    std::istream& in = input == "-" ? std::cin : file;
    std::string line;
    bool any_invalid = false;
    while (std::getline(in, line)) {
        if (line.empty()) {
            continue;
        }
        const verdict v = contestant.check(line);
        any_invalid = any_invalid || v.problems > 0;
        std::cout << "{\"valid\":" << (v.problems == 0 ? "true" : "false") << ",\"step\":\"" << v.step
                  << "\",\"problems\":" << v.problems << "}\n";
    }
    return any_invalid ? 1 : 0;
}

template <class Contestant>
int run(const std::map<std::string, std::string>& args, const std::map<std::string, std::string>& corpora,
        std::size_t stride) {
    Contestant contestant(args.at("--envelope-schema"), args.at("--task-schema"));
    if (args.count("--stream") != 0) {
        return stream(contestant, args.at("--stream"));
    }
    return serve(contestant, corpora, stride);
}

} // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    std::map<std::string, std::string> args;
    std::map<std::string, std::string> corpora;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--serve") {
            for (; i + 1 < argc && argv[i + 1][0] != '-'; ++i) {
                const std::string spec = argv[i + 1];
                const auto eq = spec.find('=');
                corpora[spec.substr(0, eq)] = spec.substr(eq + 1);
            }
        } else if (arg == "--stream") {
            args[arg] = i + 1 < argc ? argv[++i] : "-";
        } else if (i + 1 < argc) {
            args[arg] = argv[++i];
        }
    }
    for (const char* required : {"--contestant", "--envelope-schema", "--task-schema"}) {
        if (args.count(required) == 0) {
            std::cerr << "usage: handoff_bench_compare --contestant handoff|naive|envelope-only|dom-only "
                         "--envelope-schema FILE "
                         "--task-schema FILE [--stride K] (--serve NAME=FILE... | --stream FILE|-)\n";
            return 2;
        }
    }
    const std::size_t stride = args.count("--stride") != 0 ? std::strtoul(args["--stride"].c_str(), nullptr, 10) : 1;
    try {
        if (args["--contestant"] == "handoff") {
            return run<handoff_contestant>(args, corpora, stride == 0 ? 1 : stride);
        }
        if (args["--contestant"] == "naive") {
            return run<naive_contestant>(args, corpora, stride == 0 ? 1 : stride);
        }
        if (args["--contestant"] == "envelope-only") {
            return run<envelope_only_contestant>(args, corpora, stride == 0 ? 1 : stride);
        }
        if (args["--contestant"] == "dom-only") {
            return run<dom_only_contestant>(args, corpora, stride == 0 ? 1 : stride);
        }
    } catch (const std::exception& e) {
        std::cerr << "handoff_bench_compare: " << e.what() << "\n";
        return 2;
    }
    std::cerr << "handoff_bench_compare: unknown contestant\n";
    return 2;
}
