// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/detail/json/object_of_members.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>       // size_t
#include <memory>        // unique_ptr, make_unique
#include <string>        // string
#include <string_view>   // string_view
#include <unordered_map> // unordered_map
#include <utility>       // move, pair
#include <vector>        // vector

namespace handoff::detail {

/// A nlohmann SAX handler (https://json.nlohmann.me/api/json_sax/) that builds the
/// nlohmann::ordered_json that ordered_json::parse builds, in time linear in an object's
/// members: parse() looks each key up from its object's first member, the square of the
/// object's size in all (seconds for one of 60,000 members, and a reply may hold one).
class ordered_builder final // NOLINT(bugprone-exception-escape): as compiled_schema_state, a json member
    : public nlohmann::json_sax<nlohmann::ordered_json> {
public:
    using json = nlohmann::ordered_json;

    bool null() override { return add(json(nullptr)); }
    bool boolean(bool v) override { return add(json(v)); }
    bool number_integer(json::number_integer_t v) override { return add(json(v)); }
    bool number_unsigned(json::number_unsigned_t v) override { return add(json(v)); }
    bool number_float(json::number_float_t v, const json::string_t& /*text*/) override { return add(json(v)); }
    bool string(json::string_t& v) override { return add(json(std::move(v))); }
    bool binary(json::binary_t& v) override { return add(json::binary(std::move(v))); }

    bool start_object(std::size_t /*unknown size*/) override {
        frames_.emplace_back();
        frames_.back().object = true;
        return true;
    }
    bool key(json::string_t& k) override {
        frames_.back().key = std::move(k);
        return true;
    }
    bool end_object() override {
        frame done = std::move(frames_.back());
        frames_.pop_back();
        return add(object_of_members(std::move(done.members)));
    }
    bool start_array(std::size_t /*unknown size*/) override {
        frames_.emplace_back();
        return true;
    }
    bool end_array() override {
        frame done = std::move(frames_.back());
        frames_.pop_back();
        json array = json(json::value_t::array);
        array.get_ref<json::array_t&>() = std::move(done.items);
        return add(std::move(array));
    }
    bool parse_error(std::size_t /*position*/, const std::string& /*last token*/,
                     const json::exception& /*error*/) override {
        return false;
    }

    [[nodiscard]] json take_value() { return std::move(root_); }

private:
    /// One open container. Small on purpose (a reply may nest a million arrays): an object's
    /// key index is made only once it has members enough to need one.
    struct frame {
        bool object = false;
        std::string key;                                                     // of the member being read
        std::vector<std::pair<std::string, json>> members;                   // an object's, each key once
        std::unique_ptr<std::unordered_map<std::string, std::size_t>> index; // a key's place in members
        json::array_t items;                                                 // an array's
    };

    /// Members an object finds a repeated key among by reading them, before it gets an index.
    static constexpr std::size_t unindexed_members = 16;

    /// Puts a value where the parse is: the root, an array's end, or the member of the last
    /// key read. A repeated key keeps its first place and takes the last value, as parse() does.
    bool add(json&& v) {
        if (frames_.empty()) {
            root_ = std::move(v);
            return true;
        }
        frame& top = frames_.back();
        if (!top.object) {
            top.items.push_back(std::move(v));
            return true;
        }
        if (const std::size_t at = place_of(top); at != top.members.size()) {
            top.members[at].second = std::move(v);
            return true;
        }
        if (top.index) {
            top.index->emplace(top.key, top.members.size());
        }
        top.members.emplace_back(std::move(top.key), std::move(v));
        if (!top.index && top.members.size() == unindexed_members) {
            top.index = std::make_unique<std::unordered_map<std::string, std::size_t>>();
            for (std::size_t k = 0; k < top.members.size(); ++k) {
                top.index->emplace(top.members[k].first, k);
            }
        }
        return true;
    }

    /// Where `top.key` already is among the object's members, or their count.
    [[nodiscard]] static std::size_t place_of(const frame& top) {
        if (top.index) {
            const auto it = top.index->find(top.key);
            return it == top.index->end() ? top.members.size() : it->second;
        }
        for (std::size_t k = 0; k < top.members.size(); ++k) {
            if (top.members[k].first == top.key) {
                return k;
            }
        }
        return top.members.size();
    }

    std::vector<frame> frames_;
    json root_;
};

/// `text` read as ordered_json::parse(text, nullptr, false) reads it (a discarded value when it
/// is not JSON), in linear time.
[[nodiscard]] inline nlohmann::ordered_json parse_ordered(std::string_view text) {
    ordered_builder builder;
    if (!nlohmann::ordered_json::sax_parse(text.begin(), text.end(), &builder)) {
        nlohmann::ordered_json discarded(nlohmann::ordered_json::value_t::discarded); // never braces: a list
        return discarded;
    }
    return builder.take_value();
}

} // namespace handoff::detail
