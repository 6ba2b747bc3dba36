// SPDX-License-Identifier: MIT
#pragma once

// Which item of a streamed array is the reply's: OpenAI numbers the choices of a request with
// n > 1 and the tool calls of one message (choices[].index, delta.tool_calls[].index), so that
// the chunks of different ones can interleave. The reply is the item read first, and every
// later item with the same "index" (its position when it has none, or a null one, as some
// OpenAI-compatible servers send), unless it brings an "id" of its own: a server that numbers
// every parallel call 0 tells the calls apart only by their ids.

#include <nlohmann/json.hpp>

#include <cstddef>  // size_t
#include <optional> // optional
#include <string>   // string

namespace handoff::detail::stream {

struct item_lock {
    std::optional<nlohmann::json> key; // the "index" of the item read first, or its position
    std::string id;                    // its "id", once one was read
};

/// The item of `items` that continues the one `lock` holds (the first item ever read takes the
/// lock), or nullptr; `others` is set when another item is met.
[[nodiscard]] inline const nlohmann::json* locked_item(const nlohmann::json& items, item_lock& lock, bool& others) {
    const nlohmann::json* found = nullptr;
    for (std::size_t i = 0; items.is_array() && i < items.size(); ++i) {
        const nlohmann::json& item = items[i];
        const auto named = item.is_object() ? item.find("index") : item.end();
        const nlohmann::json key = named != item.end() && !named->is_null() ? *named : nlohmann::json(i);
        const auto id = item.is_object() ? item.find("id") : item.end();
        const std::string* id_text = id != item.end() && id->is_string() ? id->get_ptr<const std::string*>() : nullptr;
        if (id_text != nullptr && id_text->empty()) {
            id_text = nullptr;
        }
        if (!lock.key) {
            lock.key = key;
        }
        const bool same = *lock.key == key && (id_text == nullptr || lock.id.empty() || lock.id == *id_text);
        if (same && found == nullptr) {
            if (id_text != nullptr && lock.id.empty()) {
                lock.id = *id_text;
            }
            found = &item;
        } else {
            others = true;
        }
    }
    return found;
}

} // namespace handoff::detail::stream
