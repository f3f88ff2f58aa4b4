#pragma once
// A sorted stream of records that the ranks hold apart, read on rank 0 in
// one global order (a K-way merge), piece by piece: e.g. the particles by
// radius for the Lagrangian radii, whose enclosed mass is a sum in that order
// (diag/lagrangian_radii.hpp). Each round rank 0 asks every rank whose
// records it has used up for its next `piece` (a broadcast of the counts,
// then one MPI_Gatherv), and merges until it needs more from one of them; it
// holds at most `piece` records per rank. The order is a pure function of
// the records, so rank 0 sees the same sequence for every K.
#include <cstdint>
#include <cstring>
#include <deque>
#include <span>
#include <type_traits>
#include <vector>

#include "orrery/mpi/communicator.hpp"

namespace orrery::mpi {

/// `mine`: this rank's records, ascending by operator< (no two records of
/// all ranks equal). Calls consume(record) on rank 0 for every record of
/// every rank in ascending order, until it returns false. Collective.
template <class Record, class Consume>
void merge_to_rank0(std::span<const Record> mine, std::int64_t piece, const Communicator& comm, Consume&& consume) {
  static_assert(std::is_trivially_copyable_v<Record>, "records travel as bytes");
  const auto ranks = static_cast<std::size_t>(comm.size());
  const bool root = comm.rank() == 0;
  std::vector<std::deque<Record>> buffer(root ? ranks : 0);
  std::vector<char> exhausted(root ? ranks : 0, 0);
  std::vector<std::int64_t> want(ranks, 0);
  std::size_t next = 0;
  bool stop = false;
  for (;;) {
    if (root)
      for (std::size_t r = 0; r < ranks; ++r) want[r] = stop || exhausted[r] || !buffer[r].empty() ? 0 : piece;
    comm.broadcast(std::as_writable_bytes(std::span<std::int64_t>(want)));
    bool asked = false;
    for (const auto w : want) asked |= w > 0;
    if (!asked) return;
    const std::size_t n = std::min(static_cast<std::size_t>(want[static_cast<std::size_t>(comm.rank())]),
                                   mine.size() - next);
    std::vector<std::int64_t> from;
    const std::vector<std::byte> got = comm.gather_to_rank0(std::as_bytes(mine.subspan(next, n)), from);
    next += n;
    if (!root) continue;
    for (std::size_t r = 0; r < ranks; ++r) {
      const auto count = static_cast<std::size_t>(from[r + 1] - from[r]) / sizeof(Record);
      for (std::size_t q = 0; q < count; ++q) {
        Record rec;
        std::memcpy(&rec, got.data() + from[r] + q * sizeof(Record), sizeof(Record));
        buffer[r].push_back(rec);
      }
      if (want[r] > 0 && count < static_cast<std::size_t>(want[r])) exhausted[r] = 1;
    }
    // Merge as far as every rank that may have more has a record at hand.
    while (!stop) {
      std::size_t best = ranks;
      bool starved = false;
      for (std::size_t r = 0; r < ranks && !starved; ++r) {
        if (buffer[r].empty()) {
          starved = !exhausted[r];
          continue;
        }
        if (best == ranks || buffer[r].front() < buffer[best].front()) best = r;
      }
      if (starved || best == ranks) break;
      stop = !consume(buffer[best].front());
      buffer[best].pop_front();
    }
  }
}

}  // namespace orrery::mpi
