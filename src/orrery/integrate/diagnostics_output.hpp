#pragma once
// The periodic diagnostics of a Simulation as an Output: measures the
// system (diag::measure), records the initial energy in the simulation's
// state at the first row, and appends a row to a CSV log with the wall
// seconds of every phase so far.
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>

#include "orrery/diag/csv_log.hpp"
#include "orrery/diag/diagnostics.hpp"
#include "orrery/integrate/simulation.hpp"

namespace orrery::integrate {

/// The wall-time columns of the log: the phases a Simulation records.
inline std::vector<std::string> diagnostics_phases() { return {"force", "kick", "drift", "diagnostics"}; }

/// log may be null (measure only, e.g. in tests); on_row (optional) sees every row.
template <class Real>
Output<Real> diagnostics_output(std::shared_ptr<diag::CsvLog> log, double interval,
                                std::function<void(const diag::Diagnostics&)> on_row = {}) {
  const auto start = std::chrono::steady_clock::now();
  Output<Real> out;
  out.name = "diagnostics";
  out.schedule.interval = interval;
  out.needs_potential = true;
  out.write = [log = std::move(log), on_row = std::move(on_row), start](Simulation<Real>& sim) {
    const auto& potential = sim.potentials();
    auto& state = sim.state();
    const diag::Diagnostics d =
        diag::measure(sim.particles(), potential, sim.time(), sim.step_count(), state.initial_energy);
    if (std::isnan(state.initial_energy)) state.initial_energy = d.total;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (log) log->write(d, sim.timers().totals(), wall);
    if (on_row) on_row(d);
  };
  return out;
}

}  // namespace orrery::integrate
