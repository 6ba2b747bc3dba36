// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/coverage.hpp>
#include <handoff/decision.hpp>
#include <handoff/limits.hpp>
#include <handoff/provider.hpp>
#include <handoff/schema.hpp>

#include <optional> // optional

namespace handoff {

class disagreement_ledger; // ledger.hpp; a receiver only holds a pointer to one

struct receiver_options {
    /// Skip the tolerant decode: the reply must be exactly one JSON value.
    bool strict = false;
    parse_limits limits{};
    routing_policy policy{};
    /// How far coverage.fraction may stray from completed/expected.
    double fraction_tolerance = default_fraction_tolerance;
    /// Where hint/table disagreements are counted; not owned, may be shared across receivers.
    disagreement_ledger* ledger = nullptr;
    /// How the task schema given as JSON is compiled (the pattern bound).
    schema_options schema{};
    /// The provider whose constrained decoding produced the replies, if any. Its schema may
    /// make optional properties required and nullable (OpenAI strict mode): a null there is
    /// read as absent, exactly where provider_schema() noted it, before the five steps. Such
    /// replies are read on the diagnosing path, not the one-pass reader.
    std::optional<provider> from{};
};

} // namespace handoff
