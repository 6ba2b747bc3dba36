// SPDX-License-Identifier: MIT
#pragma once

// One way to spell every handoff enum. Each enum states its names once, in enumerator order, by
// specialising enum_names right after its definition:
//
//     enum class band : std::uint8_t { low, mid, high };
//     inline constexpr std::size_t band_count = 3;
//     template <>
//     struct enum_names<band> {
//         static constexpr std::array<std::string_view, band_count> names{"low", "mid", "high"};
//     };
//
// and to_string, from_string<E> and all_values<E> derive from that list. The names are sized by
// the enum's `*_count` and must all be non-empty (checked at compile time), so an enumerator added
// with its count but without its name fails the build, as a switch without `default:` did.

#include <array>       // array
#include <cstddef>     // size_t
#include <optional>    // optional, nullopt
#include <string_view> // string_view
#include <type_traits> // enable_if_t, false_type, true_type, void_t

namespace handoff {

/// The names of enum E's enumerators, in enumerator order: specialised once per enum with
/// `static constexpr std::array<std::string_view, N> names`.
template <class E>
struct enum_names {};

namespace detail {

template <class E, class = void>
struct has_enum_names : std::false_type {};
template <class E>
struct has_enum_names<E, std::void_t<decltype(enum_names<E>::names)>> : std::true_type {};

template <class E>
using if_named = std::enable_if_t<has_enum_names<E>::value, int>;

template <std::size_t N>
[[nodiscard]] constexpr bool every_name_given(const std::array<std::string_view, N>& names) noexcept {
    // std::all_of is constexpr only from C++20.
    for (const std::string_view name : names) { // NOLINT(readability-use-anyofallof)
        if (name.empty()) {
            return false;
        }
    }
    return true;
}

} // namespace detail

/// How many enumerators E has (its names' count).
template <class E, detail::if_named<E> = 0>
inline constexpr std::size_t enum_count = enum_names<E>::names.size();

/// The enumerator's name; "?" for a value outside the enum (a cast from a bad integer).
template <class E, detail::if_named<E> = 0>
[[nodiscard]] constexpr std::string_view to_string(E value) noexcept {
    static_assert(detail::every_name_given(enum_names<E>::names), "an enumerator has no name in enum_names");
    const auto i = static_cast<std::size_t>(value);
    return i < enum_names<E>::names.size() ? enum_names<E>::names[i] : std::string_view("?");
}

/// The enumerator spelled exactly (case-sensitive) as to_string spells it, or nullopt.
template <class E, detail::if_named<E> = 0>
[[nodiscard]] constexpr std::optional<E> from_string(std::string_view name) noexcept {
    for (std::size_t i = 0; i < enum_names<E>::names.size(); ++i) {
        if (enum_names<E>::names[i] == name) {
            return static_cast<E>(i);
        }
    }
    return std::nullopt;
}

/// Every enumerator of E, in declaration order.
template <class E, detail::if_named<E> = 0>
[[nodiscard]] constexpr std::array<E, enum_count<E>> all_values() noexcept {
    std::array<E, enum_count<E>> out{};
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = static_cast<E>(i);
    }
    return out;
}

} // namespace handoff
