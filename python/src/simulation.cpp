// Simulation_float32 / Simulation_float64: the library's Simulation<Real>
// with numpy access. Particle and acceleration columns are zero-copy,
// read-only views of the simulation's own host memory (kept alive by the
// Python object, updated in place as it steps); (N, 3) rows are copies.
//
// Stepping releases the GIL and takes it back about every 0.1 s to check
// for signals, so Ctrl-C interrupts a long integrate() between two steps,
// leaving a consistent state (KeyboardInterrupt is raised).
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include <nanobind/stl/array.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "arrays.hpp"
#include "bindings.hpp"
#include "files.hpp"
#include "orrery/core/error.hpp"
#include "orrery/integrate/diagnostics_output.hpp"
#include "orrery/integrate/run_watch.hpp"
#include "orrery/diag/lagrangian_radii.hpp"
#include "orrery/io/validate_particles.hpp"
#include "simulation_handle.hpp"

namespace orrery::python {

namespace {

using integrate::SimulationState;

template <class Real>
Particles<Real> particles_from(const Rows3<Real>& positions, const Rows3<Real>& velocities, const Column<Real>& masses,
                               const std::optional<Column<std::uint64_t>>& ids) {
  const std::size_t n = positions.shape(0);
  const auto require = [n](const char* name, std::size_t got) {
    if (got != n) {
      throw InputError("orrery.Simulation: " + std::string(name) + " has " + std::to_string(got) +
                       " rows but positions has " + std::to_string(n) + "; they must be equal");
    }
  };
  require("velocities", velocities.shape(0));
  require("masses", masses.shape(0));
  if (ids) require("ids", ids->shape(0));
  if (n == 0) throw InputError("orrery.Simulation: positions has 0 rows; accepted: N >= 1 particles");
  Particles<Real> p(n);
  split_rows(positions, p.x, p.y, p.z);
  split_rows(velocities, p.vx, p.vy, p.vz);
  p.mass = to_vector(masses);
  if (ids) {
    p.id = to_vector(*ids);
  } else {
    for (std::size_t i = 0; i < n; ++i) p.id[i] = i + 1;  // 1..N, as the generators number them
  }
  io::validate_particles(p, "orrery.Simulation", {"positions", "velocities", "masses", "ids"});
  return p;
}

/// Runs `count` steps with the GIL released, checking for signals between
/// slices of about 0.1 s. Returns early (raising) on KeyboardInterrupt.
/// A device-resident simulation's host copies are refreshed once at the end
/// (and on an interrupt), so the numpy views follow the simulation from call
/// to call as a host simulation's do, at one download per call.
template <class Real>
void run_steps(SimulationHandle<Real>& h, std::int64_t count) {
  using Clock = std::chrono::steady_clock;
  const auto claim = h.claim();
  auto& sim = h.sim();
  const auto refresh = [&sim] {
    if (sim.device() == nullptr) return;  // host: the views are the state itself
    nb::gil_scoped_release release;
    sim.particles();
    sim.accelerations();
  };
  std::int64_t done = 0;
  while (done < count) {
    {
      nb::gil_scoped_release release;
      const auto slice_end = Clock::now() + std::chrono::milliseconds(100);
      do {
        sim.step();
        ++done;
      } while (done < count && Clock::now() < slice_end);
    }
    if (PyErr_CheckSignals() != 0) {
      refresh();
      throw nb::python_error();
    }
  }
  refresh();
}

template <class Real>
const Accelerations<Real>& accelerations_of(SimulationHandle<Real>& h) {
  const auto claim = h.claim();
  nb::gil_scoped_release release;
  return h.sim().accelerations();
}

/// The diagnostics row at the current state, measured by the CLI's own
/// diagnostics output (integrate/diagnostics_output.hpp): potentials
/// evaluated if needed, and the first measurement of a run sets the
/// reference energy of the relative energy error.
template <class Real>
nb::dict diagnostics(SimulationHandle<Real>& h) {
  diag::Diagnostics d;
  {
    const auto claim = h.claim();
    nb::gil_scoped_release release;
    const auto measure = integrate::diagnostics_output<Real>(nullptr, 1.0, [&d](const diag::Diagnostics& row) { d = row; });
    measure.write(h.sim());
  }
  nb::dict out;
  out["time"] = d.time;
  out["step"] = d.step;
  out["kinetic"] = d.kinetic;
  out["potential"] = d.potential;
  out["total"] = d.total;
  out["relative_energy_error"] = d.relative_energy_error;
  out["virial_ratio"] = d.virial_ratio;
  out["momentum"] = d.momentum;
  out["angular_momentum"] = d.angular_momentum;
  out["lagrangian_radii"] = d.lagrangian_radii;
  return out;
}

template <class Real>
void bind_simulation_of(nb::module_& m) {
  using Handle = SimulationHandle<Real>;
  using Column = std::vector<Real> Particles<Real>::*;
  const auto column = [](Column member) {
    return [member](Handle& h) { return view(h.sim().particles().*member, nb::find(&h)); };
  };
  using AccColumn = std::vector<Real> Accelerations<Real>::*;
  const auto acc_column = [](AccColumn member) {
    return [member](Handle& h) { return view(accelerations_of(h).*member, nb::find(&h)); };
  };

  nb::class_<Handle>(m, (std::string("Simulation") + dtype_suffix<Real>()).c_str())
      .def(
          "__init__",
          [](Handle* self, const Rows3<Real>& positions, const Rows3<Real>& velocities,
             const python::Column<Real>& masses, const std::optional<python::Column<std::uint64_t>>& ids,
             const gravity::GravityConfig& gravity, const SimulationState& state) {
            new (self) Handle(particles_from(positions, velocities, masses, ids), gravity, state);
          },
          nb::arg("positions"), nb::arg("velocities"), nb::arg("masses"), nb::arg("ids").none(), nb::arg("gravity"),
          nb::arg("state"))
      .def_prop_ro("n", [](const Handle& h) { return h.sim().particles().size(); })
      .def_prop_ro("time", [](const Handle& h) { return h.sim().time(); })
      .def_prop_ro("step_count", [](const Handle& h) { return h.sim().step_count(); })
      .def_prop_ro("state", [](const Handle& h) { return h.sim().state(); })
      .def_prop_ro("gravity", [](const Handle& h) { return h.gravity(); })
      .def_prop_ro("solver_name", [](const Handle& h) { return h.sim().solver_name(); })
      .def_prop_ro("device_resident", [](const Handle& h) { return h.sim().device() != nullptr; })
      .def_prop_ro("interactions", [](const Handle& h) { return h.sim().interactions(); })
      .def_prop_ro("timers",
                   [](const Handle& h) {
                     nb::dict d;
                     for (const auto& [name, s] : h.sim().timers().totals()) d[name.c_str()] = s;
                     return d;
                   })
      .def("steps_until", [](const Handle& h, double t) { return h.sim().steps_until(t); }, nb::arg("t"))
      .def("step", [](Handle& h, std::int64_t count) { run_steps(h, count); }, nb::arg("count") = 1)
      .def(
          "integrate", [](Handle& h, double t) { run_steps(h, h.sim().steps_until(t)); }, nb::arg("t"))
      .def_prop_ro("x", column(&Particles<Real>::x))
      .def_prop_ro("y", column(&Particles<Real>::y))
      .def_prop_ro("z", column(&Particles<Real>::z))
      .def_prop_ro("vx", column(&Particles<Real>::vx))
      .def_prop_ro("vy", column(&Particles<Real>::vy))
      .def_prop_ro("vz", column(&Particles<Real>::vz))
      .def_prop_ro("mass", column(&Particles<Real>::mass))
      .def_prop_ro("id", [](Handle& h) { return view(h.sim().particles().id, nb::find(&h)); })
      .def_prop_ro("ax", acc_column(&Accelerations<Real>::ax))
      .def_prop_ro("ay", acc_column(&Accelerations<Real>::ay))
      .def_prop_ro("az", acc_column(&Accelerations<Real>::az))
      .def_prop_ro("potential",
                   [](Handle& h) {
                     const std::vector<Real>* pot = nullptr;
                     {
                       const auto claim = h.claim();
                       nb::gil_scoped_release release;
                       pot = &h.sim().potentials();
                     }
                     return view(*pot, nb::find(&h));
                   })
      .def("positions",
           [](const Handle& h) {
             const auto& p = h.sim().particles();
             return join_columns(p.x, p.y, p.z);
           })
      .def("velocities",
           [](const Handle& h) {
             const auto& p = h.sim().particles();
             return join_columns(p.vx, p.vy, p.vz);
           })
      .def("accelerations",
           [](Handle& h) {
             const auto& a = accelerations_of(h);
             return join_columns(a.ax, a.ay, a.az);
           })
      .def("restore_accelerations",
           [](Handle& h, const Rows3<Real>& rows) {
             Accelerations<Real> a;
             split_rows(rows, a.ax, a.ay, a.az);
             const auto claim = h.claim();
             h.sim().restore_accelerations(a);
           },
           nb::arg("accelerations"),
           "Sets the accelerations at the current positions (a checkpoint's): the next step kicks with them and "
           "the next evaluation reads them as the previous one's.")
      .def("diagnostics", &diagnostics<Real>)
      .def(
          "step_warning",
          [](Handle& h) -> std::optional<std::string> {
            const auto claim = h.claim();
            nb::gil_scoped_release release;
            auto& sim = h.sim();
            const auto rule = integrate::watched_rule(h.gravity().softening);
            const auto smallest = integrate::smallest_step(rule, sim.accelerations(), sim.potentials());
            return integrate::step_warning(sim.state().dt, rule, smallest, sim.time(), sim.step_count());
          },
          "The run watch's warning (integrate/run_watch.hpp) when dt is larger than the time-step criterion's "
          "step for the fastest particle now, else None.")
      .def(
          "lagrangian_radii",
          [](const Handle& h, const std::vector<double>& fractions) {
            return diag::lagrangian_radii(h.sim().particles(), fractions);
          },
          nb::arg("fractions"))
      .def(
          "use_block_steps",
          [](Handle& h, const std::string& criterion, double eta, double dt_min) {
            if (criterion != "softening" && criterion != "dynamical")
              throw InputError("criterion = '" + criterion + "'; accepted: one of: softening, dynamical");
            const auto kind = criterion == "softening" ? integrate::StepCriterion::softening
                                                       : integrate::StepCriterion::dynamical;
            const auto claim = h.claim();
            h.sim().use_block_steps({.rule = {kind, eta, h.gravity().softening}, .dt_min = dt_min});
          },
          nb::arg("criterion"), nb::arg("eta"), nb::arg("dt_min"),
          "Block time steps from now on (integration.kind = \"block\"), dt the longest step.")
      .def_prop_ro("block_steps", [](const Handle& h) { return h.sim().has_block_steps(); })
      .def(
          "restore_time_bins",
          [](Handle& h, const python::Column<std::int8_t>& bins) {
            std::vector<integrate::TimeBin> b(bins.data(), bins.data() + bins.shape(0));
            const auto claim = h.claim();
            h.sim().restore_time_bins(std::move(b));
          },
          nb::arg("bins"), "Sets every particle's time bin (a checkpoint's).")
      .def("time_bins",
                   [](const Handle& h) {
                     auto bins = h.sim().time_bins();
                     const std::size_t n = bins.size();
                     return to_numpy(std::move(bins), {n});
                   })
      .def("time_bin_histogram",
                   [](const Handle& h) {
                     auto counts = h.sim().has_block_steps() ? h.sim().time_bin_histogram() : std::vector<std::int64_t>{};
                     const std::size_t n = counts.size();
                     return to_numpy(std::move(counts), {n});
                   })
      .def("save_snapshot", &save_snapshot<Real>, nb::arg("path"), nb::arg("config"), nb::arg("fields"),
           nb::arg("types"))
      .def("save_checkpoint", &save_checkpoint<Real>, nb::arg("path"), nb::arg("config"), nb::arg("counters"));
}

}  // namespace

void bind_simulation(nb::module_& m) {
  nb::class_<SimulationState>(m, "SimulationState", "Time origin, dt, step count, reference energy, RNG state.")
      .def(nb::init<>())
      .def_rw("time_origin", &SimulationState::time_origin)
      .def_rw("dt", &SimulationState::dt)
      .def_rw("step", &SimulationState::step)
      .def_rw("initial_energy", &SimulationState::initial_energy)
      .def_rw("rng_state", &SimulationState::rng_state);
  bind_simulation_of<float>(m);
  bind_simulation_of<double>(m);
  m.def(
      "energy_error_excess",
      [](std::int64_t step, double time, double relative_energy_error, double limit) {
        diag::Diagnostics row;
        row.step = step;
        row.time = time;
        row.relative_energy_error = relative_energy_error;
        return integrate::energy_error_excess(row, limit);
      },
      nb::arg("step"), nb::arg("time"), nb::arg("relative_energy_error"), nb::arg("limit"),
      "The run watch's message for a diagnostics row past the limit (the CLI's words), else None.");
}

}  // namespace orrery::python
