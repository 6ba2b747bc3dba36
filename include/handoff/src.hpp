// SPDX-License-Identifier: MIT
#pragma once

// The one translation unit of handoff's compiled form (config.hpp): every definition the
// headers only declare when HANDOFF_COMPILED_LIB is set, compiled here once. The CMake target
// handoff::compiled compiles it; without CMake, compile one file that includes it first, and
// define HANDOFF_COMPILED_LIB in every other file of the program.

#if defined(HANDOFF_INLINE) && !defined(HANDOFF_COMPILED_LIB)
#error "handoff/src.hpp must come before any other handoff header in its file"
#endif
#if !defined(HANDOFF_COMPILED_LIB)
#define HANDOFF_COMPILED_LIB
#endif

#include <handoff/coverage-inl.hpp>
#include <handoff/dead_letter-inl.hpp>
#include <handoff/dead_letter_file-inl.hpp>
#include <handoff/decision-inl.hpp>
#include <handoff/decode-inl.hpp>
#include <handoff/detail/envelope/receive_steps-inl.hpp>
#include <handoff/detail/provider/nulled_optionals-inl.hpp>
#include <handoff/detail/stream/checker-inl.hpp>
#include <handoff/envelope_schema-inl.hpp>
#include <handoff/failure_class-inl.hpp>
#include <handoff/fixture_manifest-inl.hpp>
#include <handoff/fixtures-inl.hpp>
#include <handoff/ledger-inl.hpp>
#include <handoff/lint-inl.hpp>
#include <handoff/provider_model_reply-inl.hpp>
#include <handoff/provider_nulls-inl.hpp>
#include <handoff/provider_reply-inl.hpp>
#include <handoff/provider_schema-inl.hpp>
#include <handoff/provider_stream-inl.hpp>
#include <handoff/receipt_json-inl.hpp>
#include <handoff/repair_loop-inl.hpp>
#include <handoff/repair_prompt-inl.hpp>
#include <handoff/report-inl.hpp>
#include <handoff/report_html-inl.hpp>
#include <handoff/route_table-inl.hpp>
#include <handoff/schema-inl.hpp>
#include <handoff/schema_registry-inl.hpp>
#include <handoff/semantic-inl.hpp>
#include <handoff/semantic_check-inl.hpp>
#include <handoff/testing-inl.hpp>
#include <handoff/worker_prompt-inl.hpp>

// The JSON receiver, whose instantiation receiver.hpp declares extern in the compiled form.
#include <handoff/receiver.hpp>
template class handoff::receiver<nlohmann::json>;
