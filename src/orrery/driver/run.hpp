#pragma once
// A whole run as `orrery run` and the Python package do it: initial
// conditions (a generator or a snapshot file) or a checkpoint to continue,
// the leapfrog with the configured solver and precision, and the outputs
// under output.directory:
//   diagnostics.csv            every output.diagnostics_interval (a restarted
//                              run writes diagnostics_from_<step>.csv)
//   substeps.csv, time_bins.csv  integration.kind = "block": a row per substep,
//                              and the time-bin histogram at each diagnostics
//                              row (integrate/block_step_logs.hpp; _from_<step>
//                              after a restart, as the diagnostics log)
//   snapshot_<index>.h5        every output.snapshot_interval (index = the
//                              number of intervals elapsed: the same after a restart)
//   checkpoint_<step>.orrck    every output.checkpoint_minutes of wall time, when
//                              stopped (integration.wall_limit_minutes, a STOP file
//                              in the directory, SIGINT/SIGTERM) and at the end;
//                              the newest output.checkpoint_keep of this run
//                              (the same run identity, kept across restarts) are kept
// It watches itself (integrate/run_watch.hpp): a warning (RunOptions::on_warning)
// when integration.dt is larger than the time-step criterion's step for the
// fastest particle, at the start or at the first diagnostics row where it is;
// and, when a diagnostics row's |dE/E| passes integration.max_energy_error, a
// final checkpoint and an EnergyErrorExceeded (core/energy_error_exceeded.hpp)
// naming the step, the time and the error; the diagnostics log stays
// diagnostics.csv.partial, as after any failure, so an earlier
// diagnostics.csv is kept.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "orrery/integrate/run.hpp"
#include "orrery/integrate/run_config.hpp"
#include "orrery/io/config.hpp"

namespace orrery::driver {

struct RunOptions {
  std::string config_toml;              // the run's full configuration, stored in snapshots and checkpoints
  std::filesystem::path restart;        // a checkpoint to continue from (empty: a new run)
  bool handle_signals = true;           // install SIGINT/SIGTERM handlers for the run
  // Spread over every rank of MPI_COMM_WORLD (mpi::initialize() called;
  // collective: every rank calls run with the same arguments). Rank 0 writes
  // the files; the results are bit-identical to one process (docs/adr/0013).
  bool mpi = false;
  // gravity.mpi_layout = "distributed": the rows rank 0 receives at a time
  // for an output (0: io::kColumnPiece, one HDF5 chunk). Tests make it small
  // to cut the particles into many pieces.
  std::int64_t output_piece = 0;
  // Called with each warning of the run (on the process that writes the files), e.g. to print it.
  std::function<void(const std::string&)> on_warning;
};

struct RunSummary {
  integrate::RunSummary run;
  std::int64_t first_step = 0;          // the step the run started at (> 0 after a restart)
  std::string stopped_by;               // empty when t_end was reached
  std::filesystem::path checkpoint;     // the last checkpoint written
  int snapshots = 0;                    // written by this run
  double worst_relative_energy_error = 0;  // the largest |dE/E| of this run's diagnostics rows (since a restart)
};

/// The configuration of `orrery run [CONFIG] [--restart CHECKPOINT] [--set ...]`
/// (and of orrery.run in Python): the file (empty: the embedded default) with
/// the overrides; on a restart without a file, the checkpoint's own
/// configuration with the overrides applied.
io::Config run_configuration(const std::string& file, const std::vector<std::string>& overrides,
                             const std::string& restart);

/// The configuration (TOML) a checkpoint was written with, to apply --set to
/// before restarting. InputError when the file is not a valid checkpoint.
std::string checkpoint_toml(const std::filesystem::path& checkpoint);

/// Runs to integration.t_end or until stopped. InputError for invalid
/// configuration (naming the key) or a checkpoint that does not fit this
/// build or configuration (naming the field), before any output is written;
/// EnergyErrorExceeded (an InputError) after the checkpoint of a run whose
/// energy error passed integration.max_energy_error.
RunSummary run(const integrate::RunConfig& config, const RunOptions& options,
               const std::function<void(const integrate::Progress&)>& on_progress = {});

}  // namespace orrery::driver
