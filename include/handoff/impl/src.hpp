// SPDX-License-Identifier: MIT
#pragma once

// The one translation unit of handoff's compiled form (config.hpp): every definition the
// headers only declare when HANDOFF_COMPILED_LIB is set, compiled here once. The CMake target
// handoff::compiled compiles it; without CMake, compile one file that includes it first, and
// define HANDOFF_COMPILED_LIB in every other file of the program.

#if defined(HANDOFF_INLINE) && !defined(HANDOFF_COMPILED_LIB)
#error "handoff/impl/src.hpp must come before any other handoff header in its file"
#endif
#if !defined(HANDOFF_COMPILED_LIB)
#define HANDOFF_COMPILED_LIB
#endif

#include <handoff/impl/coverage_inl.hpp>
#include <handoff/impl/dead_letter_file_inl.hpp>
#include <handoff/impl/dead_letter_inl.hpp>
#include <handoff/impl/decision_inl.hpp>
#include <handoff/impl/decode_inl.hpp>
#include <handoff/impl/envelope_schema_inl.hpp>
#include <handoff/impl/failure_class_inl.hpp>
#include <handoff/impl/fixture_manifest_inl.hpp>
#include <handoff/impl/fixtures_inl.hpp>
#include <handoff/impl/ledger_inl.hpp>
#include <handoff/impl/lint_inl.hpp>
#include <handoff/impl/nulled_optionals_inl.hpp>
#include <handoff/impl/provider_model_reply_inl.hpp>
#include <handoff/impl/provider_nulls_inl.hpp>
#include <handoff/impl/provider_reply_inl.hpp>
#include <handoff/impl/provider_schema_inl.hpp>
#include <handoff/impl/receipt_json_inl.hpp>
#include <handoff/impl/receive_steps_inl.hpp>
#include <handoff/impl/repair_loop_inl.hpp>
#include <handoff/impl/repair_prompt_inl.hpp>
#include <handoff/impl/report_html_inl.hpp>
#include <handoff/impl/report_inl.hpp>
#include <handoff/impl/route_table_inl.hpp>
#include <handoff/impl/schema_inl.hpp>
#include <handoff/impl/schema_registry_inl.hpp>
#include <handoff/impl/semantic_check_inl.hpp>
#include <handoff/impl/semantic_inl.hpp>
#include <handoff/impl/testing_inl.hpp>
#include <handoff/impl/worker_prompt_inl.hpp>

// The JSON receiver, whose instantiation receiver.hpp declares extern in the compiled form.
#include <handoff/receiver.hpp>
template class handoff::receiver<nlohmann::json>;
