// `mpirun -np K mpi_let_bench`: one leapfrog step over the distributed tree
// (docs/adr/0012) split into its parts, what a rank holds and the bytes it
// moves: the protocol of docs/performance/mpi.md, "Part 2". Every rank
// generates the same model (the setup alone holds all N), keeps every K-th
// particle and runs the steps of driver::DistributedSteps (kick, drift, the
// solve with its migration, kick); rank 0 prints one CSV row: per part the
// median over the timed steps of the slowest rank's time and of the mean
// over the ranks; the bytes per step (mpi::Traffic, the median over the
// timed steps, largest and mean over the ranks); and what a rank holds after
// the last solve (largest and mean over the ranks).
// --backend cuda walks each rank's targets on its GPU (driver::Ranks::let_walk:
// local rank mod the GPUs present, so K ranks share a one-GPU machine's GPU;
// everything else stays on the host) and splits the walk into the upload of
// the assembled tree, the kernel and the download (mpi::LetWalk::step_seconds);
// the CPU's rows leave those columns empty. The phases' pieces come last
// (SolverReport::piece_seconds): the exchange's (the target boxes, the LET's
// selection, its all-to-all and its assembly, which sum to the exchange),
// the decomposition's (the key cube, the sort's keys, order and permute,
// the top tree and cuts, the owners), the migration's (the pack, the
// all-to-all, the rebuild) and the tree's (the backend's builds of the
// runs, their records, the leaves' plan, the top tree).
//
// --freed-memory keep|release: the process's allocator keeps freed memory
// for its next allocations (as `orrery run` does, the default) or follows
// its own rules (docs/adr/0020); the column after the pieces names it.
// The last six columns count what the kernel did for a rank's process in a
// step (getrusage: every thread; the same median of the largest and of the
// mean over the ranks): its minor page faults (fresh pages touched) and its
// involuntary and voluntary context switches (off its cores while ready, or
// waiting), the costs that no phase's timer names; then the step's time in
// no part at all (the step less its parts: a solve's work outside its
// phases' timers; per rank, then the largest and the mean). Every step's time and
// fresh pages go to stderr (rank 0): the first solves after the setup touch
// fresh pages while the allocator's heap grows to its peak (measured: at 4M
// on one rank the assembly took 0.15-0.25 s in the second solve and 0.03 s
// from the third on), so the timed steps follow at least two warm-up steps.
//
//   mpi_let_bench --n N [--model plummer|hernquist] [--steps S] [--warmup W]
//                 [--theta T] [--backend cpu|cuda] [--freed-memory keep|release]
//                 [--build-run P] [--walk-places-particles on|off]
//                 [--decomposition-on-device on|off] [--header]
// --build-run P: the most particles of one build of a rank's subtrees
// (mpi::DistributedOptions::build_run_particles; default: the backend's,
// 2^21 on the host, the whole domain on a GPU).
// --walk-places-particles on: the assembly leaves the held particles where
// they lie and the walk places them (mpi::DistributedOptions::
// walk_places_particles: a GPU rank's on its device; on CPU ranks the host
// after the assembly, in its piece); default on.
// --decomposition-on-device on: the keys made where the order is found and
// the sorted positions kept there for the build (mpi::DistributedOptions::
// decomposition_on_device: a GPU rank's device; CPU ranks as off); default:
// on for one rank, off for more (the option's own default).
#include <mpi.h>
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench_stats.hpp"
#include "mpi_bench_main.hpp"
#include "orrery/core/error.hpp"
#include "orrery/core/freed_memory.hpp"
#include "orrery/driver/ranks.hpp"
#include "orrery/gravity/tree_solver.hpp"
#include "orrery/ic/hernquist.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/integrate/leapfrog.hpp"
#include "orrery/mpi/distributed_tree.hpp"
#if defined(ORRERY_HAVE_CUDA)
#include "orrery/cuda/device.hpp"
#endif

namespace {

using namespace orrery;

/// The process's minor page faults, involuntary and voluntary context
/// switches so far (every thread's).
std::vector<double> kernel_counts() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return {static_cast<double>(u.ru_minflt), static_cast<double>(u.ru_nivcsw), static_cast<double>(u.ru_nvcsw)};
}

// The phases' pieces, in the CSV's order (their columns follow the walk's
// steps): SolverReport::piece_seconds names; the header's columns are
// these with '/' as '_'.
const std::vector<std::string> kPieces = {
    "exchange/domains",      "exchange/selection",   "exchange/alltoall",  "exchange/assembly",
    "decomposition/cube",    "decomposition/keys",   "decomposition/order", "decomposition/permute",
    "decomposition/top",     "decomposition/owners", "migration/pack",     "migration/alltoall",
    "migration/rebuild",     "tree/build",           "tree/records",       "tree/plan",
    "tree/top"};

struct Args {
  std::int64_t n = 100000;
  std::string model = "plummer";
  int steps = 3, warmup = 2;
  double theta = 0.5;
  std::string backend = "cpu";
  FreedMemory freed_memory = FreedMemory::keep;
  bool header = false;
  std::int64_t build_run = 0;  // mpi::DistributedOptions::build_run_particles; 0: its default
  bool walk_places_particles = mpi::DistributedOptions{}.walk_places_particles;
  std::optional<bool> decomposition_on_device;  // unset: the option's default
};

/// An option's value "on" or "off".
bool on_off(const std::string& option, const std::string& v) {
  if (v != "on" && v != "off") {
    std::fprintf(stderr, "mpi_let_bench: %s %s; accepted: on, off\n", option.c_str(), v.c_str());
    std::exit(2);
  }
  return v == "on";
}

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
    else if (k == "--backend") a.backend = value();
    else if (k == "--build-run") a.build_run = std::stoll(value());
    else if (k == "--walk-places-particles") a.walk_places_particles = on_off(k, value());
    else if (k == "--decomposition-on-device") a.decomposition_on_device = on_off(k, value());
    else if (k == "--freed-memory") {
      try {
        a.freed_memory = parse_freed_memory(value(), "--freed-memory");
      } catch (const InputError& e) {
        std::fprintf(stderr, "mpi_let_bench: %s\n", e.what());
        std::exit(2);
      }
    } else if (k == "--header") a.header = true;
    else {
      std::fprintf(stderr,
                   "mpi_let_bench: unknown option %s; accepted: --n --model --steps --warmup --theta --backend --freed-memory --build-run --walk-places-particles --decomposition-on-device --header\n",
                   k.c_str());
      std::exit(2);
    }
  }
  if (a.model != "plummer" && a.model != "hernquist") {
    std::fprintf(stderr, "mpi_let_bench: --model %s; accepted: plummer, hernquist\n", a.model.c_str());
    std::exit(2);
  }
#if defined(ORRERY_HAVE_CUDA)
  constexpr bool cuda_built = true;
#else
  constexpr bool cuda_built = false;
#endif
  if (a.backend != "cpu" && (a.backend != "cuda" || !cuda_built)) {
    std::fprintf(stderr, "mpi_let_bench: --backend %s%s; accepted: %s\n", a.backend.c_str(),
                 cuda_built ? "" : " in a build without CUDA", cuda_built ? "cpu, cuda" : "cpu (cuda: a CUDA build)");
    std::exit(2);
  }
  return a;
}

/// Element-wise largest and mean over the ranks (timings and sizes only:
/// nothing here is a result, so a floating-point reduction is fine).
struct OverRanks {
  std::vector<double> max, mean;
};
OverRanks over_ranks(std::vector<double> v, int size) {
  OverRanks o{v, v};
  MPI_Allreduce(v.data(), o.max.data(), static_cast<int>(v.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(v.data(), o.mean.data(), static_cast<int>(v.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (double& m : o.mean) m /= size;
  return o;
}

/// The median over the steps of each column of `rows`.
std::vector<double> medians(const std::vector<std::vector<double>>& rows) {
  std::vector<double> out;
  for (std::size_t c = 0; c < rows.front().size(); ++c) {
    std::vector<double> column;
    for (const auto& r : rows) column.push_back(r[c]);
    out.push_back(bench::stats_of(column).median);
  }
  return out;
}

/// One step's bytes on this rank: the local essential trees (sent,
/// received), the migration (received), the O(K) collectives every rank
/// takes part in (the reductions, the top leaves' moments and the target
/// boxes: received), and everything (sent, received).
template <class Real>
std::vector<double> step_bytes(const mpi::DistributedTree<Real>& tree) {
  double let_sent = 0, let_received = 0, migration = 0, global = 0, sent = 0, received = 0;
  for (const auto& [part, b] : tree.last_traffic()) {
    if (part == "let") let_sent += b.sent, let_received += b.received;
    else if (part == "migration") migration += b.received;
    else global += b.received;
    sent += b.sent;
    received += b.received;
  }
  return {let_sent, let_received, migration, global, sent, received};
}

/// The walk's split in the CSV's order: the seconds of each step of the
/// rank's walk between two readings of LetWalk::step_seconds (none for the CPU's).
const std::vector<std::string> split_steps = {"upload", "kernel", "download"};
std::vector<double> split_between(const std::vector<std::pair<std::string, double>>& before,
                                  const std::vector<std::pair<std::string, double>>& after) {
  if (after.empty()) return {};
  std::vector<double> out;
  for (std::size_t k = 0; k < split_steps.size(); ++k) {
    if (after.size() != split_steps.size() || after[k].first != split_steps[k])
      throw RuntimeFailure("the walk's steps are not the CSV's (upload, kernel, download): update mpi_let_bench");
    out.push_back(after[k].second - (before.empty() ? 0.0 : before[k].second));
  }
  return out;
}

/// Each rank's walk, chosen as `orrery run` chooses it (driver::Ranks: on the
/// CPU, or on the GPU of local rank mod the GPUs present).
template <class Real>
std::shared_ptr<mpi::LetWalk<Real>> walk_of(const gravity::GravityConfig& g, int rank) {
#if defined(ORRERY_HAVE_CUDA)
  if (g.backend == "cuda" && !cuda::device_available())
    throw RuntimeFailure("--backend cuda and rank " + std::to_string(rank) +
                         " sees no CUDA device; accepted: --backend cpu, or a machine with a GPU");
#endif
  (void)rank;
  return driver::Ranks::world().let_walk<Real>(g);
}

void run(const Args& a, int rank, int size) {
  using Real = float;
  if (!set_freed_memory(a.freed_memory))
    throw RuntimeFailure(std::string("--freed-memory ") + to_string(a.freed_memory) +
                         ": this build's allocator cannot keep freed memory; accepted: release");
  const double t_setup = MPI_Wtime();
  gravity::GravityConfig g;  // the run's default tree (theta 0.5, leaf capacity 16, monopole, geometric)
  g.solver = "tree";
  g.theta = a.theta;
  g.backend = a.backend;
  const auto config = gravity::tree_solver_config(g);
  auto comm = mpi::Communicator::world();
  const std::shared_ptr<mpi::LetWalk<Real>> walk = walk_of<Real>(g, rank);
  mpi::DistributedOptions distributed;
  if (a.build_run > 0) distributed.build_run_particles = static_cast<std::int32_t>(a.build_run);
  distributed.walk_places_particles = a.walk_places_particles;
  distributed.decomposition_on_device = a.decomposition_on_device;
  mpi::DistributedTree<Real> tree(config, comm, distributed, walk);
  mpi::RankParticles<Real> s;
  {
    const Particles<Real> all = ic::to_precision<Real>(a.model == "plummer" ? ic::plummer_sphere(a.n, 42)
                                                                            : ic::hernquist_sphere(a.n, 42));
    s = mpi::share_of(all, rank, size);
  }
  gravity::SolveOptions options;
  options.potential = false;
  tree.solve(s, options);  // the first evaluation: migrates the dealt particles to their domains
  const double setup = MPI_Wtime() - t_setup;
  options.previous_accelerations = true;
  const Real dt = Real(1.0 / 1024), half = dt / 2;
  const std::vector<std::string> parts = {"decomposition", "migration", "tree", "exchange", "walk", "kick/drift"};

  std::vector<std::vector<double>> time_max, time_mean, bytes_max, bytes_mean, split_max, split_mean, piece_max,
      piece_mean, kernel_max, kernel_mean, untimed_max, untimed_mean;
  std::vector<double> step_max;
  for (int step = 0; step < a.warmup + a.steps; ++step) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    const std::vector<double> kernel_before = kernel_counts();
    integrate::kick(s.p, s.a, half);
    integrate::drift(s.p, dt);
    const double t1 = MPI_Wtime();
    const auto split_before = walk->step_seconds();
    const SolverReport report = tree.solve(s, options);
    const double t2 = MPI_Wtime();
    const std::vector<double> split = split_between(split_before, walk->step_seconds());
    integrate::kick(s.p, s.a, half);
    const double t3 = MPI_Wtime();
    std::vector<double> kernel = kernel_counts();
    for (std::size_t k = 0; k < kernel.size(); ++k) kernel[k] -= kernel_before[k];
    std::map<std::string, double> t;
    t["kick/drift"] = (t1 - t0) + (t3 - t2);
    for (const auto& [phase, seconds] : report.phase_seconds) t[phase] += seconds;
    std::vector<double> mine;
    for (const auto& part : parts) mine.push_back(t[part]);
    mine.push_back(t3 - t0);
    double in_parts = 0;
    for (std::size_t p = 0; p < parts.size(); ++p) in_parts += mine[p];
    const OverRanks outside = over_ranks({(t3 - t0) - in_parts}, size);
    std::map<std::string, double> by_piece;
    for (const auto& [name, seconds] : report.piece_seconds) by_piece[name] += seconds;
    std::vector<double> my_pieces;
    for (const auto& name : kPieces) my_pieces.push_back(by_piece[name]);
    const OverRanks times = over_ranks(mine, size), bytes = over_ranks(step_bytes(tree), size),
                    splits = over_ranks(split, size), piece_times = over_ranks(my_pieces, size),
                    kernel_work = over_ranks(kernel, size);
    // Every step's total and fresh pages on stderr: a step that still touches
    // fresh pages (the first one or two, while the allocator's heap grows to
    // its peak) is not the steady state the timed steps must be.
    if (rank == 0)
      std::fprintf(stderr, "step %d (%s): %.6f s, %.0f minor faults (the largest rank's)\n", step,
                   step < a.warmup ? "warm-up" : "timed", times.max.back(), kernel_work.max[0]);
    if (step < a.warmup) continue;
    untimed_max.push_back(outside.max);
    untimed_mean.push_back(outside.mean);
    kernel_max.push_back(kernel_work.max);
    kernel_mean.push_back(kernel_work.mean);
    piece_max.push_back(piece_times.max);
    piece_mean.push_back(piece_times.mean);
    split_max.push_back(splits.max);
    split_mean.push_back(splits.mean);
    time_max.push_back(times.max);
    time_mean.push_back(times.mean);
    bytes_max.push_back(bytes.max);
    bytes_mean.push_back(bytes.mean);
    step_max.push_back(times.max.back());
  }
  // What a rank holds after the last solve: its domain, its walk's tree
  // (particles without the sentinel, nodes) and what of it came from others.
  const auto& held = tree.last_tree();
  const auto held_particles = static_cast<double>(held.tree.x.size()) - 1;
  const auto let_nodes = static_cast<double>(std::count_if(held.origin.begin(), held.origin.end(),
                                                           [&](int r) { return r != rank; }));
  const OverRanks sizes = over_ranks({static_cast<double>(s.size()), held_particles,
                                      static_cast<double>(held.tree.num_nodes()), let_nodes,
                                      held_particles - static_cast<double>(s.size()), setup},
                                     size);
  if (rank != 0) return;
  const std::vector<double> tmax = medians(time_max), tmean = medians(time_mean), bmax = medians(bytes_max),
                            bmean = medians(bytes_mean);
  std::printf("%d,%lld,%s,%d,%d", size, static_cast<long long>(a.n), a.model.c_str(), omp_get_max_threads(), a.steps);
  for (std::size_t p = 0; p < tmax.size(); ++p) std::printf(",%.6f,%.6f", tmax[p], tmean[p]);
  std::printf(",%.3f", bench::stats_of(step_max).spread());
  const auto& m = sizes.max;
  const auto& e = sizes.mean;
  std::printf(",%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f", m[0], e[0], m[1], e[1], m[2], m[3], e[3], m[4], e[4]);
  std::printf(",%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.0f,%.3f", bmax[0], bmax[1], bmean[1], bmax[2], bmean[2],
              bmax[3], bmax[4], bmax[5], bmean[5], m[5]);
  // The walk's backend and its split (empty fields where the walk has none).
  std::printf(",%s", tree.walk_backend().c_str());
  const std::vector<double> smax = medians(split_max), smean = medians(split_mean);
  for (std::size_t k = 0; k < split_steps.size(); ++k)
    if (smax.empty()) std::printf(",,");
    else std::printf(",%.6f,%.6f", smax[k], smean[k]);
  const std::vector<double> pmax = medians(piece_max), pmean = medians(piece_mean);
  for (std::size_t k = 0; k < kPieces.size(); ++k) std::printf(",%.6f,%.6f", pmax[k], pmean[k]);
  std::printf(",%s", to_string(a.freed_memory));
  const std::vector<double> kmax = medians(kernel_max), kmean = medians(kernel_mean);
  for (std::size_t k = 0; k < kmax.size(); ++k) std::printf(",%.0f,%.0f", kmax[k], kmean[k]);
  std::printf(",%.6f,%.6f\n", medians(untimed_max)[0], medians(untimed_mean)[0]);
}

/// The CSV header: the columns before the pieces, the pieces' (kPieces), the rest.
std::string csv_header() {
  std::string h =
      "ranks,n,model,threads_per_rank,steps,decomposition_max_s,decomposition_mean_s,migration_max_s,"
      "migration_mean_s,tree_max_s,tree_mean_s,exchange_max_s,exchange_mean_s,walk_max_s,walk_mean_s,"
      "kick_drift_max_s,kick_drift_mean_s,step_max_s,step_mean_s,step_spread,own_particles_max,"
      "own_particles_mean,held_particles_max,held_particles_mean,held_nodes_max,let_nodes_max,"
      "let_nodes_mean,let_particles_max,let_particles_mean,let_bytes_sent_max,let_bytes_received_max,"
      "let_bytes_received_mean,migration_bytes_received_max,migration_bytes_received_mean,"
      "global_bytes_received_max,bytes_sent_max,bytes_received_max,bytes_received_mean,setup_max_s,backend,"
      "walk_upload_max_s,walk_upload_mean_s,walk_kernel_max_s,walk_kernel_mean_s,walk_download_max_s,"
      "walk_download_mean_s,";
  for (std::string piece : kPieces) {
    std::replace(piece.begin(), piece.end(), '/', '_');
    h += piece + "_max_s," + piece + "_mean_s,";
  }
  return h +
      "freed_memory,minor_faults_max,minor_faults_mean,involuntary_switches_max,involuntary_switches_mean,"
      "voluntary_switches_max,voluntary_switches_mean,untimed_max_s,untimed_mean_s";
}

}  // namespace

int main(int argc, char** argv) {
  const std::string header = csv_header();
  return orrery::bench::mpi_bench_main(argc, argv, "mpi_let_bench", header.c_str(), parse, run);
}
