#pragma once
// Small, fast driver runs for tests (run_test.cpp, run_gpu_test.cpp): 64
// Plummer particles, dt = 1/64, snapshots every 0.25, no timed checkpoints.
#include <filesystem>
#include <string>
#include <vector>

#include "orrery/driver/run.hpp"
#include "orrery/io/checkpoint.hpp"
#include "orrery/io/config.hpp"

namespace orrery::driver::testing {

struct TestRun {
  integrate::RunConfig config;
  RunOptions options;
};

/// `settings` are extra --set assignments, e.g. "gravity.backend=cuda".
inline TestRun small_run(const std::filesystem::path& dir, double t_end, const std::vector<std::string>& settings = {}) {
  io::Config c = io::Config::defaults();
  c.set("initial_conditions.count=64");
  c.set("gravity.precision=double");
  c.set("integration.dt=0.015625");
  c.set("integration.t_end=" + std::to_string(t_end));
  c.set("output.directory=" + dir.string());
  for (const auto& s : settings) c.set(s);
  TestRun r{c.run_config(), {}};
  r.config.output.snapshot_interval = 0.25;
  r.config.output.checkpoint_minutes = 0;
  r.options.config_toml = c.to_toml();
  r.options.handle_signals = false;
  return r;
}

template <class Real = double>
Particles<Real> final_particles(const RunSummary& s) {
  return io::read_checkpoint<Real>(s.checkpoint).particles;
}

}  // namespace orrery::driver::testing
