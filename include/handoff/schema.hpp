// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/fast_schema.hpp>
#include <handoff/detail/schema_guard.hpp>
#include <handoff/detail/text.hpp>
#include <handoff/detail/valijson.hpp>
#include <handoff/problem.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>   // equal, sort
#include <cstddef>     // size_t
#include <cstdint>     // uint64_t
#include <fstream>     // ifstream
#include <memory>      // shared_ptr
#include <numeric>     // iota
#include <sstream>     // ostringstream
#include <stdexcept>   // runtime_error
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move
#include <vector>      // vector

namespace handoff {

/// A schema that cannot be used: a programmer's error, so it is the one thing handoff throws.
class schema_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A JSON Schema (draft-07) compiled once; validating never re-reads the schema. Cheap to copy
/// (shared, immutable) and safe to use from many threads at once.
class compiled_schema {
public:
    /// A `pattern` needs a `maxLength` of at most this many characters beside it.
    static constexpr std::uint64_t max_pattern_length = detail::max_pattern_length;
    /// Object keys matched against `patternProperties` are at most this many bytes.
    static constexpr std::size_t max_pattern_key_bytes = detail::max_pattern_key_bytes;
    /// validate() lists at most this many problems, then one that counts the rest.
    static constexpr std::size_t max_listed_problems = 100;

    /// Throws schema_error when valijson cannot compile `schema` (unknown or non-local $ref,
    /// bad keyword, bad regex) and when a `pattern` lacks a `maxLength` <= max_pattern_length
    /// beside it (detail/schema_guard.hpp says why).
    [[nodiscard]] static compiled_schema from_json(const nlohmann::json& schema) {
        if (!schema.is_object() && !schema.is_boolean()) {
            throw schema_error("handoff: a JSON Schema must be an object or a boolean");
        }
        auto compiled = std::make_shared<valijson::Schema>();
        bool pattern_keys = false;
        try {
            const detail::guarded_schema guarded = detail::schema_guard::prepare(schema);
            valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
            detail::add_guard_builders(parser, guarded);
            const valijson::adapters::NlohmannJsonAdapter adapter(guarded.document);
            parser.populateSchema(adapter, *compiled);
            pattern_keys = guarded.has_pattern_properties;
        } catch (const std::exception& e) {
            throw schema_error(std::string("handoff: the schema does not compile: ") + e.what());
        }
        compiled_schema result;
        result.schema_ = std::move(compiled);
        result.pattern_keys_ = pattern_keys;
        result.document_ = std::make_shared<const nlohmann::json>(schema);
        if (auto fast = detail::fast_schema::compile(schema)) {
            result.fast_ = std::make_shared<const detail::fast_schema>(std::move(*fast));
        }
        return result;
    }

    /// Reads and compiles a schema file; throws schema_error when it is unreadable or invalid.
    [[nodiscard]] static compiled_schema from_file(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            throw schema_error("handoff: cannot read schema file " + path);
        }
        std::ostringstream text;
        text << in.rdbuf();
        auto schema = nlohmann::json::parse(text.str(), nullptr, false);
        if (schema.is_discarded()) {
            throw schema_error("handoff: schema file " + path + " is not valid JSON");
        }
        try {
            return from_json(schema);
        } catch (const schema_error& e) {
            throw schema_error(std::string(e.what()) + " (" + path + ")");
        }
    }

    /// The schema as it was given.
    [[nodiscard]] const nlohmann::json& document() const noexcept { return *document_; }

    /// Validates `value`; each failure becomes a problem of `step_of_problems` whose pointer is
    /// `base_pointer` followed by the path inside `value`.
    [[nodiscard]] problem_list validate(const nlohmann::json& value, std::string_view base_pointer,
                                        step step_of_problems, const char* code = "task.schema") const {
        // The subset validator decides the common case alone. On a refusal valijson gives the
        // verdict and the messages, on a copy pruned of what the subset validator accepted.
        detail::fast_schema::path_set replaced;
        nlohmann::json pruned;
        if (fast_) {
            if (fast_->accepts(value)) {
                return {};
            }
            pruned = fast_->prune(value, replaced);
        }
        valijson::ValidationResults results;
        const valijson::adapters::NlohmannJsonAdapter target(fast_ ? pruned : value);
        problem_list problems;
        if (std::string at(base_pointer); pattern_keys_) {
            if (const std::size_t n = detail::schema_guard::find_long_key(value, at); n != 0) {
                problems.push_back(problem{step_of_problems, code, at,
                                           detail::message_pointer(at) + ": a key of " + std::to_string(n) +
                                               " bytes is too long to match against patternProperties (at most " +
                                               std::to_string(max_pattern_key_bytes) + " bytes)"});
                return problems;
            }
        }
        if (thread_validator().validate(*schema_, target, &results)) {
            return problems;
        }
        valijson::ValidationResults::Error error;
        std::vector<valijson::ValidationResults::Error> errors;
        while (results.popError(error)) {
            errors.push_back(std::move(error));
        }
        if (!replaced.empty()) {
            detail::fast_schema::drop_replacement_errors(errors, replaced);
            if (errors.empty()) {
                return problems; // only the replacements failed: valijson accepts `value` itself
            }
        }
        const std::vector<bool> wrapper = wrappers(errors);
        std::size_t unlisted = 0;
        for (std::size_t i = 0; i < errors.size(); ++i) {
            if (wrapper[i]) {
                continue;
            }
            if (problems.size() == max_listed_problems) {
                ++unlisted; // a hostile result can fail 200k values: list enough to act on
                continue;
            }
            std::string pointer(base_pointer);
            const nlohmann::json* at = &value;
            for (std::size_t k = 1; k < errors[i].context.size(); ++k) {
                const std::string& token = errors[i].context[k];
                // valijson writes each step as "[name]" or "[index]".
                const std::string name = token.size() >= 2 ? token.substr(1, token.size() - 2) : token;
                detail::append_pointer_token(pointer, name);
                at = step_into(at, name);
            }
            std::string message = detail::message_pointer(pointer) + ": " + describe_failure(errors[i].description);
            if (at != nullptr && !at->is_object() && !at->is_array()) {
                message += " (got " +
                           (at->is_string() ? detail::quote_untrusted(at->get_ref<const std::string&>())
                                            : detail::quote_untrusted(at->dump(), 40)) +
                           ")";
            }
            problems.push_back(problem{step_of_problems, code, std::move(pointer), std::move(message)});
        }
        if (unlisted > 0) {
            std::string pointer(base_pointer);
            std::string message = detail::message_pointer(pointer) + ": " + std::to_string(unlisted) +
                                  " more problems are not listed (at most " + std::to_string(max_listed_problems) +
                                  " are)";
            problems.push_back(problem{step_of_problems, code, std::move(pointer), std::move(message)});
        }
        if (problems.empty()) {
            // valijson fails some rules without a word (propertyNames); an empty list would
            // read as valid, so a failure always yields at least this.
            std::string pointer(base_pointer);
            std::string message = detail::message_pointer(pointer) +
                                  ": does not fit the schema (a rule failed without detail, such as propertyNames)";
            problems.push_back(problem{step_of_problems, code, std::move(pointer), std::move(message)});
        }
        return problems;
    }

    [[nodiscard]] bool is_valid(const nlohmann::json& value) const {
        if (fast_ && fast_->accepts(value)) {
            return true;
        }
        if (std::string at; pattern_keys_ && detail::schema_guard::find_long_key(value, at) != 0) {
            return false;
        }
        const valijson::adapters::NlohmannJsonAdapter target(value);
        return thread_validator().validate(*schema_, target, nullptr);
    }

private:
    compiled_schema() = default;

    /// valijson's Validator caches compiled regexes in a mutable map: one per thread, shared
    /// by every schema that thread validates against.
    static valijson::Validator& thread_validator() {
        thread_local valijson::Validator validator;
        return validator;
    }

    /// valijson reports a failure inside a property or item once for the leaf and again for
    /// each enclosing object or array; only the leaf says anything a model can act on. Sorted,
    /// the contexts below a context follow it directly, so one pass finds every wrapper that
    /// has a deeper error (comparing all pairs took minutes for a result failing 180k values).
    static std::vector<bool> wrappers(const std::vector<valijson::ValidationResults::Error>& errors) {
        std::vector<std::size_t> order(errors.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::sort(order.begin(), order.end(),
                  [&](std::size_t a, std::size_t b) { return errors[a].context < errors[b].context; });
        std::vector<bool> out(errors.size(), false);
        for (std::size_t k = 0; k < order.size();) {
            const auto& context = errors[order[k]].context;
            std::size_t end = k + 1;
            while (end < order.size() && errors[order[end]].context == context) {
                ++end;
            }
            const bool deeper = end < order.size() && errors[order[end]].context.size() > context.size() &&
                                std::equal(context.begin(), context.end(), errors[order[end]].context.begin());
            for (; deeper && k < end; ++k) {
                const auto& d = errors[order[k]].description;
                out[order[k]] = d.rfind("Failed to validate against schema associated with property name", 0) == 0 ||
                                d.rfind("Failed to validate item #", 0) == 0;
            }
            k = end;
        }
        return out;
    }

    static const nlohmann::json* step_into(const nlohmann::json* at, const std::string& name) {
        if (at == nullptr) {
            return nullptr;
        }
        if (at->is_object()) {
            const auto it = at->find(name);
            return it == at->end() ? nullptr : &*it;
        }
        if (at->is_array()) {
            std::size_t index = 0;
            for (char c : name) {
                if (c < '0' || c > '9') {
                    return nullptr;
                }
                index = index * 10 + static_cast<std::size_t>(c - '0');
            }
            return index < at->size() ? &(*at)[index] : nullptr;
        }
        return nullptr;
    }

    /// valijson's sentence, without its trailing period, which reads badly before "(got ...)";
    /// escaped and capped, because valijson echoes property names (untrusted keys) raw.
    static std::string describe_failure(std::string description) {
        while (!description.empty() && (description.back() == '.' || description.back() == ' ')) {
            description.pop_back();
        }
        return detail::escape_untrusted(description, 300);
    }

    std::shared_ptr<const valijson::Schema> schema_;
    std::shared_ptr<const nlohmann::json> document_;
    std::shared_ptr<const detail::fast_schema> fast_; // the common keywords without valijson, or null
    bool pattern_keys_ = false;                       // the schema has patternProperties: bound keys before valijson
};

} // namespace handoff
