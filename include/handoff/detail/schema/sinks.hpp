// SPDX-License-Identifier: MIT
#pragma once

// Where a walk over a compiled schema reports, in one of two modes chosen at run time. Yes/no
// stops at the first failure and never builds a message or a pointer; listing keeps the instance
// pointer as the walk descends, writes a problem for each failure (up to a limit, then counts)
// and lets the walk go on. One class rather than a template parameter of the walk: the walk is
// compiled once, in every file that receives, and both modes run the same code.

#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/enums.hpp>
#include <handoff/problem.hpp>

#include <algorithm>   // min
#include <cstddef>     // size_t, ptrdiff_t
#include <limits>      // numeric_limits
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move

namespace handoff::detail {

class walk_sink {
public:
    /// Yes/no: the walk's answer is all that counts.
    walk_sink() = default;

    /// Listing: problems of `step_of_problems` with `code`, pointers below `base_pointer`.
    walk_sink(std::string base_pointer, step step_of_problems, const char* code, std::size_t max_listed)
        : listing_(true), pointer_(std::move(base_pointer)), step_(step_of_problems), code_(code),
          max_listed_(max_listed) {}

    /// Whether the walk goes on after a failure (to list the others).
    [[nodiscard]] bool collecting() const noexcept { return listing_; }
    /// Whether any failure was recorded, listed or not.
    [[nodiscard]] bool failed() const noexcept { return !problems_.empty() || unlisted_ > 0; }

    /// Records a failure at the current pointer; `message()` is only called when it is listed.
    template <class Message>
    bool fail(Message&& message) {
        if (!listing_) {
            return false;
        }
        if (problems_.size() < max_listed_) {
            add(message());
        } else {
            count_unlisted(1);
        }
        return false;
    }

    /// How many failures were recorded so far: listed, and only counted past the limit.
    struct tally {
        std::size_t listed = 0;
        std::size_t unlisted = 0;
    };
    [[nodiscard]] tally count() const noexcept { return {problems_.size(), unlisted_}; }
    /// The problems listed since the count was `before`.
    [[nodiscard]] problem_list listed_since(tally before) const {
        return {problems_.begin() + static_cast<std::ptrdiff_t>(before.listed), problems_.end()};
    }
    /// Records again what a walk made before recorded (`listed`, then `unlisted` only counted),
    /// as that walk would record it now: listed while there is room, counted after.
    void replay(const problem_list& listed, std::size_t unlisted) {
        const std::size_t room = max_listed_ > problems_.size() ? max_listed_ - problems_.size() : 0;
        const std::size_t kept = std::min(room, listed.size());
        problems_.insert(problems_.end(), listed.begin(), listed.begin() + static_cast<std::ptrdiff_t>(kept));
        count_unlisted(listed.size() - kept);
        count_unlisted(unlisted);
    }

    std::size_t enter(std::string_view key) {
        if (!listing_) {
            return 0;
        }
        const std::size_t mark = pointer_.size();
        append_pointer_token(pointer_, key);
        return mark;
    }
    std::size_t enter(std::size_t index) {
        if (!listing_) {
            return 0;
        }
        const std::size_t mark = pointer_.size();
        append_pointer_index(pointer_, index);
        return mark;
    }
    void leave(std::size_t mark) {
        if (listing_) {
            pointer_.resize(mark);
        }
    }

    /// The problems, closed by one that counts those not listed.
    [[nodiscard]] problem_list finish() && {
        if (unlisted_ > 0) {
            const std::string more = unlisted_ == std::numeric_limits<std::size_t>::max()
                                         ? "more problems than a count holds"
                                         : std::to_string(unlisted_) + " more problems";
            problems_.push_back(problem{step_, code_, pointer_,
                                        message_pointer(pointer_) + ": " + more + " are not listed (at most " +
                                            std::to_string(max_listed_) + " are)"});
        }
        return std::move(problems_);
    }

private:
    /// `n` more failures not listed. A remembered walk can stand for more failures than a count
    /// holds: the count stops at the most, and stays there.
    void count_unlisted(std::size_t n) noexcept {
        unlisted_ = n > std::numeric_limits<std::size_t>::max() - unlisted_ ? std::numeric_limits<std::size_t>::max()
                                                                            : unlisted_ + n;
    }

    // Out of fail(), which is instantiated once for each message of the walk.
    void add(std::string message) {
        problems_.push_back(problem{step_, code_, pointer_, message_pointer(pointer_) + ": " + std::move(message)});
    }

    bool listing_ = false;
    std::string pointer_;
    step step_ = step::task_schema;
    const char* code_ = "";
    std::size_t max_listed_ = 0;
    std::size_t unlisted_ = 0;
    problem_list problems_;
};

} // namespace handoff::detail
