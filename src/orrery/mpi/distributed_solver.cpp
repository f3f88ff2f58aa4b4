#include "orrery/mpi/distributed_solver.hpp"

#include <algorithm>
#include <utility>

#include "orrery/mpi/migrate.hpp"

namespace orrery::mpi {

template <class Real>
DistributedSolver<Real>::DistributedSolver(const bh::TreeSolverConfig& config, Communicator comm,
                                           std::shared_ptr<LetWalk<Real>> walk, std::string name)
    : comm_(comm),
      tree_(config, comm, {}, std::move(walk)),
      name_(name.empty() ? "tree/cpu/" + std::string(to_string(config.tree.multipole)) : std::move(name)) {}

template <class Real>
std::string DistributedSolver<Real>::name() const {
  // One process's tree solver's name: it computes that solver's bits, and
  // snapshots (which store the name) are then one process's files.
  return name_;
}

template <class Real>
SolverReport DistributedSolver<Real>::solve(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                                            const gravity::SolveOptions& options) {
  if (out.count != sources.count)
    throw InputError("accelerations hold " + std::to_string(out.count) + " entries for " +
                     std::to_string(sources.count) + " sources; they must be equal");
  // This rank's share: every K-th source, with its index (and, for the
  // relative opening, its previous acceleration).
  RankParticles<Real> s;
  const int r = comm_.rank(), k = comm_.size();
  for (std::int64_t i = r; i < sources.count; i += k) {
    s.p.x.push_back(sources.x[i]), s.p.y.push_back(sources.y[i]), s.p.z.push_back(sources.z[i]);
    s.p.mass.push_back(sources.mass[i]);
    s.index.push_back(static_cast<std::uint64_t>(i));
    s.a.ax.push_back(options.previous_accelerations ? out.ax[i] : Real(0));
    s.a.ay.push_back(options.previous_accelerations ? out.ay[i] : Real(0));
    s.a.az.push_back(options.previous_accelerations ? out.az[i] : Real(0));
  }
  const auto n = s.p.x.size();
  for (auto* v : {&s.p.vx, &s.p.vy, &s.p.vz}) v->assign(n, Real(0));
  s.p.id = s.index;
  s.a.potential.assign(n, Real(0));
  s.work.assign(n, 0);
  SolverReport report = tree_.solve(s, options);
  const RankParticles<Real> all = gathered_in_index_order(s, comm_);
  std::copy(all.a.ax.begin(), all.a.ax.end(), out.ax);
  std::copy(all.a.ay.begin(), all.a.ay.end(), out.ay);
  std::copy(all.a.az.begin(), all.a.az.end(), out.az);
  if (options.potential && out.potential != nullptr) std::copy(all.a.potential.begin(), all.a.potential.end(), out.potential);
  report.per_target.clear();  // per rank, in its domain's order: not the caller's
  return report;
}

template class DistributedSolver<float>;
template class DistributedSolver<double>;

}  // namespace orrery::mpi
