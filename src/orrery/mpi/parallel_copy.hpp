#pragma once
// Copies of a rank's particle and node data with its OpenMP threads
// (docs/adr/0012): every element is written by exactly one thread from the
// same source element, so the bytes are the serial copy's whatever the
// thread count. copy_bytes (core/copy_bytes.hpp) is the plain copy.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "orrery/core/copy_bytes.hpp"  // copy_bytes, with these

namespace orrery::mpi {

/// Loops over fewer elements run on one thread (here and in the rest of
/// mpi/'s parallel loops): an OpenMP region costs microseconds, more than a
/// short loop's work. The result is the same either way.
inline constexpr std::int64_t kParallelLoop = 16384;

/// Element k of `to` (any byte address: the elements are copied with
/// memcpy, so a field inside a byte message need not be aligned) becomes
/// from[order[k]], for k < n.
template <class T, class Index>
void gather(void* to, const T* from, const Index* order, std::int64_t n) {
  auto* out = static_cast<std::byte*>(to);
#pragma omp parallel for schedule(static) if (n >= kParallelLoop)
  for (std::int64_t k = 0; k < n; ++k)
    std::memcpy(out + static_cast<std::size_t>(k) * sizeof(T), from + order[k], sizeof(T));
}

}  // namespace orrery::mpi
