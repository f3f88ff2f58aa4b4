#pragma once
// Copies of a rank's particle and node data with its OpenMP threads
// (docs/adr/0012): every element is written by exactly one thread from the
// same source element, so the bytes are the serial copy's whatever the
// thread count.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

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

/// std::memcpy(to, from, bytes), in pieces of 1 MiB over the threads.
inline void copy_bytes(void* to, const void* from, std::size_t bytes) {
  constexpr std::size_t kPiece = std::size_t(1) << 20;
  const auto pieces = static_cast<std::int64_t>((bytes + kPiece - 1) / kPiece);
#pragma omp parallel for schedule(static) if (pieces > 1)
  for (std::int64_t c = 0; c < pieces; ++c) {
    const std::size_t at = static_cast<std::size_t>(c) * kPiece;
    std::memcpy(static_cast<std::byte*>(to) + at, static_cast<const std::byte*>(from) + at, std::min(kPiece, bytes - at));
  }
}

}  // namespace orrery::mpi
