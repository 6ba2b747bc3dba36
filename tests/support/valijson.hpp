// SPDX-License-Identifier: MIT
#pragma once

// valijson, the tests' and the benchmark's differential oracle (the library itself no longer
// uses it). It reports schema errors by exception only when VALIJSON_USE_EXCEPTIONS is set (else
// it aborts the process); this sets it for every test that includes valijson through here.
#ifndef VALIJSON_USE_EXCEPTIONS
#define VALIJSON_USE_EXCEPTIONS 1
#endif
#if !VALIJSON_USE_EXCEPTIONS
#error "the tests need valijson built with VALIJSON_USE_EXCEPTIONS=1"
#endif

// valijson/exceptions.hpp includes <stdexcept> inside its namespace: include it first.
#include <stdexcept> // runtime_error

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>
