// SPDX-License-Identifier: MIT
#pragma once

// The whole library. Lighter entry points for translation units that only route or only read
// receipts: <handoff/decision_table.hpp>, <handoff/decision.hpp>, <handoff/receipt.hpp>,
// <handoff/envelope_contract.hpp>.

#include <handoff/coverage.hpp>
#include <handoff/dead_letter.hpp>
#include <handoff/dead_letter_file.hpp>
#include <handoff/decision.hpp>
#include <handoff/decision_table.hpp>
#include <handoff/decode.hpp>
#include <handoff/enums.hpp>
#include <handoff/envelope.hpp>
#include <handoff/envelope_contract.hpp>
#include <handoff/envelope_schema.hpp>
#include <handoff/failure_class.hpp>
#include <handoff/fixture_manifest.hpp>
#include <handoff/fixtures.hpp>
#include <handoff/ledger.hpp>
#include <handoff/limits.hpp>
#include <handoff/lint.hpp>
#include <handoff/problem.hpp>
#include <handoff/problem_codes.hpp>
#include <handoff/provider.hpp>
#include <handoff/provider_model_reply.hpp>
#include <handoff/provider_nulls.hpp>
#include <handoff/provider_reply.hpp>
#include <handoff/provider_schema.hpp>
#include <handoff/provider_stream.hpp>
#include <handoff/receipt.hpp>
#include <handoff/receipt_json.hpp>
#include <handoff/receiver.hpp>
#include <handoff/repair_loop.hpp>
#include <handoff/repair_prompt.hpp>
#include <handoff/report.hpp>
#include <handoff/report_html.hpp>
#include <handoff/route_table.hpp>
#include <handoff/schema.hpp>
#include <handoff/schema_error.hpp>
#include <handoff/schema_registry.hpp>
#include <handoff/semantic.hpp>
#include <handoff/stop_class.hpp>
#include <handoff/stream_check.hpp>
#include <handoff/testing.hpp>
#include <handoff/version.hpp>
#include <handoff/worker_prompt.hpp>
