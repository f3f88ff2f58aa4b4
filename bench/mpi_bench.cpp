// `mpirun -np K mpi_bench`: the time of one leapfrog step of a replicated-
// particle run (docs/adr/0013) split into its parts, the protocol of
// docs/performance/mpi.md. Every rank builds the same Plummer sphere and runs
// the step as a Simulation does (kick, drift, the split solve, kick) plus the
// diagnostics' measurement; rank 0 prints one CSV row with the median over
// the timed steps of each part (rank 0's times, and the slowest rank's walk)
// and the spread of the step's total.
//
//   mpi_bench --n N [--steps S] [--warmup W] [--backend cpu|cuda] [--theta T]
//             [--precision single|double] [--header]
#include <mpi.h>
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bench_stats.hpp"
#include "mpi_bench_main.hpp"
#include "orrery/diag/diagnostics.hpp"
#include "orrery/gravity/dispatch.hpp"
#include "orrery/gravity/solver_factory.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/integrate/leapfrog.hpp"
#include "orrery/mpi/replicated_solver.hpp"
#if defined(ORRERY_HAVE_CUDA)
#include "orrery/cuda/device.hpp"
#endif

namespace {

using namespace orrery;

struct Args {
  std::int64_t n = 100000;
  int steps = 5, warmup = 2;
  gravity::GravityConfig gravity;
  bool header = false;
};

Args parse(int argc, char** argv) {
  Args a;
  a.gravity.solver = "tree";
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    const auto value = [&] {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "mpi_bench: %s needs a value\n", k.c_str());
        std::exit(2);
      }
      return std::string(argv[++i]);
    };
    if (k == "--n") a.n = std::stoll(value());
    else if (k == "--steps") a.steps = std::stoi(value());
    else if (k == "--warmup") a.warmup = std::stoi(value());
    else if (k == "--backend") a.gravity.backend = value();
    else if (k == "--theta") a.gravity.theta = std::stod(value());
    else if (k == "--precision") a.gravity.precision = value() == "double" ? gravity::Precision::double_ : gravity::Precision::single;
    else if (k == "--header") a.header = true;
    else {
      std::fprintf(stderr, "mpi_bench: unknown option %s; accepted: --n --steps --warmup --backend --theta --precision --header\n", k.c_str());
      std::exit(2);
    }
  }
  return a;
}

/// The part of a step a solver phase belongs to.
std::string part_of(const std::string& phase) {
  if (phase == "split" || phase == "wait" || phase == "allgather") return phase;
  if (phase == "walk" || phase == "bootstrap walk" || phase == "relative scales" || phase == "scatter") return "walk";
  if (phase.rfind("upload", 0) == 0 || phase.rfind("download", 0) == 0) return "transfer";
  return "build";
}

double now() { return MPI_Wtime(); }

template <class Real>
void run(const Args& a, int rank, int size) {
  Particles<Real> p = ic::to_precision<Real>(ic::plummer_sphere(a.n, 42));
  auto comm = mpi::Communicator::world();
#if defined(ORRERY_HAVE_CUDA)
  if (a.gravity.backend == "cuda") cuda::select_rank_device(comm.local_rank());
#endif
  mpi::ReplicatedSolver<Real> solver(gravity::make_solver<Real>(a.gravity), comm);
  Accelerations<Real> acc(static_cast<std::size_t>(a.n));
  gravity::SolveOptions options;
  solver.solve(p.sources(), acc.view(true), options);  // the first evaluation: potentials for the diagnostics
  const std::vector<Real> potential = acc.potential;
  options.potential = false;
  options.previous_accelerations = true;
  const Real dt = Real(1.0 / 1024), half = dt / 2;
  const std::vector<std::string> parts = {"split", "build", "transfer", "walk", "wait", "allgather", "kick/drift", "diagnostics"};
  std::map<std::string, std::vector<double>> times;
  std::vector<double> totals, slowest_walk;
  for (int s = 0; s < a.warmup + a.steps; ++s) {
    MPI_Barrier(MPI_COMM_WORLD);
    std::map<std::string, double> t;
    const double t0 = now();
    integrate::kick(p, acc, half);
    integrate::drift(p, dt);
    const double t1 = now();
    const SolverReport report = solver.solve(p.sources(), acc.view(false), options);
    const double t2 = now();
    integrate::kick(p, acc, half);
    const double t3 = now();
    // The diagnostics of an output step, timed once per row (seconds at 4M, and not part of every step).
    if (s + 1 == a.warmup + a.steps) {
      diag::measure(p, potential, 0.0, s, 0.0);
      times["diagnostics"].push_back(now() - t3);
    }
    t["kick/drift"] = (t1 - t0) + (t3 - t2);
    for (const auto& [phase, seconds] : report.phase_seconds) t[part_of(phase)] += seconds;
    double walk = t["walk"], worst = walk;
    MPI_Allreduce(&walk, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);  // timing only, never compared bitwise
    if (s < a.warmup) continue;
    for (const auto& part : parts)
      if (part != "diagnostics") times[part].push_back(t[part]);
    totals.push_back(t3 - t0);
    slowest_walk.push_back(worst);
  }
  if (rank != 0) return;
  const int threads = omp_get_max_threads();
  const auto total = bench::stats_of(totals);
  std::printf("%d,%lld,%s,%s,%d", size, static_cast<long long>(a.n), a.gravity.backend.c_str(),
              sizeof(Real) == 4 ? "single" : "double", threads);
  for (const auto& part : parts) std::printf(",%.6f", bench::stats_of(times[part]).median);
  // Bytes each rank receives per step: the others' accelerations and work counts.
  const double bytes = static_cast<double>(a.n) * (3 * sizeof(Real) + 4) * (size - 1) / size;
  std::printf(",%.6f,%.6f,%.3f,%.0f\n", bench::stats_of(slowest_walk).median, total.median, total.spread(), bytes);
}

}  // namespace

int main(int argc, char** argv) {
  return orrery::bench::mpi_bench_main(
      argc, argv, "mpi_bench",
      "ranks,n,backend,precision,threads_per_rank,split_s,build_s,transfer_s,walk_s,wait_s,allgather_s,"
      "kick_drift_s,diagnostics_s,slowest_walk_s,step_s,step_spread,bytes_received_per_rank",
      parse, [](const Args& a, int rank, int size) {
        gravity::with_precision(a.gravity.precision, [&](auto real) { run<decltype(real)>(a, rank, size); });
      });
}
