#pragma once
// CUDA streams behind an opaque handle (no CUDA header: CUstream_st* is what
// cudaStream_t is, so .cu code passes handles straight to launches).
struct CUstream_st;

namespace orrery::cuda {

/// A stream handle; nullptr is the legacy default stream.
using StreamHandle = CUstream_st*;

/// Blocks the host until all work enqueued on `stream` has finished; throws
/// RuntimeFailure with the CUDA message if any of it failed.
void synchronize(StreamHandle stream);

/// An owned, non-blocking stream (does not synchronise with the default stream).
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(Stream&& other) noexcept;
  Stream& operator=(Stream&& other) noexcept;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  StreamHandle get() const { return handle_; }
  void synchronize() const { cuda::synchronize(handle_); }

 private:
  StreamHandle handle_ = nullptr;
};

}  // namespace orrery::cuda
