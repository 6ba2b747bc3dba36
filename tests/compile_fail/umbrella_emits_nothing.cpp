// SPDX-License-Identifier: MIT
// Every header, header-only, and nothing used: the file must compile to no code of handoff's.
// A virtual function declared in its class without `inline` and defined inline further down
// is its class's key function, and would make every file that includes the header emit the
// class's vtable, its virtual functions and everything they call.
#include <handoff/handoff.hpp>

int main() { return 0; }
