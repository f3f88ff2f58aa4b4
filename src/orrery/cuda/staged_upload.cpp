#include "orrery/cuda/staged_upload.hpp"

#include <algorithm>
#include <span>

#include "orrery/core/copy_bytes.hpp"
#include "orrery/cuda/memory.hpp"

namespace orrery::cuda {

void StagedUpload::run(StreamHandle stream) {
  // A piece large enough that the threads' copy and the transfer each run
  // at their rate, small enough that the first transfer starts early.
  constexpr std::size_t kPiece = std::size_t(16) << 20;
  if (queue_.total > max_staged_) {
    for (const auto& c : queue_.copies) copy_host_to_device(c.to, c.from, c.bytes, stream);
    queue_.clear();
    return;
  }
  const std::span<std::byte> staged = staging_.first(queue_.total);
  for (const auto& c : queue_.copies)
    for (std::size_t at = 0; at < c.bytes; at += kPiece) {
      const std::size_t n = std::min(kPiece, c.bytes - at);
      std::byte* piece = staged.data() + c.at + at;
      copy_bytes(piece, static_cast<const std::byte*>(c.from) + at, n);
      copy_host_to_device_async(static_cast<std::byte*>(c.to) + at, piece, n, stream);
    }
  synchronize(stream);  // the page-locked bytes are free again, the device's complete
  queue_.clear();
}

}  // namespace orrery::cuda
