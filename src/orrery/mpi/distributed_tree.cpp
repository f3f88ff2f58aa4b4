#include "orrery/mpi/distributed_tree.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <utility>

#include "orrery/bh/build_steps.hpp"
#include "orrery/bh/build_topology.hpp"
#include "orrery/bh/octree_build.hpp"
#include "orrery/bh/opening_relative.hpp"
#include "orrery/core/error.hpp"
#include "orrery/mpi/global_tree.hpp"
#include "orrery/mpi/kept_vector.hpp"
#include "orrery/mpi/migrate.hpp"
#include "orrery/mpi/parallel_copy.hpp"
#include "orrery/mpi/top_moments.hpp"

namespace orrery::mpi {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

/// acc = f(acc, k) for k = 0 .. n-1, with the rank's threads: each folds a
/// contiguous chunk from `init`, and the chunks are combined in their order
/// by combine(acc, chunk). For a fold by std::min or std::max (exact, and
/// the first value equal to the extreme wins) that is the one loop's
/// result bit for bit, the sign of a zero and a skipped NaN included.
template <class T, class F, class C>
T fold_in_order(std::int64_t n, const T& init, F f, C combine) {
  const int threads = n >= kParallelLoop ? std::max(1, omp_get_max_threads()) : 1;
  std::vector<T> chunk(static_cast<std::size_t>(threads), init);
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    T& acc = chunk[static_cast<std::size_t>(t)];
    for (std::int64_t k = n * t / nt; k < n * (t + 1) / nt; ++k) acc = f(acc, k);
  }
  T acc = init;
  for (const T& c : chunk) acc = combine(acc, c);
  return acc;
}

/// The cube of every rank's particles: exact minima and maxima, so the
/// bounding cube one process computes (bh::build_octree).
template <class Real>
bh::Cube global_cube(const RankParticles<Real>& s, const Communicator& comm) {
  using Box = std::array<double, 6>;  // lo x, y, z, hi x, y, z
  const double inf = std::numeric_limits<double>::infinity();
  const auto merge = [](Box b, const double (&p)[6]) {
    for (int a = 0; a < 3; ++a) {
      b[a] = std::min(b[a], p[a]);
      b[a + 3] = std::max(b[a + 3], p[a + 3]);
    }
    return b;
  };
  const Box box = fold_in_order(
      s.size(), Box{inf, inf, inf, -inf, -inf, -inf},
      [&](const Box& b, std::int64_t k) {
        const double p[6] = {s.p.x[k], s.p.y[k], s.p.z[k], s.p.x[k], s.p.y[k], s.p.z[k]};
        return merge(b, p);
      },
      [&](const Box& b, const Box& c) {
        const double p[6] = {c[0], c[1], c[2], c[3], c[4], c[5]};
        return merge(b, p);
      });
  std::vector<double> lo(box.begin(), box.begin() + 3), hi(box.begin() + 3, box.end());
  comm.min(lo);
  comm.max(hi);
  return bh::cube_from_box(lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
}

/// The work of each top leaf: its particles' previous interactions, summed
/// over the ranks (integers: exact, in any order).
template <class Real>
std::vector<std::uint64_t> leaf_work(const TopTree& top, const RankParticles<Real>& s,
                                     std::span<const std::uint64_t> keys, const Communicator& comm) {
  std::vector<std::uint64_t> w(top.leaves.size(), 0);
  const auto leaves = static_cast<std::int64_t>(w.size());
#pragma omp parallel for schedule(dynamic, 16) if (s.size() >= kParallelLoop)
  for (std::int64_t l = 0; l < leaves; ++l) {
    const std::int32_t c = top.leaves[l];
    const auto b = std::lower_bound(keys.begin(), keys.end(), top.key[c]) - keys.begin();
    const auto e = std::upper_bound(keys.begin(), keys.end(), bh::cell_last_key(top.key[c], top.level[c])) - keys.begin();
    for (auto k = b; k < e; ++k) w[l] += s.work[static_cast<std::size_t>(k)];
  }
  comm.sum(w);
  return w;
}

}  // namespace

template <class Real>
DistributedTree<Real>::DistributedTree(const bh::TreeSolverConfig& config, Communicator comm,
                                       DistributedOptions options, std::shared_ptr<LetWalk<Real>> walk)
    : config_(config), comm_(comm), options_(options), walk_(walk ? std::move(walk) : cpu_let_walk<Real>(config)) {
  // The ranks exchange the double moments in NodeMoments (up to the second
  // moment): the orders above are the single-process trees' alone.
  if (bh::multipole_order(config.tree.multipole) > 2)
    throw InputError("gravity.multipole = \"" + std::string(bh::to_string(config.tree.multipole)) +
                     "\" is not supported by the distributed (MPI) tree; accepted: monopole, quadrupole");
  if (config.tree.group_opening != 0)
    throw InputError("gravity.group_opening = " + std::to_string(config.tree.group_opening) +
                     " is not supported by the distributed (MPI) tree, whose ranks group their targets apart; "
                     "accepted: 0");
  if (config.tree.list_walk)
    throw InputError("gravity.list_walk = true is not supported by the distributed (MPI) tree, whose ranks group "
                     "their targets apart; accepted: false");
  if (options_.build_run_particles < 0)
    throw InputError("DistributedOptions::build_run_particles = " + std::to_string(options_.build_run_particles) +
                     " is invalid; accepted: 0 (the backend's) or the most particles of one build, >= 1");
}

template <class Real>
SolverReport DistributedTree<Real>::solve(RankParticles<Real>& particles, const gravity::SolveOptions& options,
                                         bool keep_accelerations, bool active_only) {
  SolverReport report;
  if (active_only && config_.tree.opening == bh::Opening::relative && !options.previous_accelerations)
    throw RuntimeFailure("a distributed subset solve with the relative opening reads the previous accelerations of "
                         "every particle; accepted: SolveOptions::previous_accelerations with active_only");
  const bh::TreeParams& params = config_.tree;
  traffic_.clear();
  Traffic before = comm_.traffic();
  const auto count_traffic = [&](const char* part) {
    const Traffic now = comm_.traffic();
    traffic_.push_back({part, now - before});
    before = now;
  };
  auto t = Clock::now();
  // The pieces of a phase (SolverReport::piece_seconds; they sum to it).
  auto tp = t;
  const auto piece_of = [&](const char* phase) {
    return [&report, &tp, phase](const char* name) {
      const auto now = Clock::now();
      report.add_piece(phase, name, std::chrono::duration<double>(now - tp).count());
      tp = now;
    };
  };
  const auto decomposition_piece = piece_of("decomposition");
  std::vector<std::uint64_t> n_all = {static_cast<std::uint64_t>(particles.size())};
  comm_.sum(n_all);
  bh::validate_tree_params(params, static_cast<std::int64_t>(n_all[0]));
  const bh::Cube cube = global_cube(particles, comm_);
  decomposition_piece("cube");
  std::vector<std::uint64_t> keys;
  // Sorted where they are, through the receive buffer (free until the
  // migration's all-to-all overwrites it); the order found by the rank's
  // backend (a GPU rank's on its device, with the keys too where asked).
  const bool keep_positions = options_.decomposition_on_device.value_or(comm_.size() == 1);
  const ParticleOrder<Real> order_on_backend = [this, keep_positions](
                                                   const RankParticles<Real>& p, const bh::Cube& c,
                                                   std::vector<std::uint64_t>& sorted, std::vector<std::int32_t>& by,
                                                   const std::function<void(const char*)>& lap) {
    return walk_->order_particles(p.p.sources(), std::span<const std::uint64_t>(p.index), c, sorted, by, lap,
                                  keep_positions);
  };
  sort_by_key_in_place(particles, cube, keys, received_, spare_, decomposition_piece, order_on_backend);
  const std::int64_t sorted_n = particles.size();
  RankParticles<Real> s = std::move(particles);
  const TopTree top = build_top_tree(keys, top_bucket(n_all[0], comm_.size(), params.leaf_capacity), comm_);
  const std::vector<std::int64_t> cuts = domain_cuts(top, leaf_work(top, s, keys, comm_), comm_.size());
  decomposition_piece("top");
  // The particles are sorted by key and the domains are pieces of the curve
  // in rank order: each rank's particles are a range.
  const std::vector<std::int64_t> starts = domain_starts(top, cuts, keys);
  decomposition_piece("owners");
  report.add_phase("decomposition", since(t));
  count_traffic("decomposition");
  t = Clock::now();
  tp = t;
  s = migrate(std::move(s), keys, starts, cube, comm_, received_, piece_of("migration"));
  // What the backend kept of the sorted particles holds while none left or
  // arrived (one rank; a step that moved none across domains).
  const int me = comm_.rank();
  if (starts[me] != 0 || starts[me + 1] != sorted_n || s.size() != sorted_n) walk_->particles_changed();
  report.add_phase("migration", since(t));
  count_traffic("migration");

  t = Clock::now();
  tp = t;
  const auto tree_piece = piece_of("tree");
  const int rank = comm_.rank();
  // The rank's backend builds its subtrees (LetWalk::build_run: a GPU rank on its device).
  const RunBuild<Real> on_backend{
      [this](const SourcesView<Real>& run, std::span<const std::uint64_t> k, const bh::TreeParams& p,
             const bh::Cube* c) { return walk_->build_run(run, k, p, c); },
      [this](std::span<const std::int32_t> nodes) { return walk_->run_moments(nodes); }};
  const std::int32_t run_particles =
      options_.build_run_particles > 0 ? options_.build_run_particles : walk_->build_run_particles();
  build_local_tree(own_, s, keys, top, cuts[rank], cuts[rank + 1], cube, params, run_particles, on_backend,
                   tree_piece);
  const LocalTree<Real>& own = own_;
  const NodeRecords<Real> top_nodes = top_node_records<Real>(top, gather_leaf_moments(own.root_moments, top, comm_),
                                                             cube, params);
  tree_piece("top");
  report.add_phase("tree", since(t));
  count_traffic("tree");

  const auto n = static_cast<std::size_t>(s.size());
  // The targets: every particle, or (active_only) those whose s.active is
  // set, as sorted particles k = target(j); results [j] in that order.
  std::vector<std::size_t> which;  // active_only's targets (every particle's is j itself)
  if (active_only)
    for (std::size_t k = 0; k < n; ++k)
      if (s.active[k] != 0) which.push_back(k);
  const std::size_t m = active_only ? which.size() : n;
  const auto target = [&](std::size_t j) { return active_only ? which[j] : j; };
  // Every element is written by the walk (or, with no targets, there is none).
  std::vector<Real> &ax = results_.ax, &ay = results_.ay, &az = results_.az, &pot = results_.pot;
  std::vector<InteractionCounts>& counts = results_.counts;
  for (auto* v : {&ax, &ay, &az}) resize_for_overwrite(*v, m);
  resize_for_overwrite(pot, options.potential ? m : 0);
  resize_for_overwrite(counts, m);
  std::vector<std::int32_t> targets(active_only ? m : 0);  // their indices in the assembled tree (active_only)
  std::vector<Real> target_scale;
  // One evaluation: the local essential trees for these scales, then the walk.
  const auto evaluate = [&](const std::vector<Real>& scale, bool potential) {
    auto te = Clock::now();
    tp = te;
    const auto piece = piece_of("exchange");
    std::vector<std::int64_t> at;
    const auto domains = gather_domains(target_domains(s, scale, own, active_only), at, comm_);
    count_traffic("domains");
    piece("domains");
    send_.clear();
    std::vector<std::int64_t> to(static_cast<std::size_t>(comm_.size()) + 1, 0), from;
    ByteWriter w(send_);
    for (int q = 0; q < comm_.size(); ++q) {
      const std::span<const TargetDomain<Real>> boxes(domains.data() + at[q], domains.data() + at[q + 1]);
      if (q != rank) write_let(w, own, s, keys, boxes, cube, options_.let_shrink);
      to[q + 1] = static_cast<std::int64_t>(send_.size());
    }
    piece("selection");
    comm_.exchange(send_, to, received_, from);
    count_traffic("let");
    piece("alltoall");
    // A rank without targets (a subset solve) was sent nothing and walks nothing.
    // The held particles placed in the tree here, or left where they lie
    // for a walk that places them itself (docs/adr/0021 phase 1).
    if (m > 0 || !active_only) {
      assemble_tree(tree_, top_nodes, own, s, keys, received_, from, cube, params, rank,
                    !options_.walk_places_particles);
      if (!walk_->places_particles()) place_particles(tree_);
    }
    check_budget(m > 0 || !active_only ? tree_.held.held : static_cast<std::int64_t>(n), static_cast<std::int64_t>(n));
    piece("assembly");  // with the budget's check (one all-reduce where a budget is set)
    report.add_phase("exchange", since(te));
    te = Clock::now();
    if (active_only) {
      target_scale.resize(scale.empty() ? 0 : m);
      for (std::size_t j = 0; j < m; ++j) {
        targets[j] = tree_.own[which[j]];  // ascending: tree_.own is
        if (!scale.empty()) target_scale[j] = scale[which[j]];
      }
    }
    // Every particle: the targets are tree_.own itself, the scales scale's.
    const std::span<const std::int32_t> walked = active_only ? std::span<const std::int32_t>(targets) : tree_.own;
    const std::vector<Real>& walked_scale = active_only ? target_scale : scale;
    if (m > 0)
      walk_->walk(tree_.tree, tree_.placed ? nullptr : &tree_.held, walked, potential, ax.data(), ay.data(),
                  az.data(), potential ? pot.data() : nullptr, counts.data(),
                  walked_scale.empty() ? nullptr : walked_scale.data());
    // The first target with a NaN (the lowest j, whatever the threads). The
    // check is collective, so that every rank stops at the same point.
    constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();
    std::int64_t bad = kNone;
    const auto mm = static_cast<std::int64_t>(m);
#pragma omp parallel for schedule(static) reduction(min : bad) if (mm >= kParallelLoop)
    for (std::int64_t j = 0; j < mm; ++j)
      if (std::isnan(ax[j]) | std::isnan(ay[j]) | std::isnan(az[j])) bad = std::min(bad, j);
    const int first_bad = comm_.max(bad != kNone ? comm_.size() - rank : 0);
    if (bad != kNone) {
      place_particles(tree_);  // the host's search for the node reads them
      throw_missing_node(tree_, walked[bad], s.p.id[target(static_cast<std::size_t>(bad))],
                         walked_scale.empty() ? Real(0) : walked_scale[bad], rank);
    }
    if (first_bad > 0)
      throw RuntimeFailure("rank " + std::to_string(rank) + " stops: rank " + std::to_string(comm_.size() - first_bad) +
                           "'s walk opened a node it was not sent (that rank names it)");
    report.add_phase("walk", since(te));
    count_traffic("walk");
  };

  std::vector<Real> scale;
  if (params.opening == bh::Opening::relative) {
    if (!options.previous_accelerations) {
      evaluate(std::vector<Real>(n, Real(0)), false);  // the bootstrap: the geometric walk at theta (every target)
      s.a.ax = ax, s.a.ay = ay, s.a.az = az;
    }
    const auto larger = [](double a, double b) { return std::max(a, b); };
    std::vector<double> largest = {fold_in_order(
        s.size(), 0.0,
        [&](double a, std::int64_t k) { return std::max(a, bh::acceleration_magnitude(s.a.ax[k], s.a.ay[k], s.a.az[k])); },
        larger)};
    comm_.max(largest);
    const double floor = bh::relative_floor(largest[0]);
    scale.resize(n);
#pragma omp parallel for schedule(static) if (s.size() >= kParallelLoop)
    for (std::int64_t k = 0; k < s.size(); ++k) scale[k] = bh::relative_scale(s.a.ax[k], s.a.ay[k], s.a.az[k], floor);
  }
  evaluate(scale, options.potential);

  // Integer sums: exact in any order.
  std::uint64_t visits = 0, cells = 0, pairs = 0;
#pragma omp parallel for schedule(static) reduction(+ : visits, cells, pairs) if (m >= kParallelLoop)
  for (std::size_t j = 0; j < m; ++j) {
    visits += counts[j].node_visits, cells += counts[j].cell_interactions, pairs += counts[j].particle_interactions;
    const std::uint64_t work = counts[j].cell_interactions + counts[j].particle_interactions;
    s.work[target(j)] = static_cast<std::uint32_t>(std::min<std::uint64_t>(work, 0xffffffffu));
  }
  std::vector<std::uint64_t> sums = {visits, cells, pairs};
  comm_.sum(sums);
  count_traffic("totals");
  report.total = {sums[0], sums[1], sums[2]};
  if (options.per_target_counts) report.per_target = counts;
  if (active_only) {
    // The others keep their accelerations and potentials (of their last step's end).
    for (std::size_t j = 0; j < m; ++j) {
      const std::size_t k = which[j];
      if (!keep_accelerations) s.a.ax[k] = ax[j], s.a.ay[k] = ay[j], s.a.az[k] = az[j];
      if (options.potential) s.a.potential[k] = pot[j];
    }
  } else {
    // Swapped: the particles' old arrays are the next solve's results'.
    if (!keep_accelerations) {
      s.a.ax.swap(ax);
      s.a.ay.swap(ay);
      s.a.az.swap(az);
    }
    if (options.potential) {
      s.a.potential.swap(pot);
    } else {
      s.a.potential.resize(n);
      Real* const p = s.a.potential.data();
#pragma omp parallel for schedule(static) if (s.size() >= kParallelLoop)
      for (std::int64_t k = 0; k < s.size(); ++k) p[k] = Real(0);
    }
  }
  particles = std::move(s);
  return report;
}

template <class Real>
void DistributedTree<Real>::check_budget(std::int64_t held, std::int64_t own) const {
  const std::int64_t limit = options_.max_held_particles;
  if (limit <= 0) return;
  // Collective, so that every rank stops together.
  const int worst = comm_.max(held > limit ? comm_.size() - comm_.rank() : 0);
  if (worst == 0) return;
  const int r = comm_.size() - worst;
  if (r == comm_.rank())
    throw InputError("rank " + std::to_string(r) + " of " + std::to_string(comm_.size()) + " holds " +
                     std::to_string(held) + " particles (" + std::to_string(own) + " of its domain, " +
                     std::to_string(held - own) + " received), more than " + options_.budget_key + " = " +
                     std::to_string(limit) + " a rank may hold; accepted: more ranks, or a larger " +
                     options_.budget_key);
  throw InputError("rank " + std::to_string(comm_.rank()) + " stops: rank " + std::to_string(r) +
                   " holds more particles than " + options_.budget_key + " = " + std::to_string(limit) +
                   " (that rank says how many)");
}

template class DistributedTree<float>;
template class DistributedTree<double>;

}  // namespace orrery::mpi
