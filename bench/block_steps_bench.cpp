// Block time steps against the global step (docs/performance/block_steps.md):
// one run of a Hernquist halo as `orrery run` makes it (driver::make_simulation:
// with --backend cuda the global step and the tree's block steps are
// device-resident, integrate/device_block_leapfrog.hpp), timed, with its energy
// error. One CSV row per run on stdout; with --substeps FILE every substep of
// a block run (its length, active fraction, wall time split into build, walk,
// kick, drift and bookkeeping) goes to FILE. A block row also says where the
// time went (each part's share of the wall time: build, walk, the solver's
// upkeep outside its phases, kick, drift, bookkeeping) and how deep the bins
// went: the deepest bin any substep reached (a substep's drift dt is the
// deepest occupied bin's step, dt_max / 2^k) and the histogram at the end,
// "n_0/n_1/.../n_deepest".
//
//   block_steps_bench --mode block|global [--n N] [--backend cpu|cuda]
//     [--softening EPS] [--theta T] [--dt DT] [--dt-max DTMAX] [--dt-min DTMIN]
//     [--eta ETA] [--t-end T] [--seed S] [--precision single|double] [--substeps FILE] [--header]
//
// Defaults: N = 1M, softening 0.005, theta 0.5, dt_max 1/16, eta 0.025, and
// t_end = 1.02, one dynamical time sqrt(r_h^3 / (G M / 2)) at the half-mass
// radius r_h = (1 + sqrt 2) / 3 of Orrery's Hernquist halo (scale radius 1/3).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "orrery/diag/csv_file.hpp"
#include "orrery/driver/make_simulation.hpp"
#include "orrery/ic/hernquist.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/integrate/block_step_logs.hpp"
#include "orrery/integrate/diagnostics_output.hpp"

namespace {

using namespace orrery;

struct Args {
  std::string mode = "block";
  std::int64_t n = 1 << 20;
  gravity::GravityConfig gravity;
  double dt = 1.0 / 128, dt_max = 1.0 / 16, dt_min = 1e-6, eta = 0.025, t_end = 1.02;
  std::uint64_t seed = 1;
  std::string substeps;
  bool header = false;
};

Args parse(int argc, char** argv) {
  Args a;
  a.gravity.solver = "tree";
  a.gravity.softening = 0.005;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--header") {
      a.header = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "block_steps_bench: %s needs a value\n", k.c_str());
      std::exit(2);
    }
    const std::string v = argv[++i];
    if (k == "--mode") a.mode = v;
    else if (k == "--n") a.n = std::stoll(v);
    else if (k == "--backend") a.gravity.backend = v;
    else if (k == "--softening") a.gravity.softening = std::stod(v);
    else if (k == "--theta") a.gravity.theta = std::stod(v);
    else if (k == "--dt") a.dt = std::stod(v);
    else if (k == "--dt-max") a.dt_max = std::stod(v);
    else if (k == "--dt-min") a.dt_min = std::stod(v);
    else if (k == "--eta") a.eta = std::stod(v);
    else if (k == "--t-end") a.t_end = std::stod(v);
    else if (k == "--seed") a.seed = std::stoull(v);
    else if (k == "--precision") a.gravity.precision = v == "double" ? gravity::Precision::double_ : gravity::Precision::single;
    else if (k == "--substeps") a.substeps = v;
    else {
      std::fprintf(stderr,
                   "block_steps_bench: unknown option %s; accepted: --mode --n --backend --softening --theta --dt "
                   "--dt-max --dt-min --eta --t-end --seed --precision --substeps --header\n",
                   k.c_str());
      std::exit(2);
    }
  }
  if (a.mode != "block" && a.mode != "global") {
    std::fprintf(stderr, "block_steps_bench: --mode %s; accepted: block, global\n", a.mode.c_str());
    std::exit(2);
  }
  return a;
}

std::string fmt_share(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", share);
  return text;
}

template <class Real>
int run(const Args& a) {
  const bool block = a.mode == "block";
  integrate::SimulationState state;
  state.dt = block ? a.dt_max : a.dt;
  auto sim = driver::make_simulation<Real>(ic::to_precision<Real>(ic::hernquist_sphere(a.n, a.seed)), a.gravity, state,
                                           block);
  if (block) sim.use_block_steps({.rule = {integrate::StepCriterion::softening, a.eta, a.gravity.softening},
                                  .dt_min = a.dt_min});
  integrate::Substep total;
  std::int64_t substeps = 0, active_total = 0;
  int deepest_reached = 0;
  std::map<std::string, double> phases;  // the solver's phases over every substep
  std::shared_ptr<diag::CsvFile> log;
  if (block) {
    if (!a.substeps.empty())
      log = std::make_shared<diag::CsvFile>(a.substeps, "n,backend," + integrate::substep_header(), "substep log");
    // Through the Simulation: the host integrator's, or the device one's (cuda + tree).
    sim.set_on_substep([&](const integrate::Substep& s) {
      ++substeps;
      active_total += s.active;
      deepest_reached = std::max(deepest_reached, static_cast<int>(std::lround(std::log2(a.dt_max / s.dt))));
      total.seconds += s.seconds;
      total.solve_seconds += s.solve_seconds;
      for (const auto& [name, t] : s.solver_phases) phases[name] += t;
      total.build_seconds += s.build_seconds;
      total.walk_seconds += s.walk_seconds;
      total.kick_seconds += s.kick_seconds;
      total.drift_seconds += s.drift_seconds;
      total.bookkeeping_seconds += s.bookkeeping_seconds;
      if (log) log->row(std::to_string(a.n) + ',' + a.gravity.backend + ',' + integrate::substep_row(s), "a substep");
    });
  }
  // The energy at the start and at the end only (the synchronisation points of both ends).
  double error = 0;
  sim.add_output(integrate::diagnostics_output<Real>(nullptr, 1e300, [&](const diag::Diagnostics& d) {
    error = d.relative_energy_error;
  }));
  sim.write_all_outputs();  // the reference energy, outside the timed part
  const auto t0 = std::chrono::steady_clock::now();
  const std::int64_t steps = sim.steps_until(a.t_end);
  for (std::int64_t k = 0; k < steps; ++k) sim.step();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  sim.write_all_outputs();
  if (log) log->close();
  const double evaluations =
      block ? static_cast<double>(active_total) / static_cast<double>(a.n) : double(steps);
  const auto& timers = sim.timers();
  if (!block) {
    total.seconds = wall;
    total.solve_seconds = timers.seconds("force");  // device-resident: the kicks and drift too
    total.kick_seconds = timers.seconds("kick");
    total.drift_seconds = timers.seconds("drift");
    substeps = steps;
  }
  // Where the time went and how deep the bins went (block rows; empty for the global step, whose
  // solve_s holds its kicks and drift on the device and which has no substeps).
  std::string shares = ",,,,,,,";
  if (block) {
    const double upkeep = total.solve_seconds - total.build_seconds - total.walk_seconds;
    std::string histogram;
    for (const auto c : sim.time_bin_histogram()) {
      if (!histogram.empty()) histogram += '/';
      histogram += std::to_string(c);
    }
    shares.clear();
    for (const double part : {total.build_seconds, total.walk_seconds, upkeep, total.kick_seconds, total.drift_seconds,
                              total.bookkeeping_seconds})
      shares += fmt_share(part / wall) + ',';
    shares += std::to_string(deepest_reached) + ',' + histogram;
  }
  if (a.header)
    std::printf("mode,n,backend,threads,solver,dt_or_dt_max,eta,t_end,steps,substeps,evaluations_per_particle,wall_s,"
                "per_substep_s,relative_energy_error,solve_s,build_s,walk_s,kick_s,drift_s,bookkeeping_s,box_s,keys_s,sort_s,topology_s,"
                "moments_s,build_share,walk_share,upkeep_share,kick_share,drift_share,bookkeeping_share,deepest_bin,bins_at_end\n");
  std::printf("%s,%lld,%s,%d,%s %s,%.9g,%.9g,%.9g,%lld,%lld,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s\n",
              a.mode.c_str(), static_cast<long long>(a.n), a.gravity.backend.c_str(), omp_get_max_threads(),
              sim.solver_name().c_str(), sizeof(Real) == 4 ? "float" : "double", state.dt, block ? a.eta : 0.0, a.t_end, static_cast<long long>(steps),
              static_cast<long long>(substeps), evaluations, wall, wall / static_cast<double>(substeps), error,
              total.solve_seconds, total.build_seconds, total.walk_seconds, total.kick_seconds, total.drift_seconds,
              total.bookkeeping_seconds, phases["box"], phases["keys"], phases["sort"], phases["build"],
              phases["moments"], shares.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args a = parse(argc, argv);
    return a.gravity.precision == gravity::Precision::double_ ? run<double>(a) : run<float>(a);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "block_steps_bench: %s\n", e.what());
    return 2;
  }
}
