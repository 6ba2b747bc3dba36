// SPDX-License-Identifier: MIT
#pragma once

#include <stdexcept>   // runtime_error
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move

namespace handoff {

/// A schema that cannot be used: a programmer's error, so it is the one thing handoff throws.
/// `pointer()` says where (a JSON pointer into the schema, prefixed "uri#" in another document,
/// "" for the root), `reason()` what is wrong; what() is one line holding both.
class schema_error : public std::runtime_error {
public:
    schema_error(std::string pointer, std::string reason)
        : std::runtime_error("handoff: schema " + (pointer.empty() ? std::string("root") : pointer) + ": " + reason),
          pointer_(std::move(pointer)), reason_(std::move(reason)) {}

    /// A whole-schema failure (an unreadable file): no pointer.
    explicit schema_error(const std::string& reason) : std::runtime_error("handoff: " + reason), reason_(reason) {}

    [[nodiscard]] const std::string& pointer() const noexcept { return pointer_; }
    [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

private:
    std::string pointer_;
    std::string reason_;
};

} // namespace handoff
