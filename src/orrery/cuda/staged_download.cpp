#include "orrery/cuda/staged_download.hpp"

#include <span>

#include "orrery/core/copy_bytes.hpp"
#include "orrery/cuda/memory.hpp"

namespace orrery::cuda {

std::size_t StagedDownload::add(void* to, const void* from, std::size_t bytes) {
  if (ran_) {
    copies_.clear();
    total_ = 0;
    ran_ = false;
  }
  constexpr std::size_t kAlign = 256;  // each array's copy starts on a DMA-friendly boundary
  copies_.push_back({to, from, bytes, total_});
  total_ += (bytes + kAlign - 1) / kAlign * kAlign;
  return copies_.size() - 1;
}

void StagedDownload::run(StreamHandle stream) {
  const std::span<std::byte> staged = staging_.first(total_);
  for (const Copy& c : copies_) copy_device_to_host_async(staged.data() + c.at, c.from, c.bytes, stream);
  synchronize(stream);
  for (const Copy& c : copies_)
    if (c.to != nullptr) copy_bytes(c.to, staged.data() + c.at, c.bytes);
  ran_ = true;
}

}  // namespace orrery::cuda
