#pragma once
// A receive buffer for the byte exchanges (communicator.hpp), kept by its
// caller across steps (issue 19). A std::vector<std::byte> made per call is
// zero-filled on fresh pages, and at tens of MB per pair those pages cost
// more than MPI's copy (docs/performance/mpi.md, "The exchange alone"). This
// one keeps its allocation when it is large enough and never zero-fills:
// MPI writes every byte that a receive counts, so none is read unwritten.
#include <cstddef>
#include <memory>
#include <span>
#include <utility>

namespace orrery::mpi {

class ByteBuffer {
 public:
  ByteBuffer() = default;
  ByteBuffer(ByteBuffer&& o) noexcept
      : data_(std::move(o.data_)), size_(std::exchange(o.size_, 0)), capacity_(std::exchange(o.capacity_, 0)) {}
  ByteBuffer& operator=(ByteBuffer&& o) noexcept {
    data_ = std::move(o.data_);
    size_ = std::exchange(o.size_, 0);
    capacity_ = std::exchange(o.capacity_, 0);
    return *this;
  }

  /// Makes size() n, for the caller to overwrite all n bytes: their values
  /// until then are unspecified. Within capacity() nothing is allocated;
  /// past it the old allocation is freed first (its bytes are not kept, so
  /// the two are never held at once) and one of exactly n bytes is made.
  void resize_for_overwrite(std::size_t n) {
    if (n > capacity_) {
      data_.reset();
      capacity_ = 0;
      data_ = std::make_unique_for_overwrite<std::byte[]>(n);
      capacity_ = n;
    }
    size_ = n;
  }

  std::byte* data() { return data_.get(); }
  const std::byte* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  /// The bytes held: the largest size() so far (the buffer never shrinks).
  std::size_t capacity() const { return capacity_; }
  // A contiguous range: a std::span<const std::byte> is made from it as
  // from a vector, so the readers (byte_stream.hpp) take it unchanged.
  std::byte* begin() { return data_.get(); }
  std::byte* end() { return data_.get() + size_; }
  const std::byte* begin() const { return data_.get(); }
  const std::byte* end() const { return data_.get() + size_; }

 private:
  std::unique_ptr<std::byte[]> data_;
  std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace orrery::mpi
