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
  const std::span<std::byte> staged = staging_.first(queue_.total);
  for (const auto& c : queue_.copies) copy_device_to_host_async(staged.data() + c.at, c.from, c.bytes, stream);
  synchronize(stream);
  for (const auto& c : queue_.copies)
    if (c.to != nullptr) copy_bytes(c.to, staged.data() + c.at, c.bytes);
  ran_ = true;
}

}  // namespace orrery::cuda
