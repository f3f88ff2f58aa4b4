#include "orrery/mpi/let.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "orrery/bh/build_topology.hpp"
#include "orrery/bh/walk.hpp"
#include "orrery/core/error.hpp"
#include "orrery/core/softening.hpp"
#include "orrery/mpi/byte_stream.hpp"

namespace orrery::mpi {
namespace {

template <class Real>
bh::TargetBox<Real> shrunk(const bh::TargetBox<Real> &b, double f) {
  if (f == 1.0)
    return b;
  const auto axis = [f](Real lo, Real hi, Real &out_lo, Real &out_hi) {
    const double c = 0.5 * (double(lo) + double(hi)),
                 h = 0.5 * (double(hi) - double(lo)) * f;
    out_lo = static_cast<Real>(c - h);
    out_hi = static_cast<Real>(c + h);
  };
  bh::TargetBox<Real> s;
  axis(b.lo_x, b.hi_x, s.lo_x, s.hi_x);
  axis(b.lo_y, b.hi_y, s.lo_y, s.hi_y);
  axis(b.lo_z, b.hi_z, s.lo_z, s.hi_z);
  return s;
}

/// The particles of the leaves `leaves` of the own tree, as write_let sends
/// them.
template <class Real>
void write_particles(ByteWriter &w, const LocalTree<Real> &own,
                     const RankParticles<Real> &s,
                     std::span<const std::uint64_t> keys,
                     const std::vector<std::int32_t> &leaves) {
  std::int64_t total = 0;
  for (const auto n : leaves)
    total += own.nodes.count[n];
  w.put(total);
  const auto each = [&](const auto &v) {
    for (const auto n : leaves)
      w.put(std::span(v.data() + own.first[n],
                      static_cast<std::size_t>(own.nodes.count[n])));
  };
  each(keys);
  each(s.index);
  each(s.p.x);
  each(s.p.y);
  each(s.p.z);
  each(s.p.mass);
}

/// A particle of the walk's tree: its order is (key, index), one process's.
template <class Real> struct Held {
  std::uint64_t key, index;
  Real x, y, z, m;
  std::int64_t own; // own sorted index, -1 for a received one
};

} // namespace

template <class Real>
std::vector<TargetDomain<Real>> target_domains(const RankParticles<Real> &s,
                                               const std::vector<Real> &scale,
                                               const LocalTree<Real> &own,
                                               bool active_only) {
  std::vector<TargetDomain<Real>> out;
  for (const std::int32_t root : own.roots) {
    std::int32_t b = own.first[root];
    const auto e = b + static_cast<std::int32_t>(own.nodes.count[root]);
    if (active_only)
      while (b < e && s.active[b] == 0)
        ++b;
    if (b == e)
      continue; // no target here: no box (nothing it needs)
    TargetDomain<Real> d;
    d.box = {s.p.x[b], s.p.y[b], s.p.z[b], s.p.x[b], s.p.y[b], s.p.z[b]};
    for (std::int32_t k = b; k < e; ++k) {
      if (active_only && s.active[k] == 0)
        continue;
      d.box.lo_x = std::min(d.box.lo_x, s.p.x[k]);
      d.box.lo_y = std::min(d.box.lo_y, s.p.y[k]);
      d.box.lo_z = std::min(d.box.lo_z, s.p.z[k]);
      d.box.hi_x = std::max(d.box.hi_x, s.p.x[k]);
      d.box.hi_y = std::max(d.box.hi_y, s.p.y[k]);
      d.box.hi_z = std::max(d.box.hi_z, s.p.z[k]);
      if (!scale.empty())
        d.max_scale = std::max(d.max_scale, scale[k]);
    }
    out.push_back(d);
  }
  return out;
}

template <class Real>
std::vector<TargetDomain<Real>>
gather_domains(const std::vector<TargetDomain<Real>> &mine,
               std::vector<std::int64_t> &from, const Communicator &comm) {
  std::vector<std::byte> bytes;
  ByteWriter(bytes).put(std::span<const TargetDomain<Real>>(mine));
  const auto all = comm.allgather(bytes, from);
  for (auto &f : from)
    f /= static_cast<std::int64_t>(sizeof(TargetDomain<Real>));
  std::vector<TargetDomain<Real>> out(static_cast<std::size_t>(from.back()));
  ByteReader(all).get(std::span(out));
  return out;
}

template <class Real>
void write_let(ByteWriter &w, const LocalTree<Real> &own,
               const RankParticles<Real> &sorted,
               std::span<const std::uint64_t> keys,
               std::span<const TargetDomain<Real>> peer, const bh::Cube &cube,
               double shrink) {
  NodeRecords<Real> nodes;
  std::vector<std::int32_t> leaves; // own leaves whose particles go
  std::vector<TargetDomain<Real>> boxes(peer.begin(), peer.end());
  for (auto &b : boxes)
    b.box = shrunk(b.box, shrink);
  if (!boxes.empty()) {
    bh::OctreeView<Real> v = own.nodes.view();
    v.cap2 = own.cap2;
    bh::with_opening(v, [&](auto criterion) {
      using Criterion = decltype(criterion);
      const auto every_box_accepts = [&](std::int32_t n) {
        for (const auto &b : boxes)
          if (!bh::accepts_box<Criterion>(v, cube, n, b.box, b.max_scale))
            return false;
        return true;
      };
      // Pre-order: a node, then (if the peer may open it) its children's
      // subtrees.
      const auto visit = [&](const auto &self, std::int32_t n) -> void {
        const bool open = !every_box_accepts(n);
        nodes.append(own.nodes, n);
        nodes.complete.back() = open ? 1 : 0;
        if (!open)
          return;
        if (own.next[n] == n + 1) {
          leaves.push_back(n);
          return;
        }
        for (std::int32_t c = n + 1; c < own.next[n]; c = own.next[c])
          self(self, c);
      };
      for (const std::int32_t root : own.roots)
        visit(visit, root);
    });
  }
  nodes.write(w);
  write_particles(w, own, sorted, keys, leaves);
}

template <class Real>
AssembledTree<Real> assemble_tree(
    const NodeRecords<Real> &top, const LocalTree<Real> &own,
    const RankParticles<Real> &sorted, std::span<const std::uint64_t> keys,
    std::span<const std::byte> received, std::span<const std::int64_t> from,
    const bh::Cube &cube, const bh::TreeParams &params, int rank) {
  const int ranks = static_cast<int>(from.size()) - 1;
  std::vector<NodeRecords<Real>> got(static_cast<std::size_t>(ranks));
  std::vector<Held<Real>> held;
  for (std::int64_t k = 0; k < sorted.size(); ++k)
    held.push_back({keys[k], sorted.index[k], sorted.p.x[k], sorted.p.y[k],
                    sorted.p.z[k], sorted.p.mass[k], k});
  for (int r = 0; r < ranks; ++r) {
    ByteReader in(received.subspan(from[r], from[r + 1] - from[r]));
    if (in.done())
      continue;
    got[r].read_append(in);
    const auto n = static_cast<std::size_t>(in.get<std::int64_t>());
    std::vector<std::uint64_t> key(n), index(n);
    std::vector<Real> x(n), y(n), z(n), m(n);
    in.get(std::span(key));
    in.get(std::span(index));
    in.get(std::span(x));
    in.get(std::span(y));
    in.get(std::span(z));
    in.get(std::span(m));
    for (std::size_t j = 0; j < n; ++j)
      held.push_back({key[j], index[j], x[j], y[j], z[j], m[j], -1});
  }
  std::sort(held.begin(), held.end(),
            [](const Held<Real> &a, const Held<Real> &b) {
              return a.key != b.key ? a.key < b.key : a.index < b.index;
            });

  // The nodes: (records, index, origin), sorted into global pre-order.
  struct Ref {
    const NodeRecords<Real> *from;
    std::int64_t k;
    int origin;
  };
  std::vector<Ref> refs;
  for (std::int64_t k = 0; k < top.size(); ++k)
    if (top.complete[k] != 0)
      refs.push_back(
          {&top, k, rank}); // the internal ones; leaves come from their owners
  for (std::int64_t k = 0; k < own.nodes.size(); ++k)
    refs.push_back({&own.nodes, k, rank});
  for (int r = 0; r < ranks; ++r)
    for (std::int64_t k = 0; k < got[r].size(); ++k)
      refs.push_back({&got[r], k, r});
  const auto before = [](const Ref &a, const Ref &b) {
    const auto ka = a.from->key[a.k], kb = b.from->key[b.k];
    return ka != kb ? ka < kb : a.from->level[a.k] < b.from->level[b.k];
  };
  std::sort(refs.begin(), refs.end(), before);
  NodeRecords<Real> all;
  AssembledTree<Real> out;
  for (std::size_t i = 0; i < refs.size(); ++i) {
    if (i > 0 && !before(refs[i - 1], refs[i]))
      throw RuntimeFailure(
          "rank " + std::to_string(rank) + " holds node (key " +
          std::to_string(refs[i].from->key[refs[i].k]) + ", level " +
          std::to_string(refs[i].from->level[refs[i].k]) + ") from ranks " +
          std::to_string(refs[i - 1].origin) + " and " +
          std::to_string(refs[i].origin) + "; accepted: every node once");
    all.append(*refs[i].from, refs[i].k);
    out.origin.push_back(refs[i].origin);
  }

  bh::Octree<Real> &t = out.tree;
  t.cube = cube;
  t.params = params;
  const auto np = static_cast<std::int32_t>(held.size());
  out.poison = np;
  out.own.resize(static_cast<std::size_t>(sorted.size()));
  for (auto *v : {&t.x, &t.y, &t.z, &t.m})
    v->resize(static_cast<std::size_t>(np) + 1);
  std::vector<std::uint64_t> held_keys(static_cast<std::size_t>(np));
  for (std::int32_t j = 0; j < np; ++j) {
    const Held<Real> &h = held[j];
    t.x[j] = h.x, t.y[j] = h.y, t.z[j] = h.z, t.m[j] = h.m;
    held_keys[j] = h.key;
    if (h.own >= 0)
      out.own[static_cast<std::size_t>(h.own)] = j;
  }
  t.x[np] = static_cast<Real>(cube.x0), t.y[np] = static_cast<Real>(cube.y0),
  t.z[np] = static_cast<Real>(cube.z0);
  t.m[np] = std::numeric_limits<Real>::quiet_NaN();
  t.order.resize(static_cast<std::size_t>(np) + 1);
  std::iota(t.order.begin(), t.order.end(), 0);

  const auto nn = static_cast<std::int32_t>(all.size());
  t.key = all.key;
  t.level = all.level;
  t.next = escape_indices(all.key, all.level);
  t.first.resize(static_cast<std::size_t>(nn));
  t.count.resize(static_cast<std::size_t>(nn));
  for (std::int32_t n = 0; n < nn; ++n) {
    // A complete node's particles held here are exactly those of its cell
    // (membership tests read them); one that is not complete stands for the
    // sentinel.
    const auto a =
        std::lower_bound(held_keys.begin(), held_keys.end(), t.key[n]);
    const auto b = std::upper_bound(a, held_keys.end(),
                                    bh::cell_last_key(t.key[n], t.level[n]));
    const bool complete = all.complete[n] != 0;
    t.first[n] =
        complete ? static_cast<std::int32_t>(a - held_keys.begin()) : np;
    t.count[n] = complete ? static_cast<std::int32_t>(b - a) : 1;
    t.depth = std::max(t.depth, t.level[n]);
  }
  t.mass = std::move(all.mass);
  t.com_x = std::move(all.com_x);
  t.com_y = std::move(all.com_y);
  t.com_z = std::move(all.com_z);
  t.crit2 = std::move(all.crit2);
  t.crit_rel = std::move(all.crit_rel);
  t.quad = std::move(all.quad);
  out.complete = std::move(all.complete);
  return out;
}

template <class Real>
void throw_missing_node(const AssembledTree<Real> &t, std::int32_t target,
                        std::uint64_t id, Real scale, int rank) {
  const bh::OctreeView<Real> v = t.tree.view();
  std::int32_t missing = -1;
  const auto hook = [&](std::int32_t n) {
    if (t.complete[n] == 0 && missing < 0)
      missing = n;
  };
  // Which nodes a walk visits depends on the opening tests alone, not on the
  // force law: any softening and mode find the node.
  const PlummerSoftening<Real> soft(Real(0));
  bh::WalkCounts counts;
  bh::with_opening(v, [&](auto criterion) {
    using Criterion = decltype(criterion);
    bh::walk_point<false, bh::Multipole::monopole, Criterion, MathMode::exact>(
        v, soft, target, v.x[target], v.y[target], v.z[target], counts, scale,
        hook);
  });
  if (missing < 0)
    throw RuntimeFailure("rank " + std::to_string(rank) +
                         ": the walk of particle " + std::to_string(id) +
                         " gave a non-finite acceleration, but it opens no "
                         "node it lacks; accepted: finite inputs");
  throw RuntimeFailure(
      "rank " + std::to_string(rank) + ": the walk of particle " +
      std::to_string(id) + " opens node (key " +
      std::to_string(t.tree.key[missing]) + ", level " +
      std::to_string(t.tree.level[missing]) + ") of rank " +
      std::to_string(t.origin[missing]) + "'s domain, whose " +
      (t.tree.next[missing] == missing + 1 ? "contents" : "children") +
      " rank " + std::to_string(t.origin[missing]) + " did not send to rank " +
      std::to_string(rank) +
      "; accepted: a local essential tree chosen by the conservative box "
      "criterion "
      "(bh/opening_box.hpp), which sends every node a target in the receiver's "
      "box may open");
}

template std::vector<TargetDomain<float>>
target_domains(const RankParticles<float> &, const std::vector<float> &,
               const LocalTree<float> &, bool);
template std::vector<TargetDomain<double>>
target_domains(const RankParticles<double> &, const std::vector<double> &,
               const LocalTree<double> &, bool);
template std::vector<TargetDomain<float>>
gather_domains(const std::vector<TargetDomain<float>> &,
               std::vector<std::int64_t> &, const Communicator &);
template std::vector<TargetDomain<double>>
gather_domains(const std::vector<TargetDomain<double>> &,
               std::vector<std::int64_t> &, const Communicator &);
template void write_let(ByteWriter &, const LocalTree<float> &,
                        const RankParticles<float> &,
                        std::span<const std::uint64_t>,
                        std::span<const TargetDomain<float>>, const bh::Cube &,
                        double);
template void write_let(ByteWriter &, const LocalTree<double> &,
                        const RankParticles<double> &,
                        std::span<const std::uint64_t>,
                        std::span<const TargetDomain<double>>, const bh::Cube &,
                        double);
template AssembledTree<float>
assemble_tree(const NodeRecords<float> &, const LocalTree<float> &,
              const RankParticles<float> &, std::span<const std::uint64_t>,
              std::span<const std::byte>, std::span<const std::int64_t>,
              const bh::Cube &, const bh::TreeParams &, int);
template AssembledTree<double>
assemble_tree(const NodeRecords<double> &, const LocalTree<double> &,
              const RankParticles<double> &, std::span<const std::uint64_t>,
              std::span<const std::byte>, std::span<const std::int64_t>,
              const bh::Cube &, const bh::TreeParams &, int);
template void throw_missing_node(const AssembledTree<float> &, std::int32_t,
                                 std::uint64_t, float, int);
template void throw_missing_node(const AssembledTree<double> &, std::int32_t,
                                 std::uint64_t, double, int);

} // namespace orrery::mpi
