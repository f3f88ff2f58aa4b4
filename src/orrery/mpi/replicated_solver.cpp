#include "orrery/mpi/replicated_solver.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <span>
#include <utility>

#include "orrery/bh/opening_relative.hpp"
#include "orrery/core/error.hpp"
#include "orrery/mpi/target_split.hpp"

namespace orrery::mpi {
namespace {

// Below this many targets the O(N) copies run on one thread (a parallel
// region costs more than they do), as the leapfrog's (integrate/leapfrog.hpp).
constexpr std::int64_t kParallelFrom = 1 << 16;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The largest |a| of the targets' previous accelerations, as the tree
/// solvers compute it over the whole set (an exact maximum).
template <class Real>
double largest_magnitude(const AccelerationsView<Real>& a) {
  double largest = 0.0;
#pragma omp parallel for schedule(static) reduction(max : largest)
  for (std::int64_t i = 0; i < a.count; ++i) {
    const double m = bh::acceleration_magnitude(a.ax[i], a.ay[i], a.az[i]);
    largest = m > largest ? m : largest;
  }
  return largest;
}

/// `mine` gathered from every rank into Morton order, then scattered to the
/// targets' places in `out`.
template <class T>
void gather_to_places(const Communicator& comm, const std::vector<T>& mine, const std::vector<std::int64_t>& cuts,
                      const std::vector<std::int64_t>& order, T* out) {
  std::vector<T> all(order.size());
  comm.allgather(std::span<const T>(mine), cuts, std::span<T>(all));
  const auto n = static_cast<std::int64_t>(order.size());
#pragma omp parallel for schedule(static) if (n >= kParallelFrom)
  for (std::int64_t k = 0; k < n; ++k) out[order[k]] = all[k];
}

/// Each target's weight in the next split: its particle-cell plus
/// particle-particle interactions (saturated at 2^32 - 1; far above any
/// target's count for N < 2^31).
std::vector<std::uint32_t> work_of(const std::vector<InteractionCounts>& counts) {
  std::vector<std::uint32_t> work(counts.size());
  for (std::size_t k = 0; k < counts.size(); ++k)
    work[k] = static_cast<std::uint32_t>(std::min<std::uint64_t>(counts[k].cell_interactions + counts[k].particle_interactions,
                                                                 std::numeric_limits<std::uint32_t>::max()));
  return work;
}

}  // namespace

template <class Real>
ReplicatedSolver<Real>::ReplicatedSolver(std::unique_ptr<gravity::ForceSolver<Real>> inner, Communicator comm)
    : inner_(std::move(inner)), comm_(comm) {
  if (!inner_) throw InputError("replicated solver: no force solver given");
  // A solver that cannot walk a subset of the targets is refused here, before
  // a run writes anything, rather than at its first solve: two particles, one target.
  const Real x[2] = {0, 1}, zero[2] = {0, 0}, mass[2] = {1, 1};
  const std::int64_t first = 0;
  Real ax = 0, ay = 0, az = 0;
  gravity::SolveOptions options;
  options.potential = false;
  try {
    inner_->solve({2, x, zero, zero, mass}, gravity::TargetSet<Real>::of_sources(1, &first), {1, &ax, &ay, &az, nullptr},
                  options);
  } catch (const InputError& e) {
    throw InputError(inner_->name() + " cannot split its targets over the ranks of an MPI run (" + e.what() +
                     "); accepted under mpirun: a solver that takes a subset of the targets, as every "
                     "gravity.solver of the library does");
  }
}

template <class Real>
SolverReport ReplicatedSolver<Real>::solve(const SourcesView<Real>& s, const AccelerationsView<Real>& out,
                                           const gravity::SolveOptions& options) {
  return solve(s, gravity::TargetSet<Real>{}, out, options);
}

template <class Real>
std::vector<std::int64_t> ReplicatedSolver<Real>::split(const SourcesView<Real>& s, const gravity::TargetSet<Real>& targets) {
  const std::int64_t n = targets.all() ? s.count : targets.count;
  // The Morton order of every source is refreshed every kRefreshOrder solves:
  // the sort costs about what the tree's own does, and a split from slightly
  // older positions is as good (any split gives the same bits).
  if (by_key_.size() != static_cast<std::size_t>(s.count) || solves_ % kRefreshOrder == 0) by_key_ = morton_order(s);
  ++solves_;
  std::vector<std::int64_t> order;
  std::vector<std::uint32_t> work(static_cast<std::size_t>(n), 0);
  if (targets.all()) {
    order = by_key_;
  } else if (targets.index != nullptr) {
    order = subset_in_order(by_key_, std::span<const std::int64_t>(targets.index, static_cast<std::size_t>(n)));
  } else {  // points: no work counts of their own, split by count in the order given
    order.resize(static_cast<std::size_t>(n));
    for (std::int64_t k = 0; k < n; ++k) order[k] = k;
  }
  if (work_.size() != static_cast<std::size_t>(s.count)) work_.assign(static_cast<std::size_t>(s.count), 0);
  if (targets.all() || targets.index != nullptr) {
#pragma omp parallel for schedule(static) if (n >= kParallelFrom)
    for (std::int64_t k = 0; k < n; ++k) work[k] = work_[targets.all() ? order[k] : targets.index[order[k]]];
  }
  cuts_ = balanced_cuts(work, comm_.size());
  return order;
}

template <class Real>
SolverReport ReplicatedSolver<Real>::solve(const SourcesView<Real>& s, const gravity::TargetSet<Real>& targets,
                                           const AccelerationsView<Real>& out, const gravity::SolveOptions& options) {
  const std::int64_t n = targets.all() ? s.count : targets.count;
  if (out.count != n)
    throw InputError("accelerations hold " + std::to_string(out.count) + " entries for " + std::to_string(n) +
                     (targets.all() ? " sources" : " targets") + "; they must be equal");
  const bool points = !targets.all() && targets.index == nullptr;
  // Points with no previous accelerations are not split: a relative-opening
  // solver bootstraps them, and its floor is the largest |a| of the points
  // walked together (there are no others to take it from), so a rank's share
  // would get another floor than the whole set and other bits. Every rank
  // solves them all (such solves are one-off probes, not the run's steps).
  if (points && !options.previous_accelerations && options.largest_previous_acceleration < 0)
    return inner_->solve(s, targets, out, options);
  const auto source_of = [&](std::int64_t place) { return targets.all() ? place : targets.index[place]; };
  if (!targets.all() && !points) {
    for (std::int64_t k = 0; k < n; ++k)  // before work_ and the order are indexed with them
      if (targets.index[k] < 0 || targets.index[k] >= s.count)
        throw InputError(gravity::target_out_of_range(k, targets.index[k], s.count));
  }

  // The split: the same on every rank, from data every rank holds. Then this
  // rank's targets, their previous accelerations, and the options that make
  // their bits those of the all-targets solve.
  const auto t_split = std::chrono::steady_clock::now();
  const std::vector<std::int64_t> order = split(s, targets);
  const std::int64_t begin = cuts_[comm_.rank()], m = cuts_[comm_.rank() + 1] - begin;
  std::vector<std::int64_t> index;
  std::vector<Real> px, py, pz;
  if (points) {
    px.assign(targets.x + begin, targets.x + begin + m);
    py.assign(targets.y + begin, targets.y + begin + m);
    pz.assign(targets.z + begin, targets.z + begin + m);
  } else {
    index.resize(static_cast<std::size_t>(m));
#pragma omp parallel for schedule(static) if (n >= kParallelFrom)
    for (std::int64_t k = 0; k < m; ++k) index[k] = source_of(order[begin + k]);
  }
  const gravity::TargetSet<Real> mine = points ? gravity::TargetSet<Real>::of_points(m, px.data(), py.data(), pz.data())
                                               : gravity::TargetSet<Real>::of_sources(m, index.data());
  Accelerations<Real> own(static_cast<std::size_t>(m));
  gravity::SolveOptions inner_options = options;
  inner_options.per_target_counts = true;
  if (options.previous_accelerations) {
#pragma omp parallel for schedule(static) if (n >= kParallelFrom)
    for (std::int64_t k = 0; k < m; ++k) {
      const std::int64_t place = order[begin + k];
      own.ax[k] = out.ax[place];
      own.ay[k] = out.ay[place];
      own.az[k] = out.az[place];
    }
    if (inner_options.largest_previous_acceleration < 0) inner_options.largest_previous_acceleration = largest_magnitude(out);
  }
  const double split_seconds = seconds_since(t_split);

  // A rank with no targets (more ranks than targets) does not call the solver: a GPU launch of no threads is an error.
  SolverReport inner;
  if (m > 0) inner = inner_->solve(s, mine, own.view(options.potential && out.potential != nullptr), inner_options);
  if (inner.per_target.size() != static_cast<std::size_t>(m))
    throw RuntimeFailure(inner_->name() + " returned " + std::to_string(inner.per_target.size()) +
                         " per-target counts for " + std::to_string(m) + " targets; the split needs one per target");

  // The wait for the slowest rank is timed apart from the transfer: it is
  // the load imbalance, which the next split corrects.
  const auto t_wait = std::chrono::steady_clock::now();
  comm_.barrier();
  const double wait_seconds = seconds_since(t_wait);
  const auto t_gather = std::chrono::steady_clock::now();
  SolverReport report = gather(own, inner, order, out, options.potential && out.potential != nullptr,
                               options.per_target_counts);
  if (!points) {
    std::vector<std::uint32_t> work_at(static_cast<std::size_t>(n));
    gather_to_places(comm_, work_of(inner.per_target), cuts_, order, work_at.data());
#pragma omp parallel for schedule(static) if (n >= kParallelFrom)
    for (std::int64_t k = 0; k < n; ++k) work_[source_of(k)] = work_at[k];
  }
  report.add_phase("split", split_seconds);
  for (auto& phase : inner.phase_seconds) report.phase_seconds.push_back(std::move(phase));
  report.add_phase("wait", wait_seconds);
  report.add_phase("allgather", seconds_since(t_gather));
  return report;
}

template <class Real>
SolverReport ReplicatedSolver<Real>::gather(const Accelerations<Real>& own, const SolverReport& inner,
                                            const std::vector<std::int64_t>& order, const AccelerationsView<Real>& out,
                                            bool potential, bool per_target) const {
  gather_to_places(comm_, own.ax, cuts_, order, out.ax);
  gather_to_places(comm_, own.ay, cuts_, order, out.ay);
  gather_to_places(comm_, own.az, cuts_, order, out.az);
  if (potential) gather_to_places(comm_, own.potential, cuts_, order, out.potential);
  SolverReport report;
  std::uint64_t totals[3] = {inner.total.node_visits, inner.total.cell_interactions, inner.total.particle_interactions};
  comm_.sum(totals);
  report.total = {totals[0], totals[1], totals[2]};
  if (!per_target) return report;
  const auto n = order.size();
  report.per_target.resize(n);
  std::vector<std::uint64_t> own_count(inner.per_target.size()), at(n);
  for (auto member : {&InteractionCounts::node_visits, &InteractionCounts::cell_interactions,
                      &InteractionCounts::particle_interactions}) {
    for (std::size_t k = 0; k < own_count.size(); ++k) own_count[k] = inner.per_target[k].*member;
    gather_to_places(comm_, own_count, cuts_, order, at.data());
    for (std::size_t k = 0; k < n; ++k) report.per_target[k].*member = at[k];
  }
  return report;
}

template class ReplicatedSolver<float>;
template class ReplicatedSolver<double>;

}  // namespace orrery::mpi
