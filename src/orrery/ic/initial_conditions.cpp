#include "orrery/ic/initial_conditions.hpp"

#include <cmath>
#include <string_view>

#include "orrery/core/error.hpp"
#include "orrery/ic/cold_sphere.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/ic/scaling.hpp"

namespace orrery::ic {

namespace {

Model make_plummer(const InitialConditionsConfig& c) { return plummer_model(c.count, c.seed); }
Model make_hernquist(const InitialConditionsConfig& c) { return hernquist_model(c.count, c.seed, c.hernquist); }
Model make_cold_sphere(const InitialConditionsConfig& c) { return cold_sphere_model(c.count, c.seed); }
Model make_kepler(const InitialConditionsConfig& c) { return kepler_model(c.kepler); }
Model make_collision(const InitialConditionsConfig& c) { return collision_model(c.count, c.seed, c.collision); }

struct Generator {
  std::string_view kind;
  Model (*make)(const InitialConditionsConfig&);
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

namespace {

/// The model the configuration names, its checks made (InputError naming the key).
Model model_of(const InitialConditionsConfig& config) {
  if (config.count < 1) {
    throw InputError("initial_conditions.count = " + std::to_string(config.count) + "; accepted: an integer >= 1");
  }
  const auto require_positive = [](const char* key, double v) {
    if (!(v > 0) || !std::isfinite(v))
      throw InputError("initial_conditions." + std::string(key) + " = " + std::to_string(v) + "; accepted: a number > 0");
  };
  require_positive("mass", config.mass);
  require_positive("length", config.length);
  for (const auto& g : kGenerators)
    if (g.kind == config.kind) return g.make(config);
  std::string accepted;
  for (const auto& k : initial_condition_kinds()) accepted += (accepted.empty() ? "" : ", ") + k;
  throw InputError("initial_conditions.kind = \"" + config.kind + "\"; accepted: " + accepted);
}

/// Rows of the model stretched to the configuration's mass and length (particle by particle: the same bits for any rows).
Particles<double> scaled_rows(const Model& model, const InitialConditionsConfig& config, std::int64_t begin,
                              std::int64_t end) {
  auto p = model_rows(model, begin, end);
  scale_model(p, config.mass, config.length);
  return p;
}

}  // namespace

Particles<double> make_initial_conditions(const InitialConditionsConfig& config) {
  const Model model = model_of(config);
  return scaled_rows(model, config, 0, model.count);
}

std::int64_t initial_conditions_count(const InitialConditionsConfig& config) { return model_of(config).count; }

Particles<double> make_initial_conditions_rows(const InitialConditionsConfig& config, std::int64_t begin,
                                               std::int64_t end) {
  return scaled_rows(model_of(config), config, begin, end);
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
