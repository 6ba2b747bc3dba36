// SPDX-License-Identifier: MIT
#pragma once

// Following `$ref`s outside the validator (lint, the worker prompt, the repair prompt) exactly
// as the validator follows them: ref_resolver finds each target (JSON pointers percent-decoded
// and `~0`/`~1`-unescaped, `$id` base changes, the registry's documents, files beside a schema
// read from a file or in the registry's folders), and a chain of `$ref`s ends after
// max_ref_hops. A reference that leads nowhere is a value that says why: never an exception,
// never an endless loop.

#include <handoff/detail/schema/ids.hpp>
#include <handoff/detail/schema/ref_resolver.hpp>
#include <handoff/detail/schema/uri.hpp>
#include <handoff/schema.hpp>
#include <handoff/schema_error.hpp>
#include <handoff/schema_registry.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>  // path, filesystem_error
#include <map>         // map
#include <memory>      // unique_ptr, make_unique
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <type_traits> // is_same_v
#include <utility>     // move, pair
#include <vector>      // vector

namespace handoff::detail {

/// A chain of more `$ref`s than this ends nowhere: it loops, or no schema needs it.
inline constexpr int max_ref_hops = 32;

/// Where a schema's `$ref`s may lead besides the schema itself: the registry's documents (none
/// but the built-in metaschema when null) and, when `base_uri` is a file:// URI, the files
/// beside it and in the registry's folders, as compiled_schema::from_file allows.
struct ref_scope {
    const schema_registry* registry = nullptr;
    /// The schema's own URI; relative references resolve against it ("" when unknown).
    std::string base_uri;
    /// The dialect of a root without `$schema`, as schema_options::dialect.
    std::optional<schema_dialect> dialect{};

    [[nodiscard]] schema_options options() const {
        schema_options o;
        o.dialect = dialect;
        return o;
    }

    /// The folders referenced files may be loaded from.
    [[nodiscard]] std::vector<std::filesystem::path> folders() const {
        std::vector<std::filesystem::path> out;
        if (registry != nullptr) {
            out = registry->directories();
        }
        const std::string document = split_fragment(base_uri).document;
        if (document.rfind("file://", 0) == 0) {
            out.push_back(std::filesystem::path(percent_decode(document.substr(7))).parent_path());
        }
        return out;
    }
};

/// Where a `$ref` chain ends: the schema, with the base URI in force inside it (its own `$id`
/// applied); or, when `schema` is null, why it ends nowhere.
struct ref_target {
    const nlohmann::json* schema = nullptr;
    std::string base;
    std::string error;
};

/// Follows `$ref` chains from the schemas of one document. Targets in other documents stay
/// valid as long as the follower and the registry do.
class ref_follower {
public:
    ref_follower(const nlohmann::json& root, const ref_scope& scope)
        : resolver_(root, scope.base_uri, scope.registry, scope.folders(),
                    compiled_schema::dialect_of(root, scope.options())) {}

    /// The dialect the root document is read in.
    [[nodiscard]] std::optional<schema_dialect> dialect() const noexcept { return resolver_.dialect(); }

    /// The root document's URI, normalized: the base URI around the root schema.
    [[nodiscard]] const std::string& document_uri() const noexcept { return resolver_.root_base(); }

    /// `node` itself when it has no "$ref", otherwise the schema its chain ends at; `parent_base`
    /// is the base URI in force around `node`.
    [[nodiscard]] ref_target resolve(const nlohmann::json& node, const std::string& parent_base) {
        ref_target at{&node, parent_base, {}};
        for (int hops = 0; at.schema->is_object() && at.schema->contains("$ref"); ++hops) {
            if (hops == max_ref_hops) {
                return ref_target{
                    nullptr, {}, "more than " + std::to_string(max_ref_hops) + " \"$ref\"s in a row (a loop?)"};
            }
            at = step(*at.schema, at.base);
            if (at.schema == nullptr) {
                return at;
            }
        }
        return step(*at.schema, at.base); // the chain's end, with the base URI inside it
    }

    /// One hop: `node` itself, with the base URI inside it, when it has no "$ref"; otherwise the
    /// schema its "$ref" names, with the base URI around that schema. The reference is read
    /// against the base inside `node`, whose own `$id` counts where the dialect reads the
    /// keywords beside a `$ref` (2019-09 on) and is ignored before.
    [[nodiscard]] ref_target step(const nlohmann::json& node, const std::string& parent_base) {
        const auto ref = node.is_object() ? node.find("$ref") : node.end();
        if (!node.is_object() || ref == node.end()) {
            return ref_target{&node, base_inside(node, parent_base, resolver_.dialect()), {}};
        }
        if (!ref->is_string()) {
            return ref_target{nullptr, {}, "\"$ref\" is not a string"};
        }
        std::string error;
        const std::optional<schema_location> found =
            locate(ref->get_ref<const std::string&>(), base_inside(node, parent_base, resolver_.dialect()), error);
        if (!found) {
            return ref_target{nullptr, {}, std::move(error)};
        }
        return ref_target{found->schema, found->parent_base, {}};
    }

    /// The schema `reference` (read against `base`) names, as the validator finds it; nullopt
    /// with `error` set where the validator would refuse it (a schema_error's reason).
    [[nodiscard]] std::optional<schema_location> locate(const std::string& reference, const std::string& base,
                                                        std::string& error) {
        try {
            return resolver_.locate(reference, base, "");
        } catch (const schema_error& e) {
            error = e.reason();
        } catch (const std::filesystem::filesystem_error& e) {
            error = std::string("a schema file cannot be read: ") + e.what();
        }
        return std::nullopt;
    }

private:
    ref_resolver resolver_;
};

/// ref_follower for a document held as another nlohmann type (ordered_json keeps the author's
/// key order). Chains are followed on a plain copy; a schema they end at is handed back as the
/// same node of the caller's document, or, in another document, as a copy in the caller's type
/// (registered documents keep no key order).
template <class Json>
class typed_ref_follower {
public:
    struct target {
        const Json* schema = nullptr;
        std::string base;
    };

    typed_ref_follower(const Json& root, const ref_scope& scope)
        : copy_(plain_copy(root)), follower_(copy_ ? *copy_ : plain_root(root), scope) {
        if (copy_) {
            pair_nodes(*copy_, root);
        }
    }

    typed_ref_follower(const typed_ref_follower&) = delete;
    typed_ref_follower& operator=(const typed_ref_follower&) = delete;
    typed_ref_follower(typed_ref_follower&&) = delete;
    typed_ref_follower& operator=(typed_ref_follower&&) = delete;
    ~typed_ref_follower() = default;

    [[nodiscard]] const std::string& document_uri() const noexcept { return follower_.document_uri(); }

    /// As ref_follower::resolve; `node` is the root, a node inside it, or a node of a target
    /// handed out before. Null when the chain ends nowhere.
    [[nodiscard]] target resolve(const Json& node, const std::string& parent_base) {
        return followed(node, [&](const nlohmann::json& plain) { return follower_.resolve(plain, parent_base); });
    }

    /// The base URI inside `node` (its own `$id` applied where the dialect reads it) given the one
    /// around it.
    [[nodiscard]] std::string base_inside(const Json& node, const std::string& parent_base) const {
        const nlohmann::json* plain = plain_of(node);
        return plain == nullptr ? parent_base : detail::base_inside(*plain, parent_base, follower_.dialect());
    }

    /// As ref_follower::step: one `$ref` followed, or `node` itself when it has none.
    [[nodiscard]] target step(const Json& node, const std::string& parent_base) {
        return followed(node, [&](const nlohmann::json& plain) { return follower_.step(plain, parent_base); });
    }

private:
    /// `follow` (resolve or step) run on `node`'s plain copy, its target handed back in `Json`.
    template <class Follow>
    [[nodiscard]] target followed(const Json& node, Follow&& follow) {
        const nlohmann::json* plain = plain_of(node);
        if (plain == nullptr) {
            return {};
        }
        const ref_target found = follow(*plain);
        return found.schema == nullptr ? target{} : target{ordered_of(*found.schema), found.base};
    }

    [[nodiscard]] static std::unique_ptr<nlohmann::json> plain_copy(const Json& root) {
        if constexpr (std::is_same_v<Json, nlohmann::json>) {
            static_cast<void>(root);
            return nullptr;
        } else {
            return std::make_unique<nlohmann::json>(root);
        }
    }

    [[nodiscard]] static const nlohmann::json& plain_root(const Json& root) {
        if constexpr (std::is_same_v<Json, nlohmann::json>) {
            return root;
        } else {
            static const nlohmann::json unused;
            return unused; // never reached: a copy exists for every other type
        }
    }

    [[nodiscard]] const nlohmann::json* plain_of(const Json& node) const {
        if constexpr (std::is_same_v<Json, nlohmann::json>) {
            return &node;
        } else {
            const auto it = to_plain_.find(&node);
            return it == to_plain_.end() ? nullptr : it->second;
        }
    }

    [[nodiscard]] const Json* ordered_of(const nlohmann::json& plain) {
        if constexpr (std::is_same_v<Json, nlohmann::json>) {
            return &plain;
        } else {
            if (const auto it = to_ordered_.find(&plain); it != to_ordered_.end()) {
                return it->second;
            }
            copies_.push_back(std::make_unique<Json>(plain));
            pair_nodes(plain, *copies_.back());
            return copies_.back().get();
        }
    }

    /// Records that `ordered` and every node below it are `plain` and the nodes below it.
    void pair_nodes(const nlohmann::json& plain, const Json& ordered) {
        std::vector<std::pair<const nlohmann::json*, const Json*>> todo{{&plain, &ordered}};
        while (!todo.empty()) {
            const auto [p, t] = todo.back();
            todo.pop_back();
            to_plain_.emplace(t, p);
            to_ordered_.emplace(p, t);
            if (t->is_object()) {
                for (auto it = t->begin(); it != t->end(); ++it) {
                    if (const auto match = p->find(it.key()); match != p->end()) {
                        todo.emplace_back(&*match, &*it);
                    }
                }
            } else if (t->is_array()) {
                for (std::size_t i = 0; i < t->size() && i < p->size(); ++i) {
                    todo.emplace_back(&(*p)[i], &(*t)[i]);
                }
            }
        }
    }

    std::unique_ptr<nlohmann::json> copy_;
    ref_follower follower_;
    std::map<const Json*, const nlohmann::json*> to_plain_;
    std::map<const nlohmann::json*, const Json*> to_ordered_;
    std::vector<std::unique_ptr<Json>> copies_;
};

} // namespace handoff::detail
