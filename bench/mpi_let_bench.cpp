// `mpirun -np K mpi_let_bench`: one leapfrog step over the distributed tree
// (docs/adr/0012) split into its parts, and what a rank holds: the protocol
// of docs/performance/mpi.md, "Part 2". Every rank generates the same model
// (the setup alone holds all N), keeps every K-th particle and runs the
// steps of driver::DistributedSteps (kick, drift, the solve with its
// migration, kick); rank 0 prints one CSV row: the median over the timed
// steps of each part (rank 0's times; the slowest rank's step), and the
// largest count over the ranks of what a rank holds after the last solve.
//
//   mpi_let_bench --n N [--model plummer|hernquist] [--steps S] [--warmup W]
//                 [--theta T] [--header]
#include <mpi.h>
#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "bench_stats.hpp"
#include "mpi_bench_main.hpp"
#include "orrery/gravity/tree_solver.hpp"
#include "orrery/ic/hernquist.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/integrate/leapfrog.hpp"
#include "orrery/mpi/distributed_tree.hpp"

namespace {

using namespace orrery;

struct Args {
  std::int64_t n = 100000;
  std::string model = "plummer";
  int steps = 3, warmup = 1;
  double theta = 0.5;
  bool header = false;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    const auto value = [&] {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "mpi_let_bench: %s needs a value\n", k.c_str());
        std::exit(2);
      }
      return std::string(argv[++i]);
    };
    if (k == "--n") a.n = std::stoll(value());
    else if (k == "--model") a.model = value();
    else if (k == "--steps") a.steps = std::stoi(value());
    else if (k == "--warmup") a.warmup = std::stoi(value());
    else if (k == "--theta") a.theta = std::stod(value());
    else if (k == "--header") a.header = true;
    else {
      std::fprintf(stderr, "mpi_let_bench: unknown option %s; accepted: --n --model --steps --warmup --theta --header\n",
                   k.c_str());
      std::exit(2);
    }
  }
  if (a.model != "plummer" && a.model != "hernquist") {
    std::fprintf(stderr, "mpi_let_bench: --model %s; accepted: plummer, hernquist\n", a.model.c_str());
    std::exit(2);
  }
  return a;
}

long long largest(long long v) {
  long long m = v;
  MPI_Allreduce(&v, &m, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);  // sizes and times only
  return m;
}

void run(const Args& a, int rank, int size) {
  using Real = float;
  const Particles<Real> all = ic::to_precision<Real>(a.model == "plummer" ? ic::plummer_sphere(a.n, 42)
                                                                          : ic::hernquist_sphere(a.n, 42));
  gravity::GravityConfig g;
  g.solver = "tree";
  g.theta = a.theta;
  const auto config = gravity::tree_solver_config(g);
  auto comm = mpi::Communicator::world();
  mpi::DistributedTree<Real> tree(config, comm);
  mpi::RankParticles<Real> s = mpi::share_of(all, rank, size);
  gravity::SolveOptions options;
  options.potential = false;
  tree.solve(s, options);  // the first evaluation: migrates the dealt particles to their domains
  options.previous_accelerations = true;
  const Real dt = Real(1.0 / 1024), half = dt / 2;
  const std::vector<std::string> parts = {"decomposition", "migration", "tree", "exchange", "walk", "kick/drift"};
  std::map<std::string, std::vector<double>> times;
  std::vector<double> totals, slowest;
  for (int step = 0; step < a.warmup + a.steps; ++step) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    integrate::kick(s.p, s.a, half);
    integrate::drift(s.p, dt);
    const double t1 = MPI_Wtime();
    const SolverReport report = tree.solve(s, options);
    const double t2 = MPI_Wtime();
    integrate::kick(s.p, s.a, half);
    const double t3 = MPI_Wtime();
    std::map<std::string, double> t;
    t["kick/drift"] = (t1 - t0) + (t3 - t2);
    for (const auto& [phase, seconds] : report.phase_seconds) t[phase] += seconds;
    double mine = t3 - t0, worst = mine;
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (step < a.warmup) continue;
    for (const auto& part : parts) times[part].push_back(t[part]);
    totals.push_back(mine);
    slowest.push_back(worst);
  }
  const auto& held = tree.last_tree();
  const long long own = largest(s.size()), particles = largest(static_cast<long long>(held.tree.x.size()) - 1),
                  nodes = largest(held.tree.num_nodes()), let_bytes = largest(tree.last_let_bytes());
  if (rank != 0) return;
  const auto total = bench::stats_of(totals);
  std::printf("%d,%lld,%s,%d", size, static_cast<long long>(a.n), a.model.c_str(), omp_get_max_threads());
  for (const auto& part : parts) std::printf(",%.6f", bench::stats_of(times[part]).median);
  std::printf(",%.6f,%.6f,%.3f,%lld,%lld,%lld,%lld\n", bench::stats_of(slowest).median, total.median, total.spread(),
              own, particles, nodes, let_bytes);
}

}  // namespace

int main(int argc, char** argv) {
  return orrery::bench::mpi_bench_main(
      argc, argv, "mpi_let_bench",
      "ranks,n,model,threads_per_rank,decomposition_s,migration_s,tree_s,exchange_s,walk_s,kick_drift_s,"
      "slowest_step_s,step_s,step_spread,own_particles_max,held_particles_max,held_nodes_max,let_bytes_received_max",
      parse, run);
}
