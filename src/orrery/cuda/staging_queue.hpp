#pragma once
// The queue of copies that StagedDownload and StagedUpload run through one
// page-locked buffer: each copy's place in that buffer, on a boundary the
// DMA engines like. No CUDA header.
#include <cstddef>
#include <vector>

namespace orrery::cuda {

/// The most page-locked bytes a staging queue holds by default: above it a
/// run's copies go the pageable way instead (a billion particles' sources
/// are 16 GB, which page-locked would take from the host for the process's
/// life). A GPU rank of 16M particles stages about 0.45 GB.
inline constexpr std::size_t kMaxStagedBytes = std::size_t(1) << 30;

struct StagingQueue {
  struct Copy {
    void* to;
    const void* from;
    std::size_t bytes, at;  // at: the offset in the page-locked buffer
  };
  std::vector<Copy> copies;
  std::size_t total = 0;  // the page-locked bytes the queue needs

  /// The room a copy of `bytes` takes in the buffer: the next copy starts
  /// on a 256-byte boundary.
  static constexpr std::size_t padded(std::size_t bytes) {
    constexpr std::size_t kAlign = 256;
    return (bytes + kAlign - 1) / kAlign * kAlign;
  }
  /// Appends a copy and returns its number in the queue.
  std::size_t add(void* to, const void* from, std::size_t bytes) {
    copies.push_back({to, from, bytes, total});
    total += padded(bytes);
    return copies.size() - 1;
  }
  void clear() {
    copies.clear();
    total = 0;
  }
};

}  // namespace orrery::cuda
