// SPDX-License-Identifier: MIT
#pragma once

// The two ways of walking a compiled schema, as the one template parameter of the walk: a
// boolean sink stops at the first failure and never builds a message or a pointer; a problem
// sink keeps the instance pointer as the walk descends, writes a problem for each failure (up to
// a limit, then counts) and lets the walk go on. The walk is the same code for both, so the two
// modes cannot disagree on valid/invalid.

#include <handoff/detail/json_pointer.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/enums.hpp>
#include <handoff/problem.hpp>

#include <cstddef>     // size_t
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move

namespace handoff::detail {

struct boolean_sink {
    static constexpr bool collecting = false;
    template <class Message>
    bool fail(Message&&) noexcept {
        return false;
    }
    std::size_t enter(std::string_view) noexcept { return 0; }
    std::size_t enter(std::size_t) noexcept { return 0; }
    void leave(std::size_t) noexcept {}
};

class problem_sink {
public:
    static constexpr bool collecting = true;

    problem_sink(std::string base_pointer, step step_of_problems, const char* code, std::size_t max_listed)
        : pointer_(std::move(base_pointer)), step_(step_of_problems), code_(code), max_listed_(max_listed) {}

    /// Records a failure at the current pointer; `message()` is only called when it is listed.
    template <class Message>
    bool fail(Message&& message) {
        if (problems_.size() < max_listed_) {
            problems_.push_back(problem{step_, code_, pointer_, message_pointer(pointer_) + ": " + message()});
        } else {
            ++unlisted_;
        }
        return false;
    }

    std::size_t enter(std::string_view key) {
        const std::size_t mark = pointer_.size();
        append_pointer_token(pointer_, key);
        return mark;
    }
    std::size_t enter(std::size_t index) {
        const std::size_t mark = pointer_.size();
        append_pointer_index(pointer_, index);
        return mark;
    }
    void leave(std::size_t mark) { pointer_.resize(mark); }

    /// The problems, closed by one that counts those not listed.
    [[nodiscard]] problem_list finish() && {
        if (unlisted_ > 0) {
            problems_.push_back(problem{step_, code_, pointer_,
                                        message_pointer(pointer_) + ": " + std::to_string(unlisted_) +
                                            " more problems are not listed (at most " + std::to_string(max_listed_) +
                                            " are)"});
        }
        return std::move(problems_);
    }

private:
    std::string pointer_;
    step step_;
    const char* code_;
    std::size_t max_listed_;
    std::size_t unlisted_ = 0;
    problem_list problems_;
};

} // namespace handoff::detail
