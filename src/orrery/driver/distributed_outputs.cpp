#include "orrery/driver/distributed_outputs.hpp"

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <span>
#include <vector>

#include "orrery/diag/diagnostics_sums.hpp"
#include "orrery/diag/lagrangian_radii.hpp"
#include "orrery/integrate/step_criterion.hpp"
#include "orrery/io/bounding_cube.hpp"
#include "orrery/mpi/merge_to_rank0.hpp"

namespace orrery::driver {
namespace {

using io::Column;

/// The vector of column c in `s`.
template <class Set>
auto& column_of(Set& s, Column c) {
  switch (c) {
    case Column::x: return s.p.x;
    case Column::y: return s.p.y;
    case Column::z: return s.p.z;
    case Column::vx: return s.p.vx;
    case Column::vy: return s.p.vy;
    case Column::vz: return s.p.vz;
    case Column::mass: return s.p.mass;
    case Column::potential: return s.a.potential;
    case Column::ax: return s.a.ax;
    case Column::ay: return s.a.ay;
    default: return s.a.az;  // Column::id and time_bin are not Real columns: the callers take them apart
  }
}

/// Calls add(piece, i) on rank 0 for every particle of every rank in index
/// order: `piece` holds the columns `wanted` (Reals) of the particles [b, e)
/// of one piece at i - b, the other columns empty.
template <class Real, class Add>
void for_each_in_index_order(const mpi::RankParticles<Real>& s, const mpi::IndexOrder& order,
                             std::initializer_list<Column> wanted, std::int64_t size, Add&& add) {
  const bool root = order.comm().rank() == 0;
  for (std::int64_t b = 0; b < order.total(); b += size) {
    const std::int64_t e = std::min(order.total(), b + size);
    const mpi::IndexOrder::Piece piece = order.piece(b, e);
    mpi::RankParticles<Real> rows;
    for (const Column c : wanted) column_of(rows, c) = order.gather(piece, column_of(s, c));
    if (root)
      for (std::int64_t i = 0; i < e - b; ++i) add(rows, i);
  }
}

/// A particle by radius about the centre of mass, ties by index (lagrangian_radii's order).
struct ByRadius {
  double r2;
  std::uint64_t index;
  double mass;
  friend bool operator<(const ByRadius& a, const ByRadius& b) {
    return a.r2 < b.r2 || (a.r2 == b.r2 && a.index < b.index);
  }
};

/// Rank 0's values on every rank.
template <class T>
void broadcast_values(const mpi::Communicator& comm, std::span<T> v) {
  comm.broadcast(std::as_writable_bytes(v));
}

/// A diagnostics row as doubles (the step's bits in one of them), and back.
std::vector<double> pack(const diag::Diagnostics& d, std::size_t radii) {
  std::vector<double> v = {d.time, 0.0, d.kinetic, d.potential, d.total, d.relative_energy_error, d.virial_ratio};
  std::memcpy(&v[1], &d.step, sizeof(double));
  v.insert(v.end(), d.momentum.begin(), d.momentum.end());
  v.insert(v.end(), d.angular_momentum.begin(), d.angular_momentum.end());
  v.insert(v.end(), d.lagrangian_radii.begin(), d.lagrangian_radii.end());
  v.resize(13 + radii, 0.0);
  return v;
}
diag::Diagnostics unpack(const std::vector<double>& v) {
  diag::Diagnostics d;
  d.time = v[0];
  std::memcpy(&d.step, &v[1], sizeof(double));
  d.kinetic = v[2], d.potential = v[3], d.total = v[4], d.relative_energy_error = v[5], d.virial_ratio = v[6];
  std::copy(v.begin() + 7, v.begin() + 10, d.momentum.begin());
  std::copy(v.begin() + 10, v.begin() + 13, d.angular_momentum.begin());
  d.lagrangian_radii.assign(v.begin() + 13, v.end());
  return d;
}

}  // namespace

template <class Real>
io::ColumnSource index_order_source(const mpi::RankParticles<Real>& s, const mpi::IndexOrder& order) {
  // The piece of the last range asked for: a snapshot asks for three columns of each range in turn.
  auto last = std::make_shared<mpi::IndexOrder::Piece>();
  last->end = -1;
  return [&s, &order, last](Column c, std::int64_t begin, std::int64_t end) {
    if (last->begin != begin || last->end != end) *last = order.piece(begin, end);
    if (c == Column::id) return order.gather(*last, std::as_bytes(std::span(s.p.id)), sizeof(std::uint64_t));
    if (c == Column::time_bin) return order.gather(*last, std::as_bytes(std::span(s.bin)), sizeof(std::int8_t));
    return order.gather(*last, std::as_bytes(std::span(column_of(s, c))), sizeof(Real));
  };
}

template <class Real>
diag::Diagnostics distributed_measure(const mpi::RankParticles<Real>& s, const mpi::IndexOrder& order, double time,
                                      std::int64_t step, double initial_energy, std::int64_t piece) {
  const auto& comm = order.comm();
  using C = Column;
  diag::DiagnosticsSums sums;
  for_each_in_index_order(s, order, {C::x, C::y, C::z, C::vx, C::vy, C::vz, C::mass, C::potential}, piece,
                          [&](const mpi::RankParticles<Real>& rows, std::int64_t i) { sums.add(rows.p, rows.a.potential, i); });
  // The Lagrangian radii about rank 0's centre of mass, walking outwards in one process's order.
  const auto c = sums.centre_of_mass();
  std::vector<double> centre = {c[0], c[1], c[2], sums.plain_mass()};
  broadcast_values(comm, std::span(centre));
  std::vector<ByRadius> mine(static_cast<std::size_t>(s.size()));
  for (std::size_t k = 0; k < mine.size(); ++k) {
    const double dx = s.p.x[k] - centre[0], dy = s.p.y[k] - centre[1], dz = s.p.z[k] - centre[2];
    mine[k] = {dx * dx + dy * dy + dz * dz, s.index[k], static_cast<double>(s.p.mass[k])};
  }
  std::sort(mine.begin(), mine.end());
  diag::RadiusWalk walk(diag::kLagrangianFractions, centre[3]);
  mpi::merge_to_rank0(std::span<const ByRadius>(mine), piece, comm, [&](const ByRadius& r) {
    walk.add(r.r2, r.mass);
    return !walk.done();
  });
  const std::size_t radii = std::size(diag::kLagrangianFractions);
  std::vector<double> row = pack(sums.row(time, step, initial_energy, walk.radii()), radii);
  broadcast_values(comm, std::span(row));
  return unpack(row);
}

template <class Real>
std::array<double, 6> distributed_bounding_cube(const mpi::RankParticles<Real>& s, const mpi::IndexOrder& order,
                                                std::int64_t piece) {
  using C = Column;
  io::CubeCentre centre;
  for_each_in_index_order(s, order, {C::x, C::y, C::z, C::mass}, piece,
                          [&](const mpi::RankParticles<Real>& rows, std::int64_t i) { centre.add(rows.p, i); });
  std::array<double, 3> c = centre.centre();
  broadcast_values(order.comm(), std::span<double>(c));
  std::vector<double> half = {io::farthest_from(s.p, c)};
  order.comm().max(half);
  return io::cube_about(c, half[0]);
}

template <class Real>
integrate::SmallestStep distributed_smallest_step(const integrate::StepRule& rule, const mpi::RankParticles<Real>& s,
                                                  const mpi::Communicator& comm) {
  // Each rank's smallest, the lowest index among equals; then the smallest of the ranks' the same way.
  struct Best {
    double step;
    std::int64_t particle;
  };
  const auto better = [](const Best& a, const Best& b) {
    return a.step < b.step || (a.step == b.step && a.particle >= 0 && (b.particle < 0 || a.particle < b.particle));
  };
  Best best{HUGE_VAL, -1};
  for (std::int64_t k = 0; k < s.size(); ++k) {
    const Best b{integrate::criterion_step(rule, s.a.ax[k], s.a.ay[k], s.a.az[k], s.a.potential[k]),
                 static_cast<std::int64_t>(s.index[k])};
    if (b.step < HUGE_VAL && better(b, best)) best = b;
  }
  std::vector<std::int64_t> from;
  const std::vector<std::byte> all = comm.allgather(std::as_bytes(std::span(&best, 1)), from);
  for (int r = 0; r < comm.size(); ++r) {
    Best b;
    std::memcpy(&b, all.data() + from[r], sizeof(b));
    if (b.particle >= 0 && better(b, best)) best = b;
  }
  return {best.step, best.particle};
}

#define ORRERY_DISTRIBUTED_OUTPUTS(Real)                                                                          \
  template io::ColumnSource index_order_source(const mpi::RankParticles<Real>&, const mpi::IndexOrder&);         \
  template diag::Diagnostics distributed_measure(const mpi::RankParticles<Real>&, const mpi::IndexOrder&, double, \
                                                 std::int64_t, double, std::int64_t);                            \
  template std::array<double, 6> distributed_bounding_cube(const mpi::RankParticles<Real>&, const mpi::IndexOrder&, \
                                                           std::int64_t);                                        \
  template integrate::SmallestStep distributed_smallest_step(const integrate::StepRule&,                           \
                                                             const mpi::RankParticles<Real>&, const mpi::Communicator&);
ORRERY_DISTRIBUTED_OUTPUTS(float)
ORRERY_DISTRIBUTED_OUTPUTS(double)
#undef ORRERY_DISTRIBUTED_OUTPUTS

}  // namespace orrery::driver
