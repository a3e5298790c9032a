// The meadow-mind executable.
#include "meadow/runtime/cli.hpp"
#include "tensor/ops.hpp"

int main(int argc, char** argv) {
  // First: may re-exec with the OpenBLAS core this CPU supports (see tensor/ops.hpp).
  meadow::tensor::ensure_fast_blas(argc, argv);
  return meadow::run_cli(argc, argv);
}
