#pragma once
// Copies from ordinary (pageable) host arrays into device arrays through one
// page-locked buffer: the mirror of StagedDownload. From pageable memory the
// driver stages a copy through a small buffer of its own at a few GB/s (a
// GPU rank's walk uploaded its tree at about 6.8 GB/s on the H100 host);
// here the copy into page-locked memory runs on the process's threads,
// piece by piece, and each piece's transfer is enqueued as soon as it is
// staged, so the next piece's copy overlaps it. No CUDA header.
#include <cstddef>

#include "orrery/cuda/pinned_buffer.hpp"
#include "orrery/cuda/staging_queue.hpp"
#include "orrery/cuda/stream.hpp"

namespace orrery::cuda {

class StagedUpload {
 public:
  /// max_staged: the most page-locked bytes a run may use (tests lower it).
  explicit StagedUpload(std::size_t max_staged = kMaxStagedBytes) : max_staged_(max_staged) {}
  /// Queues a copy of `bytes` from host address `from` to device address `to`.
  void add(void* to, const void* from, std::size_t bytes) { queue_.add(to, from, bytes); }
  /// Runs the queued copies on `stream` and returns when every device array
  /// holds its bytes (the host arrays may then change); the queue is
  /// emptied, the page-locked buffer kept (grown with room to spare). A
  /// queue of more than max_staged bytes is copied from pageable memory.
  void run(StreamHandle stream);

 private:
  std::size_t max_staged_;
  StagingQueue queue_;
  PinnedBuffer<std::byte> staging_;
};

}  // namespace orrery::cuda
