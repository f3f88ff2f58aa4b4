#pragma once
// Page-locked host memory: an owning buffer that stages copies between host
// and device, and the byte-level calls it is built on. No CUDA header.
#include <cstddef>
#include <memory>
#include <span>
#include <type_traits>

namespace orrery::cuda {

/// cudaMallocHost of `bytes`: page-locked host memory, which copies to and
/// from the device reach at the link's full rate (the driver stages pageable
/// memory through a buffer of its own, at a fraction of it). Nothing for 0
/// (nullptr). On failure throws RuntimeFailure naming the call, the CUDA
/// error and the bytes requested.
void* allocate_pinned_bytes(std::size_t bytes);
void free_pinned_bytes(void* p) noexcept;

/// Page-locked host memory for the staging of copies, grown on demand and
/// never shrunk: a walk's results of different sizes, call after call. It
/// grows with an eighth more room than asked: a rank's count changes a
/// little from step to step, and each growth is a cudaFreeHost and a
/// cudaMallocHost, which synchronise the device (measured: four ranks
/// sharing one GPU downloaded 2-3x slower growing to the exact count).
template <class T>
class PinnedBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "pinned buffers hold trivially copyable types");

 public:
  /// The first `count` elements, the buffer grown to hold them (its contents
  /// are lost when it grows, kept otherwise).
  std::span<T> first(std::size_t count) {
    if (count > size_) {
      data_.reset();  // the old block goes first: the two need not fit together
      size_ = 0;      // and a failed allocation leaves an empty buffer, not a stale size
      const std::size_t room = count + count / 8;
      data_.reset(static_cast<T*>(allocate_pinned_bytes(room * sizeof(T))));
      size_ = room;
    }
    return {data_.get(), count};
  }
  /// The block (null while empty), for reading what an earlier first() staged.
  const T* data() const { return data_.get(); }

 private:
  struct Free {
    void operator()(T* p) const noexcept { free_pinned_bytes(p); }
  };
  std::unique_ptr<T, Free> data_;
  std::size_t size_ = 0;
};

}  // namespace orrery::cuda
