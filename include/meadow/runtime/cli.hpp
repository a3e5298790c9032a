// The meadow-mind command line as a function: the `meadow-mind` executable and the Python
// package's `python -m meadow_mind` both run it, so they behave alike.
#pragma once

namespace meadow {

// Parses argv (argv[0] is the program name) and runs the command. Returns the exit code:
// 0 success, 1 failed exam or check, 2 bad usage or input, 3 a broken model (non-finite
// logits: meadow::ModelError). Never throws.
int run_cli(int argc, char** argv);

}  // namespace meadow
