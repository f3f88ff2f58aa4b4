#pragma once
// One process's order over particles that the ranks hold apart (docs/adr/0012):
// each rank's particles carry their index in one process's arrays, and an
// output (a snapshot, a checkpoint, the diagnostics' sums) reads them in that
// order, piece by piece, on rank 0 alone. A piece [b, e) of the indices is
// gathered to rank 0 as one MPI_Gatherv of the values of that range, so rank
// 0 holds e - b values at a time and no rank ever holds every particle; what
// rank 0 sees is the same values in the same order for every K.
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "orrery/mpi/communicator.hpp"

namespace orrery::mpi {

class IndexOrder {
 public:
  /// `index`: the one-process index of each of this rank's particles (any
  /// order; together the ranks hold 0 .. N-1, each once). Collective.
  IndexOrder(std::span<const std::uint64_t> index, Communicator comm);

  /// N, the particles of every rank.
  std::int64_t total() const { return total_; }
  const Communicator& comm() const { return comm_; }

  /// The indices [begin, end) on rank 0: where each value a rank sends for
  /// them goes (rank 0 only; the others hold their own range).
  struct Piece {
    std::int64_t begin = 0, end = 0;
    std::size_t mine_begin = 0, mine_end = 0;  // this rank's particles in it, in sorted_ order
    std::vector<std::int64_t> place;           // rank 0: the offset in [0, end - begin) of each value received
  };
  /// Collective: every rank calls it with the same range. RuntimeFailure on
  /// rank 0 when the ranks do not hold every index of the range once.
  Piece piece(std::int64_t begin, std::int64_t end) const;

  /// `column` (one value of `width` bytes per particle of this rank, in its
  /// order) for the piece's indices, in index order on rank 0 ((end -
  /// begin) * width bytes); empty on every other rank. Collective.
  std::vector<std::byte> gather(const Piece& piece, std::span<const std::byte> column, std::size_t width) const;
  template <class T>
  std::vector<T> gather(const Piece& piece, const std::vector<T>& column) const {
    const std::vector<std::byte> bytes = gather(piece, std::as_bytes(std::span(column)), sizeof(T));
    std::vector<T> out(bytes.size() / sizeof(T));
    if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
    return out;
  }

 private:
  Communicator comm_;
  std::vector<std::uint64_t> index_;   // this rank's particles' indices, in its order
  std::vector<std::size_t> sorted_;    // its particles by index
  std::int64_t total_ = 0;
};

}  // namespace orrery::mpi
