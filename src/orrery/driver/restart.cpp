#include "orrery/driver/restart.hpp"

#include <string>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/io/config.hpp"

namespace orrery::driver {
namespace {

constexpr const char* kMayChange =
    "a restart may change integration.t_end, integration.wall_limit_minutes, integration.max_energy_error and "
    "output.*";

}  // namespace

// The keys compared come from the schema's reverse direction (KeySpec::read),
// so each is named and written as in a configuration file.
void require_same_physics(const integrate::RunConfig& saved, const integrate::RunConfig& now,
                          const std::filesystem::path& checkpoint) {
  const io::Config a = io::Config::of(saved, "checkpoint '" + checkpoint.string() + "'");
  const io::Config b = io::Config::of(now);
  std::vector<std::string> keys = {"gravity.solver", "gravity.backend", "gravity.precision", "gravity.softening",
                                   "gravity.softening_kernel", "gravity.math", "gravity.theta", "gravity.leaf_capacity",
                                   "gravity.multipole", "gravity.opening", "gravity.tolerance", "integration.dt",
                                   "integration.kind", "integration.dt_max", "integration.dt_min",
                                   "integration.criterion", "integration.eta", "units.system"};
  for (const auto& spec : io::config_schema())
    if (spec.key.starts_with("gravity.softening_per_type.")) keys.push_back(spec.key);
  for (const auto& key : keys) {
    if (a.get(key) == b.get(key)) continue;
    throw InputError("checkpoint '" + checkpoint.string() + "': " + key + " is " + io::to_toml(a.get(key)) +
                     " in the checkpoint but " + io::to_toml(b.get(key)) +
                     " in this configuration; " + kMayChange + ", not the physics of the run");
  }
}

void require_same_start(const io::Config& saved, const io::Config& now, const std::filesystem::path& checkpoint) {
  for (const auto& spec : io::config_schema()) {
    if (spec.section() != "initial_conditions" && spec.section() != "units") continue;
    const auto &a = saved.get(spec.key), &b = now.get(spec.key);
    if (a == b) continue;
    throw InputError("checkpoint '" + checkpoint.string() + "': " + spec.key + " is " + io::to_toml(a) +
                     " in the checkpoint but " + io::to_toml(b) + " in this configuration; " + kMayChange +
                     ", not the initial conditions or units of the particles it continues (start a new run for those)");
  }
}

}  // namespace orrery::driver
