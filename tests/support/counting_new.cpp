#include "counting_new.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define MEADOW_COUNTING_NEW 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEADOW_COUNTING_NEW 0
#endif
#endif
#ifndef MEADOW_COUNTING_NEW
#define MEADOW_COUNTING_NEW 1
#endif

namespace {
std::atomic<long long> g_allocs{0};
}  // namespace

namespace meadow::testing {

bool counting_allocations() {
  return MEADOW_COUNTING_NEW != 0;
}

long long allocation_count() {
  return g_allocs.load(std::memory_order_relaxed);
}

}  // namespace meadow::testing

#if MEADOW_COUNTING_NEW
void* operator new(std::size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) {
  g_allocs.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
#endif
