// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/schema.hpp>

#include <nlohmann/json.hpp>

#include <algorithm> // min
#include <cstddef>   // size_t
#include <cstdint>   // int64_t, uint64_t
#include <limits>    // numeric_limits
#include <optional>  // optional
#include <set>       // set
#include <string>    // string
#include <utility>   // move
#include <vector>    // vector

namespace handoff::detail {

/// Values of one schema that are not yet taken, for `uniqueItems` and distinct property names,
/// varied from a `base` value of it. Asked with `taken` holding t values, it gives the first
/// candidate of this order that is not taken and that the schema accepts:
///
///   1. the schema's `enum` values;
///   2. numbered variants k = 1 .. t + 1: a string with its tail replaced by k + 1, an integer
///      base + k then base - k, a number base + k, the other boolean;
///   3. for a string, same-shape variants k = 1 .. t + 1 (same_shape_variant).
///
/// `taken` only grows between calls and the schema's verdict on a candidate never changes, so a
/// candidate passed over once is never wanted again: each family keeps a cursor, and a long
/// unique array costs each candidate one look instead of one per item.
class variant_source {
public:
    /// `enum_values`: the (resolved) schema's enum, or null; `compiled`: the schema alone, or
    /// empty when it does not compile alone (every candidate is then taken as fitting).
    variant_source(const nlohmann::json& enum_values, nlohmann::json base, std::optional<compiled_schema> compiled)
        : base_(std::move(base)), compiled_(std::move(compiled)) {
        if (enum_values.is_array()) {
            enum_values_ = enum_values.get_ref<const nlohmann::json::array_t&>();
        }
    }

    [[nodiscard]] const nlohmann::json& base() const noexcept { return base_; }

    /// The next value not in `taken` that the schema accepts, or nullopt.
    [[nodiscard]] std::optional<nlohmann::json> next(const std::set<nlohmann::json>& taken) {
        for (; enum_at_ < enum_values_.size(); ++enum_at_) {
            if (fits(enum_values_[enum_at_], taken)) {
                return enum_values_[enum_at_];
            }
        }
        const std::uint64_t bound = taken.size() + 1;
        for (; numbered_at_ < numbered_per_step() * bound; ++numbered_at_) {
            nlohmann::json v = numbered(numbered_at_);
            if (fits(v, taken)) {
                return v;
            }
        }
        for (; base_.is_string() && shape_at_ <= bound; ++shape_at_) {
            nlohmann::json v = same_shape_variant(base_.get_ref<const std::string&>(), shape_at_);
            if (fits(v, taken)) {
                return v;
            }
        }
        return std::nullopt;
    }

    /// `text` turned `k` steps on as an odometer whose wheels are its ASCII digits and letters,
    /// each within its own kind (0-9, a-z, A-Z), its other bytes fixed: a string of the same
    /// shape, which a pattern of character classes (`^[A-Z]{3}$`) still matches.
    [[nodiscard]] static std::string same_shape_variant(std::string text, std::uint64_t k) {
        for (std::size_t i = text.size(); i-- > 0 && k > 0;) {
            char& c = text[i];
            const auto turn = [&c, &k](char first, unsigned size) {
                const std::uint64_t place = static_cast<std::uint64_t>(c - first) + k % size;
                k = k / size + place / size;
                c = static_cast<char>(first + static_cast<char>(place % size));
            };
            if (c >= '0' && c <= '9') {
                turn('0', 10);
            } else if (c >= 'a' && c <= 'z') {
                turn('a', 26);
            } else if (c >= 'A' && c <= 'Z') {
                turn('A', 26);
            }
        }
        return text;
    }

private:
    [[nodiscard]] bool fits(const nlohmann::json& v, const std::set<nlohmann::json>& taken) const {
        return taken.count(v) == 0 && (!compiled_ || compiled_->accepts(v));
    }

    /// Numbered variants per step k: an integer has two (base + k, base - k); a value with no
    /// numbered variant (null, an array, an object) none.
    [[nodiscard]] std::uint64_t numbered_per_step() const noexcept {
        if (base_.is_number_integer()) {
            return 2;
        }
        return base_.is_string() || base_.is_number() || base_.is_boolean() ? 1 : 0;
    }

    /// The numbered variant at `index` (of numbered_per_step() per step, steps from 1).
    [[nodiscard]] nlohmann::json numbered(std::uint64_t index) const {
        const std::uint64_t k = index / numbered_per_step() + 1;
        if (base_.is_string()) {
            const std::string suffix = std::to_string(k + 1);
            std::string text = base_.get<std::string>();
            text.resize(text.size() > suffix.size() ? text.size() - suffix.size() : text.size());
            return text + suffix;
        }
        if (base_.is_number_integer()) {
            // Past int64's range the base itself stands in: it is taken, so passed over.
            const std::int64_t b = base_.get<std::int64_t>();
            const auto step = static_cast<std::int64_t>(std::min(k, static_cast<std::uint64_t>(max_int)));
            if (index % 2 == 0) {
                return b <= max_int - step ? b + step : b;
            }
            return b >= std::numeric_limits<std::int64_t>::min() + step ? b - step : b;
        }
        if (base_.is_number()) {
            return base_.get<double>() + static_cast<double>(k);
        }
        return !base_.get<bool>();
    }

    static constexpr std::int64_t max_int = std::numeric_limits<std::int64_t>::max();

    nlohmann::json base_;
    std::optional<compiled_schema> compiled_;
    std::vector<nlohmann::json> enum_values_;
    std::size_t enum_at_ = 0;
    std::uint64_t numbered_at_ = 0;
    std::uint64_t shape_at_ = 1;
};

} // namespace handoff::detail
