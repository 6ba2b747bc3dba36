// SPDX-License-Identifier: MIT
#pragma once

// The streaming check's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/decode.hpp>
#include <handoff/detail/envelope/check.hpp>
#include <handoff/detail/envelope/reader.hpp>
#include <handoff/detail/json/builder.hpp>
#include <handoff/detail/json/fast_reader.hpp>
#include <handoff/detail/json/pointer.hpp>
#include <handoff/detail/stream/checker.hpp>
#include <handoff/detail/stream/item_reader-inl.hpp>
#include <handoff/detail/text.hpp>

#include <algorithm>    // all_of, any_of
#include <charconv>     // from_chars
#include <cmath>        // isfinite
#include <cstdint>      // int64_t, uint64_t
#include <iterator>     // make_move_iterator
#include <limits>       // numeric_limits
#include <string>       // string
#include <string_view>  // string_view
#include <system_error> // errc
#include <utility>      // exchange, move

namespace handoff::detail::stream {

/// The readers of quick values: a unit's text to a value, an envelope field's into the
/// envelope. One per thread, kept between values and replies, so that their arrays are given
/// their sizes at once; a checker uses them only inside one call.
struct value_readers {
    static constexpr parse_limits until_reset{};
    fast_json unit{{}, until_reset};
    envelope_reader field{{}, until_reset};
};

HANDOFF_INLINE value_readers& thread_value_readers() {
    thread_local value_readers readers;
    return readers;
}

HANDOFF_INLINE checker::checker(const receiver_options& options, const compiled_schema* task_schema)
    : options_(options), task_schema_(task_schema), where_(options.strict) {
    // Nulls a provider wrote for absent optionals are removed before step 2 reads the reply
    // (receiver_options::from): the streaming check would judge values receive never sees.
    envelope_checks_ = !options_.from.has_value();
    if (task_schema_ != nullptr && envelope_checks_) {
        paths_ = shared_task_paths(*task_schema_);
    }
    // The envelope, partial_result, a member array and an item read token by token: the depth
    // of most replies.
    stack_.reserve(std::min<std::size_t>(options_.limits.max_depth, 4));
}

HANDOFF_INLINE void checker::push(std::string_view chunk) {
    const std::size_t limit = options_.limits.max_bytes;
    // One byte past the limit decides the receipt; more would only cost memory.
    const std::size_t keep = limit == std::numeric_limits<std::size_t>::max() ? limit : limit + 1;
    if (text_.size() < keep) {
        text_.append(std::string_view(chunk.data(), std::min(chunk.size(), keep - text_.size())));
    }
    for (std::size_t i = 0; i < chunk.size();) {
        if (halted_) {
            seen_ += chunk.size() - i; // the check halted: the rest is only kept for finish()
            return;
        }
        const std::size_t offset = seen_;
        if (offset >= limit) {
            decode_result located;
            static_cast<void>(locate_json(text_, decode_options{options_.strict, options_.limits}, located));
            doom(located.problems.front(), offset);
            continue;
        }
        const std::string_view rest = chunk.substr(i, limit - offset);
        if (unsure_) { // a layout finish() alone decides: only the byte limit is still told
            seen_ += rest.size();
            i += rest.size();
            continue;
        }
        if (pending_failure_) {
            seen_ += rest.size();
            i += rest.size();
            settle_failure();
            continue;
        }
        if (quick_ || list_ || members_) {
            i += pass_bytes(rest);
            continue;
        }
        const bool opaque = where_.strings_opaque();
        if (opaque && !tokens_.done() && !(options_.strict && offset < utf8_bom.size())) {
            // Inside the object with no fence watched for, every byte is JSON.
            const std::size_t read = read_tokens(rest, offset);
            seen_ += read;
            i += read;
            continue;
        }
        // The bytes of a string up to its quote, escape or control byte, and whitespace between
        // tokens, change nothing but the offset (unless a fence is being watched): they are
        // passed over at once.
        const std::size_t plain = opaque ? tokens_.skip_run(rest) : 0;
        if (plain > 0) {
            seen_ += plain;
            i += plain;
            continue;
        }
        ++seen_;
        byte(chunk[i++]);
    }
}

HANDOFF_INLINE std::size_t checker::pass_bytes(std::string_view s) {
    if (list_) {
        return list_->reading ? list_reader_bytes(s) : list_bytes(s);
    }
    return quick_ ? quick_bytes(s) : member_bytes(s);
}

HANDOFF_INLINE void checker::byte(char c) {
    const std::size_t offset = seen_ - 1;
    if (options_.strict && text_[0] == utf8_bom[0] && offset < utf8_bom.size()) {
        // A strict reply that starts with a byte order mark fails on the mark, not as JSON.
        // Certain once a byte departs from the mark, or once the whole mark is read.
        if (utf8_bom.substr(0, offset + 1) != std::string_view(text_).substr(0, offset + 1) ||
            offset + 1 == utf8_bom.size()) {
            parse_failure(offset, true);
        }
        return;
    }
    // Inside the object with no fence watched for, every byte is JSON and the locator keeps
    // no state that matters: it is asked again once the object closes.
    if (!where_.strings_opaque() || tokens_.done()) {
        where_.set_offset(offset);
        switch (where_.feed(c, tokens_.done())) {
        case byte_role::prose: return;
        case byte_role::unsure: unsure_ = true; return;
        case byte_role::stray_brace: parse_failure(offset, true); return;
        case byte_role::fence_cut: parse_failure(offset, true, true); return;
        case byte_role::json: break;
        }
    }
    token out[tokenizer::max_tokens_per_byte];
    const std::size_t n = tokens_.feed(c, offset, out);
    for (std::size_t i = 0; i < n && !halted_ && !unsure_; ++i) {
        token_read(out[i]);
    }
    if (tokens_.failed() && !halted_ && !unsure_) {
        grammar_failure(offset, options_.strict);
    }
}

HANDOFF_INLINE void checker::token_read(const token& t) {
    const bool built = stack_.empty() || stack_.back().built;
    switch (t.kind) {
    case token_kind::open_object: open(true, t.start); break;
    case token_kind::open_array: open(false, t.start); break;
    case token_kind::key: built ? key(t) : unit_key(stack_.back(), t); break;
    case token_kind::scalar: built ? scalar(t) : unit_scalar(t); break;
    case token_kind::close_object:
    case token_kind::close_array: built ? close(t.start) : unit_close(t.start); break;
    }
}

/// How many bits of `mask` are set.
HANDOFF_INLINE std::size_t bit_count(unsigned mask) noexcept {
    std::size_t n = 0;
    for (; mask != 0; mask &= mask - 1) {
        ++n;
    }
    return n;
}

/// The limits json_builder applies when a value starts: nesting, the value count, the items of
/// the array it is put in (`in_array`, holding `items`). True when one is exceeded.
HANDOFF_INLINE bool over_limits(const parse_limits& limits, std::size_t depth, std::size_t values, bool in_array,
                                std::size_t items) {
    return depth >= limits.max_depth || values + 1 > limits.max_values ||
           (in_array && items >= limits.max_container_items);
}

/// Whether `v` plainly keeps `rule` (envelope_contract.hpp): the common case, decided without
/// building a problem. A member's own values were judged as they completed, and an unknown key
/// when it was read, so an object only needs its required fields.
HANDOFF_INLINE bool keeps_rule(const contract::field& rule, const nlohmann::json& v) {
    using contract::json_type;
    if (v.is_null()) {
        return rule.nullable;
    }
    switch (rule.type) {
    case json_type::boolean: return v.is_boolean();
    case json_type::integer:
        return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0) ||
               (v.is_number_float() && contract::count_from_double(v.get<double>()));
    case json_type::number: {
        const double x = v.is_number() ? v.get<double>() : 0.0;
        return v.is_number() && x >= rule.minimum.value_or(x) && x <= rule.maximum.value_or(x);
    }
    case json_type::string: {
        if (!v.is_string()) {
            return false;
        }
        const auto& s = v.get_ref<const std::string&>();
        const contract::word_list words = contract::words_of(rule.words);
        const bool word =
            words.size() == 0 || std::any_of(words.begin(), words.end(), [&](std::string_view w) { return w == s; });
        const std::uint64_t length = count_code_points(s);
        return word && length >= rule.min_length.value_or(0) && length <= rule.max_length.value_or(length);
    }
    case json_type::array: return v.is_array() && v.size() <= rule.max_items.value_or(v.size());
    case json_type::object:
        if (!v.is_object()) {
            return false;
        }
        return std::all_of(rule.members.begin(), rule.members.end(),
                           [&](const contract::field& member) { return !member.required || v.contains(member.name); });
    }
    return false;
}

/// An item of a list field: a string bounded as the list's field says.
HANDOFF_INLINE contract::field item_rule(const contract::field& list) {
    contract::field item{list.name, contract::json_type::string};
    item.min_length = list.min_length;
    item.max_length = list.max_length;
    return item;
}

/// The envelope itself as a field: an object of the envelope's fields (for keeps_rule).
HANDOFF_INLINE const contract::field& root_rule() {
    static constexpr contract::field envelope =
        contract::field{"", contract::json_type::object}.require().of(contract::envelope);
    return envelope;
}

HANDOFF_INLINE bool checker::words_read::kept(bool whole) const noexcept {
    if (!whole && (!status_word || !reason)) {
        return true;
    }
    const bool has_reason = reason && reason->has_value();
    return (status_word == contract::reason_code_required_when) == has_reason;
}

HANDOFF_INLINE nlohmann::json checker::words_read::document() const {
    using key = contract::envelope_key;
    nlohmann::json doc = nlohmann::json::object();
    if (status_word) {
        doc[std::string(contract::envelope[contract::index(key::status)].name)] = to_string(*status_word);
    }
    if (reason) {
        nlohmann::json& word = doc[std::string(contract::envelope[contract::index(key::reason_code)].name)];
        if (reason->has_value()) {
            word = to_string(**reason);
        }
    }
    return doc;
}

HANDOFF_INLINE void checker::open(bool object, std::size_t offset) {
    const bool in_array = !stack_.empty() && !stack_.back().object;
    if (over_limits(options_.limits, stack_.size(), values_, in_array, in_array ? stack_.back().values : 0)) {
        parse_failure(offset, false);
        return;
    }
    ++values_;
    if (std::optional<quick_value> q = quick_candidate(object, offset)) {
        quick_ = q;
        return;
    }
    frame child = child_frame(object);
    child.start = offset;
    if (child.where == region::task_root && stack_.size() == 1) {
        result_start_ = offset;
    }
    // A container where the contract wants a scalar (or the other container) is wrong
    // whatever it holds: the message names only its kind.
    const bool wrong_kind =
        child.where == region::unchecked &&
        (stack_.empty() || stack_.back().where == region::envelope_list ||
         (stack_.back().where == region::envelope_object && stack_.back().key_index < stack_.back().fields.size()));
    if (envelope_checks_ && wrong_kind) {
        envelope_failure(probe(object ? nlohmann::json::object() : nlohmann::json::array()), child_pointer(), offset,
                         true);
    }
    stack_.push_back(std::move(child));
    if (stack_.back().built && stack_.back().where == region::task && !object) {
        list_ = list_candidate(stack_.back(), offset);
    }
    if (stack_.size() == 1 && !halted_) {
        members_ = members_candidate(offset + 1, true);
    }
}

HANDOFF_INLINE std::optional<checker::quick_value> checker::quick_candidate(bool object, std::size_t offset) const {
    // Where a fence is watched, every byte goes to the locator.
    if (stack_.empty() || !where_.strings_opaque() || replaying_) {
        return std::nullopt;
    }
    const frame& parent = stack_.back();
    quick_value q;
    q.start = offset;
    q.object = object;
    q.scan = unit_scan(unit_room());
    if (parent.where == region::task_root || (parent.where == region::task && parent.built)) {
        q.part = child_part(parent);
        const std::optional<const part_judge*> judge = whole_judge(q.part);
        // partial_result's member arrays are built item by item (a frame), never quick.
        if (!judge || (parent.where == region::task_root && !object)) {
            return std::nullopt;
        }
        q.judge = *judge;
        return q;
    }
    if (lean_root(parent) && parent.key_index < parent.fields.size()) {
        q.rule = &parent.fields[parent.key_index];
        using contract::json_type;
        const bool kind =
            object ? q.rule->type == json_type::object && q.rule->members.size() > 0 : q.rule->type == json_type::array;
        return kind ? std::optional<quick_value>(q) : std::nullopt;
    }
    return std::nullopt;
}

HANDOFF_INLINE bool checker::repeated_key(frame& f, const std::string& k) {
    auto& object = f.value.get_ref<nlohmann::json::object_t&>();
    if (!lean_root(f)) {
        f.slot = object.lower_bound(k);
        return f.slot != object.end() && f.slot->first == k;
    }
    // An unknown key is a verdict at once: only the fields can repeat.
    static_assert(contract::envelope.size() <= std::numeric_limits<unsigned>::digits,
                  "fields_seen holds a bit per envelope field");
    f.key_index = f.fields.index_of(k);
    const unsigned bit = f.key_index < f.fields.size() ? 1U << f.key_index : 0U;
    const bool repeated = (f.fields_seen & bit) != 0;
    f.fields_seen |= bit;
    f.slot = object.end();
    return repeated;
}

HANDOFF_INLINE void checker::key(const token& t) {
    const std::size_t offset = t.end - 1;
    std::optional<std::string> k = key_text(t);
    frame& f = stack_.back();
    const bool lean = lean_root(f);
    const std::size_t members = lean ? bit_count(f.fields_seen) : f.value.size();
    if (!k || k->size() > options_.limits.max_string_bytes || members >= options_.limits.max_container_items ||
        repeated_key(f, *k)) {
        parse_failure(offset, false);
        return;
    }
    f.key = std::move(*k);
    if (f.where == region::task_root || f.where == region::task) {
        if (never_admitted(f)) {
            unknown_task_member(offset);
        }
        return;
    }
    if (f.where != region::envelope_object) {
        return;
    }
    if (!lean) {
        f.key_index = f.fields.index_of(f.key); // (repeated_key found a lean object's)
    }
    if (envelope_checks_ && f.key_index == f.fields.size()) {
        envelope_failure(probe(nullptr), child_pointer(), offset);
        // The object keeps no unknown key (lean_root): without a verdict, receive decides.
        unsure_ = unsure_ || (lean && !halted_);
    }
}

HANDOFF_INLINE nlohmann::json checker::value_so_far(const frame& f) {
    if (!f.items) {
        return f.value;
    }
    nlohmann::json items = nlohmann::json::array();
    items.get_ref<nlohmann::json::array_t&>() = f.items->get();
    return items;
}

HANDOFF_INLINE nlohmann::json checker::whole_object(std::size_t end) const {
    const std::size_t start = where_.json_start();
    json_builder builder(options_.limits);
    static_cast<void>(read_json(std::string_view(text_).substr(start, end - start), builder, start));
    return builder.take_value();
}

HANDOFF_INLINE bool checker::never_admitted(const frame& f) const {
    return f.closed && judging() && (f.names == nullptr || !f.names->contains(f.key));
}

HANDOFF_INLINE void checker::unknown_task_member(std::size_t offset) {
    const frame& f = stack_.back();
    const part_judge* part = f.where == region::task_root ? nullptr : paths_->compiled(f.part);
    if (f.where != region::task_root && part == nullptr) {
        return;
    }
    // The object's own part judges an object holding only the key: its additionalProperties
    // problem is the one the whole schema reports for the key, wherever the object sits.
    nlohmann::json alone = nlohmann::json::object();
    alone[f.key] = nullptr;
    const std::string pointer = child_pointer(stack_.size() - 1);
    // (The object is the innermost container: one level above a value completing in it.)
    for (problem& p : part != nullptr ? part->validate(alone, pointer, step::task_schema, value_depth() - 1)
                                      : paths_->root_schema().validate(alone, pointer, step::task_schema)) {
        if (p.message.find("(additionalProperties is false)") != std::string::npos) {
            doom(std::move(p), offset);
            return;
        }
    }
}

/// Where a scalar token ends: a number at the byte after it; a string or a literal at its last byte.
HANDOFF_INLINE std::size_t scalar_end(const token& t) noexcept {
    return t.scalar == scalar_kind::number ? t.end : t.end - 1;
}

HANDOFF_INLINE void checker::scalar(const token& t) {
    const std::size_t offset = scalar_end(t);
    const bool in_array = !stack_.empty() && !stack_.back().object;
    std::optional<nlohmann::json> v;
    if (!over_limits(options_.limits, 0, values_, in_array, in_array ? stack_.back().values : 0)) {
        v = scalar_value(t);
    }
    if (!v) {
        parse_failure(offset, false);
        return;
    }
    ++values_;
    // A scalar field of the envelope's own object, judged, is read as receive reads it, for finish().
    const bool field = !stack_.empty() && lean_root(stack_.back()) &&
                       stack_.back().key_index < contract::envelope.size() &&
                       stack_.back().key_index != contract::index(contract::envelope_key::partial_result);
    const std::size_t key = field ? stack_.back().key_index : 0;
    value_done(std::move(*v), offset);
    if (field && !halted_ &&
        thread_value_readers().field.read_field(std::string_view(text_).substr(t.start, t.end - t.start),
                                                options_.limits, static_cast<contract::envelope_key>(key), typed_)) {
        fields_typed_ |= 1U << key;
    }
}

HANDOFF_INLINE void checker::close(std::size_t offset) {
    if (stack_.back().where == region::task_root && stack_.size() == 2) {
        result_closed_ = true;
        result_end_ = offset;
    }
    if (lean_root(stack_.back())) {
        root_fields_ = stack_.back().fields_seen;
    }
    frame& f = stack_.back();
    if (f.items) {
        std::vector<nlohmann::json>& items = f.items->get();
        nlohmann::json::array_t(std::make_move_iterator(items.begin()), std::make_move_iterator(items.end()))
            .swap(f.value.get_ref<nlohmann::json::array_t&>());
        items.clear();
    }
    nlohmann::json v = std::move(f.value);
    stack_.pop_back();
    value_done(std::move(v), offset);
}

HANDOFF_INLINE void checker::unit_key(frame& f, const token& t) {
    const std::size_t offset = t.end - 1;
    const std::string_view raw = std::string_view(text_).substr(t.start, t.end - t.start);
    if (!t.escaped && !t.high) {
        f.key.assign(raw.substr(1, raw.size() - 2));
    } else if (std::optional<std::string> k = key_text(t)) {
        f.key = std::move(*k);
    } else {
        parse_failure(offset, false);
        return;
    }
    // A repeated key is left to the unit's reading, which refuses it (parse_failure then).
    if (f.key.size() > options_.limits.max_string_bytes || f.values >= options_.limits.max_container_items) {
        parse_failure(offset, false);
        return;
    }
    if (never_admitted(f)) {
        unknown_task_member(offset);
    }
}

HANDOFF_INLINE void checker::unit_scalar(const token& t) {
    const std::size_t offset = scalar_end(t);
    frame& f = stack_.back();
    // A string longer than the bound in the text may be within it decoded: read it to be sure.
    const bool long_string = t.scalar == scalar_kind::string && t.end - t.start - 2 > options_.limits.max_string_bytes;
    if (over_limits(options_.limits, 0, values_, !f.object, f.values) || (long_string && !scalar_value(t))) {
        parse_failure(offset, false);
        return;
    }
    ++values_;
    ++f.values;
}

/// A unit's text read as receive reads it: the one-pass reader, or where it gives way, the
/// diagnosing builder; nullopt when that refuses it (then a parse problem is certain).
HANDOFF_INLINE std::optional<nlohmann::json> read_unit(std::string_view text, std::size_t offset,
                                                       const parse_limits& limits) {
    nlohmann::json v;
    fast_json in(text, limits);
    if (in.read_value(v) && in.finish()) {
        return v;
    }
    json_builder builder(limits);
    if (read_json(text, builder, offset)) {
        return std::nullopt;
    }
    return builder.take_value();
}

HANDOFF_INLINE void checker::unit_close(std::size_t offset) {
    if (!stack_.back().unit) {
        stack_.pop_back();
        ++stack_.back().values;
        return;
    }
    const std::size_t start = stack_.back().start;
    std::optional<nlohmann::json> v =
        read_unit(std::string_view(text_).substr(start, offset + 1 - start), start, options_.limits);
    if (!v) {
        parse_failure(offset, false);
        return;
    }
    stack_.pop_back();
    value_done(std::move(*v), offset);
}

HANDOFF_INLINE std::size_t checker::quick_bytes(std::string_view s) {
    unit_scan::outcome what = unit_scan::outcome::open;
    const std::size_t read = quick_->scan.feed(s, what);
    seen_ += read;
    if (what == unit_scan::outcome::closed) {
        quick_close(seen_ - 1);
    } else if (what == unit_scan::outcome::doubt) {
        replay_quick(seen_ - 1);
    }
    return read;
}

HANDOFF_INLINE void checker::quick_close(std::size_t end) {
    const quick_value& q = *quick_;
    const std::string_view text = std::string_view(text_).substr(q.start, end + 1 - q.start);
    nlohmann::json v;
    bool read = false;
    std::size_t values = 0;
    const std::size_t field = stack_.back().key_index;
    if (q.rule != nullptr) {
        // A field of the envelope's own object: read as receive reads it, every rule on it
        // applied, and kept for finish().
        envelope_reader& in = thread_value_readers().field;
        read = in.read_field(text, options_.limits, static_cast<contract::envelope_key>(field), typed_);
        values = in.values();
    } else {
        read = read_whole(text, q.judge, v, values) == whole_read::passed;
    }
    if (!read || values_ + values - 1 > options_.limits.max_values) {
        // Not plainly well-formed and passing: the exact reading gives the verdict, at its byte.
        replay_quick(end);
        return;
    }
    values_ += values - 1;
    if (q.rule != nullptr) {
        fields_typed_ |= 1U << field;
    }
    quick_.reset();
    tokens_.skip_container();
    value_done(std::move(v), end, true);
}

HANDOFF_INLINE void checker::replay_quick(std::size_t upto) {
    const std::size_t from = quick_->start + 1;
    const bool object = quick_->object;
    quick_.reset();
    frame child = child_frame(object);
    child.start = from - 1;
    stack_.push_back(std::move(child));
    static_cast<void>(read_tokens(std::string_view(text_).substr(from, upto + 1 - from), from));
}

HANDOFF_INLINE std::optional<checker::quick_list> checker::list_candidate(const frame& array,
                                                                          std::size_t offset) const {
    if (replaying_ || !where_.strings_opaque() || array.indexed_items || !item_fits(array)) {
        return std::nullopt;
    }
    const std::optional<const part_judge*> judge = whole_judge(array.every_item);
    if (!judge) {
        return std::nullopt; // its items' objects are followed token by token
    }
    quick_list l;
    l.start = offset;
    l.resume = offset + 1;
    l.judge = *judge;
    l.scan = list_scan(unit_room());
    l.reader = item_reader(options_.limits, unit_room());
    return l;
}

HANDOFF_INLINE std::size_t checker::unit_room() const {
    const std::size_t depth = stack_.size() + 1;
    return options_.limits.max_depth > depth ? options_.limits.max_depth - depth : 0;
}

HANDOFF_INLINE std::optional<const part_judge*> checker::whole_judge(const nlohmann::json* part) const {
    if (part == nullptr || !paths_) {
        return nullptr;
    }
    const part_judge* judge = paths_->compiled(part);
    if (judge == nullptr && !task_paths::constrains_nothing(*part)) {
        return std::nullopt;
    }
    return judge;
}

HANDOFF_INLINE checker::whole_read checker::read_whole(std::string_view text, const part_judge* judge,
                                                       nlohmann::json& v, std::size_t& values) const {
    const part_judge* part = judging() ? judge : nullptr;
    fast_json& in = thread_value_readers().unit;
    in.reset(text, options_.limits);
    const bool read = in.read_value(v) && in.finish();
    values = in.values();
    if (!read) {
        return whole_read::refused;
    }
    return part == nullptr || part->accepts(v, value_depth()) ? whole_read::passed : whole_read::failed;
}

HANDOFF_INLINE bool checker::item_fits(const frame& array) const {
    return !over_limits(options_.limits, stack_.size(), values_, true, array.values);
}

HANDOFF_INLINE std::size_t checker::list_bytes(std::string_view s) {
    list_scan::outcome what = list_scan::outcome::open;
    const std::size_t read = list_->scan.feed(s, what);
    seen_ += read;
    const std::size_t first = list_->start + 1; // the scan counts its bytes from there
    switch (what) {
    case list_scan::outcome::open: break;
    case list_scan::outcome::item:
        if (!list_item(first + list_->scan.item_start(), first + list_->scan.read() - 1)) {
            replay_list(seen_ - 1);
        }
        break;
    case list_scan::outcome::closed:
        list_.reset();
        tokens_.skip_container();
        close(seen_ - 1);
        break;
    case list_scan::outcome::doubt: replay_list(seen_ - 1); break;
    case list_scan::outcome::object:
        list_->reader.start(true);
        list_->reading = true;
        break;
    }
    return read;
}

HANDOFF_INLINE std::size_t checker::list_reader_bytes(std::string_view s) {
    quick_list& l = *list_;
    item_reader::outcome what = item_reader::outcome::open;
    // (`s` is the reply's next bytes: the reader reads them from the reply, where the bytes of a
    // token begun in an earlier chunk still are.)
    const std::size_t read = l.reader.feed(std::string_view(text_.data(), seen_ + s.size()), seen_, what);
    seen_ += read;
    l.scan.read_by_caller(read, what == item_reader::outcome::closed);
    if (what == item_reader::outcome::open) {
        return read;
    }
    l.reading = false;
    // A doubt, or an item that does not pass: the exact reading, from the last item read, gives
    // any verdict at its byte.
    if (what == item_reader::outcome::doubt || !list_item_read(seen_ - 1)) {
        replay_list(seen_ - 1);
    }
    return read;
}

HANDOFF_INLINE bool checker::list_item_read(std::size_t end) {
    item_reader& r = list_->reader;
    const part_judge* part = judging() ? list_->judge : nullptr;
    if (values_ + r.values() > options_.limits.max_values) {
        return false;
    }
    if (part != nullptr && !part->accepts(r.value(), value_depth())) {
        return list_item_failed(std::move(r.value()), r.values(), end);
    }
    return list_item_done(std::move(r.value()), r.values(), end);
}

HANDOFF_INLINE bool checker::list_item(std::size_t start, std::size_t end) {
    nlohmann::json v;
    std::size_t values = 0;
    const whole_read read = read_whole(std::string_view(text_).substr(start, end + 1 - start), list_->judge, v, values);
    if (read == whole_read::refused || values_ + values > options_.limits.max_values) {
        return false;
    }
    if (read == whole_read::failed) {
        return list_item_failed(std::move(v), values, end);
    }
    return list_item_done(std::move(v), values, end);
}

HANDOFF_INLINE bool checker::list_item_done(nlohmann::json&& v, std::size_t values, std::size_t end) {
    values_ += values;
    value_done(std::move(v), end, true);
    list_->resume = end + 1;
    // Near a limit, the exact reading takes over before the item that reaches it.
    return item_fits(stack_.back());
}

HANDOFF_INLINE bool checker::list_item_failed(nlohmann::json&& v, std::size_t values, std::size_t end) {
    // A number ends, for the exact reading, at the byte after it: there its verdict is told.
    // A key inside the item that a closed object never admits is a verdict at that key.
    const frame& array = stack_.back();
    if (v.is_number() || !keys_admitted(v, array.every_item)) {
        return false;
    }
    // Judged as the exact reading judges the item when it closes, less the reading.
    check_task_value(array, v, end);
    if (!task_failed_) {
        return false; // (its part refused it once: the exact reading decides)
    }
    return list_item_done(std::move(v), values, end);
}

HANDOFF_INLINE bool checker::keys_admitted(const nlohmann::json& v, const nlohmann::json* part) const {
    if (part == nullptr || !v.is_structured()) {
        return true; // nothing below is followed
    }
    // The parts and closed objects child_frame finds for the containers of the value.
    const task_paths::part_facts f = paths_->facts(part);
    if (v.is_object()) {
        const auto members = v.items();
        return std::all_of(members.begin(), members.end(), [&](const auto& member) {
            const bool refused = f.closed && (f.named == nullptr || !f.named->contains(member.key()));
            return !refused && keys_admitted(member.value(), paths_->member_part(part, member.key()));
        });
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
        const nlohmann::json* item = f.every_item != nullptr ? f.every_item
                                     : f.indexed_items       ? task_paths::item(part, i)
                                                             : nullptr;
        if (!keys_admitted(v[i], item)) {
            return false;
        }
    }
    return true;
}

HANDOFF_INLINE void checker::replay_list(std::size_t upto) {
    const std::size_t from = list_->resume;
    if (from > list_->start + 1) {
        tokens_.value_skipped(); // the items before were read: the tokenizer goes on after them
    }
    list_.reset();
    replaying_ = true;
    replay_end_ = upto;
    static_cast<void>(read_tokens(std::string_view(text_).substr(from, upto + 1 - from), from));
    replaying_ = false;
}

HANDOFF_INLINE std::optional<checker::quick_members> checker::members_candidate(std::size_t start, bool first) const {
    if (!where_.strings_opaque() || halted_ || unsure_ || stack_.size() != 1 || !lean_root(stack_.front())) {
        return std::nullopt;
    }
    quick_members m;
    m.start = start;
    m.resume = start;
    m.scan = member_scan(unit_room(), first);
    return m;
}

HANDOFF_INLINE std::size_t checker::member_bytes(std::string_view s) {
    const std::size_t first = members_->start; // the scan counts its bytes from there
    member_scan::outcome what = member_scan::outcome::open;
    const std::size_t read = members_->scan.feed(
        s, what, [&](std::size_t start, std::size_t end) { return member_key(first + start, first + end); },
        [this](bool object) { return member_opened(object); });
    seen_ += read;
    const std::size_t last = seen_ - 1;
    bool kept = true;
    switch (what) {
    case member_scan::outcome::open: break;
    case member_scan::outcome::value: kept = member_value(first + members_->scan.value_start(), last); break;
    case member_scan::outcome::closed:
        members_.reset();
        tokens_.skip_container();
        close(last);
        break;
    case member_scan::outcome::doubt: kept = false; break;
    }
    if (!kept) {
        replay_members(last);
    }
    return read;
}

HANDOFF_INLINE bool checker::member_key(std::size_t start, std::size_t end) {
    const frame& f = stack_.front();
    const std::string_view name = std::string_view(text_).substr(start + 1, end - start - 1);
    const std::size_t field = f.fields.index_of(name);
    const unsigned bit = field < f.fields.size() ? 1U << field : 0U;
    // partial_result is read by the tokenizer, whose frames judge its members as they end; an
    // unknown or repeated key is a verdict the tokenizer words.
    if (!members_->scan.key_plain() || name.size() > options_.limits.max_string_bytes ||
        bit_count(f.fields_seen) >= options_.limits.max_container_items || bit == 0 || (f.fields_seen & bit) != 0 ||
        field == contract::index(contract::envelope_key::partial_result)) {
        return false;
    }
    members_->field = field;
    return true;
}

HANDOFF_INLINE bool checker::member_opened(bool object) const {
    using contract::json_type;
    const contract::field& rule = stack_.front().fields[members_->field];
    const bool kind =
        object ? rule.type == json_type::object && rule.members.size() > 0 : rule.type == json_type::array;
    return kind && !over_limits(options_.limits, stack_.size(), values_, false, 0);
}

HANDOFF_INLINE bool checker::member_value(std::size_t start, std::size_t end) {
    quick_members& m = *members_;
    const auto key = static_cast<contract::envelope_key>(m.field);
    envelope_reader& in = thread_value_readers().field;
    if (!in.read_field(std::string_view(text_).substr(start, end + 1 - start), options_.limits, key, typed_) ||
        values_ + in.values() > options_.limits.max_values || !note_word(key)) {
        return false;
    }
    frame& f = stack_.front();
    const unsigned bit = 1U << m.field;
    f.fields_seen |= bit;
    f.key_index = m.field;
    ++f.values;
    fields_typed_ |= bit;
    values_ += in.values();
    if (key == contract::envelope_key::schema_ok) {
        schema_ok_ = typed_.schema_ok;
    }
    m.resume = end + 1;
    m.any = true;
    return true;
}

HANDOFF_INLINE bool checker::note_word(contract::envelope_key key) {
    using k = contract::envelope_key;
    if (key == k::status) {
        words_.status_word = typed_.status;
    } else if (key == k::reason_code) {
        words_.reason.emplace(typed_.reason_code);
    } else {
        return true;
    }
    // reason_code's rule, once both are in (whichever pass read the other): when it is broken,
    // the tokenizer reads the value again and words the verdict.
    return words_.kept(false);
}

HANDOFF_INLINE void checker::replay_members(std::size_t upto) {
    const std::size_t from = members_->resume;
    if (members_->any) {
        tokens_.value_skipped(); // the members before were read: the tokenizer goes on after them
    }
    members_.reset();
    replaying_ = true;
    replay_end_ = upto;
    static_cast<void>(read_tokens(std::string_view(text_).substr(from, upto + 1 - from), from));
    replaying_ = false;
}

HANDOFF_INLINE std::size_t checker::read_tokens(std::string_view s, std::size_t offset) {
    const std::size_t read = tokens_.run(s, offset, [this](const token& t) {
        token_read(t);
        // A value or a list the quick pass reads stops the tokenizer at its bracket, the member
        // pass after the value it goes on from.
        return !halted_ && !unsure_ && !quick_ && !list_ && !members_;
    });
    if (tokens_.failed() && !halted_ && !unsure_) {
        grammar_failure(offset + read - 1, options_.strict);
    }
    return read;
}

/// partial_result's object, taken out of `envelope` and left there as `{}` (only its kind
/// matters to step 2, so its content is set aside rather than copied); null when there is none.
HANDOFF_INLINE nlohmann::json set_aside_result(nlohmann::json& envelope) {
    const auto at = envelope.is_object() ? envelope.find("partial_result") : envelope.end();
    if (at == envelope.end() || !at->is_object()) {
        return nullptr;
    }
    return std::exchange(*at, nlohmann::json::object());
}

HANDOFF_INLINE void checker::value_done(nlohmann::json&& v, std::size_t offset, bool judged) {
    if (stack_.empty()) {
        // partial_result's object is all finish() needs of the value: it has the other fields
        // typed as they were read, or reads them again from the text.
        nlohmann::json result = envelope_checks_ ? set_aside_result(v) : nlohmann::json();
        if (envelope_checks_) {
            // The whole envelope: step 2 exactly as receive runs it.
            // The envelope's object kept only partial_result of its fields: its other fields'
            // presence is in root_fields_, status and reason_code in words_, and a
            // problem is found on the whole object read again.
            const unsigned required = contract::envelope.required_mask();
            const bool kept =
                v.is_object() ? (root_fields_ & required) == required && words_.kept(true) : keeps_rule(root_rule(), v);
            if (!kept) {
                envelope_failure(v.is_object() ? whole_object(offset + 1) : v, "", offset);
            }
        }
        if (!halted_) {
            closed_result_ = std::move(result);
            object_end_ = offset;
        }
        return;
    }
    const frame& parent = stack_.back();
    if (envelope_checks_ && !judged &&
        (parent.where == region::envelope_object || parent.where == region::envelope_list)) {
        check_envelope_value(parent, v, offset);
    }
    if (paths_ && judging() && !halted_ && !judged) {
        check_task_value(parent, v, offset);
    }
    if (halted_) {
        return;
    }
    frame& into = stack_.back();
    ++into.values;
    // A field of the envelope's own object ends at its last byte, save a number (at the byte
    // after it, which the tokenizer has read): the member pass goes on from the next byte,
    // unless a replay has bytes after it to read.
    const bool root = lean_root(into);
    const bool next_members = root && !v.is_number() && (!replaying_ || offset == replay_end_);
    if (!root || into.key_index == contract::index(contract::envelope_key::partial_result)) {
        if (into.object) {
            // The key was judged new when it was read, and its place found; the members read
            // since are other frames', so the place still holds. The key is not needed once its
            // value is in.
            into.value.get_ref<nlohmann::json::object_t&>().emplace_hint(into.slot, std::move(into.key), std::move(v));
        } else if (into.items) {
            into.items->get().push_back(std::move(v));
        } else {
            into.value.get_ref<nlohmann::json::array_t&>().push_back(std::move(v));
        }
    } // (any other field of the envelope's own object is judged: finish() reads it again)
    if (next_members) {
        members_ = members_candidate(offset + 1, false);
    }
}

HANDOFF_INLINE void checker::check_envelope_value(const frame& parent, const nlohmann::json& v, std::size_t offset) {
    const bool top = stack_.size() == 1 && parent.where == region::envelope_object;
    using key = contract::envelope_key;
    if (parent.where == region::envelope_object && parent.key_index >= parent.fields.size()) {
        return; // an unknown key: its verdict was given when the key was read
    }
    const contract::field& rule = parent.where == region::envelope_list
                                      ? stack_[stack_.size() - 2].fields[stack_[stack_.size() - 2].key_index]
                                      : parent.fields[parent.key_index];
    // A list's items are strings bounded as the list's field says.
    const bool kept = parent.where == region::envelope_list ? keeps_rule(item_rule(rule), v) : keeps_rule(rule, v);
    if (!kept) {
        const bool result = top && parent.key_index == contract::index(key::partial_result);
        // Only partial_result's kind matters to step 2; the task schema judges the rest.
        envelope_failure(probe(result && v.is_object() ? nlohmann::json::object() : v), child_pointer(), offset);
    }
    if (!top || halted_) {
        return;
    }
    if (parent.key_index == contract::index(key::schema_ok) && v.is_boolean()) {
        schema_ok_ = v.get<bool>();
    }
    if (parent.key_index == contract::index(key::status) || parent.key_index == contract::index(key::reason_code)) {
        // reason_code's rule depends on status: judged again whenever either arrives. The value
        // kept its field's rule: a word of its vocabulary (or null, for reason_code).
        if (parent.key_index == contract::index(key::status)) {
            words_.status_word = v.is_string() ? from_string<status>(v.get_ref<const std::string&>()) : std::nullopt;
        } else {
            words_.reason.emplace(v.is_string() ? from_string<reason_code>(v.get_ref<const std::string&>())
                                                : std::nullopt);
        }
        if (!words_.kept(false)) {
            envelope_failure(words_.document(), "/reason_code", offset);
        }
    }
}

HANDOFF_INLINE void checker::check_task_value(const frame& parent, const nlohmann::json& v, std::size_t offset) {
    problem_list problems;
    if (parent.where == region::envelope_object && stack_.size() == 1 &&
        parent.key_index == contract::index(contract::envelope_key::partial_result)) {
        // The whole result: step 3 itself, less the parts its members and items passed.
        const compiled_schema& result = paths_->result_schema();
        if (!v.is_object()) {
            return;
        }
        if (result.accepts(v)) {
            result_valid_ = true;
            return;
        }
        problems = result.validate(v, child_pointer(), step::task_schema);
    } else if (parent.where == region::task_root || (parent.where == region::task && !parent.object)) {
        const part_judge* part = paths_->compiled(child_part(parent));
        if (part == nullptr || part->accepts(v, value_depth())) {
            return;
        }
        problems = part->validate(v, child_pointer(), step::task_schema, value_depth());
    }
    if (!problems.empty()) {
        doom(std::move(problems.front()), offset);
    }
}

HANDOFF_INLINE std::string checker::child_pointer(std::size_t frames) const {
    std::string pointer;
    for (std::size_t i = 0; i < frames && i < stack_.size(); ++i) {
        const frame& f = stack_[i];
        if (f.object) {
            append_pointer_token(pointer, f.key);
        } else {
            append_pointer_index(pointer, f.values);
        }
    }
    return pointer;
}

HANDOFF_INLINE const nlohmann::json* checker::child_part(const frame& parent) const {
    if (parent.object) {
        return paths_ ? paths_->member_part(parent.part, parent.key) : nullptr; // (no paths, no parts)
    }
    if (parent.every_item != nullptr) {
        return parent.every_item;
    }
    return parent.indexed_items ? task_paths::item(parent.part, parent.values) : nullptr;
}

HANDOFF_INLINE checker::frame checker::child_frame(bool object) const {
    frame child;
    child.object = object;
    if (stack_.empty()) {
        child.where = object ? region::envelope_object : region::unchecked;
        child.fields = contract::envelope;
        child.value = object ? nlohmann::json::object() : nlohmann::json::array();
        return child;
    }
    const frame& parent = stack_.back();
    if (parent.where == region::envelope_object && parent.key_index < parent.fields.size()) {
        const contract::field& rule = parent.fields[parent.key_index];
        if (rule.type == contract::json_type::object && object) {
            child.where = rule.members.size() > 0 ? region::envelope_object : region::task_root;
            child.fields = rule.members;
            child.part = paths_ ? paths_->result_part() : nullptr;
            const task_paths::part_facts facts = paths_ ? paths_->facts(child.part) : task_paths::part_facts{};
            child.closed = child.where == region::task_root && facts.closed;
            child.names = child.closed ? facts.named : nullptr;
        } else if (rule.type == contract::json_type::array && !object) {
            child.where = region::envelope_list;
        }
        child.value = object ? nlohmann::json::object() : nlohmann::json::array();
    } else if (parent.where == region::task_root || parent.where == region::task) {
        child.where = region::task;
        // partial_result's member arrays are built item by item; any other container of the
        // task is read whole from the text when it closes (the outermost of them, a unit).
        child.built = parent.where == region::task_root && !object;
        child.unit = !child.built && parent.built;
        if (child.built) {
            child.value = nlohmann::json::array();
            child.items.emplace();
        }
        child.part = child_part(parent);
        if (object && !parent.object && parent.every_item != nullptr) {
            child.closed = parent.closed;
            child.names = parent.names;
            return child;
        }
        const task_paths::part_facts facts = paths_ ? paths_->facts(child.part) : task_paths::part_facts{};
        if (object) {
            child.closed = facts.closed;
            child.names = facts.closed ? facts.named : nullptr;
        } else {
            child.every_item = facts.every_item;
            child.indexed_items = facts.indexed_items;
            child.closed = facts.every_closed;
            child.names = facts.every_named;
        }
        return child;
    }
    if (child.where == region::unchecked) {
        child.value = object ? nlohmann::json::object() : nlohmann::json::array();
    }
    return child;
}

HANDOFF_INLINE nlohmann::json checker::probe(nlohmann::json v) const {
    for (std::size_t i = stack_.size(); i-- > 0;) {
        const frame& f = stack_[i];
        nlohmann::json wrapper;
        if (f.object) {
            wrapper = i == 0 ? words_.document() : nlohmann::json::object();
            wrapper[f.key] = std::move(v);
        } else {
            // Only the item's index matters to the check: the items before it stand as nulls.
            wrapper = nlohmann::json::array();
            for (std::size_t k = 0; k < f.values; ++k) {
                wrapper.push_back(nullptr);
            }
            wrapper.push_back(std::move(v));
        }
        v = std::move(wrapper);
    }
    return v;
}

/// The value of a JSON string token (with its quotes) the tokenizer accepted, read directly
/// where that is simple: UTF-8 checked as nlohmann's parser checks it, the one-letter escapes
/// decoded. nullopt for a `\u` escape or a byte sequence that is not UTF-8: the parser reads
/// those (and reports the latter).
HANDOFF_INLINE std::optional<std::string> string_value(std::string_view raw) {
    const std::string_view body = raw.substr(1, raw.size() - 2);
    std::string out;
    out.reserve(body.size());
    std::size_t i = 0;
    while (i < body.size()) {
        std::size_t ascii = i;
        while (ascii < body.size() && static_cast<unsigned char>(body[ascii]) < 0x80 && body[ascii] != '\\') {
            ++ascii;
        }
        out.append(body, i, ascii - i);
        i = ascii;
        if (i == body.size()) {
            break;
        }
        if (body[i] == '\\') {
            static constexpr std::string_view from = "\"\\/bfnrt";
            static constexpr std::string_view to = "\"\\/\b\f\n\r\t";
            const std::size_t k = from.find(body[i + 1]);
            if (k == std::string_view::npos) {
                return std::nullopt; // \u
            }
            out += to[k];
            i += 2;
            continue;
        }
        const std::size_t n = utf8_sequence_length(body.substr(i));
        if (n == 0) {
            return std::nullopt;
        }
        out.append(body, i, n);
        i += n;
    }
    return out;
}

HANDOFF_INLINE std::optional<nlohmann::json> checker::scalar_value(const token& t) const {
    const std::string_view raw = std::string_view(text_).substr(t.start, t.end - t.start);
    switch (t.scalar) {
    case scalar_kind::literal: return raw[0] == 'n' ? nlohmann::json(nullptr) : nlohmann::json(raw[0] == 't');
    case scalar_kind::string:
        if (raw.size() - 2 <= options_.limits.max_string_bytes) {
            if (!t.escaped && !t.high) {
                return nlohmann::json(std::string(raw.substr(1, raw.size() - 2)));
            }
            if (std::optional<std::string> text = string_value(raw)) {
                return nlohmann::json(std::move(*text));
            }
        }
        break;
    case scalar_kind::number:
        if (raw.size() <= 18 && raw.find_first_of(".eE") == std::string_view::npos) {
            std::int64_t n = 0;
            std::from_chars(raw.data(), raw.data() + raw.size(), n);
            // nlohmann's parser reads a '-' integer as signed, any other as unsigned.
            return raw[0] == '-' ? nlohmann::json(n) : nlohmann::json(static_cast<std::uint64_t>(n));
        }
        if (raw.find_first_of(".eE") != std::string_view::npos) {
            // nlohmann's parser reads a fraction or an exponent with strtod; both roundings are
            // correct, so they agree. Out of range, the parser decides.
            double d = 0;
            const auto read = std::from_chars(raw.data(), raw.data() + raw.size(), d);
            if (read.ec == std::errc() && read.ptr == raw.data() + raw.size() && std::isfinite(d)) {
                return nlohmann::json(d);
            }
        }
        break;
    }
    json_builder builder(options_.limits);
    if (read_json(raw, builder)) {
        return std::nullopt;
    }
    return builder.take_value();
}

HANDOFF_INLINE std::optional<std::string> checker::key_text(const token& t) const {
    const std::string_view raw = std::string_view(text_).substr(t.start, t.end - t.start);
    if (!t.escaped && !t.high) {
        return std::string(raw.substr(1, raw.size() - 2));
    }
    if (std::optional<std::string> text = string_value(raw)) {
        return text;
    }
    json_builder builder(options_.limits);
    if (read_json(raw, builder)) {
        return std::nullopt;
    }
    return builder.take_value().get<std::string>();
}

/// The last byte of the token nlohmann's lexer reads where the tokenizer failed (`at`), in
/// `text` as far as it goes: a string to its closing quote (or a control byte), a number to the
/// byte after it, a literal's letters to the byte after them or the fifth (no literal is
/// longer); any other byte is a token alone. nullopt while the token may go on; `from` is
/// where the search stopped, for the next call. Reading further than the lexer does changes
/// nothing: it stops where it stops.
HANDOFF_INLINE std::optional<std::size_t> failed_token_end(std::string_view text, std::size_t at, std::size_t& from) {
    const char first = text[at];
    std::size_t i = std::max(from, at + 1);
    const auto ends = [&](std::size_t end) -> std::optional<std::size_t> {
        from = end;
        return end < text.size() ? std::optional<std::size_t>(end) : std::nullopt;
    };
    if (first == '"') {
        while (i < text.size()) {
            const char c = text[i];
            if (c == '"' || static_cast<unsigned char>(c) < 0x20) {
                return ends(i);
            }
            if (c == '\\' && i + 1 == text.size()) {
                break; // the escaped byte is still to come
            }
            i += c == '\\' ? 2 : 1;
        }
        from = i;
        return std::nullopt;
    }
    const bool number = first == '-' || (first >= '0' && first <= '9');
    const bool word = first == 't' || first == 'f' || first == 'n';
    if (!number && !word) {
        return at;
    }
    const auto continues = [&](char c) { return number ? number_byte(c) : c >= 'a' && c <= 'z'; };
    while (i < text.size() && continues(text[i]) && (number || i - at < 5)) {
        ++i;
    }
    return word && i - at >= 5 ? ends(i - 1) : ends(i);
}

HANDOFF_INLINE void checker::grammar_failure(std::size_t offset, bool whole) {
    pending_failure_ = failed_token{offset, whole, offset + 1};
    settle_failure();
}

HANDOFF_INLINE void checker::settle_failure() {
    const std::optional<std::size_t> end = failed_token_end(text_, pending_failure_->offset, pending_failure_->scanned);
    if (end) {
        const failed_token failed = *pending_failure_;
        pending_failure_.reset();
        parse_failure(failed.offset, failed.whole, false, *end);
    }
}

HANDOFF_INLINE void checker::parse_failure(std::size_t offset, bool whole, bool cut, std::size_t through) {
    const std::size_t last = through == static_cast<std::size_t>(-1) ? offset : through;
    std::optional<problem> why;
    if (whole) {
        decode_result decoded = decode(std::string_view(text_).substr(0, last + 1), {options_.strict, options_.limits});
        if (!decoded.ok()) {
            why = std::move(decoded.problems.front());
        }
    } else {
        const std::size_t start = where_.json_start();
        json_builder builder(options_.limits);
        why = read_json(std::string_view(text_).substr(start, last + 1 - start), builder, start);
    }
    // The parser must fail on the bytes seen; where it only ran out of them, the tokenizer and
    // the parser disagree, and the streaming check leaves the verdict to the whole text. A JSON
    // span a fence cut short (`cut`) does run out: that is its failure. So does one with a raw
    // NUL where the tokenizer failed: nlohmann's parser reads NUL as the end of its input, and
    // no continuation takes the NUL out of the JSON span.
    const bool nul = offset < text_.size() && text_[offset] == '\0';
    if (!why || (!cut && !nul && why->message.find("unexpected end of input") != std::string::npos)) {
        unsure_ = true;
        return;
    }
    doom(std::move(*why), offset);
}

HANDOFF_INLINE void checker::envelope_failure(const nlohmann::json& doc, const std::string& pointer, std::size_t offset,
                                              bool type_only) {
    problem_list problems;
    static_cast<void>(envelope_checker(problems).check(doc));
    const std::string below = pointer + "/";
    for (problem& p : problems) {
        const bool here = p.pointer == pointer || (!type_only && p.pointer.compare(0, below.size(), below) == 0);
        if (here && (!type_only || p.code == codes::envelope_type)) {
            doom(std::move(p), offset);
            return;
        }
    }
}

HANDOFF_INLINE void checker::doom(problem p, std::size_t offset) {
    const bool task = p.step == step::task_schema;
    if (!verdict_) {
        if (task) {
            salvage_mark_ = mark_salvage();
        }
        verdict_ = stream_verdict{std::move(p), offset};
    }
    halted_ = halted_ || !task;
    task_failed_ = task_failed_ || task;
}

/// The largest array in `v` (itself included): its item count and pointer.
HANDOFF_INLINE void largest_array(const nlohmann::json& v, const std::string& pointer, stream_salvage& out) {
    if (v.is_array() && (out.largest_array.empty() || v.size() > out.complete_items)) {
        out.complete_items = v.size();
        out.largest_array = pointer;
    }
    if (v.is_array()) {
        for (std::size_t i = 0; i < v.size(); ++i) {
            largest_array(v[i], pointer_item(pointer, i), out);
        }
    } else if (v.is_object()) {
        for (const auto& member : v.items()) {
            largest_array(member.value(), pointer_child(pointer, member.key()), out);
        }
    }
}

HANDOFF_INLINE std::size_t checker::result_frame() const noexcept {
    std::size_t root = 0;
    while (root < stack_.size() && stack_[root].where != region::task_root) {
        ++root;
    }
    return root;
}

HANDOFF_INLINE std::optional<nlohmann::json> checker::result_so_far() const {
    const std::size_t root = result_frame();
    const nlohmann::json& envelope = stack_.front().value;
    if (root < stack_.size()) {
        nlohmann::json result = stack_[root].value;
        // A member cut short is kept when it is an array: its whole items are complete values.
        if (root + 1 < stack_.size() && !stack_[root + 1].object) {
            result[stack_[root].key] = value_so_far(stack_[root + 1]);
        }
        return result;
    }
    if (result_closed_ && envelope.contains("partial_result") && envelope["partial_result"].is_object()) {
        return envelope["partial_result"];
    }
    return std::nullopt;
}

HANDOFF_INLINE checker::salvage_mark checker::mark_salvage() const {
    salvage_mark mark;
    const std::size_t root = result_frame();
    if (root == stack_.size()) {
        return mark; // partial_result not begun, or complete and judged: nothing is kept
    }
    mark.result_open = true;
    for (const auto& member : stack_[root].value.items()) {
        mark.members.push_back(member.key());
    }
    if (root + 1 < stack_.size() && !stack_[root + 1].object) {
        const frame& array = stack_[root + 1];
        mark.array = stack_[root].key;
        mark.items = array.items ? array.items->get().size() : array.value.size();
    }
    return mark;
}

/// `result` as far as `mark` keeps it: its members complete then, and the array being read
/// then to the items complete then.
template <class Mark>
nlohmann::json marked_result(nlohmann::json&& result, const Mark& mark) {
    nlohmann::json kept = nlohmann::json::object();
    for (const std::string& name : mark.members) {
        const auto at = result.find(name);
        if (at != result.end()) {
            kept[name] = std::move(*at);
        }
    }
    const auto at = mark.array ? result.find(*mark.array) : result.end();
    if (at != result.end() && at->is_array()) {
        auto& items = at->template get_ref<nlohmann::json::array_t&>();
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(std::min(items.size(), mark.items)), items.end());
        kept[*mark.array] = std::move(*at);
    }
    return kept;
}

HANDOFF_INLINE bool checker::object_closed() const noexcept {
    if (tokens_.done() || !halted_ || stack_.empty()) {
        return tokens_.done();
    }
    // Past a byte the grammar refuses the scan goes on: only the brackets decide.
    unit_scan scan(std::numeric_limits<std::size_t>::max());
    std::string_view rest = std::string_view(text_).substr(std::min(stack_.front().start + 1, text_.size()));
    while (!rest.empty()) {
        unit_scan::outcome out = unit_scan::outcome::open;
        const std::size_t read = scan.feed(rest, out);
        if (out == unit_scan::outcome::closed) {
            return true;
        }
        rest.remove_prefix(std::max<std::size_t>(read, 1));
    }
    return false;
}

HANDOFF_INLINE std::optional<stream_salvage> checker::salvage() const {
    if (object_closed() || stack_.empty() || schema_ok_ == false || (salvage_mark_ && !salvage_mark_->result_open)) {
        return std::nullopt;
    }
    std::optional<nlohmann::json> result = result_so_far();
    if (!result) {
        return std::nullopt;
    }
    stream_salvage out;
    out.partial_result = salvage_mark_ ? marked_result(std::move(*result), *salvage_mark_) : std::move(*result);
    largest_array(out.partial_result, "/partial_result", out);
    return out;
}

HANDOFF_INLINE std::optional<established_reply> checker::take_established() {
    if (halted_ || pending_failure_ || unsure_ || !closed_result_ || !envelope_checks_ || seen_ != text_.size() ||
        seen_ > options_.limits.max_bytes) {
        return std::nullopt;
    }
    // Step 1 must find the JSON text where the stream read it; the tolerances are its own.
    decode_result located;
    const auto json_text = locate_json(text_, decode_options{options_.strict, options_.limits}, located);
    // (Strict, the JSON text is the whole reply: whitespace may follow the object.)
    const std::size_t object_size = object_end_ + 1 - where_.json_start();
    if (!json_text || json_text->data() != text_.data() + where_.json_start() || json_text->size() < object_size ||
        !is_blank(json_text->substr(object_size))) {
        return std::nullopt;
    }
    // Step 2 on the envelope with partial_result set aside: only its kind matters to the rules.
    nlohmann::json result = std::move(*closed_result_);
    closed_result_.reset();
    const unsigned result_bit = 1U << contract::index(contract::envelope_key::partial_result);
    if ((fields_typed_ | (root_fields_ & result_bit)) == root_fields_) {
        // Every other field was read as it completed, by the reader receive reads them with.
        envelope<nlohmann::json> env = std::move(typed_);
        if ((root_fields_ & result_bit) != 0 && !result.is_null()) {
            env.partial_result = std::move(result);
        }
        return established_reply{std::move(env), std::move(located.tolerances), result_valid_};
    }
    // Read by the one-pass reader receive uses, from the object's text with partial_result
    // (already read) written `{}`; at its first doubt, the diagnosing checker reads the whole
    // object again.
    const std::string_view object = json_text->substr(0, object_size);
    std::optional<envelope<nlohmann::json>> env;
    if (result_end_ > result_start_ && !result.is_null()) {
        const std::size_t from = result_start_ - where_.json_start();
        const std::size_t to = result_end_ + 1 - where_.json_start();
        std::string outline;
        outline.reserve(object.size() - (to - from) + 2);
        outline.append(object.substr(0, from)).append("{}").append(object.substr(to));
        env = read_envelope(outline, options_.limits);
    } else {
        env = read_envelope(object, options_.limits);
    }
    problem_list problems;
    if (!env) {
        env = envelope_checker(problems).check(whole_object(object_end_ + 1));
    }
    if (!env) {
        return std::nullopt;
    }
    if (env->partial_result) {
        env->partial_result = std::move(result);
    }
    return established_reply{std::move(*env), std::move(located.tolerances), result_valid_};
}

} // namespace handoff::detail::stream
