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
    own_impl = FILENAME
    sub(/.*\//, "", own_impl)
    sub(/\.hpp$/, "_inl.hpp", own_impl)
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
    target = $0
    sub(/^[^<]*</, "", target)
    sub(/>.*/, "", target)
    if (!own_header(name, target)) includes[name] = includes[name] " " target
}

/^[ \t]*#[ \t]*include[ \t]*[<"]/ {
    if (code_line > 0 && $0 !~ ("<handoff/impl/" own_impl ">")) {
        printf "%s:%d: #include below the code that starts at line %d: %s\n", FILENAME, FNR, code_line, $0
        failed = 1
    }
    next
}

/^[ \t]*#/ { next }

code_line == 0 { code_line = FNR }

# handoff/impl/NAME_inl.hpp includes the header it defines, handoff/NAME.hpp or
# handoff/detail/NAME.hpp: that header is complete when it includes the impl file at its end.
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
