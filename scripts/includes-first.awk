# SPDX-License-Identifier: MIT
# Fails (exit 1) when a file has an #include below its first line of code, other than a
# header's own definitions, <handoff/impl/NAME_inl.hpp> in the header NAME.hpp (included at its
# end, header-only), or when handoff's headers include each other in a cycle, other than an impl
# file including its own header (done by then). Then each file's includes are read, whole,
# before its code, whatever the translation unit included first, and reading some of those
# headers earlier (from a precompiled header: scripts/syntax-check.cmake) changes nothing a
# compile can see.
#
#   awk -f scripts/includes-first.awk include/handoff/*.hpp include/handoff/*/*.hpp
#
# Comments, blank lines and preprocessor lines are not code; a /* comment */ counts as one
# block from its first line to the line that closes it.

FNR == 1 {
    code_line = 0
    in_comment = 0
    name = FILENAME # as the includes spell it: handoff/...
    sub(/^(.*\/)?include\//, "", name)
    names[++files] = name
}

in_comment {
    if (index($0, "*/") > 0) in_comment = 0
    next
}

/^[ \t]*\/\*/ {
    if (index(substr($0, index($0, "/*") + 2), "*/") == 0) in_comment = 1
    next
}

/^[ \t]*($|\/\/)/ { next }

/^[ \t]*#[ \t]*include[ \t]*<handoff\// {
    if (!own_header(name, included($0))) includes[name] = includes[name] " " included($0)
}

/^[ \t]*#[ \t]*include[ \t]*[<"]/ {
    if (code_line > 0 && !own_header(included($0), name)) {
        printf "%s:%d: #include below the code that starts at line %d: %s\n", FILENAME, FNR, code_line, $0
        failed = 1
    }
    next
}

/^[ \t]*#/ { next }

code_line == 0 { code_line = FNR }

# The file an #include line names, as written between < and >.
function included(line) {
    sub(/^[^<]*</, "", line)
    sub(/>.*/, "", line)
    return line
}

# Whether `target` is the header that the impl file `file` defines: handoff/impl/NAME_inl.hpp
# defines handoff/NAME.hpp or handoff/detail/NAME.hpp, which includes it at its end (below its
# code, allowed) and is complete when the impl file includes it back (no cycle).
function own_header(file, target, header) {
    if (file !~ /^handoff\/impl\/.*_inl\.hpp$/) return 0
    header = file
    sub(/^handoff\/impl\//, "", header)
    sub(/_inl\.hpp$/, ".hpp", header)
    return target == "handoff/" header || target == "handoff/detail/" header
}

# Depth-first from `file` (`path`: the files that led to it); on reaching a file still on the
# path, prints the cycle and fails.
function visit(file, path, count, next_file, i) {
    if (state[file] == "done") return
    if (state[file] == "open") {
        printf "include cycle: %s -> %s\n", path, file
        failed = 1
        return
    }
    state[file] = "open"
    path = path == "" ? file : path " -> " file
    count = split(includes[file], next_file, " ")
    for (i = 1; i <= count; ++i) visit(next_file[i], path)
    state[file] = "done"
}

END {
    for (i = 1; i <= files; ++i) visit(names[i], "")
    exit failed
}
