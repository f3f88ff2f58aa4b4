#pragma once
// The two logs of block steps (integration.kind = "block"), beside the
// diagnostics log, both CSV files written as diag::CsvFile:
//   substeps.csv   one row per substep: when it ended, its length, the
//                  active particles and their fraction, and its wall time
//                  split into build, walk, kick, drift and bookkeeping
//                  (BlockLeapfrog's Substep)
//   time_bins.csv  the time-bin histogram at each diagnostics row (a
//                  synchronisation point): particles per bin 0..deepest,
//                  bin k stepping by dt_max / 2^k
#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "orrery/diag/csv_file.hpp"
#include "orrery/integrate/block_leapfrog.hpp"
#include "orrery/integrate/simulation.hpp"

namespace orrery::integrate {

inline std::string substep_header() {
  return "block_step,time,dt,active,active_fraction,wall_s,solve_s,build_s,walk_s,kick_s,drift_s,bookkeeping_s";
}

inline std::string substep_row(const Substep& s) {
  const auto number = diag::CsvFile::number;
  return std::to_string(s.block_step) + ',' + number(s.time) + ',' + number(s.dt) + ',' + std::to_string(s.active) +
         ',' + number(static_cast<double>(s.active) / static_cast<double>(s.particles)) + ',' + number(s.seconds) +
         ',' + number(s.solve_seconds) + ',' + number(s.build_seconds) + ',' + number(s.walk_seconds) + ',' +
         number(s.kick_seconds) + ',' + number(s.drift_seconds) + ',' + number(s.bookkeeping_seconds);
}

inline std::string time_bins_header(int deepest) {
  std::string h = "time,step";
  for (int k = 0; k <= deepest; ++k) h += ",bin_" + std::to_string(k);
  return h;
}

/// The row of the histogram at a synchronisation point (time, step).
inline std::string time_bins_row(double time, std::int64_t step, const std::vector<std::int64_t>& histogram) {
  std::string row = diag::CsvFile::number(time) + ',' + std::to_string(step);
  for (const auto count : histogram) row += ',' + std::to_string(count);
  return row;
}

/// A substep callback that writes each substep's row to `file`.
inline std::function<void(const Substep&)> substep_writer(std::shared_ptr<diag::CsvFile> file) {
  return [file = std::move(file)](const Substep& s) {
    file->row(substep_row(s), "the row of substep at t = " + diag::CsvFile::number(s.time));
  };
}

/// Writes every substep of `sim` (which has block steps) to `file`.
template <class Real>
void log_substeps(Simulation<Real>& sim, std::shared_ptr<diag::CsvFile> file) {
  sim.set_on_substep(substep_writer(std::move(file)));
}

/// The histogram as an Output at the diagnostics interval.
template <class Real>
Output<Real> time_bins_output(std::shared_ptr<diag::CsvFile> file, double interval) {
  Output<Real> out;
  out.name = "diagnostics";  // timed with the diagnostics it accompanies
  out.schedule.interval = interval;
  out.write = [file = std::move(file)](Simulation<Real>& sim) {
    const auto histogram = sim.time_bin_histogram();
    // Zeros before the first block step, which assigns the bins.
    if (std::all_of(histogram.begin(), histogram.end(), [](std::int64_t c) { return c == 0; })) return;
    file->row(time_bins_row(sim.time(), sim.step_count(), histogram), "the row of step " + std::to_string(sim.step_count()));
  };
  return out;
}

}  // namespace orrery::integrate
