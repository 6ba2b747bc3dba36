// SPDX-License-Identifier: MIT
// A file that includes the umbrella header and receives, in the compiled form: its dependency
// list (-M) must name no header that holds the heavy definitions (the
// handoff_compiled_form_sees_declarations_umbrella test checks it).
#include <handoff/handoff.hpp>

handoff::receipt<> check(const nlohmann::json& schema, std::string_view text) {
    const handoff::receiver<> receiver(schema);
    return receiver.receive(text);
}
