#pragma once
// Messages of plain values as bytes, for the exchanges of a distributed tree
// (docs/adr/0012): written and read back in the same order on the same kind
// of machine, so a value arrives with the bits it left with. Long spans are
// copied with the rank's threads (parallel_copy.hpp: the same bytes).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/mpi/parallel_copy.hpp"

namespace orrery::mpi {

/// Appends trivially copyable values to a byte vector.
class ByteWriter {
 public:
  explicit ByteWriter(std::vector<std::byte>& out) : out_(out) {}
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto at = out_.size();
    out_.resize(at + sizeof(T));
    std::memcpy(out_.data() + at, &v, sizeof(T));
  }
  template <class T>
  void put(std::span<const T> v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto at = out_.size();
    out_.resize(at + v.size_bytes());
    if (!v.empty()) copy_bytes(out_.data() + at, v.data(), v.size_bytes());
  }
  /// Appends n bytes and returns where they start, for the caller to fill
  /// (valid until the next put or grow).
  std::byte* grow(std::size_t n) {
    const auto at = out_.size();
    out_.resize(at + n);
    return out_.data() + at;
  }

 private:
  std::vector<std::byte>& out_;
};

/// Reads what a ByteWriter wrote, in the same order; a message shorter than
/// what is read is a RuntimeFailure (a protocol error between ranks).
class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> in) : in_(in) {}
  template <class T>
  T get() {
    T v;
    read(&v, sizeof(T));
    return v;
  }
  template <class T>
  void get(std::span<T> v) {
    read(v.data(), v.size_bytes());
  }
  /// The next n bytes where they lie in the message (valid while it is; not
  /// aligned for any type), passed over as get() would read them.
  std::span<const std::byte> take(std::size_t n) {
    const std::span<const std::byte> v = in_.subspan(fits(n), n);
    at_ += n;
    return v;
  }
  bool done() const { return at_ == in_.size(); }

 private:
  void read(void* to, std::size_t n) {
    if (n > 0) copy_bytes(to, in_.data() + fits(n), n);
    at_ += n;
  }
  /// Where the next n bytes start, which the message must hold.
  std::size_t fits(std::size_t n) const {
    if (at_ + n > in_.size())
      throw RuntimeFailure("an MPI message of " + std::to_string(in_.size()) + " bytes read past its end (at " +
                           std::to_string(at_) + " + " + std::to_string(n) +
                           "); accepted: messages read as they were written");
    return at_;
  }
  std::span<const std::byte> in_;
  std::size_t at_ = 0;
};

}  // namespace orrery::mpi
