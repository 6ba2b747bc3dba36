// SPDX-License-Identifier: MIT
#pragma once

// What compiled_schema does to a task schema before valijson sees it, so that no string a
// worker writes can crash, hang or slip past the schema:
//
// - valijson 1.0 matches `pattern` with std::regex, whose libstdc++ matcher recurses once per
//   character (a megabyte against `(a|b)*` overflows any stack) and backtracks exponentially
//   (`^(a+)+$`). Every `pattern` must sit beside a `maxLength` of at most
//   max_pattern_length, is compiled once, in libstdc++'s polynomial mode (no recursion per
//   character, no backtracking) and wrapped so one left-to-right pass finds a match, and is
//   only run on strings within that maxLength (a longer string already fails maxLength).
// - valijson counts `maxLength`/`minLength` with strlen, so "a\u0000" followed by a megabyte
//   passed `maxLength: 3`; here the whole string is counted.
// - valijson's `format` (date, time, date-time) builds a std::regex per call, runs on numbers
//   too, and is as recursive as `pattern`; here the three regexes are compiled once.
// - `patternProperties` regexes are compiled at schema load (a bad one used to throw from
//   validate), and keys matched against them are bounded by max_pattern_key_bytes.
//
// Each of these keywords is renamed to a private "x-handoff-..." keyword whose value indexes a
// table of prepared checks; valijson builds them through its custom-constraint hook.

#include <handoff/detail/text.hpp>
#include <handoff/detail/valijson.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // int64_t, uint64_t
#include <memory>      // shared_ptr
#include <new>         // placement new
#include <optional>    // optional
#include <regex>       // regex
#include <set>         // set
#include <stdexcept>   // invalid_argument
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move
#include <vector>      // vector

namespace handoff::detail {

/// The longest `maxLength` a schema may put beside a `pattern` (characters).
inline constexpr std::uint64_t max_pattern_length = 4096;
/// The longest string that can be a date, time or date-time (bytes): valijson's regexes let
/// the year and the fraction of a second run on, but nothing longer is a timestamp, and a
/// megabyte of digits should not cost a regex pass.
inline constexpr std::size_t max_format_length = 128;
/// The longest object key (bytes) a schema with `patternProperties` accepts: valijson matches
/// those regexes itself, recursively, so the key must be short.
inline constexpr std::size_t max_pattern_key_bytes = 256;

/// std::regex flags for patterns from a schema. libstdc++'s polynomial mode runs the NFA
/// breadth-first: stack use is bounded by the pattern, not by the string, and time is linear
/// in the string. It refuses back-references, which a schema then cannot use.
#if defined(__GLIBCXX__)
inline constexpr std::regex::flag_type schema_regex_flags = std::regex::ECMAScript | std::regex_constants::__polynomial;
#else
inline constexpr std::regex::flag_type schema_regex_flags = std::regex::ECMAScript;
#endif

/// One prepared check, found by its index in guarded_schema::checks.
struct guarded_check {
    std::shared_ptr<const std::regex> regex; // pattern: the wrapped pattern
    std::uint64_t length = 0;                // pattern: its maxLength; min/max length: the bound
    std::string format;                      // format: date, time or date-time
};

// nlohmann::json's destructor keeps a stack of children, which may throw bad_alloc; like any
// allocation failure in a destructor, that terminates.
struct guarded_schema {      // NOLINT(bugprone-exception-escape)
    nlohmann::json document; // what valijson parses
    std::vector<guarded_check> checks;
    bool has_pattern_properties = false;
};

/// Base of the constraints below: valijson copies constraints into its schema by cloning.
template <class Derived>
class guard_constraint : public valijson::constraints::PolyConstraint {
private:
    valijson::constraints::Constraint* cloneInto(void* where) const override {
        return new (where) Derived(static_cast<const Derived&>(*this));
    }
    [[nodiscard]] std::size_t sizeOf() const override { return sizeof(Derived); }
};

class pattern_constraint final : public guard_constraint<pattern_constraint> {
public:
    pattern_constraint(std::shared_ptr<const std::regex> regex, std::uint64_t max_length)
        : regex_(std::move(regex)), max_length_(max_length) {}

    bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
                  valijson::ValidationResults* results) const override {
        if (!target.isString()) {
            return true;
        }
        const std::string s = target.asString();
        // Over maxLength the string fails the maxLength beside this pattern; it never reaches
        // the regex (bounded work, on any standard library).
        if (count_code_points(s) > max_length_) {
            return true;
        }
        // The wrapped pattern starts with [\s\S]*?: matching it at position 0 only is a search.
        if (std::regex_search(s, *regex_, std::regex_constants::match_continuous)) {
            return true;
        }
        if (results != nullptr) {
            results->pushError(context, "Failed to match regex specified by 'pattern' constraint.");
        }
        return false;
    }

private:
    std::shared_ptr<const std::regex> regex_;
    std::uint64_t max_length_;
};

class length_constraint final : public guard_constraint<length_constraint> {
public:
    length_constraint(std::uint64_t bound, bool is_max) : bound_(bound), is_max_(is_max) {}

    bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
                  valijson::ValidationResults* results) const override {
        if (!target.isString()) {
            return true;
        }
        const std::uint64_t n = count_code_points(target.asString());
        if (is_max_ ? n <= bound_ : n >= bound_) {
            return true;
        }
        if (results != nullptr) {
            // valijson's own sentences, so messages do not depend on who counted.
            results->pushError(context, std::string("String should be no ") + (is_max_ ? "more" : "fewer") + " than " +
                                            std::to_string(bound_) + " characters in length.");
        }
        return false;
    }

private:
    std::uint64_t bound_;
    bool is_max_;
};

/// valijson's date, time and date-time formats, with its regexes compiled once.
class format_constraint final : public guard_constraint<format_constraint> {
public:
    explicit format_constraint(std::string format) : format_(std::move(format)) {}

    bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
                  valijson::ValidationResults* results) const override {
        if (!target.isString()) {
            return true; // formats constrain strings only (valijson read 5 as "5")
        }
        const std::string s = target.asString();
        if (valid(s)) {
            return true;
        }
        if (results != nullptr) {
            results->pushError(context, "String should be a valid " + format_);
        }
        return false;
    }

private:
    static const std::regex& date_regex() {
        static const std::regex re("^([0-9]+)-(0[1-9]|1[012])-(0[1-9]|[12][0-9]|3[01])$", schema_regex_flags);
        return re;
    }
    static const std::regex& time_regex() {
        static const std::regex re("^([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]|60)(\\.[0-9]+)?(([Zz])|([\\+|\\-]([01]"
                                   "[0-9]|2[0-3]):[0-5][0-9]))$",
                                   schema_regex_flags);
        return re;
    }
    static const std::regex& date_time_regex() {
        static const std::regex re(
            "^([0-9]+)-(0[1-9]|1[012])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]|60)"
            "(\\.[0-9]+)?(([Zz])|([\\+|\\-]([01][0-9]|2[0-3]):[0-5][0-9]))$",
            schema_regex_flags);
        return re;
    }

    /// valijson's day-of-month rule (February up to 29), read at fixed offsets from `end`,
    /// where the regex has already put "MM-DD".
    static bool valid_day(const std::string& s, std::size_t end) {
        const int month = (s[end - 5] - '0') * 10 + (s[end - 4] - '0');
        const int day = (s[end - 2] - '0') * 10 + (s[end - 1] - '0');
        const int limit = month == 2 ? 29 : (month <= 7 ? (month % 2 == 0 ? 30 : 31) : (month % 2 != 0 ? 30 : 31));
        return day <= limit;
    }

    [[nodiscard]] bool valid(const std::string& s) const {
        if (s.size() > max_format_length) {
            return false;
        }
        if (format_ == "date") {
            return std::regex_match(s, date_regex()) && valid_day(s, s.size());
        }
        if (format_ == "time") {
            return std::regex_match(s, time_regex());
        }
        // date-time: the date ends before the first T or t.
        return std::regex_match(s, date_time_regex()) && valid_day(s, s.find_first_of("Tt"));
    }

    std::string format_;
};

/// Turns "x-handoff-...": index into the prepared constraint.
class guard_builder final : public valijson::ConstraintBuilder {
public:
    enum class kind : std::uint8_t { pattern, max_length, min_length, format };

    guard_builder(const std::vector<guarded_check>& checks, kind k) : checks_(checks), kind_(k) {}

    [[nodiscard]] valijson::constraints::Constraint* make(const valijson::adapters::Adapter& value) const override {
        std::int64_t index = -1;
        if (!value.getInteger(index) || index < 0 || static_cast<std::size_t>(index) >= checks_.size()) {
            throw std::invalid_argument("handoff: internal keyword with a bad index");
        }
        const guarded_check& c = checks_[static_cast<std::size_t>(index)];
        switch (kind_) {
        case kind::pattern: return new pattern_constraint(c.regex, c.length);
        case kind::max_length: return new length_constraint(c.length, true);
        case kind::min_length: return new length_constraint(c.length, false);
        case kind::format: return new format_constraint(c.format);
        }
        throw std::invalid_argument("handoff: internal keyword of no kind");
    }

private:
    const std::vector<guarded_check>& checks_;
    kind kind_;
};

inline constexpr const char* guard_pattern_keyword = "x-handoff-pattern";
inline constexpr const char* guard_max_length_keyword = "x-handoff-max-length";
inline constexpr const char* guard_min_length_keyword = "x-handoff-min-length";
inline constexpr const char* guard_format_keyword = "x-handoff-format";

/// Registers the builders for `schema`'s private keywords; the parser owns (deletes) them.
inline void add_guard_builders(valijson::SchemaParser& parser, const guarded_schema& schema) {
    parser.addConstraintBuilder(guard_pattern_keyword, new guard_builder(schema.checks, guard_builder::kind::pattern));
    parser.addConstraintBuilder(guard_max_length_keyword,
                                new guard_builder(schema.checks, guard_builder::kind::max_length));
    parser.addConstraintBuilder(guard_min_length_keyword,
                                new guard_builder(schema.checks, guard_builder::kind::min_length));
    parser.addConstraintBuilder(guard_format_keyword, new guard_builder(schema.checks, guard_builder::kind::format));
}

class schema_guard {
public:
    using json = nlohmann::json;

    /// Throws std::invalid_argument, naming the JSON pointer, for a schema handoff refuses.
    [[nodiscard]] static guarded_schema prepare(const json& schema) {
        schema_guard g(schema);
        g.collect(schema, "");
        guarded_schema out;
        out.document = schema;
        for (const std::string& where : g.positions_) {
            json& node = where.empty() ? out.document : out.document.at(json::json_pointer(where));
            g.rewrite(node, where, out);
        }
        return out;
    }

    /// The size of the first key in `value` longer than max_pattern_key_bytes, with its
    /// pointer appended to `pointer`; 0 when there is none.
    [[nodiscard]] static std::size_t find_long_key(const json& value, std::string& pointer) {
        if (value.is_object()) {
            for (const auto& item : value.items()) {
                const std::size_t mark = pointer.size();
                append_pointer_token(pointer, item.key());
                if (item.key().size() > max_pattern_key_bytes) {
                    return item.key().size();
                }
                if (const std::size_t n = find_long_key(item.value(), pointer); n != 0) {
                    return n;
                }
                pointer.resize(mark);
            }
        } else if (value.is_array()) {
            for (std::size_t i = 0; i < value.size(); ++i) {
                const std::size_t mark = pointer.size();
                append_pointer_token(pointer, std::to_string(i));
                if (const std::size_t n = find_long_key(value[i], pointer); n != 0) {
                    return n;
                }
                pointer.resize(mark);
            }
        }
        return 0;
    }

private:
    explicit schema_guard(const json& root) : root_(root) {}

    [[noreturn]] static void refuse(const std::string& where, const std::string& why) {
        throw std::invalid_argument((where.empty() ? std::string("(root)") : where) + ": " + why);
    }

    static std::string child(const std::string& parent, std::string_view key) {
        std::string p = parent;
        append_pointer_token(p, key);
        return p;
    }

    /// Every place in the document that valijson reads as a schema (draft-07), including the
    /// targets of local $refs, so a keyword cannot hide where the rewrite does not look.
    void collect(const json& node, const std::string& where) {
        if (!node.is_object() || !positions_.insert(where).second) {
            return;
        }
        for (const char* key : {"properties", "patternProperties", "definitions"}) {
            if (const auto it = node.find(key); it != node.end() && it->is_object()) {
                for (const auto& item : it->items()) {
                    collect(item.value(), child(child(where, key), item.key()));
                }
            }
        }
        if (const auto it = node.find("dependencies"); it != node.end() && it->is_object()) {
            for (const auto& item : it->items()) {
                collect(item.value(), child(child(where, "dependencies"), item.key())); // arrays are skipped
            }
        }
        for (const char* key : {"additionalProperties", "additionalItems", "contains", "propertyNames", "if", "then",
                                "else", "not", "items"}) {
            if (const auto it = node.find(key); it != node.end()) {
                collect(*it, child(where, key));
            }
        }
        for (const char* key : {"allOf", "anyOf", "oneOf", "items"}) {
            if (const auto it = node.find(key); it != node.end() && it->is_array()) {
                for (std::size_t i = 0; i < it->size(); ++i) {
                    collect((*it)[i], child(child(where, key), std::to_string(i)));
                }
            }
        }
        if (const auto it = node.find("$ref"); it != node.end() && it->is_string()) {
            const auto& ref = it->get_ref<const std::string&>();
            if (ref.empty() || ref[0] != '#') {
                refuse(where, "$ref " + quote_untrusted(ref, 200) + " is not local: handoff resolves only \"#/...\"");
            }
            const std::string target = ref.substr(1);
            try {
                collect(root_.at(json::json_pointer(target)), target);
            } catch (const json::exception&) {
                refuse(where, "$ref " + quote_untrusted(ref, 200) + " does not point into this schema");
            }
        }
    }

    static std::uint64_t length_bound(const json& node, const char* key, const std::string& where) {
        const json& v = node.at(key);
        if (v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0)) {
            return v.get<std::uint64_t>();
        }
        refuse(child(where, key), "must be an integer >= 0, got " + escape_untrusted(v.dump(), 40));
    }

    std::size_t add_check(guarded_schema& out, guarded_check check) {
        out.checks.push_back(std::move(check));
        return out.checks.size() - 1;
    }

    void rewrite(json& node, const std::string& where, guarded_schema& out) {
        for (const auto& item : node.items()) {
            if (item.key().rfind("x-handoff-", 0) == 0) {
                refuse(child(where, item.key()), "keywords starting with \"x-handoff-\" are reserved for handoff");
            }
        }
        std::optional<std::uint64_t> max_length;
        if (node.contains("maxLength")) {
            max_length = length_bound(node, "maxLength", where);
        }
        if (const auto it = node.find("pattern"); it != node.end()) {
            const std::string at = child(where, "pattern");
            if (!it->is_string()) {
                refuse(at, "must be a string");
            }
            if (!max_length || *max_length > max_pattern_length) {
                refuse(at, "a \"pattern\" needs a \"maxLength\" of at most " + std::to_string(max_pattern_length) +
                               " beside it, so no long string is ever matched against it (found " +
                               (max_length ? "maxLength " + std::to_string(*max_length) : std::string("none")) + ")");
            }
            const auto& pattern = it->get_ref<const std::string&>();
            guarded_check check;
            check.length = *max_length;
            try {
                // Alone first, so the wrapper below cannot turn an unbalanced pattern valid.
                std::regex alone(pattern, schema_regex_flags);
                check.regex = std::make_shared<const std::regex>("[\\s\\S]*?(?:" + pattern + ")", schema_regex_flags);
            } catch (const std::regex_error& e) {
                refuse(at, "pattern " + quote_untrusted(pattern, 200) +
                               (e.code() == std::regex_constants::error_complexity
                                    ? std::string(" uses a back-reference, which handoff does not match "
                                                  "(patterns run in linear time)")
                                    : std::string(" is not a regular expression: ") + e.what()));
            }
            node.erase("pattern");
            node[guard_pattern_keyword] = add_check(out, std::move(check));
        }
        if (max_length) {
            guarded_check check;
            check.length = *max_length;
            node.erase("maxLength");
            node[guard_max_length_keyword] = add_check(out, std::move(check));
        }
        if (node.contains("minLength")) {
            guarded_check check;
            check.length = length_bound(node, "minLength", where);
            node.erase("minLength");
            node[guard_min_length_keyword] = add_check(out, std::move(check));
        }
        if (const auto it = node.find("format"); it != node.end()) {
            // Only these three are checked by valijson; any other format stays an annotation.
            if (it->is_string() && (*it == "date" || *it == "time" || *it == "date-time")) {
                guarded_check check;
                check.format = it->get<std::string>();
                node[guard_format_keyword] = add_check(out, std::move(check));
            }
            node.erase("format");
        }
        if (const auto it = node.find("patternProperties"); it != node.end() && it->is_object()) {
            out.has_pattern_properties = true;
            for (const auto& item : it->items()) {
                try {
                    // valijson compiles these itself at every validation: a bad one must fail here.
                    const std::regex check(item.key());
                } catch (const std::regex_error& e) {
                    refuse(child(child(where, "patternProperties"), item.key()),
                           "pattern " + quote_untrusted(item.key(), 200) + " is not a regular expression: " + e.what());
                }
            }
        }
    }

    const json& root_;
    std::set<std::string> positions_;
};

} // namespace handoff::detail
