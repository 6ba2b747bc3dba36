// SPDX-License-Identifier: MIT
#pragma once

// valijson reports schema errors by exception only when VALIJSON_USE_EXCEPTIONS is set (else it
// aborts the process). The handoff::handoff target sets it; this covers includes without it.
#ifndef VALIJSON_USE_EXCEPTIONS
#define VALIJSON_USE_EXCEPTIONS 1
#endif
#if !VALIJSON_USE_EXCEPTIONS
#error "handoff needs valijson built with VALIJSON_USE_EXCEPTIONS=1"
#endif

// valijson/exceptions.hpp includes <stdexcept> inside its namespace: include it first.
#include <stdexcept> // runtime_error

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>
