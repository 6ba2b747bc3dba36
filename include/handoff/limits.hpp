// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef> // size_t

namespace handoff {

/// Bounds on untrusted text, enforced while it is parsed (not after): over a bound the parse
/// stops with a `parse` problem naming the bound, before the hostile structure is built.
struct parse_limits {
    /// Whole input, checked before anything else is read.
    std::size_t max_bytes = std::size_t{1024} * 1024;
    /// Objects and arrays nested inside each other (the envelope itself is depth 1). A receiver
    /// holds it at 256 at most (its options() say so): its steps copy the partial result, and a
    /// receipt writes it out, each recursing once per level. decode() takes it as given.
    std::size_t max_depth = 64;
    /// One string or key, in bytes after unescaping.
    std::size_t max_string_bytes = std::size_t{64} * 1024;
    /// Keys of one object or items of one array.
    std::size_t max_container_items = 10'000;
    /// Every value in the document, containers included.
    std::size_t max_values = 200'000;
};

} // namespace handoff
