// SPDX-License-Identifier: MIT
#pragma once

#include <handoff/config.hpp>
#include <handoff/detail/stream/item_reader.hpp>
#include <handoff/detail/stream/lent_buffer.hpp>
#include <handoff/detail/stream/locator.hpp>
#include <handoff/detail/stream/reply_text.hpp>
#include <handoff/detail/stream/task_paths.hpp>
#include <handoff/detail/stream/tokenizer.hpp>
#include <handoff/detail/stream/unit_scan.hpp>
#include <handoff/enums.hpp>
#include <handoff/envelope.hpp>
#include <handoff/envelope_contract.hpp>
#include <handoff/limits.hpp>
#include <handoff/problem.hpp>
#include <handoff/receiver_options.hpp>
#include <handoff/schema.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>     // size_t
#include <cstdint>     // uint8_t
#include <memory>      // shared_ptr
#include <optional>    // optional
#include <string>      // string
#include <string_view> // string_view
#include <type_traits> // is_nothrow_move_constructible_v
#include <vector>      // vector

namespace handoff {

/// A reply that no continuation can make pass steps 1 to 3: the problem `receive` reports for
/// it (once the reply is well-formed JSON to its end) and the offset of the byte that made the
/// failure certain.
struct stream_verdict {
    problem what;
    std::size_t offset = 0;
};

/// What a reply cut in the middle kept: the part of partial_result whose values were complete
/// (members read to their end, whole array items, each checked against the task schema where
/// the schema applies to it alone), and the largest array in it. Never a result: the receipt
/// of a cut reply is a parse failure.
struct stream_salvage {
    nlohmann::json partial_result = nlohmann::json::object();
    /// Complete items in the largest array of partial_result, and its pointer.
    std::size_t complete_items = 0;
    std::string largest_array;
};

namespace detail::stream {

/// What the streaming check established of a reply whose object closed without a verdict:
/// steps 1 and 2 passed, with the envelope, the tolerances step 1 records, and whether
/// partial_result passed the task schema (false when it was not judged).
struct established_reply {
    envelope<nlohmann::json> env;
    std::vector<tolerance> tolerances;
    bool result_valid = false;
};

/// The streaming check's state, independent of the task type: the reply so far, a tokenizer
/// with one frame per open container, and the verdict once one is certain. Every value of the
/// envelope is checked by envelope_checker itself on a small document holding it, so a
/// verdict's problem is the one step 2 reports; task values by the compiled task schema.
class checker {
public:
    /// `options` (and `task_schema`) must outlive the checker, as the receiver holding them.
    checker(const receiver_options& options, const compiled_schema* task_schema);
    /// Moved, never copied: a frame keeps where its member goes as an iterator into its own
    /// value, which a move keeps valid and a copy would leave pointing into the original.
    checker(const checker&) = delete;
    checker& operator=(const checker&) = delete;
    checker(checker&&) noexcept = default;
    checker& operator=(checker&&) = delete;
    ~checker() = default;

    void push(std::string_view chunk);

    [[nodiscard]] const std::optional<stream_verdict>& doomed() const noexcept { return verdict_; }
    /// The envelope's status, once its value was read (a verdict of step 1 or 2 stops the reading;
    /// one of step 3 does not).
    [[nodiscard]] std::optional<status> status_read() const noexcept { return words_.status_word; }
    /// The reply so far (at most one byte past the byte limit: more cannot change the receipt).
    [[nodiscard]] std::string_view text() const noexcept { return text_; }
    [[nodiscard]] std::size_t bytes_seen() const noexcept { return seen_; }
    /// Whether the JSON object closed: false for a reply cut in the middle. After a verdict of
    /// step 1 or 2 the check reads no further; the object's end is then found in the text kept
    /// by following its strings and brackets alone.
    [[nodiscard]] bool object_closed() const noexcept;
    /// The complete, passing part of partial_result, when the reply stopped inside the object
    /// (none when it said `"schema_ok": false`: its partial_result is not judged, and receive
    /// treats it as absent).
    [[nodiscard]] std::optional<stream_salvage> salvage() const;

    /// Steps 1 and 2 as the stream established them, so that finish() need not read the text
    /// again: partial_result as it built it is handed over (a second call finds none). nullopt
    /// whenever the stream is not certain they hold exactly as receive would find them (a
    /// verdict, a layout it does not follow, a cut or over-long reply, a provider's nulls).
    [[nodiscard]] std::optional<established_reply> take_established();

private:
    /// The items of a member array of partial_result while it is read: at most this many
    /// items' capacity is kept by the thread for the next one.
    using member_items = lent_buffer<std::vector<nlohmann::json>, 1024>;

    /// Which rules apply to the values of one container.
    enum class region : std::uint8_t { envelope_object, envelope_list, task_root, task, unchecked };

    struct frame { // NOLINT(bugprone-exception-escape): as compiled_schema_state, a json member
        region where = region::unchecked;
        bool object = true;
        contract::field_list fields;          // envelope_object: its fields
        const nlohmann::json* part = nullptr; // task: the task schema's part for this value
        /// task array: the part of every item (a single-schema `items`), found once.
        const nlohmann::json* every_item = nullptr;
        /// task array: item parts found by index (task_paths::part_facts::indexed_items).
        bool indexed_items = false;
        /// task object: its part admits only the keys its `properties` names; task
        /// array: the same of `every_item`, found once for all the items.
        bool closed = false;
        const nlohmann::json* names = nullptr; // closed: its `properties` (nullptr: none)
        /// Whether the frame builds its value: the envelope's containers, partial_result and its
        /// member arrays. Below them (a member object, an item container of a member array) the
        /// frames only follow the grammar, the limits and closed objects' keys: the whole
        /// container is read once, from the text, when it closes (a *unit*), as receive reads it.
        bool built = true;
        bool unit = false;
        std::size_t start = 0;  // a unit's opening bracket in the reply
        std::size_t values = 0; // the members or items completed
        nlohmann::json value;
        /// A member array of partial_result (built, region task): its items until it closes,
        /// when `value` is allocated once at its size, as receive allocates it.
        std::optional<member_items> items;
        std::string key; // the member being read
        /// Where that member goes in `value` (found when its key was judged new).
        nlohmann::json::object_t::iterator slot;
        std::size_t key_index = 0; // its row in `fields`
        /// The envelope's own object (lean_root): the fields read so far, bit i for field i.
        unsigned fields_seen = 0;
    };
    // `slot` points into a frame's own map: a frame the stack's vector copied instead of moving
    // would leave it pointing into the destroyed original.
    static_assert(std::is_nothrow_move_constructible_v<frame>, "the stack moves frames, never copies them");

    /// The envelope's own object, with its rules applied: its fields' values are judged as
    /// they complete and then dropped (finish() reads them again from the text), save
    /// partial_result's; the fields it holds are kept as bits.
    [[nodiscard]] bool lean_root(const frame& f) const noexcept {
        return envelope_checks_ && stack_.size() == 1 && &f == &stack_.front() && f.where == region::envelope_object;
    }
    /// The value of `f` so far: its items for a member array of partial_result.
    [[nodiscard]] static nlohmann::json value_so_far(const frame& f);
    /// The reply's JSON text from its start to `end` (its object whole) read as step 1 reads it.
    [[nodiscard]] nlohmann::json whole_object(std::size_t end) const;

    void byte(char c);
    void token_read(const token& t);
    void open(bool object, std::size_t offset);
    void key(const token& t);
    /// Whether key `k` of object `f` was read before; notes it, and where its value will go.
    bool repeated_key(frame& f, const std::string& k);
    void scalar(const token& t);
    void close(std::size_t offset);
    /// A value of the current container is complete (the root when the stack is empty);
    /// `judged`: against the task schema already.
    void value_done(nlohmann::json&& v, std::size_t offset, bool judged = false);
    void check_envelope_value(const frame& parent, const nlohmann::json& v, std::size_t offset);
    void check_task_value(const frame& parent, const nlohmann::json& v, std::size_t offset);
    /// A key, a scalar, or a container's end inside a unit (a frame not built).
    void unit_key(frame& f, const token& t);
    void unit_scalar(const token& t);
    void unit_close(std::size_t offset);
    /// A container whose reading judges all the rules on it: a unit whose part is compiled
    /// whole (or that has none), or a container field of the envelope's own object. It is read
    /// by the quick pass, which only finds its end, with no frame; nullopt for any other.
    struct quick_value {
        std::size_t start = 0;
        bool object = true;
        const nlohmann::json* part = nullptr;  // a unit's part
        const part_judge* judge = nullptr;     // and how that part is judged
        const contract::field* rule = nullptr; // an envelope field's rule
        unit_scan scan{0};
    };
    [[nodiscard]] std::optional<quick_value> quick_candidate(bool object, std::size_t offset) const;
    /// The quick pass on the bytes at the start of `s`: how many it read.
    std::size_t quick_bytes(std::string_view s);
    /// The quick pass found the value's closing bracket at `end`: the value read and judged,
    /// or at any doubt read again token by token (replay_quick).
    void quick_close(std::size_t end);
    /// The quick value read token by token from its bracket to `upto`, in its frame, and from
    /// then on.
    void replay_quick(std::size_t upto);
    /// A member array of partial_result whose items are all read whole and judged alike (one
    /// part for every item, judged alone or in place, or none): the list pass reads each object
    /// item as it arrives and finds where each other item ends, with no token and no frame per
    /// item, and each is judged as it ends.
    struct quick_list {                    // NOLINT(bugprone-exception-escape): its item_reader holds a json
        std::size_t start = 0;             // the array's bracket
        std::size_t resume = 0;            // the byte after the last item read, or the bracket's
        const part_judge* judge = nullptr; // every item's part, or none
        list_scan scan{0};
        /// An object item is read as it arrives by `reader` (reading: one is under way).
        item_reader reader;
        bool reading = false;
    };
    /// How deep containers may nest in a value opened now (its own bracket counted) before the
    /// quick pass doubts: the depth bound less the frames open.
    [[nodiscard]] std::size_t unit_room() const;
    /// How a value that `part` applies to is judged when it is read whole: by its judge, or by
    /// none (nullptr: no part, no task schema, a part that constrains nothing); nullopt where it
    /// cannot be judged whole, and its objects are followed token by token.
    [[nodiscard]] std::optional<const part_judge*> whole_judge(const nlohmann::json* part) const;
    /// How a value read whole fared: not read as it stands, read but failing its part, or passing.
    enum class whole_read : std::uint8_t { refused, failed, passed };
    /// `text` read whole into `v` by the thread's one-pass reader, and judged by `judge` unless
    /// the reply said `"schema_ok": false`. `values`: how many values it held.
    whole_read read_whole(std::string_view text, const part_judge* judge, nlohmann::json& v, std::size_t& values) const;
    /// The list pass for `array`, the frame just opened at `offset`, or nullopt.
    [[nodiscard]] std::optional<quick_list> list_candidate(const frame& array, std::size_t offset) const;
    /// Whether the next item of `array` stays within every limit whatever it is.
    [[nodiscard]] bool item_fits(const frame& array) const;
    /// The list pass on the bytes at the start of `s`: how many it read.
    std::size_t list_bytes(std::string_view s);
    /// The item at [start, end] read and judged, and appended: false at any doubt.
    bool list_item(std::size_t start, std::size_t end);
    /// The bytes at the start of `s` read by the list pass's item reader: how many.
    std::size_t list_reader_bytes(std::string_view s);
    /// The item the reader read, ending at `end`, judged and appended: false at any doubt.
    bool list_item_read(std::size_t end);
    /// Item `v` (holding `values` values), ending at `end`, read and judged: appended to the
    /// array the list pass reads (false when the next item may reach a limit).
    bool list_item_done(nlohmann::json&& v, std::size_t values, std::size_t end);
    /// Item `v` (holding `values` values), read whole and within every bound, ending at `end`,
    /// failed its part: where the verdict is certain at its end, that verdict, worded as the
    /// exact reading words it, and the item appended; false where the exact reading must find it.
    bool list_item_failed(nlohmann::json&& v, std::size_t values, std::size_t end);
    /// Whether every object in `v` (itself included), which `part` applies to, holds only keys
    /// its frame would admit: no object the exact reading follows as closed has a key its
    /// `properties` does not name, so no key in `v` is a verdict.
    [[nodiscard]] bool keys_admitted(const nlohmann::json& v, const nlohmann::json* part) const;
    /// The array read token by token from its last item read to `upto`, its items as units,
    /// and from then on: the exact reading gives any verdict at its byte.
    void replay_list(std::size_t upto);
    /// The envelope's own object while the member pass reads it: each key judged as it ends,
    /// each field read and judged whole as its value ends, as receive reads it. Anything else
    /// (partial_result, a key it does not judge plainly, a value that does not read and pass, a
    /// doubt of the scan) the tokenizer reads from the byte after the last member read, so that
    /// its verdict comes at the byte that gives it.
    struct quick_members {
        std::size_t start = 0;  // the byte the scan counts its bytes from
        std::size_t resume = 0; // the byte after the last member read, or the scan's first
        bool any = false;       // a member was read by the pass
        std::size_t field = 0;  // the field of the key just read
        member_scan scan{0, true};
    };
    /// The member pass from `start` (the byte after the object's bracket when `first`, after a
    /// value otherwise), or nullopt where it does not apply.
    [[nodiscard]] std::optional<quick_members> members_candidate(std::size_t start, bool first) const;
    /// The member pass on the bytes at the start of `s`: how many it read.
    std::size_t member_bytes(std::string_view s);
    /// The key at [start, end] (its quotes) is a field of the envelope the pass reads: false at
    /// any doubt.
    bool member_key(std::size_t start, std::size_t end);
    /// A container value began (an object's brace when `object`): of the kind its field wants,
    /// and within the limits.
    [[nodiscard]] bool member_opened(bool object) const;
    /// The value at [start, end] read into the envelope and judged: false at any doubt.
    bool member_value(std::size_t start, std::size_t end);
    /// status or reason_code was just read into typed_: noted beside the other; false when
    /// reason_code's rule is then broken (the tokenizer gives the verdict).
    bool note_word(contract::envelope_key key);
    /// The object read token by token from the byte after its last member read to `upto`,
    /// and from then on.
    void replay_members(std::size_t upto);
    /// The bytes at the start of `s` read by the pass under way (the quick pass over a value,
    /// the list pass or the member pass; at most one is): how many.
    std::size_t pass_bytes(std::string_view s);
    /// The bytes of `s` (at `offset`) read by the tokenizer inside the object, until a verdict,
    /// a doubt, a failure (its verdict given), a quick value's bracket or the object's end:
    /// how many.
    std::size_t read_tokens(std::string_view s, std::size_t offset);

    /// Where the child the innermost container is reading sits (built only for a problem);
    /// with `frames`, the child the frames-th container is reading (its own pointer: size - 1).
    [[nodiscard]] std::string child_pointer(std::size_t frames = static_cast<std::size_t>(-1)) const;
    /// The key just read is one the task schema's closed object never admits: the verdict
    /// now, with the problem the task schema reports for it.
    void unknown_task_member(std::size_t offset);
    /// Whether the key `f` just read is one its closed part never admits (not among its
    /// `properties`), in a reply that has not said `"schema_ok": false`.
    [[nodiscard]] bool never_admitted(const frame& f) const;
    /// How deep in partial_result a value completing now sits (its containers open below the
    /// envelope's object): the depth at which receive's walk of partial_result reaches it.
    [[nodiscard]] int value_depth() const noexcept { return static_cast<int>(stack_.size()) - 1; }
    /// The task schema's part for the child `parent` is reading, or nullptr.
    [[nodiscard]] const nlohmann::json* child_part(const frame& parent) const;
    [[nodiscard]] frame child_frame(bool object) const;
    /// `v` placed where the child being read sits, in a document holding only what the
    /// envelope's rules about that place read (the status and reason code, for reason_code).
    [[nodiscard]] nlohmann::json probe(nlohmann::json v) const;

    /// The value of a scalar token, as nlohmann's parser reads it; nullopt when the parser
    /// refuses it (a number beyond range, invalid UTF-8): then a parse problem is certain.
    [[nodiscard]] std::optional<nlohmann::json> scalar_value(const token& t) const;
    [[nodiscard]] std::optional<std::string> key_text(const token& t) const;

    /// A parse failure certain at `offset`: the problem nlohmann's parser, run as step 1 runs
    /// it, reports for the JSON text read so far (`whole`: step 1 from the reply's start, as in
    /// strict mode or once the span is fixed; `cut`: the span ends here, inside the object).
    /// `through`: the last byte the parser is given (the offset's own by default).
    void parse_failure(std::size_t offset, bool whole, bool cut = false,
                       std::size_t through = static_cast<std::size_t>(-1));
    /// The tokenizer failed at `offset`: the failure is certain there, but the parser's message
    /// names the token it fails on, which may go on past that byte (a string, a number or a
    /// word begun there), so the verdict is given once that token's last byte is read.
    void grammar_failure(std::size_t offset, bool whole);
    /// The pending grammar failure's verdict, once its token is read to its end.
    void settle_failure();
    void envelope_failure(const nlohmann::json& doc, const std::string& pointer, std::size_t offset,
                          bool type_only = false);
    /// What a salvage keeps once a task-schema verdict was given: what was complete then.
    struct salvage_mark {
        bool result_open = false;         // partial_result was being read
        std::vector<std::string> members; // its members complete then
        std::optional<std::string> array; // its member array being read then
        std::size_t items = 0;            // and that array's items complete then
    };
    /// A verdict certain at `offset`: the first is kept. One of step 1 or 2 halts the check; one
    /// of step 3 stops the judging of task values only.
    void doom(problem p, std::size_t offset);
    /// Whether task values are judged: not once the reply said `"schema_ok": false` (receive
    /// treats partial_result as absent then), nor after a task-schema verdict.
    [[nodiscard]] bool judging() const noexcept { return schema_ok_ != false && !task_failed_; }
    /// partial_result's frame on the stack (the stack's size: none open).
    [[nodiscard]] std::size_t result_frame() const noexcept;
    /// partial_result as far as it was read, its complete values only (nullopt: none read).
    [[nodiscard]] std::optional<nlohmann::json> result_so_far() const;
    /// What a salvage keeps of what was read from now on.
    [[nodiscard]] salvage_mark mark_salvage() const;

    const receiver_options& options_;
    const compiled_schema* task_schema_;
    std::shared_ptr<const task_paths> paths_;
    locator where_;
    tokenizer tokens_;
    std::vector<frame> stack_;
    reply_text text_;
    std::size_t seen_ = 0;
    std::size_t values_ = 0;
    std::optional<stream_verdict> verdict_;
    /// The check reads no further: a verdict of step 1 or 2 (the bytes after it are only kept
    /// for finish(), which reads the text whole).
    bool halted_ = false;
    /// A task-schema verdict was given: the check reads on, every rule of steps 1 and 2 still
    /// applied but no task value judged, so that finish() builds on what it read (step 3 then
    /// runs on partial_result whole, as receive runs it) instead of reading the text again.
    bool task_failed_ = false;
    /// What salvage() would have kept when that verdict was given: it keeps no more after it.
    std::optional<salvage_mark> salvage_mark_;
    /// A grammar failure waiting for the end of the token it is in (grammar_failure).
    struct failed_token {
        std::size_t offset = 0;
        bool whole = false;
        std::size_t scanned = 0; // how far the token's end was looked for
    };
    std::optional<failed_token> pending_failure_;
    bool unsure_ = false;
    std::optional<quick_value> quick_;
    std::optional<quick_list> list_;
    std::optional<quick_members> members_;
    /// A replay is reading bytes a pass scanned already, token by token, to `replay_end_`: no
    /// pass takes them over (the member pass may go on from the replay's last byte).
    bool replaying_ = false;
    std::size_t replay_end_ = 0;
    /// The envelope's own fields as they were read, bit i for field i: all of them but
    /// partial_result make the envelope finish() returns, without reading the text again.
    envelope<nlohmann::json> typed_;
    unsigned fields_typed_ = 0;
    /// The envelope's status and reason_code as they were read (each judged in its vocabulary
    /// as it completed), which decide reason_code's rule.
    struct words_read {
        std::optional<status> status_word;
        std::optional<std::optional<reason_code>> reason; // read: a word, or null
        /// Whether they keep reason_code's rule: a reason code exactly when capped. While the
        /// envelope is open (`whole` false) a word not yet read may still come, so the rule is
        /// judged only once both are in.
        [[nodiscard]] bool kept(bool whole) const noexcept;
        /// An object holding the words read, as the reply wrote them: the document step 2
        /// judges the rule on.
        [[nodiscard]] nlohmann::json document() const;
    };
    words_read words_;
    std::optional<bool> schema_ok_;
    /// partial_result, once complete (it is moved into the envelope's frame).
    bool result_closed_ = false;
    /// partial_result passed the task schema (its parts, then result_schema) as it closed.
    bool result_valid_ = false;
    /// Once the envelope's object closed with no verdict, until take_established():
    /// partial_result's object (null when the reply held none or not an object, or when the
    /// envelope's rules are not applied).
    std::optional<nlohmann::json> closed_result_;
    /// Where the object closed in the reply (its '}'), and partial_result's object within it.
    std::size_t object_end_ = 0;
    std::size_t result_start_ = 0;
    std::size_t result_end_ = 0;
    /// The fields the envelope's object held (lean_root), once it closed.
    unsigned root_fields_ = 0;
    bool envelope_checks_ = true;
};

} // namespace detail::stream
} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/detail/stream/checker-inl.hpp>
#endif
