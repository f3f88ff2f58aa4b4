#include "orrery/mpi/communicator.hpp"

#include <mpi.h>

#include <limits>
#include <string>

#include "orrery/core/error.hpp"

namespace orrery::mpi {
namespace {

void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw RuntimeFailure(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

template <class T>
MPI_Datatype type_of();
template <>
MPI_Datatype type_of<float>() { return MPI_FLOAT; }
template <>
MPI_Datatype type_of<double>() { return MPI_DOUBLE; }
template <>
MPI_Datatype type_of<std::uint32_t>() { return MPI_UINT32_T; }
template <>
MPI_Datatype type_of<std::uint64_t>() { return MPI_UINT64_T; }

template <class T>
void gather(int size, std::span<const T> mine, std::span<const std::int64_t> cuts, std::span<T> all) {
  if (cuts.size() != static_cast<std::size_t>(size) + 1 || all.size() != static_cast<std::size_t>(cuts.back()))
    throw RuntimeFailure("allgather: " + std::to_string(cuts.size()) + " cuts for " + std::to_string(size) +
                         " ranks and " + std::to_string(all.size()) + " values for " +
                         std::to_string(cuts.empty() ? 0 : cuts.back()) + "; accepted: K + 1 cuts ending at the count");
  if (cuts.back() > std::numeric_limits<int>::max())
    throw InputError(std::to_string(cuts.back()) +
                     " particles in an MPI run; accepted: fewer than 2^31 (MPI counts are int)");
  std::vector<int> counts(static_cast<std::size_t>(size)), displacements(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    displacements[r] = static_cast<int>(cuts[r]);
    counts[r] = static_cast<int>(cuts[r + 1] - cuts[r]);
  }
  check(MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), type_of<T>(), all.data(), counts.data(),
                       displacements.data(), type_of<T>(), MPI_COMM_WORLD),
        "MPI_Allgatherv");
}

}  // namespace

Communicator Communicator::world() {
  Communicator c;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &c.rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &c.size_), "MPI_Comm_size");
  MPI_Comm node;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, c.rank_, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type");
  check(MPI_Comm_rank(node, &c.local_rank_), "MPI_Comm_rank");
  MPI_Comm_free(&node);
  return c;
}

void Communicator::allgather(std::span<const float> mine, std::span<const std::int64_t> cuts,
                             std::span<float> all) const {
  gather(size_, mine, cuts, all);
  count_gather(static_cast<std::int64_t>(mine.size_bytes()), static_cast<std::int64_t>(all.size_bytes()));
}
void Communicator::allgather(std::span<const double> mine, std::span<const std::int64_t> cuts,
                             std::span<double> all) const {
  gather(size_, mine, cuts, all);
  count_gather(static_cast<std::int64_t>(mine.size_bytes()), static_cast<std::int64_t>(all.size_bytes()));
}
void Communicator::allgather(std::span<const std::uint32_t> mine, std::span<const std::int64_t> cuts,
                             std::span<std::uint32_t> all) const {
  gather(size_, mine, cuts, all);
  count_gather(static_cast<std::int64_t>(mine.size_bytes()), static_cast<std::int64_t>(all.size_bytes()));
}
void Communicator::allgather(std::span<const std::uint64_t> mine, std::span<const std::int64_t> cuts,
                             std::span<std::uint64_t> all) const {
  gather(size_, mine, cuts, all);
  count_gather(static_cast<std::int64_t>(mine.size_bytes()), static_cast<std::int64_t>(all.size_bytes()));
}

void Communicator::count_gather(std::int64_t mine, std::int64_t all) const {
  traffic_.sent += mine * (size_ - 1);
  traffic_.received += all - mine;
}

void Communicator::count_reduce(std::int64_t bytes) const {
  if (size_ == 1) return;
  traffic_.sent += bytes;
  traffic_.received += bytes;
}

int Communicator::max(int value) const {
  count_reduce(sizeof value);
  int result = value;
  check(MPI_Allreduce(&value, &result, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return result;
}

void Communicator::sum(std::span<std::uint64_t> values) const {
  count_reduce(static_cast<std::int64_t>(values.size_bytes()));
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_SUM,
                      MPI_COMM_WORLD),
        "MPI_Allreduce");
}

namespace {

template <class T>
void reduce_in_place(std::span<T> values, MPI_Op op) {
  check(MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), type_of<T>(), op, MPI_COMM_WORLD),
        "MPI_Allreduce");
}

/// The int counts and displacements of byte offsets (K + 1 of them).
void int_counts(std::span<const std::int64_t> offsets, std::vector<int>& counts, std::vector<int>& displacements) {
  const std::size_t k = offsets.size() - 1;
  counts.resize(k);
  displacements.resize(k);
  for (std::size_t r = 0; r < k; ++r) {
    if (offsets[r + 1] > std::numeric_limits<int>::max())
      throw RuntimeFailure("an MPI exchange of " + std::to_string(offsets[r + 1]) +
                           " bytes; accepted: fewer than 2^31 bytes in all (MPI counts are int)");
    displacements[r] = static_cast<int>(offsets[r]);
    counts[r] = static_cast<int>(offsets[r + 1] - offsets[r]);
  }
}

std::vector<std::int64_t> offsets_of(const std::vector<int>& counts) {
  std::vector<std::int64_t> o(counts.size() + 1, 0);
  for (std::size_t r = 0; r < counts.size(); ++r) o[r + 1] = o[r] + counts[r];
  return o;
}

}  // namespace

void Communicator::min(std::span<std::uint64_t> values) const {
  count_reduce(static_cast<std::int64_t>(values.size_bytes()));
  reduce_in_place(values, MPI_MIN);
}
void Communicator::max(std::span<std::uint64_t> values) const {
  count_reduce(static_cast<std::int64_t>(values.size_bytes()));
  reduce_in_place(values, MPI_MAX);
}
void Communicator::min(std::span<double> values) const {
  count_reduce(static_cast<std::int64_t>(values.size_bytes()));
  reduce_in_place(values, MPI_MIN);
}
void Communicator::max(std::span<double> values) const {
  count_reduce(static_cast<std::int64_t>(values.size_bytes()));
  reduce_in_place(values, MPI_MAX);
}

void Communicator::exchange(std::span<const std::byte> send, std::span<const std::int64_t> to, ByteBuffer& received,
                            std::vector<std::int64_t>& from) const {
  if (to.size() != static_cast<std::size_t>(size_) + 1 || to.front() != 0 ||
      to.back() != static_cast<std::int64_t>(send.size()))
    throw RuntimeFailure("exchange: " + std::to_string(to.size()) + " offsets over " + std::to_string(send.size()) +
                         " bytes for " + std::to_string(size_) + " ranks; accepted: K + 1 offsets from 0 to the size");
  std::vector<int> send_counts, send_at, recv_counts(static_cast<std::size_t>(size_)), recv_at;
  int_counts(to, send_counts, send_at);
  check(MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Alltoall");
  from = offsets_of(recv_counts);
  int_counts(from, recv_counts, recv_at);
  received.resize_for_overwrite(static_cast<std::size_t>(from.back()));
  check(MPI_Alltoallv(send.data(), send_counts.data(), send_at.data(), MPI_BYTE, received.data(), recv_counts.data(),
                      recv_at.data(), MPI_BYTE, MPI_COMM_WORLD),
        "MPI_Alltoallv");
  // The counts and the parts between ranks; a rank's part for itself stays home.
  const std::int64_t counts = static_cast<std::int64_t>(sizeof(int)) * (size_ - 1);
  traffic_.sent += counts + to.back() - (to[rank_ + 1] - to[rank_]);
  traffic_.received += counts + from.back() - (from[rank_ + 1] - from[rank_]);
}

std::vector<std::byte> Communicator::allgather(std::span<const std::byte> mine, std::vector<std::int64_t>& from) const {
  std::vector<int> counts(static_cast<std::size_t>(size_)), at;
  const auto n = static_cast<std::int64_t>(mine.size());
  if (n > std::numeric_limits<int>::max())
    throw RuntimeFailure("an MPI allgather of " + std::to_string(n) + " bytes from one rank; accepted: fewer than 2^31");
  const int count = static_cast<int>(n);
  check(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
  from = offsets_of(counts);
  int_counts(from, counts, at);
  std::vector<std::byte> all(static_cast<std::size_t>(from.back()));
  check(MPI_Allgatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), at.data(), MPI_BYTE, MPI_COMM_WORLD),
        "MPI_Allgatherv");
  count_gather(static_cast<std::int64_t>(sizeof count), static_cast<std::int64_t>(sizeof count) * size_);
  count_gather(n, from.back());
  return all;
}

std::vector<std::byte> Communicator::gather_to_rank0(std::span<const std::byte> mine,
                                                    std::vector<std::int64_t>& from) const {
  std::vector<int> counts(static_cast<std::size_t>(size_)), at;
  const auto n = static_cast<std::int64_t>(mine.size());
  if (n > std::numeric_limits<int>::max())
    throw RuntimeFailure("an MPI gather of " + std::to_string(n) + " bytes from one rank; accepted: fewer than 2^31");
  const int count = static_cast<int>(n);
  check(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  if (rank_ != 0) counts.assign(counts.size(), 0);
  from = offsets_of(counts);
  int_counts(from, counts, at);
  std::vector<std::byte> all(static_cast<std::size_t>(from.back()));
  check(MPI_Gatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), at.data(), MPI_BYTE, 0, MPI_COMM_WORLD),
        "MPI_Gatherv");
  return all;
}

void Communicator::broadcast(std::span<std::byte> bytes) const {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw RuntimeFailure("an MPI broadcast of " + std::to_string(bytes.size()) + " bytes; accepted: fewer than 2^31");
  check(MPI_Bcast(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
}

std::int64_t Communicator::from_rank0(std::int64_t value) const {
  check(MPI_Bcast(&value, 1, MPI_INT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  if (rank_ == 0) traffic_.sent += static_cast<std::int64_t>(sizeof value) * (size_ - 1);
  else traffic_.received += static_cast<std::int64_t>(sizeof value);
  return value;
}

void Communicator::barrier() const { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

}  // namespace orrery::mpi
