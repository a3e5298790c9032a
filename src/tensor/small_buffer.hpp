// Scratch that lives on the stack up to N elements and on the heap beyond: the hot path's
// small temporaries (per-call tables, per-row sums) then allocate nothing.
#pragma once

#include <cstddef>
#include <vector>

namespace meadow::tensor::detail {

template <class T, size_t N>
class SmallBuffer {
 public:
  explicit SmallBuffer(size_t n) {
    if (n > N) heap_.resize(n);
    data_ = n > N ? heap_.data() : stack_;
  }
  SmallBuffer(const SmallBuffer&) = delete;
  SmallBuffer& operator=(const SmallBuffer&) = delete;
  T* data() { return data_; }
  T& operator[](size_t i) { return data_[i]; }

 private:
  T stack_[N];
  std::vector<T> heap_;
  T* data_;
};

}  // namespace meadow::tensor::detail
