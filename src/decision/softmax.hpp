// Softmax helpers of the decision pass, in double precision (probabilities are reported and
// compared to 1e-4).
#pragma once

#include <cstdint>
#include <vector>

namespace meadow::decision {

std::vector<double> softmax(const std::vector<double>& z);
void softmax(const std::vector<double>& z, std::vector<double>& p);  // into p (resized)

struct TopToken {  // the step-0 draft token of one position
  int32_t id = 0;
  double prob = 0;  // its softmax probability over the whole row (float precision)
};

// Argmax of a logits row and its softmax probability over the row; scratch holds the
// probabilities (reuse it to allocate nothing).
TopToken top_token(const float* row, int64_t n);
TopToken top_token(const float* row, int64_t n, std::vector<float>& scratch);

}  // namespace meadow::decision
