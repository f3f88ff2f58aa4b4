#include "orrery/cuda/staged_download.hpp"

#include <span>

#include "orrery/core/copy_bytes.hpp"
#include "orrery/cuda/memory.hpp"

namespace orrery::cuda {

std::size_t StagedDownload::add(void* to, const void* from, std::size_t bytes) {
  if (ran_) {
    queue_.clear();
    ran_ = false;
  }
  return queue_.add(to, from, bytes);
}

void StagedDownload::run(StreamHandle stream) {
  if (queue_.total > max_staged_) {
    // As StagedUpload: a huge queue keeps no more page-locked memory than
    // that. The kept copies (read from the buffer by staged()) are placed
    // one after another; the others go straight into their host arrays.
    std::size_t kept = 0;
    for (auto& c : queue_.copies)
      if (c.to == nullptr) {
        c.at = kept;
        kept += StagingQueue::padded(c.bytes);
      }
    const std::span<std::byte> staged = staging_.first(kept);
    for (const auto& c : queue_.copies)
      copy_device_to_host_async(c.to == nullptr ? staged.data() + c.at : c.to, c.from, c.bytes, stream);
    synchronize(stream);
    ran_ = true;
    return;
  }
  const std::span<std::byte> staged = staging_.first(queue_.total);
  for (const auto& c : queue_.copies) copy_device_to_host_async(staged.data() + c.at, c.from, c.bytes, stream);
  synchronize(stream);
  for (const auto& c : queue_.copies)
    if (c.to != nullptr) copy_bytes(c.to, staged.data() + c.at, c.bytes);
  ran_ = true;
}

}  // namespace orrery::cuda
