// SPDX-License-Identifier: MIT
#pragma once

// item_reader's definitions: inline in every file header-only, compiled once in <handoff/src.hpp>
// otherwise (config.hpp).

#include <handoff/detail/json/fast_reader.hpp>
#include <handoff/detail/stream/item_reader.hpp>
#include <handoff/detail/stream/tokenizer.hpp> // literal_of, number_byte

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <string>      // string
#include <string_view> // string_view
#include <utility>     // move

namespace handoff::detail::stream {

HANDOFF_INLINE std::size_t item_reader::feed(std::string_view text, std::size_t from, outcome& out) {
    out = outcome::open;
    const char* const base = text.data();
    const char* const end = base + text.size();
    const char* p = base + from;
    if (token_ != token::none) {
        p = go_on(text, p, out); // the token begun in an earlier chunk
    }
    while (p < end && out == outcome::open && token_ == token::none) {
        // Whitespace a byte at a time, in line: between tokens there is mostly one space or
        // none, which a call to blank_run would cost more to pass.
        const char c = *p;
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            ++p;
            continue;
        }
        p = between(text, p, out);
    }
    return static_cast<std::size_t>(p - base) - from;
}

HANDOFF_INLINE const char* item_reader::between(std::string_view text, const char* p, outcome& out) {
    // Branches on the byte, each checked against what may come there, rather than one jump on
    // the state: an item's bytes repeat a pattern (key, colon, value, comma) that conditional
    // branches follow, where a jump on the state goes somewhere else at every token.
    const char c = *p;
    bool kept = false;
    if (c == ':') {
        kept = expect_ == expect::colon;
        expect_ = expect::value;
    } else if (c == ',') {
        kept = expect_ == expect::comma_or_close;
        expect_ = stack_.back().object() ? expect::key : expect::value;
    } else if (c == '"' && (expect_ == expect::key || expect_ == expect::key_or_close)) {
        begin_token(text, token::key, p);
        return string_rest(text, p + 1, out);
    } else if (expect_ == expect::value || (expect_ == expect::value_or_close && c != ']')) {
        return begin_value(text, p, out);
    } else if (c == '}' || c == ']') {
        const bool may_close =
            expect_ == expect::comma_or_close || expect_ == (c == '}' ? expect::key_or_close : expect::value_or_close);
        kept = may_close && close(c == '}', out);
    }
    if (!kept) {
        out = outcome::doubt;
        return p;
    }
    // The one space that mostly follows a colon or a comma, passed here with no turn of the loop.
    if ((c == ':' || c == ',') && p + 1 < text.data() + text.size() && p[1] == ' ') {
        return p + 2;
    }
    return p + 1;
}

HANDOFF_INLINE const char* item_reader::begin_value(std::string_view text, const char* p, outcome& out) {
    const char c = *p;
    switch (c) {
    case '{':
    case '[':
        if (!open(text, c == '{')) {
            out = outcome::doubt;
            return p;
        }
        return p + 1;
    case '"': begin_token(text, token::string, p); return string_rest(text, p + 1, out);
    case 't':
    case 'f':
    case 'n':
        literal_ = literal_of(c);
        begin_token(text, token::literal, p);
        return literal_rest(text, p + 1, out);
    default:
        if (c == '-' || (c >= '0' && c <= '9')) {
            begin_token(text, token::number, p);
            return number_rest(text, p + 1, out);
        }
        out = outcome::doubt;
        return p;
    }
}

HANDOFF_INLINE void item_reader::begin_token(std::string_view text, token kind, const char* p) {
    token_ = kind;
    token_start_ = static_cast<std::size_t>(p - text.data());
    escaped_ = false;
    high_ = false;
    escape_next_ = false;
}

HANDOFF_INLINE const char* item_reader::go_on(std::string_view text, const char* p, outcome& out) {
    switch (token_) {
    case token::key:
    case token::string: return string_rest(text, p, out);
    case token::number: return number_rest(text, p, out);
    case token::literal: return literal_rest(text, p, out);
    case token::none: break;
    }
    return p;
}

HANDOFF_INLINE const char* item_reader::string_rest(std::string_view text, const char* p, outcome& out) {
    const char* const base = text.data();
    bool control = false;
    p = string_end(p, base + text.size(), control);
    if (control) {
        out = outcome::doubt;
        return p;
    }
    if (p == base + text.size()) {
        return p;
    }
    const std::size_t size = static_cast<std::size_t>(p + 1 - base) - token_start_;
    if (!put_string(text, std::string_view(base + token_start_, size))) {
        out = outcome::doubt;
        return p;
    }
    return p + 1;
}

HANDOFF_INLINE const char* item_reader::number_rest(std::string_view text, const char* p, outcome& out) {
    const char* const base = text.data();
    const char* const end = base + text.size();
    while (p < end && number_byte(*p)) {
        ++p;
    }
    const std::size_t size = static_cast<std::size_t>(p - base) - token_start_;
    if (p < end && !put_number(text, std::string_view(base + token_start_, size))) {
        out = outcome::doubt;
    }
    return p;
}

HANDOFF_INLINE const char* item_reader::literal_rest(std::string_view text, const char* p, outcome& out) {
    const char* const end = text.data() + text.size();
    std::size_t at = static_cast<std::size_t>(p - text.data()) - token_start_;
    for (; p < end && at < literal_.size(); ++p, ++at) {
        if (*p != literal_[at]) {
            out = outcome::doubt;
            return p;
        }
    }
    if (at == literal_.size()) {
        token_ = token::none;
        const bool placed =
            literal_[0] == 'n' ? place(text, nullptr) != nullptr : place(text, literal_[0] == 't') != nullptr;
        out = placed ? out : outcome::doubt;
    }
    return p;
}

HANDOFF_INLINE const char* item_reader::string_end(const char* p, const char* end, bool& control) {
    if (escape_next_ && p < end) {
        escape_next_ = false;
        ++p;
    }
    while (p < end) {
        p = fast_json::skip_plain(p, end);
        if (p == end) {
            break;
        }
        const auto c = static_cast<unsigned char>(*p);
        if (c == '"') {
            return p;
        }
        if (c == '\\') {
            escaped_ = true;
            if (end - p < 2) {
                escape_next_ = true;
                return end;
            }
            p += 2;
            continue;
        }
        if (c < 0x20U) {
            control = true;
            return p;
        }
        high_ = high_ || c >= 0x80U;
        ++p;
    }
    return end;
}

HANDOFF_INLINE bool item_reader::put_string(std::string_view text, std::string_view raw) {
    const token kind = token_;
    token_ = token::none;
    const bool plain = !escaped_ && !high_;
    if (!plain && (!read_scalar(raw) || !scratch_.is_string())) {
        return false;
    }
    const std::size_t size = plain ? raw.size() - 2 : scratch_.get_ref<const std::string&>().size();
    if (size > limits_->max_string_bytes) {
        return false;
    }
    if (kind == token::key) {
        key_plain_ = plain;
        key_start_ = token_start_ + 1;
        key_size_ = size;
        if (!plain) {
            key_ = std::move(scratch_.get_ref<std::string&>());
        }
        expect_ = expect::colon;
        return true;
    }
    return plain ? place(text, std::string_view(raw.data() + 1, size)) != nullptr
                 : place(text, std::move(scratch_)) != nullptr;
}

HANDOFF_INLINE bool item_reader::put_number(std::string_view text, std::string_view raw) {
    token_ = token::none;
    return read_scalar(raw) && place(text, std::move(scratch_)) != nullptr;
}

HANDOFF_INLINE bool item_reader::read_scalar(std::string_view raw) {
    fast_json& in = scalar_reader();
    in.reset(raw, *limits_);
    return in.read_value(scratch_) && in.finish();
}

HANDOFF_INLINE bool item_reader::open(std::string_view text, bool object) {
    if (stack_.size() + 1 >= room_ || stack_.size() >= fast_json::max_recursion) {
        return false;
    }
    nlohmann::json* child = place(text, object ? nlohmann::json::value_t::object : nlohmann::json::value_t::array);
    if (child == nullptr) {
        return false;
    }
    stack_.push_back(level_of(*child));
    expect_ = object ? expect::key_or_close : expect::value_or_close;
    return true;
}

HANDOFF_INLINE bool item_reader::close(bool object, outcome& out) {
    if (stack_.back().object() != object) {
        return false;
    }
    stack_.pop_back();
    expect_ = expect::comma_or_close;
    if (stack_.empty()) {
        // The root was counted when it began, unchecked: the bound applies to it too.
        if (values_ > limits_->max_values) {
            return false;
        }
        out = outcome::closed;
    }
    return true;
}

HANDOFF_INLINE fast_json& item_reader::scalar_reader() {
    static const parse_limits none{};
    thread_local fast_json reader{{}, none};
    return reader;
}

} // namespace handoff::detail::stream
