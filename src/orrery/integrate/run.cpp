#include "orrery/integrate/run.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include "orrery/core/error.hpp"
#include "orrery/gravity/dispatch.hpp"
#include "orrery/gravity/solver_factory.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/integrate/diagnostics_output.hpp"
#include "orrery/integrate/step_count.hpp"

namespace orrery::integrate {

BlockStepConfig block_step_config(const RunConfig& c) {
  return {.rule = {c.integration.criterion, c.integration.eta, c.gravity.softening}, .dt_min = c.integration.dt_min};
}

void check_run_config(const RunConfig& c) {
  const auto fail = [](const std::string& key, double v, const std::string& accepted) {
    char value[32];
    std::snprintf(value, sizeof value, "%g", v);  // std::to_string wrote 1e-300 as 0.000000
    throw InputError(key + " = " + value + "; accepted: " + accepted);
  };
  if (!(c.integration.dt > 0) || !std::isfinite(c.integration.dt)) fail("integration.dt", c.integration.dt, "a finite number > 0");
  if (!(c.integration.t_end >= 0) || !std::isfinite(c.integration.t_end)) {
    fail("integration.t_end", c.integration.t_end, "a finite number >= 0");
  }
  if (c.integration.block()) {
    if (!(c.integration.dt_max > 0) || !std::isfinite(c.integration.dt_max))
      fail("integration.dt_max", c.integration.dt_max, "a finite number > 0");
    check_block_steps(block_step_config(c), c.integration.dt_max);
  }
  if (!(c.integration.max_energy_error >= 0) || !std::isfinite(c.integration.max_energy_error))
    fail("integration.max_energy_error", c.integration.max_energy_error, "a finite number >= 0 (0: no limit)");
  step_count(c.integration.t_end, c.integration.step());  // refuses a step count that does not fit
  if (!(c.output.diagnostics_interval > 0)) {
    fail("output.diagnostics_interval", c.output.diagnostics_interval, "a number > 0");
  }
  // Schedule::index counts intervals in an int64: their number must fit, as the steps' must.
  if (c.integration.t_end / c.output.diagnostics_interval > kMaxSteps)
    fail("output.diagnostics_interval", c.output.diagnostics_interval,
         "a number >= integration.t_end / 2^53 (the row count must fit)");
}

namespace {

template <class Real>
RunSummary run_in(const RunConfig& c, const std::function<void(const Progress&)>& on_progress) {
  auto solver = gravity::make_solver<Real>(c.gravity);
  auto particles = ic::to_precision<Real>(ic::make_initial_conditions(c.initial_conditions));
  SimulationState state;
  state.dt = c.integration.step();
  Simulation<Real> sim(std::move(particles), std::move(solver), state);
  configure_steps(sim, c);

  RunSummary summary;
  summary.solver = sim.solver().name();
  summary.diagnostics = std::filesystem::path(c.output.directory) / "diagnostics.csv";
  auto log = std::make_shared<diag::CsvLog>(summary.diagnostics, diagnostics_phases());
  sim.add_output(diagnostics_output<Real>(log, c.output.diagnostics_interval, [&](const diag::Diagnostics& d) {
    summary.relative_energy_error = d.relative_energy_error;
  }));

  const auto start = std::chrono::steady_clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  Progress progress;
  progress.total_steps = sim.steps_until(c.integration.t_end);
  sim.run_until(c.integration.t_end, [&](const Simulation<Real>& s) {
    if (!on_progress) return;
    progress.step = s.step_count();
    progress.time = s.time();
    progress.wall_seconds = seconds();
    on_progress(progress);
  });
  log->close();
  summary.steps = sim.step_count();
  summary.time = sim.time();
  summary.wall_seconds = seconds();
  return summary;
}

}  // namespace

RunSummary run(const RunConfig& config, const std::function<void(const Progress&)>& on_progress) {
  check_run_config(config);
  return gravity::with_precision(config.gravity.precision,
                                 [&](auto real) { return run_in<decltype(real)>(config, on_progress); });
}

}  // namespace orrery::integrate
