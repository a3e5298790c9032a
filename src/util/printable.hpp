// Text from files and users made safe to show on a terminal or inside an error message.
// A model file's key names, string values and token texts are arbitrary bytes: printed raw,
// an ESC byte drives the terminal, and a NUL byte cuts an error text short (what() is a C
// string). Escaped, both show as what they are.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace meadow::util {

// s with control bytes (C0, DEL, the C1 range U+0080..U+009F) and bytes that are not part of
// valid UTF-8 written as \xNN (\n, \r, \t as themselves escaped: "\\n"). Printable UTF-8 and
// backslashes are kept as they are, so escaping twice changes nothing.
// keep_newlines: '\n' stays a line break (multi-line reports).
std::string printable(std::string_view s, bool keep_newlines = false);

// 'printable(s)' in single quotes, cut at a character boundary to at most max_bytes of s with
// "..." after the cut: for quoting file text in one-line error messages.
std::string quoted(std::string_view s, size_t max_bytes = 80);

}  // namespace meadow::util
