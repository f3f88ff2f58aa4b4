#pragma once
// Device memory: an owning RAII buffer of trivially copyable elements, and the
// byte-level calls it is built on. No CUDA header.
//
// Copies between host and device are stream-ordered and then synchronised with
// that stream, so the host may reuse or read its array as soon as they return.
#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

#include "orrery/cuda/stream.hpp"

namespace orrery::cuda {

/// cudaMalloc of `bytes` (nothing for 0: returns nullptr). On failure throws
/// RuntimeFailure naming the call and CUDA error, the bytes requested and the
/// bytes free and total on the current device.
void* allocate_device_bytes(std::size_t bytes);
void free_device_bytes(void* p) noexcept;
void copy_host_to_device(void* dst, const void* src, std::size_t bytes, StreamHandle stream);
void copy_device_to_host(void* dst, const void* src, std::size_t bytes, StreamHandle stream);
/// Enqueued on `stream` and not waited for: `dst` (page-locked, or the copy
/// is synchronous anyway) holds the bytes once the stream is synchronised.
void copy_device_to_host_async(void* dst, const void* src, std::size_t bytes, StreamHandle stream);
/// Enqueued on `stream` and not waited for: `src` (page-locked, or the copy
/// is synchronous anyway) must hold its bytes until the stream is synchronised.
void copy_host_to_device_async(void* dst, const void* src, std::size_t bytes, StreamHandle stream);
/// Asynchronous on `stream` (device-to-device copies need no host sync).
void copy_device_to_device(void* dst, const void* src, std::size_t bytes, StreamHandle stream);
/// Sets `bytes` bytes to zero, asynchronously on `stream`.
void zero_device_bytes(void* dst, std::size_t bytes, StreamHandle stream);

/// An owning array of `size()` elements of T in device memory. Move-only. The
/// contents are uninitialised after construction and resize().
template <class T>
class DeviceBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "device buffers hold trivially copyable types");

 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count)
      : data_(static_cast<T*>(allocate_device_bytes(count * sizeof(T)))), size_(count), capacity_(count) {}
  ~DeviceBuffer() { free_device_bytes(data_); }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        capacity_(std::exchange(o.capacity_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      free_device_bytes(data_);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      capacity_ = std::exchange(o.capacity_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  bool empty() const { return size_ == 0; }

  /// The elements the block holds (size() or more, after fit()).
  std::size_t capacity() const { return capacity_; }

  /// Reallocates to exactly `count` elements when the size differs (contents lost).
  void resize(std::size_t count) {
    if (count != size_) *this = DeviceBuffer(count);
  }
  /// size() becomes `count`, in the same block when it holds that many
  /// (contents kept), else in a new one with an eighth more room (contents
  /// lost): for arrays whose size changes a little from call to call (a
  /// walk's tree, a rank's targets), which resize() would reallocate every
  /// time, and cudaFree synchronises the whole device.
  void fit(std::size_t count) {
    if (count <= capacity_) {
      size_ = count;
      return;
    }
    *this = DeviceBuffer();  // the old block goes first: the two need not fit together
    *this = DeviceBuffer(count + count / 8);
    size_ = count;
  }
  /// Copies host.size() elements from the host to the front of this buffer.
  void upload(std::span<const T> host, StreamHandle stream = nullptr) {
    check_fits(host.size());
    copy_host_to_device(data_, host.data(), host.size_bytes(), stream);
  }
  /// Copies the first host.size() elements of this buffer to the host.
  void download(std::span<T> host, StreamHandle stream = nullptr) const {
    check_fits(host.size());
    copy_device_to_host(host.data(), data_, host.size_bytes(), stream);
  }
  void zero(StreamHandle stream = nullptr) { zero_device_bytes(data_, bytes(), stream); }

 private:
  void check_fits(std::size_t count) const;
  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

/// Throws RuntimeFailure: a host array of `count` elements does not fit a buffer of `size`.
[[noreturn]] void throw_size_mismatch(std::size_t count, std::size_t size);

template <class T>
void DeviceBuffer<T>::check_fits(std::size_t count) const {
  if (count > size_) throw_size_mismatch(count, size_);
}

}  // namespace orrery::cuda
