#include "files.hpp"

#include <utility>

#include <nanobind/stl/array.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "arrays.hpp"
#include "bindings.hpp"
#include "orrery/driver/setup.hpp"
#include "orrery/io/checkpoint.hpp"
#include "orrery/io/config.hpp"

namespace orrery::python {

namespace {

}  // namespace

template <class Real>
nb::dict particle_arrays(Particles<Real>&& p) {
  nb::dict d;
  const std::size_t n = static_cast<std::size_t>(p.size());
  d["positions"] = join_columns(p.x, p.y, p.z);
  d["velocities"] = join_columns(p.vx, p.vy, p.vz);
  d["masses"] = to_numpy(std::move(p.mass), {n});
  d["ids"] = to_numpy(std::move(p.id), {n});
  return d;
}
template nb::dict particle_arrays<float>(Particles<float>&&);
template nb::dict particle_arrays<double>(Particles<double>&&);

namespace {

/// The snapshot in the file's precision read as double (exact for float
/// files: the Python layer rounds back to float32 without change).
nb::tuple read_snapshot(const std::string& path) {
  io::Snapshot<double> s;
  {
    nb::gil_scoped_release release;
    s = io::read_snapshot<double>(path);
  }
  const std::size_t n = static_cast<std::size_t>(s.particles.size());
  nb::dict arrays = particle_arrays(std::move(s.particles));
  if (s.has_acceleration) arrays["accelerations"] = join_columns(s.field.ax, s.field.ay, s.field.az);
  if (s.has_potential) arrays["potentials"] = to_numpy(std::move(s.field.potential), {n});
  // copy: the default (automatic_reference) would point Python at these locals
  return nb::make_tuple<nb::rv_policy::copy>(arrays, s.info);
}

template <class Real>
nb::tuple read_checkpoint_as(const std::string& path) {
  io::Checkpoint<Real> c;
  {
    nb::gil_scoped_release release;
    c = io::read_checkpoint<Real>(path);
  }
  nb::dict build;
  build["version"] = c.build.version;
  build["precision"] = c.build.precision;
  build["compiler"] = c.build.compiler;
  nb::dict arrays = particle_arrays(std::move(c.particles));
  const auto& a = c.accelerations;
  if (!a.ax.empty()) arrays["accelerations"] = join_columns(a.ax, a.ay, a.az);
  if (!c.time_bins.empty()) {
    const std::size_t n = c.time_bins.size();
    arrays["time_bins"] = to_numpy(std::move(c.time_bins), {n});
  }
  return nb::make_tuple<nb::rv_policy::copy>(arrays, c.state, c.config, c.counters, build);
}

/// (arrays, SimulationState, config, counters, build) in the file's precision.
nb::tuple read_checkpoint(const std::string& path) {
  if (io::checkpoint_precision(path) == "float") return read_checkpoint_as<float>(path);
  return read_checkpoint_as<double>(path);
}

}  // namespace

template <class Real>
void save_snapshot(SimulationHandle<Real>& h, const std::string& path, const std::string& config, bool fields,
                   const std::array<std::uint64_t, io::kParticleTypes>& types) {
  const auto claim = h.claim();
  nb::gil_scoped_release release;
  auto& sim = h.sim();
  const auto run = io::Config::from_string(config, "orrery.Simulation").run_config();
  io::SnapshotInfo info = driver::snapshot_info(run, sim.solver_name(), config);
  info.time = sim.time();
  info.step = sim.step_count();
  info.types.count = types;
  io::SnapshotFields<Real> what;
  if (fields) {
    sim.potentials();  // accelerations and potentials at the current positions
    what.field = &sim.accelerations();
  }
  io::write_snapshot(path, sim.particles(), info, what);
}

template <class Real>
void save_checkpoint(SimulationHandle<Real>& h, const std::string& path, const std::string& config,
                     const std::map<std::string, std::int64_t>& counters) {
  const auto claim = h.claim();
  nb::gil_scoped_release release;
  io::write_checkpoint(path, io::checkpoint_of(h.sim(), config, counters));
}

template void save_snapshot<float>(SimulationHandle<float>&, const std::string&, const std::string&, bool,
                                   const std::array<std::uint64_t, io::kParticleTypes>&);
template void save_snapshot<double>(SimulationHandle<double>&, const std::string&, const std::string&, bool,
                                    const std::array<std::uint64_t, io::kParticleTypes>&);
template void save_checkpoint<float>(SimulationHandle<float>&, const std::string&, const std::string&,
                                     const std::map<std::string, std::int64_t>&);
template void save_checkpoint<double>(SimulationHandle<double>&, const std::string&, const std::string&,
                                      const std::map<std::string, std::int64_t>&);

void bind_files(nb::module_& m) {
  nb::class_<io::SnapshotInfo>(m, "SnapshotInfo", "Run metadata stored in a snapshot's Header and Parameters.")
      .def_rw("time", &io::SnapshotInfo::time)
      .def_rw("step", &io::SnapshotInfo::step)
      .def_rw("softening", &io::SnapshotInfo::softening)
      .def_rw("softening_kernel", &io::SnapshotInfo::softening_kernel)
      .def_rw("theta", &io::SnapshotInfo::theta)
      .def_rw("solver", &io::SnapshotInfo::solver)
      .def_rw("config", &io::SnapshotInfo::config)
      .def_rw("version", &io::SnapshotInfo::version)
      .def_rw("precision", &io::SnapshotInfo::precision)
      .def_ro("units", &io::SnapshotInfo::units)
      .def_prop_ro("types", [](const io::SnapshotInfo& i) { return i.types.count; })
      .def_prop_ro("softening_per_type", [](const io::SnapshotInfo& i) { return i.softening_per_type; },
                   "The softening of each of PartType0..5 when they differ (GADGET-4's softening classes), else None.");
  m.def("read_snapshot", &read_snapshot, nb::arg("path"),
        "(arrays dict in float64, SnapshotInfo); InputError (ValueError) for an invalid file.");
  m.def("read_checkpoint", &read_checkpoint, nb::arg("path"),
        "(arrays dict in the file's precision, with \"accelerations\" and \"time_bins\" when the file stores them, "
        "SimulationState, config TOML, counters, build dict).");
  m.def("checkpoint_precision", [](const std::string& path) { return io::checkpoint_precision(path); },
        nb::arg("path"));
}

}  // namespace orrery::python
