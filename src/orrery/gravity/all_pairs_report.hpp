#pragma once
// The report of a solver that sums every pair (reference, direct): each
// target interacts with the N - 1 other particles, no nodes (a point that is
// no source: with all N).
#include <cstdint>
#include <string>
#include <utility>

#include "orrery/core/solver_report.hpp"
#include "orrery/gravity/targets.hpp"

namespace orrery::gravity {

inline SolverReport all_pairs_report(std::int64_t count, bool per_target, std::string phase, double seconds) {
  SolverReport report;
  const auto n = static_cast<std::uint64_t>(count);
  const std::uint64_t others = n > 0 ? n - 1 : 0;
  report.total.particle_interactions = n * others;
  if (per_target) report.per_target.assign(n, InteractionCounts{0, 0, others});
  report.add_phase(std::move(phase), seconds);
  return report;
}

/// The same for a solve at `targets` (not every source) among `sources` particles.
template <class Real>
SolverReport all_pairs_report(std::int64_t sources, const TargetSet<Real>& targets, bool per_target, std::string phase,
                              double seconds) {
  SolverReport report;
  const auto n = static_cast<std::uint64_t>(sources);
  const InteractionCounts each{0, 0, targets.index != nullptr ? n - 1 : n};
  report.total.particle_interactions = each.particle_interactions * static_cast<std::uint64_t>(targets.count);
  if (per_target) report.per_target.assign(static_cast<std::size_t>(targets.count), each);
  report.add_phase(std::move(phase), seconds);
  return report;
}

}  // namespace orrery::gravity
