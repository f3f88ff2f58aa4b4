#include "orrery/gravity/reference_solver.hpp"

#include <omp.h>

#include <chrono>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "orrery/core/compensated_sum.hpp"
#include "orrery/core/error.hpp"
#include "orrery/core/pair_softening.hpp"
#include "orrery/gravity/dispatch.hpp"
#include "orrery/gravity/all_pairs_report.hpp"
#include "orrery/gravity/solve_arguments.hpp"

namespace orrery::gravity {

template <class Real>
ReferenceSolver<Real>::ReferenceSolver(SofteningKind kernel, double eps, const std::optional<SofteningClasses>& per_type)
    : kernel_(kernel), eps_(validated_softening(eps)) {
  if (per_type && !per_type->uniform()) per_type_ = validated_softening_classes(*per_type);
}

template <class Real>
std::string ReferenceSolver<Real>::name() const {
  return std::string("reference/cpu/") + std::string(to_string(kernel_));
}

namespace {

struct DoubleSources {
  std::vector<double> x, y, z, m;
  template <class Real>
  explicit DoubleSources(const SourcesView<Real>& s)
      : x(s.x, s.x + s.count), y(s.y, s.y + s.count), z(s.z, s.z + s.count), m(s.mass, s.mass + s.count) {}
};

struct DoubleField {
  double ax, ay, az, phi;
};

/// The field of all sources at (xi, yi, zi), source `self` excluded (-1: a
/// point that is no source excludes none), compensated. soft: the policy, or
/// the target's TargetSoftenings (core/pair_softening.hpp).
template <class Softening>
DoubleField reference_at(double xi, double yi, double zi, std::int64_t self, const DoubleSources& s,
                         const Softening& soft) {
  const std::int64_t n = static_cast<std::int64_t>(s.x.size());
  CompensatedSum ax, ay, az, phi;
  for (std::int64_t j = 0; j < n; ++j) {
    if (j == self) continue;  // the yardstick favours clarity over speed
    const double dx = s.x[j] - xi, dy = s.y[j] - yi, dz = s.z[j] - zi;
    const auto ff = source_softening(soft, j).template factors<MathMode::exact>(xm::norm2(dx, dy, dz));
    const double mf = s.m[j] * ff.f;
    ax += mf * dx;
    ay += mf * dy;
    az += mf * dz;
    phi += -s.m[j] * ff.phi;
  }
  return {ax.value(), ay.value(), az.value(), phi.value()};
}

/// The field at source i, itself excluded.
template <class Softening>
DoubleField reference_at(std::int64_t i, const DoubleSources& s, const Softening& soft) {
  return reference_at(s.x[i], s.y[i], s.z[i], i, s, soft);
}

/// out[k] = the field at target k, for k < count; `at(k, s)` is its DoubleField.
template <class Real, class At>
void reference_sum(const SourcesView<Real>& sources, std::int64_t count, const AccelerationsView<Real>& out,
                   bool potential, const At& at) {
  // Sources in double once, so the O(N^2) loop converts nothing.
  const DoubleSources s(sources);
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t k = 0; k < count; ++k) {
    const DoubleField f = at(k, s);
    out.ax[k] = static_cast<Real>(f.ax);
    out.ay[k] = static_cast<Real>(f.ay);
    out.az[k] = static_cast<Real>(f.az);
    if (potential) out.potential[k] = static_cast<Real>(f.phi);
  }
}

/// Calls f(soft_of), soft_of(i) the softening argument of reference_at for
/// a target that is source i (-1: a point, which has no softening of its
/// own): the one policy, or with a softening per type the target's row of
/// pair softenings (GADGET-4's larger of the two, core/softening_classes.hpp).
template <class F>
void with_targets_softening(SofteningKind kernel, double eps, const std::optional<SofteningClasses>& per_type,
                            std::int64_t sources, const std::string& solver, const F& f) {
  if (!per_type) {
    with_softening<double>(kernel, eps, [&](const auto& soft) { f([&](std::int64_t) { return soft; }); });
    return;
  }
  const std::vector<std::uint8_t> cls = per_type->of_sources(sources, solver);
  with_softening<double>(kernel, eps, [&](const auto& soft) {
    using Policy = std::decay_t<decltype(soft)>;
    const auto pairs = PairSoftenings<Policy>::template of<double>(*per_type);
    f([&](std::int64_t i) {
      return TargetSoftenings<Policy, double>{pairs.row(i < 0 ? PairSoftenings<Policy>::kPointRow : int{cls[i]}),
                                              cls.data()};
    });
  });
}

}  // namespace

template <class Real>
SolverReport ReferenceSolver<Real>::solve(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                                          const SolveOptions& options) {
  check_solve_arguments(name(), sources, out);
  const auto start = std::chrono::steady_clock::now();
  const bool potential = options.potential && out.potential != nullptr;
  // soft_of(c): the softening argument of a target of class c (kPointRow: a point).
  with_targets_softening(kernel_, eps_, per_type_, sources.count, name(), [&](const auto& soft_of) {
    reference_sum(sources, sources.count, out, potential, [&](std::int64_t i, const DoubleSources& s) {
      return reference_at(i, s, soft_of(i));
    });
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return all_pairs_report(sources.count, options.per_target_counts, "reference", seconds);
}

template <class Real>
SolverReport ReferenceSolver<Real>::solve(const SourcesView<Real>& sources, const TargetSet<Real>& targets,
                                          const AccelerationsView<Real>& out, const SolveOptions& options) {
  if (targets.all()) return solve(sources, out, options);
  check_target_set(name(), sources, targets, out);
  const auto start = std::chrono::steady_clock::now();
  const bool potential = options.potential && out.potential != nullptr;
  with_targets_softening(kernel_, eps_, per_type_, sources.count, name(), [&](const auto& soft_of) {
    reference_sum(sources, targets.count, out, potential, [&](std::int64_t k, const DoubleSources& s) {
      if (targets.index != nullptr) return reference_at(targets.index[k], s, soft_of(targets.index[k]));
      // A point is converted to double as a source is, so one on a source gets its bits.
      return reference_at(static_cast<double>(targets.x[k]), static_cast<double>(targets.y[k]),
                          static_cast<double>(targets.z[k]), -1, s, soft_of(-1));
    });
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return all_pairs_report(sources.count, targets, options.per_target_counts, "reference", seconds);
}

template <class Real>
void reference_accelerations_at(const SourcesView<Real>& sources, std::span<const std::int64_t> targets,
                                SofteningKind kernel, double eps, double* ax, double* ay, double* az) {
  const DoubleSources s(sources);
  with_softening<double>(kernel, eps, [&](const auto& soft) {
#pragma omp parallel for schedule(dynamic, 4)
    for (std::size_t k = 0; k < targets.size(); ++k) {
      const DoubleField f = reference_at(targets[k], s, soft);
      ax[k] = f.ax;
      ay[k] = f.ay;
      az[k] = f.az;
    }
  });
}

template void reference_accelerations_at(const SourcesView<float>&, std::span<const std::int64_t>, SofteningKind,
                                         double, double*, double*, double*);
template void reference_accelerations_at(const SourcesView<double>&, std::span<const std::int64_t>, SofteningKind,
                                         double, double*, double*, double*);
template class ReferenceSolver<float>;
template class ReferenceSolver<double>;

}  // namespace orrery::gravity
