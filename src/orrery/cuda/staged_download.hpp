#pragma once
// Copies from device arrays into ordinary (pageable) host arrays through one
// page-locked buffer. A copy from the device into pageable memory goes
// through the driver's own small staging at a few GB/s (3.5-3.7 GB/s measured
// on the H100 host); into page-locked memory it takes the link's rate, and
// the copy out into the caller's arrays runs on the process's threads.
// No CUDA header.
#include <cstddef>
#include <vector>

#include "orrery/cuda/pinned_buffer.hpp"
#include "orrery/cuda/stream.hpp"

namespace orrery::cuda {

class StagedDownload {
 public:
  /// Queues a copy of `bytes` from device address `from` to host address `to`.
  void add(void* to, const void* from, std::size_t bytes);
  /// Runs the queued copies on `stream` and returns when every host array
  /// holds its bytes; the queue is then empty. The page-locked buffer is kept
  /// (PinnedBuffer: grown with room to spare) for the next run.
  void run(StreamHandle stream);

 private:
  struct Copy {
    void* to;
    const void* from;
    std::size_t bytes, at;  // at: the offset in the staging buffer
  };
  std::vector<Copy> copies_;
  std::size_t total_ = 0;
  PinnedBuffer<std::byte> staging_;
};

}  // namespace orrery::cuda
