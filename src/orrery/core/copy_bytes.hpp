#pragma once
// A large memcpy on the calling process's OpenMP threads: one core copies
// a few GB/s, the memory system several times that. Every byte is written
// by exactly one thread from the same source byte, so the result is the
// serial copy's whatever the thread count (and serial where the includer
// is built without OpenMP).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace orrery {

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

}  // namespace orrery
