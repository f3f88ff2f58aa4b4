#include "orrery/driver/restart.hpp"

#include <sstream>
#include <string>

#include "orrery/core/error.hpp"

namespace orrery::driver {
namespace {

template <class T>
std::string text(const T& v) {
  std::ostringstream s;
  if constexpr (std::is_enum_v<T>) {
    s << to_string(v);
  } else {
    s.precision(17);
    s << v;
  }
  return s.str();
}

constexpr const char* kMayChange =
    "a restart may change integration.t_end, integration.wall_limit_minutes and output.*";

}  // namespace

void require_same_physics(const integrate::RunConfig& saved, const integrate::RunConfig& now,
                          const std::filesystem::path& checkpoint) {
  const auto same = [&](const char* key, const auto& a, const auto& b) {
    if (a == b) return;
    throw InputError("checkpoint '" + checkpoint.string() + "': " + key + " is " + text(a) +
                     " in the checkpoint but " + text(b) +
                     " in this configuration; " + kMayChange + ", not the physics of the run");
  };
  const auto &g0 = saved.gravity, &g1 = now.gravity;
  same("gravity.solver", g0.solver, g1.solver);
  same("gravity.backend", g0.backend, g1.backend);
  same("gravity.precision", g0.precision, g1.precision);
  same("gravity.softening", g0.softening, g1.softening);
  same("gravity.softening_kernel", g0.softening_kernel, g1.softening_kernel);
  same("gravity.math", g0.math, g1.math);
  same("gravity.theta", g0.theta, g1.theta);
  same("gravity.leaf_capacity", g0.leaf_capacity, g1.leaf_capacity);
  same("gravity.multipole_order", g0.multipole_order, g1.multipole_order);
  same("gravity.opening", g0.opening, g1.opening);
  same("gravity.tolerance", g0.tolerance, g1.tolerance);
  same("integration.dt", saved.integration.dt, now.integration.dt);
  same("units.system", saved.units.system, now.units.system);
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
