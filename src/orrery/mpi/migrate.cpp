#include "orrery/mpi/migrate.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <ranges>
#include <string>
#include <utility>

#include "orrery/core/error.hpp"

#include "orrery/mpi/byte_stream.hpp"
#include "orrery/mpi/key_order.hpp"
#include "orrery/mpi/parallel_copy.hpp"

namespace orrery::mpi {
namespace {

/// The bytes of one particle, every field.
template <class Real>
std::size_t particle_bytes(const RankParticles<Real>& s) {
  std::size_t b = 0;
  for_each_field([&](const auto& v) { b += sizeof(v[0]); }, s);
  return b;
}

/// The particles in part r of a message (from[r] .. from[r + 1] of `all`):
/// every part starts with its count.
inline std::int64_t part_count(std::span<const std::byte> all, const std::vector<std::int64_t>& from, std::size_t r) {
  return ByteReader{all.subspan(from[r], from[r + 1] - from[r])}.get<std::int64_t>();
}

/// Particles first .. first + n of s as one part of a message: their count,
/// then every field, copied as they lie (with the rank's threads).
template <class Real>
void write_part(ByteWriter& w, const RankParticles<Real>& s, std::int64_t first, std::size_t n) {
  w.put(static_cast<std::int64_t>(n));
  for_each_field([&](const auto& v) { copy_bytes(w.grow(n * sizeof(v[0])), v.data() + first, n * sizeof(v[0])); }, s);
}

/// The parts [from[r], from[r + 1]) of `all`, appended in rank order, but
/// for part `skip` (a rank's own: empty, its particles never travel).
template <class Real>
RankParticles<Real> read_parts(std::span<const std::byte> all, const std::vector<std::int64_t>& from, int skip = -1) {
  const std::size_t parts = from.size() - 1;
  std::vector<std::size_t> at(parts + 1, 0);  // each part's first particle in `out`
  for (std::size_t r = 0; r < parts; ++r)
    at[r + 1] = at[r] + (static_cast<int>(r) == skip ? 0 : static_cast<std::size_t>(part_count(all, from, r)));
  RankParticles<Real> out;
  out.resize(at[parts]);
  for (std::size_t r = 0; r < parts; ++r) {
    if (static_cast<int>(r) == skip) continue;
    const std::size_t b = at[r], n = at[r + 1] - at[r];
    ByteReader in{all.subspan(from[r], from[r + 1] - from[r])};
    in.get<std::int64_t>();
    for_each_field([&](auto& v) { in.get(std::span(v.data() + b, n)); }, out);
  }
  return out;
}

/// The particles that stayed (`mine`'s [home_first, home_first + home_n),
/// in order, `keys` theirs) with the few that arrived merged in, and their
/// keys in `keys`: each arrival's place found by a binary search in the
/// run that stayed (the arrivals sorted first), then every field copied in
/// blocks, the runs between arrivals as they lie: the (key, index) order of
/// the full sort, without an order of n or a gather through it.
template <class Real>
RankParticles<Real> merged_few(const RankParticles<Real>& mine, std::vector<std::uint64_t>& keys,
                               std::int64_t home_first, std::int64_t home_n, const RankParticles<Real>& came,
                               const bh::Cube& cube) {
  const std::int64_t m = came.size(), n = home_n + m;
  // The arrivals in (key, index, arrival) order: their own sort, few pairs.
  std::vector<std::uint64_t> sorted_ka;
  std::vector<std::int32_t> pa;
  sort_by_key_and_tie(position_keys(came.p.sources(), cube), std::span<const std::uint64_t>(came.index), sorted_ka, pa);
  // pos[k]: the particles that stayed before sorted arrival k (the pairs
  // are distinct: an index is held once).
  const std::uint64_t* home_key = keys.data() + home_first;
  const std::uint64_t* home_index = mine.index.data() + home_first;
  std::vector<std::int64_t> pos(static_cast<std::size_t>(m));
#pragma omp parallel for schedule(static) if (m >= kParallelLoop)
  for (std::int64_t k = 0; k < m; ++k) {
    const std::uint64_t key = sorted_ka[k], index = came.index[pa[k]];
    pos[k] = *std::ranges::partition_point(std::views::iota(std::int64_t(0), home_n), [&](std::int64_t h) {
      return home_key[h] != key ? home_key[h] < key : home_index[h] < index;
    });
  }
  // The home runs between arrivals, cut into pieces for the threads: piece
  // (from, to_at, len) copies home [from, from + len) to out [to_at, ...).
  struct Piece {
    std::int64_t from, at, len;
  };
  constexpr std::int64_t kPiece = std::int64_t(1) << 16;
  std::vector<Piece> pieces;
  for (std::int64_t k = 0, b = 0; k <= m; ++k) {
    const std::int64_t e = k < m ? pos[k] : home_n;
    for (std::int64_t f = b; f < e; f += kPiece) pieces.push_back({f, f + k, std::min(kPiece, e - f)});
    b = e;
  }
  const auto np = static_cast<std::int64_t>(pieces.size());
  // to = the home pieces of `stayed` with arrival k's value, arrival(k), at pos[k] + k.
  const auto place = [&](auto* to, const auto* stayed, const auto& arrival) {
#pragma omp parallel for schedule(dynamic, 4) if (n >= kParallelLoop)
    for (std::int64_t c = 0; c < np; ++c)
      std::memcpy(to + pieces[c].at, stayed + home_first + pieces[c].from, pieces[c].len * sizeof(*to));
    for (std::int64_t k = 0; k < m; ++k) to[pos[k] + k] = arrival(k);
  };
  RankParticles<Real> out;
  out.resize(static_cast<std::size_t>(n));
  for_each_field(
      [&](auto& to, const auto& stayed, const auto& arrived) {
        place(to.data(), stayed.data(), [&](std::int64_t k) { return arrived[pa[k]]; });
      },
      out, mine, came);
  std::vector<std::uint64_t> k_out(static_cast<std::size_t>(n));
  place(k_out.data(), keys.data(), [&](std::int64_t k) { return sorted_ka[k]; });
  keys = std::move(k_out);
  return out;
}

}  // namespace

template <class Real>
RankParticles<Real> migrate(RankParticles<Real>&& mine, std::vector<std::uint64_t>& keys,
                            std::span<const std::int64_t> starts, const bh::Cube& cube, const Communicator& comm,
                            ByteBuffer& received, const std::function<void(const char*)>& lap) {
  const auto piece = [&lap](const char* name) {
    if (lap) lap(name);
  };
  const int ranks = comm.size(), self = comm.rank();
  bool valid = starts.size() == static_cast<std::size_t>(ranks) + 1 && starts.front() == 0 && starts.back() == mine.size();
  for (int r = 0; valid && r < ranks; ++r) valid = starts[r] <= starts[r + 1];
  if (!valid)
    throw RuntimeFailure("migrate: " + std::to_string(starts.size()) + " domain starts for " + std::to_string(ranks) +
                         " ranks and " + std::to_string(mine.size()) +
                         " particles; accepted: K + 1 starts rising from 0 to the particle count");
  const auto& at = starts;
  // The parts for the other ranks, gathered from `mine` into one message;
  // this rank's own part is copied once, from `mine` into the result.
  std::vector<std::byte> send;
  send.reserve(static_cast<std::size_t>(ranks) * sizeof(std::int64_t) +
               static_cast<std::size_t>(mine.size() - (at[self + 1] - at[self])) *
                   particle_bytes(mine));
  std::vector<std::int64_t> to(static_cast<std::size_t>(ranks) + 1, 0), from;
  ByteWriter w(send);
  for (int r = 0; r < ranks; ++r) {
    if (r != self)
      write_part(w, mine, at[r], static_cast<std::size_t>(at[r + 1] - at[r]));
    to[r + 1] = static_cast<std::int64_t>(send.size());
  }
  piece("pack");
  comm.exchange(send, to, received, from);
  piece("alltoall");
  // The particles that stay: home_first .. home_first + home_n, in order.
  const std::int64_t home_first = at[self], home_n = at[self + 1] - at[self];
  // Every part received holds at least its count (each rank sends every
  // other its part, empty or not): nothing arrived if every count is 0, and
  // nothing left if the home part is all of `mine`, in its order (the
  // counting sort is stable). Then `mine` is the result as it is.
  bool arrived = false;
  std::int64_t home_at = 0;  // the particles from the ranks before this one
  for (int r = 0; r < ranks; ++r)
    if (r != self) {
      const std::int64_t n = part_count(received, from, static_cast<std::size_t>(r));
      arrived |= n != 0;
      if (r < self) home_at += n;
    }
  if (!arrived && home_n == mine.size()) {
    piece("rebuild");
    return std::move(mine);
  }
  // The arrivals alone (usually few: they crossed a boundary), in rank
  // order: those of the ranks before this one first (home_at of them).
  const RankParticles<Real> arrived_particles = read_parts<Real>(received, from, self);
  if (arrived_particles.size() <= home_n / 8) {
    RankParticles<Real> out = merged_few(mine, keys, home_first, home_n, arrived_particles, cube);
    piece("rebuild");
    return out;
  }
  const std::int64_t n = arrived_particles.size() + home_n;
  const auto is_home = [&](std::int64_t j) { return j >= home_at && j < home_at + home_n; };
  const auto arrival = [&](std::int64_t j) { return j < home_at ? j : j - home_n; };
  // The keys and indices of every particle held, the parts in rank order,
  // this rank's own in its place: those of the particles that stayed are
  // known, the arrivals' keys computed.
  std::vector<std::uint64_t> k(static_cast<std::size_t>(n)), tie(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) if (n >= kParallelLoop)
  for (std::int64_t j = 0; j < n; ++j) {
    if (is_home(j)) {
      const std::int64_t h = home_first + (j - home_at);
      k[j] = keys[h], tie[j] = mine.index[h];
    } else {
      const std::int64_t a = arrival(j);
      const auto& q = arrived_particles.p;
      k[j] = bh::position_key(q.x[a], q.y[a], q.z[a], cube), tie[j] = arrived_particles.index[a];
    }
  }
  // The particles that stayed are in order: the arrivals are merged into
  // them. Then every field is gathered once, straight from where it is.
  std::vector<std::int32_t> by;
  sort_by_key_and_tie(std::move(k), std::span<const std::uint64_t>(tie), keys, by);
  RankParticles<Real> out;
  out.resize(static_cast<std::size_t>(n));
  for_each_field(
      [&](auto& to, const auto& stayed, const auto& came) {
#pragma omp parallel for schedule(static) if (n >= kParallelLoop)
        for (std::int64_t q = 0; q < n; ++q) {
          const std::int64_t j = by[q];
          to[q] = is_home(j) ? stayed[home_first + (j - home_at)] : came[arrival(j)];
        }
      },
      out, mine, arrived_particles);
  piece("rebuild");
  return out;
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
std::vector<std::uint64_t> position_keys(const SourcesView<Real>& p, const bh::Cube& cube) {
  const auto n = p.count;
  std::vector<std::uint64_t> k(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) if (n >= kParallelLoop)
  for (std::int64_t j = 0; j < n; ++j) k[j] = bh::position_key(p.x[j], p.y[j], p.z[j], cube);
  return k;
}

template <class Real>
void sort_by_key_in_place(RankParticles<Real>& particles, const bh::Cube& cube, std::vector<std::uint64_t>& keys,
                          ByteBuffer& scratch, std::vector<Real>& spare, const std::function<void(const char*)>& lap,
                          const ParticleOrder<Real>& order_of) {
  const std::function<void(const char*)> piece = [&lap](const char* name) {
    if (lap) lap(name);
  };
  std::vector<std::int32_t> order;
  bool in_order = false;
  if (order_of) {
    in_order = order_of(particles, cube, keys, order, piece);
  } else {
    std::vector<std::uint64_t> k = position_keys(particles.p.sources(), cube);
    piece("keys");
    // The order by (key, index) into `keys` and `order`; moved: the sort
    // keeps them as the sorted keys where they are in order (the const
    // overload would copy them first).
    in_order = sort_by_key_and_tie(std::move(k), std::span<const std::uint64_t>(particles.index), keys, order);
  }
  piece("order");
  if (!in_order) permute_in_place(particles, order, scratch, spare);
  piece("permute");
}

template RankParticles<float> migrate(RankParticles<float>&&, std::vector<std::uint64_t>&,
                                             std::span<const std::int64_t>, const bh::Cube&, const Communicator&,
                                             ByteBuffer&, const std::function<void(const char*)>&);
template RankParticles<double> migrate(RankParticles<double>&&, std::vector<std::uint64_t>&,
                                              std::span<const std::int64_t>, const bh::Cube&, const Communicator&,
                                              ByteBuffer&, const std::function<void(const char*)>&);
template RankParticles<float> gathered_in_index_order(const RankParticles<float>&, const Communicator&);
template RankParticles<double> gathered_in_index_order(const RankParticles<double>&, const Communicator&);
template void sort_by_key_in_place(RankParticles<float>&, const bh::Cube&, std::vector<std::uint64_t>&, ByteBuffer&,
                                   std::vector<float>&, const std::function<void(const char*)>&,
                                   const ParticleOrder<float>&);
template void sort_by_key_in_place(RankParticles<double>&, const bh::Cube&, std::vector<std::uint64_t>&, ByteBuffer&,
                                   std::vector<double>&, const std::function<void(const char*)>&,
                                   const ParticleOrder<double>&);
template std::vector<std::uint64_t> position_keys(const SourcesView<float>&, const bh::Cube&);
template std::vector<std::uint64_t> position_keys(const SourcesView<double>&, const bh::Cube&);

}  // namespace orrery::mpi
