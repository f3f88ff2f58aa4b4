#include "orrery/mpi/let.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "orrery/bh/walk.hpp"
#include "orrery/core/error.hpp"
#include "orrery/core/softening.hpp"
#include "orrery/mpi/byte_stream.hpp"
#include "orrery/mpi/key_order.hpp"
#include "orrery/mpi/kept_vector.hpp"
#include "orrery/mpi/parallel_copy.hpp"
#include "orrery/mpi/preorder_merge.hpp"

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
/// them: their count, then each field of every leaf's particles in leaf
/// order. Each field's bytes are grown once and filled a leaf per
/// iteration at its offset (a prefix sum in leaf order) on the rank's
/// threads: the bytes one put per leaf writes, without a put's cost (a
/// resize and a copy call) per leaf and field.
template <class Real>
void write_particles(ByteWriter &w, const LocalTree<Real> &own,
                     const RankParticles<Real> &s,
                     std::span<const std::uint64_t> keys,
                     const std::vector<std::int32_t> &leaves) {
  const auto n = static_cast<std::int64_t>(leaves.size());
  std::vector<std::int64_t> at(leaves.size() + 1, 0);
  for (std::int64_t l = 0; l < n; ++l)
    at[l + 1] = at[l] + own.nodes.count[leaves[l]];
  const std::int64_t total = at.back();
  w.put(total);
  const auto each = [&](const auto &v) {
    using T = std::remove_cvref_t<decltype(v[0])>;
    std::byte *out = w.grow(static_cast<std::size_t>(total) * sizeof(T));
#pragma omp parallel for schedule(static) if (n > 1 && total >= kParallelLoop)
    for (std::int64_t l = 0; l < n; ++l)
      std::memcpy(out + static_cast<std::size_t>(at[l]) * sizeof(T),
                  v.data() + own.first[leaves[l]],
                  static_cast<std::size_t>(at[l + 1] - at[l]) * sizeof(T));
  };
  each(keys);
  each(s.index);
  each(s.p.x);
  each(s.p.y);
  each(s.p.z);
  each(s.p.mass);
}

/// A peer's target boxes as a binary tree of unions, for the question
/// "does every box accept node n?" (write_let). Level 0 holds the boxes;
/// level l + 1 the unions of pairs of level l's (an odd last one alone),
/// up to one union of all. A union's box is the exact componentwise
/// min/max of its boxes' and its scale their largest, so it contains each
/// of them: whatever accepts_box accepts for the union, it accepts for
/// each box inside (opening_box.hpp's argument: box_gap is no larger for
/// the larger box, as IEEE subtraction is monotone, and norm2 is monotone
/// in each gap; far() is non-decreasing in d2 and non-increasing in scale;
/// a box that reaches into the cell is inside a union that does). So
/// "the union accepts, or each half's boxes all accept" is the same answer
/// as every box's test, found with one test where the union is far. A
/// union over a box with a value that is not finite is never tested (its
/// boxes are), so no NaN or infinity enters that argument.
template <class Real> struct BoxUnions {
  std::vector<std::vector<TargetDomain<Real>>> level;
  std::vector<std::vector<std::uint8_t>> usable; // per union: every value finite

  explicit BoxUnions(std::vector<TargetDomain<Real>> boxes) {
    const auto finite = [](const TargetDomain<Real> &d) {
      const bh::TargetBox<Real> &b = d.box;
      return std::isfinite(b.lo_x) && std::isfinite(b.lo_y) &&
             std::isfinite(b.lo_z) && std::isfinite(b.hi_x) &&
             std::isfinite(b.hi_y) && std::isfinite(b.hi_z) &&
             std::isfinite(d.max_scale);
    };
    std::vector<std::uint8_t> ok(boxes.size());
    for (std::size_t i = 0; i < boxes.size(); ++i)
      ok[i] = finite(boxes[i]) ? 1 : 0;
    level.push_back(std::move(boxes));
    usable.push_back(std::move(ok));
    while (level.back().size() > 1) {
      const auto &below = level.back();
      const auto &below_ok = usable.back();
      std::vector<TargetDomain<Real>> up((below.size() + 1) / 2);
      std::vector<std::uint8_t> up_ok(up.size());
      for (std::size_t i = 0; i < up.size(); ++i) {
        TargetDomain<Real> u = below[2 * i];
        std::uint8_t good = below_ok[2 * i];
        if (2 * i + 1 < below.size()) {
          const TargetDomain<Real> &o = below[2 * i + 1];
          u.box.lo_x = std::min(u.box.lo_x, o.box.lo_x);
          u.box.lo_y = std::min(u.box.lo_y, o.box.lo_y);
          u.box.lo_z = std::min(u.box.lo_z, o.box.lo_z);
          u.box.hi_x = std::max(u.box.hi_x, o.box.hi_x);
          u.box.hi_y = std::max(u.box.hi_y, o.box.hi_y);
          u.box.hi_z = std::max(u.box.hi_z, o.box.hi_z);
          u.max_scale = std::max(u.max_scale, o.max_scale);
          good &= below_ok[2 * i + 1];
        }
        up[i] = u;
        up_ok[i] = good;
      }
      level.push_back(std::move(up));
      usable.push_back(std::move(up_ok));
    }
  }

  /// Whether accepts(box) holds for every box (level 0) under union i of
  /// level lv; a box that fails ends the search.
  template <class Accepts>
  bool all_accept(std::size_t lv, std::size_t i, const Accepts &accepts) const {
    const TargetDomain<Real> &d = level[lv][i];
    if (lv == 0)
      return accepts(d);
    if (usable[lv][i] != 0 && accepts(d))
      return true;
    const auto &below = level[lv - 1];
    return all_accept(lv - 1, 2 * i, accepts) &&
           (2 * i + 1 >= below.size() || all_accept(lv - 1, 2 * i + 1, accepts));
  }
  template <class Accepts> bool all_accept(const Accepts &accepts) const {
    return level.back().empty() || all_accept(level.size() - 1, 0, accepts);
  }
};

} // namespace

template <class Real>
std::vector<TargetDomain<Real>> target_domains(const RankParticles<Real> &s,
                                               const std::vector<Real> &scale,
                                               const LocalTree<Real> &own,
                                               bool active_only) {
  // One top leaf a thread at a time (a leaf holds at most a 64th of the
  // domain, top_bucket): each box is its leaf's own minima and maxima, exact
  // whatever the threads, kept in leaf order.
  const auto roots = static_cast<std::int64_t>(own.roots.size());
  std::vector<TargetDomain<Real>> box(static_cast<std::size_t>(roots));
  std::vector<std::uint8_t> has(static_cast<std::size_t>(roots), 0);
#pragma omp parallel for schedule(dynamic, 1) if (s.size() >= kParallelLoop)
  for (std::int64_t r = 0; r < roots; ++r) {
    const std::int32_t root = own.roots[static_cast<std::size_t>(r)];
    std::int32_t b = own.first[root];
    const auto e = b + static_cast<std::int32_t>(own.nodes.count[root]);
    if (active_only)
      while (b < e && s.active[b] == 0)
        ++b;
    if (b == e)
      continue; // no target here: no box (nothing it needs)
    TargetDomain<Real> d; // a local: stores through box[r] could alias s.p's arrays
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
    box[static_cast<std::size_t>(r)] = d;
    has[static_cast<std::size_t>(r)] = 1;
  }
  std::vector<TargetDomain<Real>> out;
  for (std::int64_t r = 0; r < roots; ++r)
    if (has[static_cast<std::size_t>(r)] != 0)
      out.push_back(box[static_cast<std::size_t>(r)]);
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
  // What goes, per top leaf of the domain (one thread each, concatenated
  // in their order: the serial walk's order): the own nodes sent, whether
  // each is opened, and the leaves whose particles go.
  struct Chosen {
    std::vector<std::int32_t> node;
    std::vector<std::uint8_t> open;
    std::vector<std::int32_t> leaves;
  };
  std::vector<Chosen> chosen(own.roots.size());
  std::vector<TargetDomain<Real>> boxes(peer.begin(), peer.end());
  for (auto &b : boxes)
    b.box = shrunk(b.box, shrink);
  if (!boxes.empty()) {
    const BoxUnions<Real> unions(boxes);
    bh::OctreeView<Real> v = own.nodes.view();
    v.cap2 = own.cap2;
    bh::with_opening(v, [&](auto criterion) {
      using Criterion = decltype(criterion);
      const auto every_box_accepts = [&](std::int32_t n) {
        const bh::BoxTestNode<Real> node = bh::box_test_node<Criterion>(v, cube, n);
        return unions.all_accept([&](const TargetDomain<Real> &b) {
          return bh::accepts_box<Criterion>(node, v.cap2, b.box, b.max_scale);
        });
      };
      // Pre-order: a node, then (if the peer may open it) its children's
      // subtrees.
      const auto visit = [&](const auto &self, Chosen &c,
                             std::int32_t n) -> void {
        const bool open = !every_box_accepts(n);
        c.node.push_back(n);
        c.open.push_back(open ? 1 : 0);
        if (!open)
          return;
        if (own.next[n] == n + 1) {
          c.leaves.push_back(n);
          return;
        }
        for (std::int32_t k = n + 1; k < own.next[n]; k = own.next[k])
          self(self, c, k);
      };
      const auto roots = static_cast<std::int64_t>(own.roots.size());
      // The work: each node against each box.
#pragma omp parallel for schedule(dynamic, 1) if (roots > 1 && own.nodes.size() * std::int64_t(boxes.size()) >= kParallelLoop)
      for (std::int64_t r = 0; r < roots; ++r)
        visit(visit, chosen[r], own.roots[r]);
    });
  }
  std::vector<std::int64_t> at = {0};
  std::vector<std::int32_t> leaves; // own leaves whose particles go
  for (const Chosen &c : chosen) {
    at.push_back(at.back() + static_cast<std::int64_t>(c.node.size()));
    leaves.insert(leaves.end(), c.leaves.begin(), c.leaves.end());
  }
  NodeRecords<Real> nodes;
  nodes.resize(at.back(), !own.nodes.crit_rel.empty(), !own.nodes.quad.empty());
  const auto roots = static_cast<std::int64_t>(chosen.size());
#pragma omp parallel for schedule(dynamic, 1) if (roots > 1 && at.back() >= kParallelLoop)
  for (std::int64_t r = 0; r < roots; ++r)
    for (std::size_t j = 0; j < chosen[r].node.size(); ++j) {
      const std::int64_t i = at[r] + static_cast<std::int64_t>(j);
      nodes.set(i, own.nodes, chosen[r].node[j]);
      nodes.complete[i] = chosen[r].open[j];
    }
  nodes.write(w);
  write_particles(w, own, sorted, keys, leaves);
}

namespace {

/// One rank's particles received: held particles [at, at + n), their arrays
/// where they lie in the received bytes (write_particles' order).
struct ReceivedPiece {
  std::size_t at, n;
  std::span<const std::byte> key, index, x, y, z, m;
};

/// Held keys [at, at + key.size()) in order.
struct KeyRun {
  std::span<const std::uint64_t> key;
  std::int64_t at;
};

/// The held keys as runs in held order (`out`) without copying the own
/// ones: own_key and own_index read in place at held particle own_at
/// (between pieces[own_piece - 1] and pieces[own_piece]), the received ones
/// copied (aligned) into a.key and a.index. Returns whether the held
/// particles are in one process's order: each run in order, and each after
/// the last non-empty one before it.
bool held_key_runs(std::span<const ReceivedPiece> pieces, std::span<const std::uint64_t> own_key,
                   std::span<const std::uint64_t> own_index, std::size_t own_at, std::size_t own_piece,
                   AssemblyScratch &a, std::vector<KeyRun> &out) {
  std::size_t received = 0;
  for (const ReceivedPiece &q : pieces)
    received += q.n;
  resize_for_overwrite(a.key, received);
  resize_for_overwrite(a.index, received);
  struct Run {
    std::span<const std::uint64_t> key, index;
    std::int64_t at;
  };
  std::vector<Run> runs;
  std::size_t c = 0;
  for (std::size_t p = 0; p <= pieces.size(); ++p) {
    if (p == own_piece)
      runs.push_back({own_key, own_index, static_cast<std::int64_t>(own_at)});
    if (p == pieces.size())
      break;
    const ReceivedPiece &q = pieces[p];
    copy_bytes(a.key.data() + c, q.key.data(), q.key.size());
    copy_bytes(a.index.data() + c, q.index.data(), q.index.size());
    runs.push_back({std::span<const std::uint64_t>(a.key).subspan(c, q.n),
                    std::span<const std::uint64_t>(a.index).subspan(c, q.n), static_cast<std::int64_t>(q.at)});
    c += q.n;
  }
  bool in_order = true;
  const Run *before = nullptr;
  for (const Run &r : runs) {
    if (r.key.empty())
      continue;
    in_order = in_order && pairs_in_order(r.key, r.index) &&
               (before == nullptr ||
                std::pair(before->key.back(), before->index.back()) < std::pair(r.key.front(), r.index.front()));
    before = &r;
    out.push_back({r.key, r.at});
  }
  return in_order;
}

/// at[n]: the first held particle (of np, whose keys are `runs`) whose key
/// is not below node_key[n]. The nodes' keys do not decrease (pre-order), so
/// neither does at: each thread searches its chunk's first node over every
/// held key, then each next one from the answer before (a galloping search:
/// the same answer as a binary search over them all), passing over the runs
/// that end below it.
void first_held_particles(std::span<const std::uint64_t> node_key, std::span<const KeyRun> runs, std::int32_t np,
                          std::vector<std::int32_t> &at) {
  const auto nn = static_cast<std::int64_t>(node_key.size());
  const auto nr = static_cast<std::int64_t>(runs.size());
  const int threads = nn >= kParallelLoop ? std::max(1, omp_get_max_threads()) : 1;
#pragma omp parallel num_threads(threads)
  {
    const std::int64_t nt = omp_get_num_threads(), c = omp_get_thread_num();
    std::int64_t r = 0;
    auto k = nr > 0 ? runs[0].key.begin() : std::span<const std::uint64_t>::iterator{};
    for (std::int64_t n = nn * c / nt; n < nn * (c + 1) / nt; ++n) {
      const std::uint64_t lo = node_key[n];
      while (r < nr && runs[r].key.back() < lo)
        if (++r < nr)
          k = runs[r].key.begin();
      if (r == nr) {
        at[n] = np;
      } else {
        k = gallop_partition_point(k, runs[r].key.end(), [lo](std::uint64_t x) { return x < lo; });
        at[n] = static_cast<std::int32_t>(runs[r].at + (k - runs[r].key.begin()));
      }
    }
  }
}

} // namespace

template <class Real>
void assemble_tree(AssembledTree<Real> &out, const NodeRecords<Real> &top, const LocalTree<Real> &own,
                   const RankParticles<Real> &sorted, std::span<const std::uint64_t> keys,
                   std::span<const std::byte> received, std::span<const std::int64_t> from, const bh::Cube &cube,
                   const bh::TreeParams &params, int rank, bool place) {
  const int ranks = static_cast<int>(from.size()) - 1;
  // The node records each rank sent, and where each rank's particles go in
  // the held arrays: in rank order, this rank's own in its place. The ranks'
  // domains are consecutive pieces of the Morton curve in rank order, and
  // each rank's particles arrive sorted, so held in this order they are
  // already in one process's order (key, index): the check below only
  // confirms that, and the arrays need no gather. Each piece's arrays are
  // read where they lie in the received bytes (write_particles' order).
  std::vector<NodeRecords<Real>> got(static_cast<std::size_t>(ranks));
  std::vector<ReceivedPiece> pieces;
  const auto own_n = static_cast<std::size_t>(sorted.size());
  std::size_t own_at = 0, held = 0, own_piece = 0;
  for (int r = 0; r < ranks; ++r) {
    if (r == rank) {
      own_at = held, own_piece = pieces.size();
      held += own_n;
      continue;
    }
    ByteReader in(received.subspan(from[r], from[r + 1] - from[r]));
    if (in.done())
      continue;
    got[r].read_append(in);
    const auto n = static_cast<std::size_t>(in.get<std::int64_t>());
    const auto key = in.take(n * sizeof(std::uint64_t)), index = in.take(n * sizeof(std::uint64_t));
    const auto x = in.take(n * sizeof(Real)), y = in.take(n * sizeof(Real)), z = in.take(n * sizeof(Real)),
               m = in.take(n * sizeof(Real));
    pieces.push_back({held, n, key, index, x, y, z, m});
    held += n;
  }
  bh::Octree<Real> &t = out.tree;
  AssemblyScratch &a = out.scratch;
  const auto np = static_cast<std::int32_t>(held);
  HeldParticles<Real> &h = out.held;
  h.pieces.clear();
  for (std::size_t p = 0; p <= pieces.size(); ++p) {
    if (p == own_piece)
      h.pieces.push_back({static_cast<std::int64_t>(own_at), static_cast<std::int64_t>(own_n),
                          reinterpret_cast<const std::byte *>(sorted.p.x.data()),
                          reinterpret_cast<const std::byte *>(sorted.p.y.data()),
                          reinterpret_cast<const std::byte *>(sorted.p.z.data()),
                          reinterpret_cast<const std::byte *>(sorted.p.mass.data()), true});
    if (p < pieces.size())
      h.pieces.push_back({static_cast<std::int64_t>(pieces[p].at), static_cast<std::int64_t>(pieces[p].n),
                          pieces[p].x.data(), pieces[p].y.data(), pieces[p].z.data(), pieces[p].m.data(), false});
  }
  h.held = static_cast<std::int64_t>(held);
  h.sentinel[0] = static_cast<Real>(cube.x0), h.sentinel[1] = static_cast<Real>(cube.y0);
  h.sentinel[2] = static_cast<Real>(cube.z0), h.sentinel[3] = std::numeric_limits<Real>::quiet_NaN();

  // The held keys in held order, in runs, for the nodes' searches below.
  std::vector<KeyRun> key_runs;
  std::vector<std::uint64_t> &held_keys = a.held_keys;
  std::vector<std::int32_t> &by = a.by;
  bool in_order = true;
  if (!place) {
    in_order = held_key_runs(pieces, keys.first(own_n), std::span<const std::uint64_t>(sorted.index).first(own_n),
                             own_at, own_piece, a, key_runs);
    place = !in_order;  // held out of order (no input the solver makes): placed and sorted here
  }
  out.placed = false;
  if (place) {
    // Every field of the held particles, written into the last tree's
    // storage (every element is overwritten: no zero fill, no fresh pages,
    // and never two trees held at once), with the sentinel and the order
    // (place_particles).
    resize_for_overwrite(a.key, held);
    resize_for_overwrite(a.index, held);
    copy_bytes(a.key.data() + own_at, keys.data(), own_n * sizeof(std::uint64_t));
    copy_bytes(a.index.data() + own_at, sorted.index.data(), own_n * sizeof(std::uint64_t));
    for (const ReceivedPiece &p : pieces) {
      copy_bytes(a.key.data() + p.at, p.key.data(), p.key.size());
      copy_bytes(a.index.data() + p.at, p.index.data(), p.index.size());
    }
    place_particles(out);
    // One process's order, (key, index): checked, then (the particles being
    // in order) kept without a sort; any other input is sorted, to the same
    // order. The keys move into held_keys (in order) and come back below.
    in_order = sort_by_key_and_tie(std::move(a.key), std::span<const std::uint64_t>(a.index), held_keys, by);
    key_runs.clear();
    if (!held_keys.empty())
      key_runs.push_back({std::span<const std::uint64_t>(held_keys), 0});
  }

  // The nodes in global pre-order: every rank's list in rank order (this
  // rank's own subtrees in its place), the top tree's internal nodes merged in.
  std::vector<const NodeRecords<Real> *> lists(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r)
    lists[r] = r == rank ? &own.nodes : &got[r];
  // Merged into the last tree's node storage (moved back into the tree below).
  NodeRecords<Real> all;
  all.key.swap(t.key), all.level.swap(t.level), all.mass.swap(t.mass), all.com_x.swap(t.com_x);
  all.com_y.swap(t.com_y), all.com_z.swap(t.com_z), all.crit2.swap(t.crit2), all.crit_rel.swap(t.crit_rel);
  all.quad.swap(t.quad), all.complete.swap(out.complete), all.count.swap(a.node_count);
  copy_runs(std::span<const NodeRun<Real>>(preorder_runs(top, std::span<const NodeRecords<Real> *const>(lists), rank)),
            all, out.origin, params.opening == bh::Opening::relative,
            params.multipole == bh::Multipole::quadrupole);
  const std::int64_t nn = all.size();

  t.cube = cube;
  t.params = params;
  out.poison = np;
  resize_for_overwrite(out.own, static_cast<std::size_t>(sorted.size()));
  if (!in_order) {
    // Held out of order (no input the solver makes): gathered into place.
    std::vector<Real> was;
    for (auto *v : {&t.x, &t.y, &t.z, &t.m}) {
      was = *v;
      gather(v->data(), was.data(), by.data(), np);
    }
  }
  const auto own_from = static_cast<std::int32_t>(own_at), own_to = static_cast<std::int32_t>(own_at + own_n);
  if (in_order) {
    // Held in place: own particle k is held particle own_at + k.
#pragma omp parallel for schedule(static) if (own_n >= kParallelLoop)
    for (std::int32_t k = 0; k < static_cast<std::int32_t>(own_n); ++k)
      out.own[static_cast<std::size_t>(k)] = own_from + k;
  } else {
#pragma omp parallel for schedule(static) if (np >= kParallelLoop)
    for (std::int32_t j = 0; j < np; ++j)
      if (by[j] >= own_from && by[j] < own_to)
        out.own[static_cast<std::size_t>(by[j] - own_from)] = j;
  }
  if (!place) {
    for (auto *v : {&t.x, &t.y, &t.z, &t.m})
      v->clear();  // their storage kept for the next assembly that places
    t.order.clear();
  }

  // The nodes' keys and levels are moved, not copied, once their escape
  // indices are known (nothing below reads `all`'s).
  t.next = escape_indices(all.key, all.level);
  t.key = std::move(all.key);
  t.level = std::move(all.level);
  resize_for_overwrite(t.first, static_cast<std::size_t>(nn));
  resize_for_overwrite(t.count, static_cast<std::size_t>(nn));
  // at[n]: the first held particle whose key is not below node n's cell;
  // at[nn] = every held particle.
  std::vector<std::int32_t> &at = a.at;
  resize_for_overwrite(at, static_cast<std::size_t>(nn) + 1);
  at[static_cast<std::size_t>(nn)] = np;
  first_held_particles(t.key, key_runs, np, at);
  // A complete node's particles held here are exactly those of its cell
  // (membership tests read them): from at[n] up to the first node after its
  // subtree, at[next[n]]. No held particle lies between the two cells: each
  // is in a held leaf, and a leaf after n's subtree in pre-order starts at
  // or after next[n]'s key. A node that is not complete stands for the
  // sentinel.
  std::int32_t depth = 0;
#pragma omp parallel for schedule(static) reduction(max : depth) if (nn >= kParallelLoop)
  for (std::int64_t n = 0; n < nn; ++n) {
    depth = std::max(depth, t.level[n]);
    const bool complete = all.complete[n] != 0;
    t.first[n] = complete ? at[n] : np;
    t.count[n] = complete ? at[t.next[n]] - at[n] : 1;
  }
  t.depth = depth;
  t.mass = std::move(all.mass);
  t.com_x = std::move(all.com_x);
  t.com_y = std::move(all.com_y);
  t.com_z = std::move(all.com_z);
  t.crit2 = std::move(all.crit2);
  t.crit_rel = std::move(all.crit_rel);
  t.quad = std::move(all.quad);
  out.complete = std::move(all.complete);
  a.node_count.swap(all.count);
  if (place) {
    a.key.swap(held_keys);  // the keys' storage, for the next assembly
    held_keys.clear();
  }
}

template <class Real> void place_particles(AssembledTree<Real> &t) {
  if (t.placed)
    return;
  bh::Octree<Real> &o = t.tree;
  const auto n = static_cast<std::size_t>(t.held.held) + 1;
  for (auto *v : {&o.x, &o.y, &o.z, &o.m})
    resize_for_overwrite(*v, n);
  place_held(t.held, o.x.data(), o.y.data(), o.z.data(), o.m.data());
  resize_for_overwrite(o.order, n);
  const auto m = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static) if (m >= kParallelLoop)
  for (std::int64_t j = 0; j < m; ++j)
    o.order[static_cast<std::size_t>(j)] = static_cast<std::int32_t>(j);
  t.placed = true;
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
template void
assemble_tree(AssembledTree<float> &, const NodeRecords<float> &, const LocalTree<float> &,
              const RankParticles<float> &, std::span<const std::uint64_t>,
              std::span<const std::byte>, std::span<const std::int64_t>,
              const bh::Cube &, const bh::TreeParams &, int, bool);
template void
assemble_tree(AssembledTree<double> &, const NodeRecords<double> &, const LocalTree<double> &,
              const RankParticles<double> &, std::span<const std::uint64_t>,
              std::span<const std::byte>, std::span<const std::int64_t>,
              const bh::Cube &, const bh::TreeParams &, int, bool);
template void place_particles(AssembledTree<float> &);
template void place_particles(AssembledTree<double> &);
template void throw_missing_node(const AssembledTree<float> &, std::int32_t,
                                 std::uint64_t, float, int);
template void throw_missing_node(const AssembledTree<double> &, std::int32_t,
                                 std::uint64_t, double, int);

} // namespace orrery::mpi
