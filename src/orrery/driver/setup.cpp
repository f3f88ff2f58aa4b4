#include "orrery/driver/setup.hpp"

#include <fmt/format.h>

#include <cmath>

#include "orrery/core/error.hpp"
#include "orrery/core/memory.hpp"
#include "orrery/ic/initial_conditions.hpp"

namespace orrery::driver {

UnitSystem unit_system(const integrate::UnitsConfig& u) {
  const auto positive = [](const char* key, double v) {
    if (!(v > 0) || !std::isfinite(v)) throw InputError(std::string(key) + " = " + std::to_string(v) + "; accepted: a number > 0");
  };
  if (u.system == "physical") return physical_units();
  if (u.system != "henon") throw InputError("units.system = \"" + u.system + "\"; accepted: henon, physical");
  positive("units.length_kpc", u.length_kpc);
  positive("units.mass_msun", u.mass_msun);
  return henon_units(u.length_kpc, u.mass_msun);
}

namespace {

std::string describe(const UnitSystem& u) {
  if (u.name == "physical") return "units.system = \"physical\"";
  return fmt::format("units.system = \"henon\", units.length_kpc = {:.9g}, units.mass_msun = {:.9g}",
                     u.length_cm / cgs::kpc, u.mass_g / cgs::msun);
}

/// A run continues in its initial snapshot's units: the particles are in them,
/// and every output would otherwise claim units the numbers are not in.
void require_units_of_file(const UnitSystem& file, const UnitSystem& run, const std::string& path) {
  if (same_units(file, run)) return;
  throw InputError("initial_conditions.path '" + path + "' is in " + describe(file) + ", but the run has " +
                   describe(run) + "; set [units] to the file's (the particles are not converted)");
}

void require_snapshot_path(const ic::InitialConditionsConfig& ic_config) {
  if (ic_config.path.empty())
    throw InputError("initial_conditions.path is empty; kind = \"file\" needs the path of an HDF5 snapshot");
}

}  // namespace

InitialState initial_state(const integrate::RunConfig& config) {
  return initial_state_rows(config, 0, initial_count(config));
}

std::int64_t initial_count(const integrate::RunConfig& config) {
  const auto& ic_config = config.initial_conditions;
  std::int64_t total = 0;
  if (ic_config.kind != "file") return ic::initial_conditions_count(ic_config);
  require_snapshot_path(ic_config);
  io::read_snapshot_rows<double>(ic_config.path, 0, 0, total);
  return total;
}

InitialState initial_state_rows(const integrate::RunConfig& config, std::int64_t begin, std::int64_t end) {
  const auto& ic_config = config.initial_conditions;
  if (ic_config.kind == "file") {
    require_snapshot_path(ic_config);
    std::int64_t total = 0;
    auto snapshot = io::read_snapshot_rows<double>(ic_config.path, begin, end, total);
    require_units_of_file(snapshot.info.units, unit_system(config.units), ic_config.path);
    return {std::move(snapshot.particles), snapshot.info.time, snapshot.info.types};
  }
  // What the generator and the run certainly hold per particle: the double
  // particles (7 values and an ID), their copy in the run's precision, and
  // its accelerations and potentials (solvers add their own scratch).
  const double real = config.gravity.precision == gravity::Precision::single ? 4 : 8;
  const auto rows = static_cast<double>(end - begin);
  const auto count = static_cast<double>(ic::initial_conditions_count(ic_config));  // kepler ignores count
  require_memory(rows * (64 + 11 * real),
                 "initial_conditions.count = " + std::to_string(ic_config.count) +
                     (rows == count ? "" : fmt::format(" ({:.0f} of its particles on this process)", rows)),
                 "a count whose particles fit in the available memory");
  auto generator = ic_config;
  generator.mass = unit_system(config.units).to_code_mass(ic_config.mass);
  return {ic::make_initial_conditions_rows(generator, begin, end), 0.0, io::ParticleTypes{}};  // generated: all PartType1
}

io::SnapshotInfo snapshot_info(const integrate::RunConfig& config, const std::string& solver_name,
                               const std::string& config_toml) {
  io::SnapshotInfo info;
  info.units = unit_system(config.units);
  info.softening = config.gravity.softening;
  if (config.gravity.per_type_softening()) info.softening_per_type = config.gravity.softening_classes().eps;
  info.softening_kernel = std::string(to_string(config.gravity.softening_kernel));
  info.theta = config.gravity.solver == "tree" ? config.gravity.theta : 0.0;
  info.solver = solver_name;
  info.config = config_toml;
  return info;
}

}  // namespace orrery::driver
