// Objects a shared, const owner lends to concurrent callers and takes back for reuse: a warm
// owner then makes nothing per call (a decider's scratch, a regex's match data).
#pragma once

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace meadow::util {

template <class T, class Deleter = std::default_delete<T>>
class SparePool {
 public:
  using Ptr = std::unique_ptr<T, Deleter>;

  // One object for the lease's lifetime: a spare one, or make() when none is left.
  class Lease {
   public:
    template <class Make>
    Lease(SparePool& pool, Make&& make) : pool_(pool) {
      {
        std::lock_guard lock(pool_.mu_);
        if (!pool_.spare_.empty()) {
          obj_ = std::move(pool_.spare_.back());
          pool_.spare_.pop_back();
        }
      }
      if (!obj_) obj_ = make();
    }
    ~Lease() {
      std::lock_guard lock(pool_.mu_);
      try {
        pool_.spare_.push_back(std::move(obj_));  // capacity left by the pop: no allocation
      } catch (...) {
        // out of memory growing the list: the object is freed instead of kept
      }
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    T& operator*() const { return *obj_; }
    T* get() const { return obj_.get(); }

   private:
    SparePool& pool_;
    Ptr obj_;
  };

 private:
  std::mutex mu_;
  std::vector<Ptr> spare_;
};

}  // namespace meadow::util
