// SPDX-License-Identifier: MIT
#pragma once

// The failure report as one self-contained HTML5 page: totals, the class table, a stacked bar
// chart of classes per UTC day (inline SVG, only when the report was built with by_day), the
// pointers most at fault and the values invented for enum violations.
//
// The page loads nothing: no script, font, stylesheet or image from anywhere (a
// Content-Security-Policy meta says so to the browser as well), so it can be mailed or opened
// from a file share offline. Every text that came from a dead letter (request ids, pointers,
// values, times) was written by a model and goes through detail::html_escape, capped.

#include <handoff/config.hpp>
#include <handoff/failure_class.hpp>
#include <handoff/report.hpp>

#include <cstddef>     // size_t
#include <string>      // string
#include <string_view> // string_view

namespace handoff {

/// The page for `r`; the chart appears only when `r.has_by_day`.
[[nodiscard]] std::string to_html(const report& r);

namespace detail {

/// `text` safe inside HTML text and inside a quoted attribute value (clip_form::html). At most
/// `max_bytes` of the input are shown, cut on a UTF-8 character boundary and marked with the
/// cut marker, so a megabyte of model output cannot swell the page.
[[nodiscard]] std::string html_escape(std::string_view text, std::size_t max_bytes = 200);

} // namespace detail

} // namespace handoff

#if !defined(HANDOFF_COMPILED_LIB)
#include <handoff/report_html-inl.hpp>
#endif
