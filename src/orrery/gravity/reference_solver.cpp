#include "orrery/gravity/reference_solver.hpp"

#include <omp.h>

#include <chrono>
#include <vector>

#include "orrery/core/compensated_sum.hpp"
#include "orrery/core/error.hpp"
#include "orrery/gravity/dispatch.hpp"
#include "orrery/gravity/all_pairs_report.hpp"
#include "orrery/gravity/solve_arguments.hpp"

namespace orrery::gravity {

template <class Real>
ReferenceSolver<Real>::ReferenceSolver(SofteningKind kernel, double eps) : kernel_(kernel), eps_(eps) {
  if (!(eps >= 0)) throw InputError("reference solver: softening = " + std::to_string(eps) + "; accepted: >= 0");
}

template <class Real>
std::string ReferenceSolver<Real>::name() const {
  return std::string("reference/cpu/") + std::string(to_string(kernel_));
}

namespace {

template <class Real, class Softening>
void reference_sum(const SourcesView<Real>& s, const AccelerationsView<Real>& out, bool potential,
                   const Softening& soft) {
  const std::int64_t n = s.count;
  // Sources in double once, so the O(N^2) loop converts nothing.
  std::vector<double> x(s.x, s.x + n), y(s.y, s.y + n), z(s.z, s.z + n), m(s.mass, s.mass + n);
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t i = 0; i < n; ++i) {
    CompensatedSum ax, ay, az, phi;
    for (std::int64_t j = 0; j < n; ++j) {
      if (j == i) continue;  // the yardstick favours clarity over speed
      const double dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
      const auto ff = soft.template factors<MathMode::exact>(xm::norm2(dx, dy, dz));
      const double mf = m[j] * ff.f;
      ax += mf * dx;
      ay += mf * dy;
      az += mf * dz;
      phi += -m[j] * ff.phi;
    }
    out.ax[i] = static_cast<Real>(ax.value());
    out.ay[i] = static_cast<Real>(ay.value());
    out.az[i] = static_cast<Real>(az.value());
    if (potential) out.potential[i] = static_cast<Real>(phi.value());
  }
}

}  // namespace

template <class Real>
SolverReport ReferenceSolver<Real>::solve(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                                          const SolveOptions& options) {
  check_solve_arguments(name(), sources, out);
  const auto start = std::chrono::steady_clock::now();
  const bool potential = options.potential && out.potential != nullptr;
  with_softening<double>(kernel_, eps_, [&](const auto& soft) { reference_sum(sources, out, potential, soft); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return all_pairs_report(sources.count, options.per_target_counts, "reference", seconds);
}

template class ReferenceSolver<float>;
template class ReferenceSolver<double>;

}  // namespace orrery::gravity
