#pragma once
// The CPU direct solver's loops over targets (OpenMP), around the kernel of
// one target (direct_kernel.hpp), shared by the one-softening solve
// (direct_solver.cpp) and the solve with a softening per type
// (direct_per_type.cpp), which are compiled apart so that the per-type
// instantiations cannot change how the one-softening kernels are inlined.
#include <cstdint>
#include <type_traits>

#include "orrery/gravity/direct_kernel.hpp"
#include "orrery/gravity/targets.hpp"

namespace orrery::gravity::direct_loops {

// Fewer targets than this (< ~50 us of work) run on one thread: starting a
// parallel region costs more, and on a loaded machine much more. The result
// does not depend on it (each target's sum is the same on any thread).
inline constexpr std::int64_t kParallelTargets = 256;

/// The targets of a set (every source when t.all(), a subset, or points).
/// soft_of(k): the softening argument of target k's field (the policy, or
/// its TargetSoftenings with a softening per type).
template <class Real, bool WithPotential, class SoftOf>
void targets(const SourcesView<Real>& s, const TargetSet<Real>& t, const AccelerationsView<Real>& out,
             const SoftOf& soft_of) {
  const std::int64_t n = t.all() ? s.count : t.count;
#pragma omp parallel for schedule(static) if (n >= kParallelTargets)
  for (std::int64_t k = 0; k < n; ++k) {
    const DirectTarget<Real> at = t.all()              ? DirectTarget<Real>(k, s)
                                  : t.index != nullptr ? DirectTarget<Real>(t.index[k], s)
                                                       : DirectTarget<Real>(t.x[k], t.y[k], t.z[k]);
    const auto& soft = soft_of(k);
    const TargetField<Real> f = direct_field_at<Real, std::decay_t<decltype(soft)>, WithPotential>(at, s, soft);
    out.ax[k] = f.ax;
    out.ay[k] = f.ay;
    out.az[k] = f.az;
    if constexpr (WithPotential) out.potential[k] = f.potential;
  }
}

/// The field at `t` (every source when t.all()), potentials when `potential`.
template <class Real, class SoftOf>
void field(const SourcesView<Real>& s, const TargetSet<Real>& t, const AccelerationsView<Real>& out, bool potential,
           const SoftOf& soft_of) {
  potential ? targets<Real, true>(s, t, out, soft_of) : targets<Real, false>(s, t, out, soft_of);
}

}  // namespace orrery::gravity::direct_loops
