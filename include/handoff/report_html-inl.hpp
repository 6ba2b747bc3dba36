// SPDX-License-Identifier: MIT
#pragma once

// The HTML failure report's definitions: inline in every file header-only, compiled once in
// <handoff/src.hpp> otherwise (config.hpp).

#include <handoff/report_html.hpp>

#include <handoff/detail/text.hpp>
#include <handoff/failure_class.hpp>
#include <handoff/report.hpp>

#include <algorithm>   // max, sort
#include <array>       // array
#include <cstddef>     // size_t
#include <cstdio>      // snprintf
#include <string>      // string
#include <string_view> // string_view
#include <tuple>       // tuple
#include <vector>      // vector

namespace handoff {

namespace detail {

/// `text` safe inside HTML text and inside a quoted attribute value (clip_form::html). At most
/// `max_bytes` of the input are shown, cut on a UTF-8 character boundary and marked with the
/// cut marker, so a megabyte of model output cannot swell the page.
HANDOFF_INLINE std::string html_escape(std::string_view text, std::size_t max_bytes) {
    return clip_untrusted(text, max_bytes, clip_form::html);
}

namespace report_html {

/// One colour per class, indexed by failure_class: stable across pages, so a reader learns them.
inline constexpr std::array<const char*, failure_class_count> class_colours = {
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
    "#bab0ac", "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#7f7f7f",
};

HANDOFF_INLINE const char* colour(failure_class c) { return class_colours[static_cast<std::size_t>(c)]; }

HANDOFF_INLINE std::string name(failure_class c) { return std::string(to_string(c)); }

HANDOFF_INLINE std::string format(const char* pattern, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, pattern, value);
    return buffer;
}

inline constexpr const char* style = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;padding:1rem;max-width:60rem;
color:#222;background:#fff;line-height:1.4}
h1{font-size:1.4rem;margin:.2rem 0 .6rem}h2{font-size:1.1rem;margin:1.4rem 0 .4rem}
.totals{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;padding:0;list-style:none}.totals b{font-size:1.2rem}
.table-wrap{overflow-x:auto;-webkit-overflow-scrolling:touch;border:1px solid #ddd;border-radius:4px}
table{border-collapse:collapse;width:100%;font-size:.9rem}th,td{padding:.3rem .5rem;text-align:left;
border-bottom:1px solid #eee;white-space:nowrap;vertical-align:top}td.n{text-align:right}

.swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:2px;margin-right:.3rem;vertical-align:-1px}
.legend{display:flex;flex-wrap:wrap;gap:.3rem 1rem;padding:0;list-style:none;font-size:.85rem}
svg{display:block;width:100%;height:auto}svg text{font-size:10px;fill:#444}
code{word-break:break-all}
)";

HANDOFF_INLINE std::string head() {
    return std::string("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                       "<meta http-equiv=\"Content-Security-Policy\" "
                       "content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
                       "<title>handoff failure report</title>\n<style>") +
           style + "</style>\n</head>\n<body>\n<h1>handoff failure report</h1>\n";
}

HANDOFF_INLINE std::string total_item(const char* label, std::size_t n) {
    return "<li><b>" + std::to_string(n) + "</b> " + label + "</li>";
}

HANDOFF_INLINE std::string totals(const report& r) {
    std::string out = "<ul class=\"totals\" id=\"totals\">";
    out += total_item("failed attempts", r.total);
    out += total_item("dead letters", r.dead_letters);
    out += total_item("failed receipts", r.receipts - r.receipts_passed);
    out += total_item("receipts passed", r.receipts_passed);
    out += total_item("out of window", r.out_of_window);
    out += total_item("corrupt lines", r.corrupt);
    out += total_item("foreign lines", r.foreign);
    return out + "</ul>\n";
}

HANDOFF_INLINE std::string class_row(const report& r, failure_class c) {
    const class_stats& s = r[c];
    std::string samples;
    for (const std::string& sample : s.samples) {
        samples += (samples.empty() ? "" : ", ") + html_escape(sample);
    }
    return "<tr data-class=\"" + name(c) + "\"><td><span class=\"swatch\" style=\"background:" + colour(c) +
           "\"></span>" + name(c) + "</td><td class=\"n count\">" + std::to_string(s.count) + "</td><td class=\"n\">" +
           format("%.1f%%", r.share(c) * 100.0) + "</td><td>" +
           (s.first_seen.empty() ? "-" : html_escape(s.first_seen)) + "</td><td>" +
           (s.last_seen.empty() ? "-" : html_escape(s.last_seen)) + "</td><td class=\"samples\">" + samples +
           "</td></tr>\n";
}

HANDOFF_INLINE std::string classes_section(const report& r) {
    std::string out = "<h2>Failure classes</h2>\n";
    if (r.total == 0) {
        return out + "<p id=\"no-failures\">No failed attempts.</p>\n";
    }
    out += "<div class=\"table-wrap\"><table id=\"classes\">\n<thead><tr><th>class</th><th>count</th>"
           "<th>share</th><th>first seen</th><th>last seen</th><th>sample request ids</th></tr></thead>\n"
           "<tbody>\n";
    for (const failure_class c : r.ranked()) {
        out += class_row(r, c);
    }
    return out + "</tbody></table></div>\n";
}

/// The chart's geometry in viewBox units; the svg scales to the page width.
struct chart_layout {
    double left = 36;
    double top = 12;
    double plot_height = 180;
    double bottom = 40;
    double step = 40; // per day: room for an "MM-DD" label at 10px
    double bar = 26;
};

HANDOFF_INLINE std::size_t day_total(const std::array<std::size_t, failure_class_count>& counts) {
    std::size_t n = 0;
    for (const std::size_t k : counts) {
        n += k;
    }
    return n;
}

/// One stacked bar: the classes bottom-up in vocabulary order, each rect's height in
/// proportion to its count (at least half a unit, so a count of one stays visible).
HANDOFF_INLINE std::string day_bars(const std::string& day, const std::array<std::size_t, failure_class_count>& counts,
                                    double x, double unit, const chart_layout& g) {
    std::string out;
    double base = g.top + g.plot_height;
    for (std::size_t i = 0; i < failure_class_count; ++i) {
        if (counts[i] == 0) {
            continue;
        }
        const auto c = static_cast<failure_class>(i);
        const double h = std::max(static_cast<double>(counts[i]) * unit, 0.5);
        base -= h;
        out += "<rect data-class=\"" + name(c) + "\" data-day=\"" + html_escape(day) + "\" data-count=\"" +
               std::to_string(counts[i]) + "\" x=\"" + format("%.1f", x) + "\" y=\"" + format("%.2f", base) +
               "\" width=\"" + format("%.1f", g.bar) + "\" height=\"" + format("%.2f", h) + "\" fill=\"" + colour(c) +
               "\"><title>" + html_escape(day) + " " + name(c) + ": " + std::to_string(counts[i]) + "</title></rect>\n";
    }
    return out;
}

/// The x-axis label of day `index`: "MM-DD" under every bar, or under every k-th when many.
HANDOFF_INLINE std::string day_label(const std::string& day, std::size_t index, std::size_t days, double x,
                                     const chart_layout& g) {
    const std::size_t every = days <= 31 ? 1 : days / 31 + 1;
    if (index % every != 0) {
        return "";
    }
    const double y = g.top + g.plot_height + 14;
    return "<text x=\"" + format("%.1f", x + g.bar / 2) + "\" y=\"" + format("%.1f", y) + "\" text-anchor=\"middle\">" +
           html_escape(day.size() == 10 ? day.substr(5) : day) + "</text>\n";
}

HANDOFF_INLINE std::string legend(const report& r) {
    std::string out = "<ul class=\"legend\" id=\"legend\">";
    for (const failure_class c : r.ranked()) {
        out += "<li data-class=\"" + name(c) + "\"><span class=\"swatch\" style=\"background:" + colour(c) +
               "\"></span>" + name(c) + "</li>";
    }
    return out + "</ul>\n";
}

HANDOFF_INLINE std::string chart(const report& r) {
    if (!r.has_by_day || r.by_day.empty()) {
        return "";
    }
    const chart_layout g;
    std::size_t peak = 1;
    for (const auto& [day, counts] : r.by_day) {
        peak = std::max(peak, day_total(counts));
    }
    const double unit = g.plot_height / static_cast<double>(peak);
    const double width = std::max(320.0, g.left + g.step * static_cast<double>(r.by_day.size()) + 8);
    const double height = g.top + g.plot_height + g.bottom;
    std::string out = "<h2>Failed attempts per day (UTC)</h2>\n<svg id=\"by-day\" role=\"img\" aria-label=\"failed "
                      "attempts per day and class\" viewBox=\"0 0 " +
                      format("%.0f", width) + " " + format("%.0f", height) +
                      "\" width=\"100%\" preserveAspectRatio=\"xMinYMin meet\">\n";
    const double axis = g.top + g.plot_height;
    out += "<line x1=\"" + format("%.0f", g.left - 4) + "\" y1=\"" + format("%.1f", axis) + "\" x2=\"" +
           format("%.0f", width) + "\" y2=\"" + format("%.1f", axis) + "\" stroke=\"#999\"/>\n";
    out += "<text x=\"" + format("%.0f", g.left - 6) + "\" y=\"" + format("%.0f", g.top + 4) +
           "\" text-anchor=\"end\">" + std::to_string(peak) + "</text>\n<text x=\"" + format("%.0f", g.left - 6) +
           "\" y=\"" + format("%.0f", axis) + "\" text-anchor=\"end\">0</text>\n";
    std::size_t index = 0;
    for (const auto& [day, counts] : r.by_day) {
        const double x = g.left + g.step * static_cast<double>(index) + (g.step - g.bar) / 2;
        out += day_bars(day, counts, x, unit, g) + day_label(day, index, r.by_day.size(), x, g);
        ++index;
    }
    return out + "</svg>\n" + legend(r);
}

/// The pointers at fault across classes, most frequent first, at most `limit` rows.
HANDOFF_INLINE std::string pointers_section(const report& r, std::size_t limit = 20) {
    std::vector<std::tuple<std::size_t, failure_class, std::string>> rows;
    for (const failure_class c : r.ranked()) {
        for (const auto& [pointer, n] : r[c].pointers.counts()) {
            rows.emplace_back(n, c, pointer);
        }
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return std::get<0>(a) > std::get<0>(b); });
    std::string out = "<h2>Pointers most at fault</h2>\n";
    if (rows.empty()) {
        return out + "<p id=\"pointers\">No pointer at fault.</p>\n";
    }
    out += "<div class=\"table-wrap\"><table id=\"pointers\">\n<thead><tr><th>pointer</th><th>count</th>"
           "<th>class</th></tr></thead>\n<tbody>\n";
    for (std::size_t i = 0; i < rows.size() && i < limit; ++i) {
        const auto& [n, c, pointer] = rows[i];
        out += "<tr data-class=\"" + name(c) + "\"><td><code>" + html_escape(pointer) + "</code></td><td class=\"n\">" +
               std::to_string(n) + "</td><td>" + name(c) + "</td></tr>\n";
    }
    return out + "</tbody></table></div>\n";
}

/// Enum violations: per pointer, each invented value with its count ("label: 'urgent' 14 times").
HANDOFF_INLINE std::string invented_values(const report& r, std::size_t limit = 10) {
    const class_stats& s = r[failure_class::enum_violation];
    if (s.values.empty()) {
        return "";
    }
    std::string out = "<h2>Values invented for enums</h2>\n<ul id=\"values\">\n";
    for (const auto& [pointer, values] : s.values) {
        std::size_t shown = 0;
        for (const auto& [value, n] : values.sorted()) {
            if (shown++ == limit) {
                break;
            }
            out += "<li><code>" + html_escape(pointer) + "</code>: <code>'" + html_escape(value) + "'</code> " +
                   std::to_string(n) + (n == 1 ? " time" : " times") + "</li>\n";
        }
    }
    return out + "</ul>\n";
}

} // namespace report_html
} // namespace detail

HANDOFF_INLINE std::string to_html(const report& r) {
    namespace html = detail::report_html;
    return html::head() + html::totals(r) + html::classes_section(r) + html::chart(r) + html::pointers_section(r) +
           html::invented_values(r) + "</body>\n</html>\n";
}

} // namespace handoff
