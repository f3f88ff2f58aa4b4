#include "orrery/mpi/migrate.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "orrery/core/error.hpp"

#include "orrery/mpi/byte_stream.hpp"

namespace orrery::mpi {
namespace {

/// Particles [b, b + n) of s as one part of a message: their count, then every field.
template <class Real>
void write_part(ByteWriter& w, const RankParticles<Real>& s, std::size_t b, std::size_t n) {
  w.put(static_cast<std::int64_t>(n));
  for_each_field([&](const auto& v) { w.put(std::span(v.data() + b, n)); }, s);
}

/// The parts [from[r], from[r + 1]) of `all`, appended in rank order.
template <class Real>
RankParticles<Real> read_parts(std::span<const std::byte> all, const std::vector<std::int64_t>& from) {
  RankParticles<Real> out;
  for (std::size_t r = 0; r + 1 < from.size(); ++r) {
    ByteReader in{all.subspan(from[r], from[r + 1] - from[r])};
    const auto n = static_cast<std::size_t>(in.get<std::int64_t>());
    const auto b = static_cast<std::size_t>(out.size());
    out.resize(b + n);
    for_each_field([&](auto& v) { in.get(std::span(v.data() + b, n)); }, out);
  }
  return out;
}

}  // namespace

template <class Real>
RankParticles<Real> migrate(const RankParticles<Real>& mine, std::span<const int> dest, const Communicator& comm) {
  const int ranks = comm.size();
  // The particles by destination, in their order (a stable counting sort).
  std::vector<std::int64_t> at(static_cast<std::size_t>(ranks) + 1, 0), order(dest.size());
  for (const int d : dest) ++at[d + 1];
  for (int r = 0; r < ranks; ++r) at[r + 1] += at[r];
  {
    std::vector<std::int64_t> fill(at.begin(), at.end() - 1);
    for (std::size_t k = 0; k < dest.size(); ++k) order[fill[dest[k]]++] = static_cast<std::int64_t>(k);
  }
  const RankParticles<Real> grouped = permuted(mine, order);
  std::vector<std::byte> send;
  std::vector<std::int64_t> to(static_cast<std::size_t>(ranks) + 1, 0);
  ByteWriter w(send);
  for (int r = 0; r < ranks; ++r) {
    write_part(w, grouped, static_cast<std::size_t>(at[r]), static_cast<std::size_t>(at[r + 1] - at[r]));
    to[r + 1] = static_cast<std::int64_t>(send.size());
  }
  std::vector<std::int64_t> from;
  const std::vector<std::byte> got = comm.exchange(send, to, from);
  return read_parts<Real>(got, from);
}

template <class Real>
RankParticles<Real> gathered_in_index_order(const RankParticles<Real>& mine, const Communicator& comm) {
  std::vector<std::byte> bytes;
  ByteWriter w(bytes);
  write_part(w, mine, 0, static_cast<std::size_t>(mine.size()));
  std::vector<std::int64_t> from;
  const std::vector<std::byte> all = comm.allgather(bytes, from);
  RankParticles<Real> out = read_parts<Real>(all, from);
  std::vector<std::int64_t> order(static_cast<std::size_t>(out.size()));
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (out.index[k] >= order.size())
      throw RuntimeFailure("particle index " + std::to_string(out.index[k]) + " among " + std::to_string(order.size()) +
                           " particles; accepted: the indices 0 .. N-1 of one process's arrays, each once");
    order[out.index[k]] = static_cast<std::int64_t>(k);
  }
  return permuted(out, order);
}

template <class Real>
RankParticles<Real> sorted_by_key(const RankParticles<Real>& in, const bh::Cube& cube, std::vector<std::uint64_t>& keys) {
  const auto n = static_cast<std::size_t>(in.size());
  std::vector<std::uint64_t> k(n);
  for (std::size_t j = 0; j < n; ++j) k[j] = bh::position_key(in.p.x[j], in.p.y[j], in.p.z[j], cube);
  std::vector<std::int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return k[a] != k[b] ? k[a] < k[b] : in.index[a] < in.index[b];
  });
  keys.resize(n);
  for (std::size_t j = 0; j < n; ++j) keys[j] = k[static_cast<std::size_t>(order[j])];
  return permuted(in, order);
}

template RankParticles<float> migrate(const RankParticles<float>&, std::span<const int>, const Communicator&);
template RankParticles<double> migrate(const RankParticles<double>&, std::span<const int>, const Communicator&);
template RankParticles<float> gathered_in_index_order(const RankParticles<float>&, const Communicator&);
template RankParticles<double> gathered_in_index_order(const RankParticles<double>&, const Communicator&);
template RankParticles<float> sorted_by_key(const RankParticles<float>&, const bh::Cube&, std::vector<std::uint64_t>&);
template RankParticles<double> sorted_by_key(const RankParticles<double>&, const bh::Cube&,
                                             std::vector<std::uint64_t>&);

}  // namespace orrery::mpi
