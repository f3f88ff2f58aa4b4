#pragma once
// Copies from device arrays into ordinary (pageable) host arrays through one
// page-locked buffer. A copy from the device into pageable memory goes
// through the driver's own small staging at a few GB/s (3.5-3.7 GB/s measured
// on the H100 host); into page-locked memory it takes the link's rate, and
// the copy out into the caller's arrays runs on the process's threads.
// No CUDA header.
#include <cstddef>
#include <span>
#include <vector>

#include "orrery/cuda/pinned_buffer.hpp"
#include "orrery/cuda/staging_queue.hpp"
#include "orrery/cuda/stream.hpp"

namespace orrery::cuda {

class StagedDownload {
 public:
  /// max_staged: the most page-locked bytes a run may use (tests lower it).
  explicit StagedDownload(std::size_t max_staged = kMaxStagedBytes) : max_staged_(max_staged) {}
  /// Queues a copy of `bytes` from device address `from` to host address
  /// `to` and returns its number in the queue. With `to` null the bytes stay
  /// in the page-locked buffer, for a caller that reads them once in
  /// another form (staged()). The first add() after a run() starts a new queue.
  std::size_t add(void* to, const void* from, std::size_t bytes);
  /// Runs the queued copies on `stream` (one wait for all of them) and
  /// returns when every host array holds its bytes. The page-locked buffer
  /// is kept (PinnedBuffer: grown with room to spare) for the next run.
  /// A queue of more than max_staged bytes copies into its host arrays the
  /// pageable way and stages only the copies it keeps (packed; those are
  /// staged whatever their size, since staged() reads them there).
  void run(StreamHandle stream);
  /// The bytes of copy `k` of the last run, as elements of T, in the
  /// page-locked buffer: valid until the next add().
  template <class T>
  std::span<const T> staged(std::size_t k) const {
    const StagingQueue::Copy& c = queue_.copies.at(k);
    return {reinterpret_cast<const T*>(staging_.data() + c.at), c.bytes / sizeof(T)};
  }

 private:
  std::size_t max_staged_;
  StagingQueue queue_;
  bool ran_ = false;
  PinnedBuffer<std::byte> staging_;
};

}  // namespace orrery::cuda
