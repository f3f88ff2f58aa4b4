#pragma once
// `orrery run` as a library function: initial conditions, solver, leapfrog,
// diagnostics log under output.directory, in the configured precision.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "orrery/integrate/block_leapfrog.hpp"
#include "orrery/integrate/run_config.hpp"
#include "orrery/integrate/simulation.hpp"

namespace orrery::integrate {

struct Progress {
  std::int64_t step = 0;         // steps done in this run
  std::int64_t total_steps = 0;  // steps this run will do
  double time = 0;               // simulated time now
  double wall_seconds = 0;       // since the first step
};

struct RunSummary {
  std::string solver;  // ForceSolver::name()
  std::int64_t steps = 0;
  double time = 0;
  double relative_energy_error = 0;  // at the last diagnostics row
  double wall_seconds = 0;
  std::filesystem::path diagnostics;  // the CSV log
};

/// The block steps of a configuration (integration.kind = "block").
BlockStepConfig block_step_config(const RunConfig& config);

/// Switches `sim` to block steps when the configuration asks for them.
template <class Real>
void configure_steps(Simulation<Real>& sim, const RunConfig& config) {
  if (config.integration.block()) sim.use_block_steps(block_step_config(config));
}

/// Throws InputError naming the first invalid key of [integration] and [output].
void check_run_config(const RunConfig& config);

/// Throws InputError for invalid configuration (naming the key), before any
/// output is created. on_progress (optional) is called after every step.
RunSummary run(const RunConfig& config, const std::function<void(const Progress&)>& on_progress = {});

}  // namespace orrery::integrate
