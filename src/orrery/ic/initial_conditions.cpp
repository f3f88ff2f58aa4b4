#include "orrery/ic/initial_conditions.hpp"

#include <cmath>
#include <string_view>

#include "orrery/core/error.hpp"
#include "orrery/ic/cold_sphere.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/ic/scaling.hpp"

namespace orrery::ic {

namespace {

Particles<double> make_plummer(const InitialConditionsConfig& c) { return plummer_sphere(c.count, c.seed); }
Particles<double> make_hernquist(const InitialConditionsConfig& c) { return hernquist_sphere(c.count, c.seed, c.hernquist); }
Particles<double> make_cold_sphere(const InitialConditionsConfig& c) { return cold_sphere(c.count, c.seed); }
Particles<double> make_kepler(const InitialConditionsConfig& c) { return kepler_orbit(c.kepler); }
Particles<double> make_collision(const InitialConditionsConfig& c) { return plummer_collision(c.count, c.seed, c.collision); }

struct Generator {
  std::string_view kind;
  Particles<double> (*make)(const InitialConditionsConfig&);
};

// To add a generator: one line here.
constexpr Generator kGenerators[] = {
    {"plummer", &make_plummer},
    {"hernquist", &make_hernquist},
    {"cold_sphere", &make_cold_sphere},
    {"kepler", &make_kepler},
    {"collision", &make_collision},
};

}  // namespace

std::vector<std::string> initial_condition_kinds() {
  std::vector<std::string> kinds;
  for (const auto& g : kGenerators) kinds.emplace_back(g.kind);
  return kinds;
}

Particles<double> make_initial_conditions(const InitialConditionsConfig& config) {
  if (config.count < 1) {
    throw InputError("initial_conditions.count = " + std::to_string(config.count) + "; accepted: an integer >= 1");
  }
  const auto require_positive = [](const char* key, double v) {
    if (!(v > 0) || !std::isfinite(v))
      throw InputError("initial_conditions." + std::string(key) + " = " + std::to_string(v) + "; accepted: a number > 0");
  };
  require_positive("mass", config.mass);
  require_positive("length", config.length);
  for (const auto& g : kGenerators) {
    if (g.kind == config.kind) {
      auto p = g.make(config);
      scale_model(p, config.mass, config.length);
      return p;
    }
  }
  std::string accepted;
  for (const auto& k : initial_condition_kinds()) accepted += (accepted.empty() ? "" : ", ") + k;
  throw InputError("initial_conditions.kind = \"" + config.kind + "\"; accepted: " + accepted);
}

template <class Real>
Particles<Real> to_precision(const Particles<double>& p) {
  Particles<Real> out(static_cast<std::size_t>(p.size()));
  const auto copy = [](const std::vector<double>& from, std::vector<Real>& to) {
    for (std::size_t i = 0; i < from.size(); ++i) to[i] = static_cast<Real>(from[i]);
  };
  copy(p.x, out.x);
  copy(p.y, out.y);
  copy(p.z, out.z);
  copy(p.vx, out.vx);
  copy(p.vy, out.vy);
  copy(p.vz, out.vz);
  copy(p.mass, out.mass);
  out.id = p.id;
  return out;
}

template Particles<float> to_precision<float>(const Particles<double>&);
template Particles<double> to_precision<double>(const Particles<double>&);

}  // namespace orrery::ic
