#pragma once
// The queue of copies that StagedDownload and StagedUpload run through one
// page-locked buffer: each copy's place in that buffer, on a boundary the
// DMA engines like. No CUDA header.
#include <cstddef>
#include <vector>

namespace orrery::cuda {

struct StagingQueue {
  struct Copy {
    void* to;
    const void* from;
    std::size_t bytes, at;  // at: the offset in the page-locked buffer
  };
  std::vector<Copy> copies;
  std::size_t total = 0;  // the page-locked bytes the queue needs

  /// Appends a copy and returns its number in the queue.
  std::size_t add(void* to, const void* from, std::size_t bytes) {
    constexpr std::size_t kAlign = 256;
    copies.push_back({to, from, bytes, total});
    total += (bytes + kAlign - 1) / kAlign * kAlign;
    return copies.size() - 1;
  }
  void clear() {
    copies.clear();
    total = 0;
  }
};

}  // namespace orrery::cuda
