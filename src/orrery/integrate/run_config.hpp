#pragma once
// Everything a run needs, as plain structs with the documented defaults
// (io/config fills them from TOML and --set; the defaults here equal the
// schema's, checked by a test in io/). A new table gets a struct here and a
// member in RunConfig.
#include <string>

#include "orrery/gravity/gravity_config.hpp"
#include "orrery/ic/initial_conditions.hpp"

namespace orrery::integrate {

struct IntegrationConfig {
  double dt = 0.0078125;  // fixed step, > 0
  double t_end = 10.0;    // >= 0; the run stops at the first step with time >= t_end
};

struct OutputConfig {
  std::string directory = "orrery-out";  // created if missing
  double diagnostics_interval = 0.125;   // simulated time between CSV rows, > 0
};

struct RunConfig {
  ic::InitialConditionsConfig initial_conditions;
  gravity::GravityConfig gravity;
  IntegrationConfig integration;
  OutputConfig output;
};

}  // namespace orrery::integrate
