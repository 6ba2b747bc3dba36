// SPDX-License-Identifier: MIT
// handoff-check on input it cannot read: a directory, or a read() that fails part way (EIO, a
// reset connection). Exit 2 with the file named on stderr, the receipts already written kept;
// never an abort, never an empty reply. And a task schema file that is not JSON gets the
// check's own message from every command that reads it.

#include "support/catch.hpp"
#include "support/process.hpp"

#include "../tools/handoff-check/input.hpp"

#include <cerrno>       // ECONNRESET
#include <cstddef>      // size_t
#include <filesystem>   // create_directories, remove, remove_all
#include <fstream>      // ifstream
#include <ios>          // ios_base
#include <iterator>     // istreambuf_iterator
#include <sstream>      // istringstream
#include <streambuf>    // streambuf
#include <string>       // string
#include <system_error> // error_code, system_category
#include <utility>      // move
#include <vector>       // vector

#include <unistd.h> // getpid

namespace test_cli_input_errors { // this file's own names: see "unity build" in tests/CMakeLists.txt

namespace {

/// Gives `text`, then fails as libstdc++'s filebuf fails when read() does: it throws.
class failing_buf : public std::streambuf {
public:
    explicit failing_buf(std::string text) : text_(std::move(text)) {
        setg(text_.data(), text_.data(), text_.data() + text_.size());
    }

protected:
    int_type underflow() override {
        throw std::ios_base::failure("read error", std::error_code(ECONNRESET, std::system_category()));
    }

private:
    std::string text_;
};

} // namespace

TEST_CASE("line_reader keeps the lines before a read error and says why reading stopped", "[cli]") {
    failing_buf in("first\nsecond\ncut sh");
    handoff_cli::line_reader lines(in);
    std::vector<std::string> read;
    for (std::string line; lines.next(line, 100);) {
        read.push_back(line);
    }
    CHECK(read == std::vector<std::string>{"first", "second"}); // the line the error cut is not one
    REQUIRE(lines.error().has_value());
    CHECK(*lines.error() == std::error_code(ECONNRESET, std::system_category()).message());
    std::string line;
    CHECK_FALSE(lines.next(line, 100)); // no read is tried after the error
}

TEST_CASE("line_reader reports no error at the end of a readable input", "[cli]") {
    std::istringstream in("a\nb");
    handoff_cli::line_reader lines(*in.rdbuf());
    std::string line;
    CHECK(lines.next(line, 100));
    CHECK(lines.next(line, 100));
    CHECK(line == "b");
    CHECK_FALSE(lines.next(line, 100));
    CHECK_FALSE(lines.error().has_value());
}

} // namespace test_cli_input_errors

// tests/CMakeLists.txt defines HANDOFF_CHECK_EXE and HANDOFF_CLI_TEMP_DIR whenever it builds
// handoff-check; without the binary there is nothing to run.
#if defined(HANDOFF_CHECK_EXE) && defined(HANDOFF_CLI_TEMP_DIR)

namespace test_cli_input_errors {

namespace {

const std::string fixtures = std::string(HANDOFF_FIXTURES_DIR) + "/cli_input_errors/";

struct cli_run {
    int exit_status = -1;
    std::size_t out_lines = 0; // lines on stdout (one per receipt for the check)
    std::string err;
};

/// Runs `handoff-check ARGS` with stdin from `stdin_path`, its stderr kept.
cli_run run(const std::string& args, const std::string& stdin_path = "/dev/null") {
    static int runs = 0;
    const std::string err_file = std::string(HANDOFF_CLI_TEMP_DIR) + "/input_errors_stderr." +
                                 std::to_string(::getpid()) + "." + std::to_string(++runs) + ".txt";
    handoff_test::shell_result ran = handoff_test::run_shell("'" + std::string(HANDOFF_CHECK_EXE) + "' " + args +
                                                             " < '" + stdin_path + "' 2>'" + err_file + "'");
    cli_run result;
    result.exit_status = ran.exit_status;
    for (const char c : ran.out) {
        result.out_lines += c == '\n' ? 1U : 0U;
    }
    std::ifstream err(err_file, std::ios::binary);
    result.err.assign(std::istreambuf_iterator<char>(err), std::istreambuf_iterator<char>());
    std::filesystem::remove(err_file);
    return result;
}

/// An empty directory of its own, removed at the end of the test.
class temp_directory {
public:
    temp_directory() : path_(std::string(HANDOFF_CLI_TEMP_DIR) + "/input_errors_dir." + std::to_string(::getpid())) {
        std::filesystem::create_directories(path_);
    }
    ~temp_directory() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    temp_directory(const temp_directory&) = delete;
    temp_directory& operator=(const temp_directory&) = delete;

    [[nodiscard]] const std::string& path() const { return path_; }

private:
    std::string path_;
};

/// The text after the first ": " of the first stderr line: the message without the command's
/// "handoff-check prompt: " prefix.
std::string message_of(const std::string& err) {
    const std::string first = err.substr(0, err.find('\n'));
    const std::size_t colon = first.find(": ");
    return colon == std::string::npos ? first : first.substr(colon + 2);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace

TEST_CASE("handoff-check --jsonl keeps the receipts read before a directory and exits 2", "[cli]") {
    const temp_directory dir;
    const auto r = run("--jsonl '" + std::string(HANDOFF_FIXTURES_DIR) + "/cli/stream.jsonl' '" + dir.path() + "'");
    CHECK(r.exit_status == 2);
    CHECK(r.out_lines == 3); // stream.jsonl's three envelopes
    CHECK(contains(r.err, "handoff-check: cannot read " + dir.path() + ": "));
}

TEST_CASE("handoff-check --jsonl on a directory as stdin exits 2", "[cli]") {
    const temp_directory dir;
    const auto r = run("--jsonl -", dir.path());
    CHECK(r.exit_status == 2);
    CHECK(r.out_lines == 0);
    CHECK(contains(r.err, "handoff-check: cannot read -: "));
}

TEST_CASE("handoff-check stream on a directory as stdin exits 2", "[cli]") {
    const temp_directory dir;
    const auto r = run("stream", dir.path());
    CHECK(r.exit_status == 2);
    CHECK(r.out_lines == 0);
    CHECK(contains(r.err, "handoff-check: cannot read the input: "));
}

TEST_CASE("handoff-check report on a directory says it cannot read it and exits 2", "[cli]") {
    const temp_directory dir;
    const auto named = run("report '" + dir.path() + "'");
    CHECK(named.exit_status == 2);
    CHECK(contains(named.err, "handoff-check report: cannot read " + dir.path() + ": "));
    const auto piped = run("report -", dir.path());
    CHECK(piped.exit_status == 2);
    CHECK(contains(piped.err, "handoff-check report: cannot read -: "));
}

TEST_CASE("handoff-check takes a directory for unreadable input, not for an empty reply", "[cli]") {
    const temp_directory dir;
    const auto named = run("'" + dir.path() + "'");
    CHECK(named.exit_status == 2);
    CHECK(named.out_lines == 0); // no "the reply is empty" receipt
    CHECK(contains(named.err, "handoff-check: cannot read " + dir.path()));
    const auto piped = run("-", dir.path());
    CHECK(piped.exit_status == 2);
    CHECK(piped.out_lines == 0);
    const auto with_others = run("'" + std::string(HANDOFF_FIXTURES_DIR) + "/cli/ok_accept.json' '" + dir.path() + "'");
    CHECK(with_others.exit_status == 2);
    CHECK(with_others.out_lines == 1); // the readable file's receipt stands
}

TEST_CASE("handoff-check lint takes a directory for an unreadable file", "[cli]") {
    const temp_directory dir;
    const auto named = run("lint '" + dir.path() + "'");
    CHECK(named.exit_status == 2);
    CHECK(named.out_lines == 0); // no lint.not_json finding
    CHECK(contains(named.err, "handoff-check lint: cannot read " + dir.path()));
    const auto piped = run("lint -", dir.path());
    CHECK(piped.exit_status == 2);
    CHECK(piped.out_lines == 0);
}

TEST_CASE("a task schema that is a directory cannot be read, whichever command reads it", "[cli]") {
    const temp_directory dir;
    for (const std::string& command : {std::string(""), std::string("prompt"), std::string("schema --for openai")}) {
        CAPTURE(command);
        const auto r = run(command + " --task-schema '" + dir.path() + "'");
        CHECK(r.exit_status == 2);
        CHECK(r.out_lines == 0);
        CHECK(contains(r.err, "cannot read "));
        CHECK_FALSE(contains(r.err, "not valid JSON"));
        CHECK_FALSE(contains(r.err, "not a JSON Schema object"));
    }
}

TEST_CASE("prompt and schema --for refuse a non-JSON task schema with the check's message", "[cli]") {
    for (const std::string name : {"trailing.schema.json", "bad_utf8.schema.json"}) {
        CAPTURE(name);
        const std::string path = fixtures + name;
        const auto check = run("--task-schema '" + path + "'");
        REQUIRE(check.exit_status == 2);
        const std::string expected = message_of(check.err);
        CHECK(contains(expected, "schema file " + path + " is not valid JSON: "));
        CHECK(contains(expected, "line 1, column ")); // the check's message names the place
        const auto prompt = run("prompt --task-schema '" + path + "'");
        CHECK(prompt.exit_status == 2);
        CHECK(contains(prompt.err, "handoff-check prompt: "));
        CHECK(message_of(prompt.err) == expected);
        const auto schema = run("schema --for openai --task-schema '" + path + "'");
        CHECK(schema.exit_status == 2);
        CHECK(contains(schema.err, "handoff-check schema: "));
        CHECK(message_of(schema.err) == expected);
    }
}

} // namespace test_cli_input_errors

#endif
