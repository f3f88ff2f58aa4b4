#include "orrery/gravity/reference_solver.hpp"

#include <omp.h>

#include <chrono>
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

/// The field of all sources at source i (itself excluded), compensated.
/// soft: the policy, or source i's TargetSoftenings (core/pair_softening.hpp).
template <class Softening>
DoubleField reference_at(std::int64_t i, const DoubleSources& s, const Softening& soft) {
  const std::int64_t n = static_cast<std::int64_t>(s.x.size());
  CompensatedSum ax, ay, az, phi;
  for (std::int64_t j = 0; j < n; ++j) {
    if (j == i) continue;  // the yardstick favours clarity over speed
    const double dx = s.x[j] - s.x[i], dy = s.y[j] - s.y[i], dz = s.z[j] - s.z[i];
    const auto ff = source_softening(soft, j).template factors<MathMode::exact>(xm::norm2(dx, dy, dz));
    const double mf = s.m[j] * ff.f;
    ax += mf * dx;
    ay += mf * dy;
    az += mf * dz;
    phi += -s.m[j] * ff.phi;
  }
  return {ax.value(), ay.value(), az.value(), phi.value()};
}

// soft_of(i): the softening argument of source i's field.
template <class Real, class SoftOf>
void reference_sum(const SourcesView<Real>& sources, const AccelerationsView<Real>& out, bool potential,
                   const SoftOf& soft_of) {
  // Sources in double once, so the O(N^2) loop converts nothing.
  const DoubleSources s(sources);
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t i = 0; i < sources.count; ++i) {
    const DoubleField f = reference_at(i, s, soft_of(i));
    out.ax[i] = static_cast<Real>(f.ax);
    out.ay[i] = static_cast<Real>(f.ay);
    out.az[i] = static_cast<Real>(f.az);
    if (potential) out.potential[i] = static_cast<Real>(f.phi);
  }
}

}  // namespace

template <class Real>
SolverReport ReferenceSolver<Real>::solve(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                                          const SolveOptions& options) {
  check_solve_arguments(name(), sources, out);
  const auto start = std::chrono::steady_clock::now();
  const bool potential = options.potential && out.potential != nullptr;
  if (!per_type_) {
    with_softening<double>(kernel_, eps_, [&](const auto& soft) {
      reference_sum(sources, out, potential, [&](std::int64_t) { return soft; });
    });
  } else {
    const std::vector<std::uint8_t> cls = per_type_->of_sources(sources.count, name());
    with_softening<double>(kernel_, eps_, [&](const auto& soft) {
      using Policy = std::decay_t<decltype(soft)>;
      const auto pairs = PairSoftenings<Policy>::template of<double>(*per_type_);
      reference_sum(sources, out, potential,
                    [&](std::int64_t i) { return TargetSoftenings<Policy, double>{pairs.row(cls[i]), cls.data()}; });
    });
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return all_pairs_report(sources.count, options.per_target_counts, "reference", seconds);
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
