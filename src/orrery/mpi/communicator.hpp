#pragma once
// The collectives a replicated-particle run needs (docs/adr/0013), over
// MPI_COMM_WORLD, with no MPI header: every one is exact. Gathers move bits,
// integer reductions (max, sum) do not depend on the order of the ranks, and
// there is deliberately no floating-point reduction: nothing compared bitwise
// may be summed by MPI in an order that depends on K.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "orrery/mpi/byte_buffer.hpp"

namespace orrery::mpi {

/// Bytes a rank's collectives moved (docs/performance/mpi.md, part 2):
/// `received` what reached this rank from the others, `sent` what of this
/// rank's reached the others (an allgathered piece counts once per
/// receiver; a reduction of n values counts n values each way, the least any
/// algorithm moves). Counted from the calls' sizes, never read for a result.
struct Traffic {
  std::int64_t sent = 0, received = 0;
  Traffic operator-(const Traffic& o) const { return {sent - o.sent, received - o.received}; }
};

class Communicator {
 public:
  /// Every rank of MPI_COMM_WORLD; initialize() must have been called.
  static Communicator world();

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// This rank's place among the ranks on its node (for the choice of a GPU).
  int local_rank() const { return local_rank_; }

  /// Rank r contributes mine (cuts[r + 1] - cuts[r] values); `all` (cuts[K]
  /// values) receives rank r's at cuts[r]. cuts is the same on every rank,
  /// starts at 0, and its counts fit an int (N < 2^31).
  void allgather(std::span<const float> mine, std::span<const std::int64_t> cuts, std::span<float> all) const;
  void allgather(std::span<const double> mine, std::span<const std::int64_t> cuts, std::span<double> all) const;
  void allgather(std::span<const std::uint32_t> mine, std::span<const std::int64_t> cuts,
                 std::span<std::uint32_t> all) const;
  void allgather(std::span<const std::uint64_t> mine, std::span<const std::int64_t> cuts,
                 std::span<std::uint64_t> all) const;

  /// The largest `value` over the ranks (exact).
  int max(int value) const;
  /// Element-wise integer sums over the ranks, in place (exact, any order).
  void sum(std::span<std::uint64_t> values) const;
  /// Element-wise minima and maxima over the ranks, in place: exact for
  /// doubles too (a minimum rounds nothing), so these are allowed where a
  /// floating-point sum is not.
  void min(std::span<std::uint64_t> values) const;
  void max(std::span<std::uint64_t> values) const;
  void min(std::span<double> values) const;
  void max(std::span<double> values) const;

  /// Personalised exchange (MPI_Alltoallv of bytes): rank q receives
  /// send[to[q] .. to[q + 1]) of every rank. `received` becomes what this
  /// rank receives, in rank order, with from[r] .. from[r + 1] the part rank
  /// r sent; to has K + 1 offsets starting at 0. Each part must be under
  /// 2^31 bytes. `received` is the caller's to keep across calls: MPI writes
  /// into it where it is large enough, not zero-filled (byte_buffer.hpp).
  void exchange(std::span<const std::byte> send, std::span<const std::int64_t> to, ByteBuffer& received,
                std::vector<std::int64_t>& from) const;
  /// Every rank's bytes, in rank order (rank r's at from[r] .. from[r + 1]).
  std::vector<std::byte> allgather(std::span<const std::byte> mine, std::vector<std::int64_t>& from) const;
  /// Every rank's bytes on rank 0 alone, in rank order (rank r's at from[r]
  /// .. from[r + 1]); the other ranks get nothing (an output's pieces: no
  /// rank but the writer holds them).
  std::vector<std::byte> gather_to_rank0(std::span<const std::byte> mine, std::vector<std::int64_t>& from) const;
  /// Rank 0's bytes into every rank's `bytes` (the same size on every rank).
  void broadcast(std::span<std::byte> bytes) const;
  /// Rank 0's value, on every rank.
  std::int64_t from_rank0(std::int64_t value) const;
  void barrier() const;

  /// The bytes this communicator's collectives have moved on this rank so far.
  Traffic traffic() const { return traffic_; }

 private:
  void count_gather(std::int64_t mine, std::int64_t all) const;
  void count_reduce(std::int64_t bytes) const;

  int rank_ = 0, size_ = 1, local_rank_ = 0;
  mutable Traffic traffic_;  // a count of what the (const) collectives did, not part of any result
};

}  // namespace orrery::mpi
