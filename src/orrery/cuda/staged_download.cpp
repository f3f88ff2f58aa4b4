#include "orrery/cuda/staged_download.hpp"

#include <span>

#include "orrery/core/copy_bytes.hpp"
#include "orrery/cuda/memory.hpp"

namespace orrery::cuda {

void StagedDownload::add(void* to, const void* from, std::size_t bytes) {
  constexpr std::size_t kAlign = 256;  // each array's copy starts on a DMA-friendly boundary
  copies_.push_back({to, from, bytes, total_});
  total_ += (bytes + kAlign - 1) / kAlign * kAlign;
}

void StagedDownload::run(StreamHandle stream) {
  const std::span<std::byte> staged = staging_.first(total_);
  for (const Copy& c : copies_) copy_device_to_host(staged.data() + c.at, c.from, c.bytes, stream);
  for (const Copy& c : copies_) copy_bytes(c.to, staged.data() + c.at, c.bytes);
  copies_.clear();
  total_ = 0;
}

}  // namespace orrery::cuda
