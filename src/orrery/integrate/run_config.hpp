#pragma once
// Everything a run needs, as plain structs with the documented defaults
// (io/config fills them from TOML and --set; the defaults here equal the
// schema's, checked by a test in io/). A new table gets a struct here and a
// member in RunConfig.
#include <cstdint>
#include <string>

#include "orrery/gravity/gravity_config.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/integrate/step_criterion.hpp"

namespace orrery::integrate {

struct IntegrationConfig {
  std::string kind = "global";  // global (one step dt for every particle) | block (time bins, block_leapfrog.hpp)
  double dt = 0.0078125;  // kind = global: the fixed step, > 0
  double t_end = 10.0;    // >= 0; the run stops at the first step with time >= t_end
  double wall_limit_minutes = 0;  // >= 0; checkpoint and stop after this much wall time (0: no limit)
  double max_energy_error = 1e-2;  // >= 0; stop (checkpoint, error) when a diagnostics row's |dE/E| passes it (0: no limit)
  // kind = block: bin k steps by dt_max / 2^k, down to dt_min; each particle
  // takes the longest step its criterion allows (step_criterion.hpp).
  double dt_max = 0.0625;  // > 0; also the interval of the synchronisation points
  double dt_min = 1e-6;    // > 0, <= dt_max
  StepCriterion criterion = StepCriterion::softening;
  double eta = 0.025;  // > 0
  bool block() const { return kind == "block"; }
  /// The Simulation's dt: the global step, or the block steps' longest.
  double step() const { return block() ? dt_max : dt; }
};

struct OutputConfig {
  std::string directory = "orrery-out";  // created if missing
  double diagnostics_interval = 0.125;   // simulated time between CSV rows, > 0
  double snapshot_interval = 1.0;        // simulated time between HDF5 snapshots, >= 0 (0: none)
  double checkpoint_minutes = 60.0;      // wall-clock minutes between checkpoints, >= 0 (0: only at stops)
  std::int64_t checkpoint_keep = 2;      // checkpoints kept, >= 1
};

/// What code units mean physically (core/units.hpp): "henon" (scaled to
/// length_kpc and mass_msun for readers) or "physical" (kpc, km/s, and
/// configuration masses in Msun).
struct UnitsConfig {
  std::string system = "henon";
  double length_kpc = 1.0;   // henon only, > 0
  double mass_msun = 1e10;   // henon only, > 0
};

struct RunConfig {
  ic::InitialConditionsConfig initial_conditions;
  gravity::GravityConfig gravity;
  IntegrationConfig integration;
  OutputConfig output;
  UnitsConfig units;
};

}  // namespace orrery::integrate
