// One-shot force evaluation: the solver the factory builds from the config
// (the same one the CLI builds), on positions given as (N, 3) rows.
#include <cstdint>
#include <string>

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include "arrays.hpp"
#include "bindings.hpp"
#include "orrery/core/error.hpp"
#include "orrery/gravity/solver_factory.hpp"

namespace orrery::python {

namespace {

template <class Real>
nb::tuple forces(const Rows3<Real>& positions, const Column<Real>& masses, const gravity::GravityConfig& config,
                 bool potential, bool per_target) {
  const std::size_t n = positions.shape(0);
  if (masses.shape(0) != n) {
    throw InputError("orrery.forces: masses has " + std::to_string(masses.shape(0)) + " entries but positions has " +
                     std::to_string(n) + " rows; they must be equal");
  }
  auto solver = gravity::make_solver<Real>(config);
  Particles<Real> sources;
  Accelerations<Real> out(n);
  SolverReport report;
  {
    nb::gil_scoped_release release;
    split_rows(positions, sources.x, sources.y, sources.z);
    sources.mass.assign(masses.data(), masses.data() + n);
    gravity::SolveOptions options;
    options.potential = potential;
    options.per_target_counts = per_target;
    report = solver->solve(SourcesView<Real>{static_cast<std::int64_t>(n), sources.x.data(), sources.y.data(),
                                             sources.z.data(), sources.mass.data()},
                           out.view(potential), options);
  }
  nb::dict info = report_dict(report, solver->name());
  if (per_target) {
    std::vector<std::uint64_t> counts(3 * report.per_target.size());
    for (std::size_t i = 0; i < report.per_target.size(); ++i) {
      counts[3 * i] = report.per_target[i].node_visits;
      counts[3 * i + 1] = report.per_target[i].cell_interactions;
      counts[3 * i + 2] = report.per_target[i].particle_interactions;
    }
    info["per_target"] = to_numpy(std::move(counts), {report.per_target.size(), 3});
  }
  nb::object pot = potential ? nb::cast(to_numpy(std::move(out.potential), {n})) : nb::none();
  return nb::make_tuple(join_columns(out.ax, out.ay, out.az), pot, info);
}

template <class Real>
void bind_forces_of(nb::module_& m) {
  m.def((std::string("forces") + dtype_suffix<Real>()).c_str(), &forces<Real>, nb::arg("positions"),
        nb::arg("masses"), nb::arg("config"), nb::arg("potential") = true, nb::arg("per_target") = false,
        "(accelerations (N,3), potentials (N,) or None, report dict); the GIL is released while solving.");
}

}  // namespace

nb::dict report_dict(const SolverReport& report, const std::string& solver) {
  nb::dict d;
  d["solver"] = solver;
  d["node_visits"] = report.total.node_visits;
  d["cell_interactions"] = report.total.cell_interactions;
  d["particle_interactions"] = report.total.particle_interactions;
  nb::dict phases;
  for (const auto& [name, seconds] : report.phase_seconds) {
    const nb::str key(name.c_str());
    phases[key] = phases.contains(key) ? nb::cast<double>(phases[key]) + seconds : seconds;  // a phase may run twice
  }
  d["phase_seconds"] = phases;
  d["seconds"] = report.seconds();
  return d;
}

void bind_forces(nb::module_& m) {
  bind_forces_of<float>(m);
  bind_forces_of<double>(m);
}

}  // namespace orrery::python
