// A counting global operator new for the binaries that link meadow_counting_new (the
// allocation test and bench_alloc): every heap allocation through new adds one.
#pragma once

namespace meadow::testing {

// False under AddressSanitizer: its runtime owns operator new and delete, and replacing them
// mixes its allocations with ours (alloc-dealloc-mismatch), so nothing is counted there.
bool counting_allocations();

// Allocations through operator new so far (0 when not counting).
long long allocation_count();

}  // namespace meadow::testing
