# SPDX-License-Identifier: MIT
# Exits 0 when a translation unit's include graph, as clang++ writes it (-Xclang -dependency-dot),
# leads from the main file (the node whose label ends in .cxx or .cpp) to a file whose path
# ends in /`target`, through no file whose path contains `avoid` (when set); 1 otherwise.
# scripts/syntax-check.cmake asks this of every header TU it compiles with a precompiled header.
#
#   awk -v target=handoff/schema.hpp -v avoid=/handoff/impl/ -f include-graph-reaches.awk graph.dot
#
# The graph's lines: `  header_3 [ shape="box", label="path/to/file"];` and `  header_3 -> header_7;`.

/^[ \t]*[A-Za-z_0-9]+ \[.*label="/ {
    node = $1
    label = $0
    sub(/^.*label="/, "", label)
    sub(/".*$/, "", label)
    if (label ~ /\.(cxx|cpp)$/) root = node
    if (substr("/" label, length("/" label) - length(target)) == "/" target) goal[node] = 1
    if (avoid != "" && index(label, avoid) > 0) avoided[node] = 1
    next
}

/^[ \t]*[A-Za-z_0-9]+ -> [A-Za-z_0-9]+;?[ \t]*$/ {
    to = $3
    sub(/;$/, "", to)
    edges[$1] = edges[$1] " " to
}

END {
    if (root == "" || target == "") exit 1
    queue[1] = root
    queued = 1
    seen[root] = 1
    for (head = 1; head <= queued; ++head) {
        node = queue[head]
        if (node in goal) exit 0
        count = split(edges[node], next_nodes, " ")
        for (i = 1; i <= count; ++i) {
            if (!(next_nodes[i] in seen) && !(next_nodes[i] in avoided)) {
                seen[next_nodes[i]] = 1
                queue[++queued] = next_nodes[i]
            }
        }
    }
    exit 1
}
