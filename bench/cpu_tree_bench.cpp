// The CPU Barnes-Hut solver (gravity::TreeSolver): scaling over N, the time
// split by phase, the crossover with the CPU direct solver, and accuracy over
// the opening angle, written as CSV (docs/performance/cpu_tree.md).
//
// Protocol (DESIGN contract 5): Plummer spheres (seed 20260811, softening
// 0.05, float, leaf capacity 16), per row one warm-up solve then `trials`
// timed solves; the median and the spread (max - min) / median of the wall
// time, and per-phase medians. A fixed canary workload (the N = 16384 tree
// solve) is timed before every row; its drift over the session is reported
// (a session whose canary drifted by more than 20 % should be repeated, not
// quoted). The program rests 0.5 s between rows. Counters and errors are
// exact functions of the input: they must be equal between sessions.
//
// usage: cpu_tree_bench OUT_PREFIX [--min-n N] [--max-n N] [--trials T] [--budget-s S] [--isa I]
//                       [--accuracy-only 1] [--thetas T,T,..] [--orders O,O,..] [--precision P]
//                       [--group-openings G,G,..]
//   writes OUT_PREFIX_scaling.csv, OUT_PREFIX_crossover.csv, OUT_PREFIX_accuracy.csv
//   --min-n     smallest N of the scaling table (default 1024; a thread sweep
//               at one N passes --min-n N --max-n N --scaling-only 1)
//   --max-n     largest N of the scaling table (default 4194304)
//   --budget-s  stop adding scaling rows once the session has run this long
//   --scaling-only 1   only the scaling table (a short session)
//   --accuracy-only 1  only the accuracy table (at N = min(max-n, 65536))
//   --thetas    the accuracy table's opening angles (default 0.3,0.4,...,0.8)
//   --orders    its multipole orders, 1 (monopole) to 4 (hexadecapole) (default 1,2)
//   --precision its precision: single, double or both (default single)
//   --group-openings  its gravity.group_opening values, e.g. 0,32,128 (default 0;
//               docs/adr/0017)
//   --isa       the walk's instruction set: avx2, avx512 or auto (default auto:
//               AVX-512 where the processor has it; tree/walk_isa.hpp). Both
//               give the same bits; the header line says which one ran.
//   threads: OMP_NUM_THREADS (default: all cores).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bench_stats.hpp"
#include "orrery/core/error.hpp"
#include "orrery/gravity/direct_solver.hpp"
#include "orrery/gravity/reference_solver.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/gravity/tree_solver.hpp"
#include "orrery/bh/walk_isa.hpp"

namespace {

using namespace orrery;
using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kSeed = 20260811;
constexpr double kSoftening = 0.05;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

Particles<float> plummer(std::int64_t n) { return ic::to_precision<float>(ic::plummer_sphere(n, kSeed)); }

bh::TreeSolverConfig config(double theta, bh::Multipole mp) {
  bh::TreeSolverConfig c;
  c.tree.theta = theta;
  c.tree.multipole = mp;
  c.softening = kSoftening;
  return c;
}

/// One row's timing: wall-time statistics, per-phase medians, the last report.
struct Timing {
  bench::Stats wall;
  std::map<std::string, double> phase_median;
  SolverReport report;
  std::int32_t nodes = 0;
  int depth = 0;
};

template <class Real = float>
Timing time_tree(const Particles<Real>& p, const bh::TreeSolverConfig& c, int trials,
                 Accelerations<Real>* keep = nullptr) {
  gravity::TreeSolver<Real> solver(c);
  Accelerations<Real> local(static_cast<std::size_t>(p.size()));
  Accelerations<Real>& a = keep ? *keep : local;
  Timing t;
  t.report = solver.solve(p.sources(), a.view(), {.potential = false});  // warm-up
  std::vector<double> wall;
  std::map<std::string, std::vector<double>> phases;
  for (int k = 0; k < trials; ++k) {
    const auto t0 = Clock::now();
    t.report = solver.solve(p.sources(), a.view(), {.potential = false});
    wall.push_back(since(t0));
    for (const auto& [name, s] : t.report.phase_seconds) phases[name].push_back(s);
  }
  t.wall = bench::stats_of(wall);
  for (auto& [name, v] : phases) t.phase_median[name] = bench::stats_of(v).median;
  t.nodes = solver.last_tree().num_nodes();
  t.depth = solver.last_tree().depth;
  return t;
}

double time_direct(const Particles<float>& p, int trials) {
  gravity::DirectSolver<float, PlummerSoftening<float>> solver{float(kSoftening)};
  Accelerations<float> a(static_cast<std::size_t>(p.size()));
  solver.solve(p.sources(), a.view(), {.potential = false});
  std::vector<double> wall;
  for (int k = 0; k < trials; ++k) {
    const auto t0 = Clock::now();
    solver.solve(p.sources(), a.view(), {.potential = false});
    wall.push_back(since(t0));
  }
  return bench::stats_of(wall).median;
}

class Canary {
 public:
  Canary() : p_(plummer(16384)) {}
  double measure() {
    const double t = time_tree(p_, config(0.5, bh::Multipole::monopole), 3).wall.median;
    if (first_ == 0) first_ = t;
    return t;
  }
  /// Per cent change of the latest canary against the first.
  double drift(double t) const { return 100.0 * (t - first_) / first_; }

 private:
  Particles<float> p_;
  double first_ = 0;
};

void rest() { std::this_thread::sleep_for(std::chrono::milliseconds(500)); }

const char* kPhases[] = {"box", "keys", "sort", "build", "moments", "walk", "scatter"};

void scaling(const std::string& prefix, std::int64_t min_n, std::int64_t max_n, int trials, double budget_s, Clock::time_point start,
             Canary& canary, std::map<std::int64_t, double>& tree_seconds) {
  std::ofstream csv(prefix + "_scaling.csv");
  csv << "n,nodes,depth,median_s,min_s,max_s,spread";
  for (const char* ph : kPhases) csv << ",share_" << ph;
  csv << ",visits_per_particle,cells_per_particle,particles_per_particle,ms_per_nlog2n,exponent,canary_s,"
         "canary_drift_pct\n";
  std::printf("\n== scaling: Plummer, theta 0.5, monopole, leaf 16, float, %d threads\n", omp_get_max_threads());
  std::printf("%9s %8s %3s %10s %7s | %5s %5s %5s %5s %5s %5s %5s | %7s %7s %7s %10s %6s %7s\n", "N", "nodes", "dep",
              "median", "spread", "box", "keys", "sort", "build", "mom", "walk", "scat", "visits", "cells", "parts",
              "ms/NlogN", "exp", "canary");
  double prev_n = 0, prev_t = 0;
  for (std::int64_t n = min_n; n <= max_n; n *= 2) {
    if (since(start) > budget_s) {
      std::printf("(budget of %.0f s reached: rows above N = %lld not run)\n", budget_s, static_cast<long long>(n / 2));
      break;
    }
    rest();
    const double c = canary.measure();
    const auto p = plummer(n);
    const int t_trials = n <= 65536 ? std::max(trials, 7) : trials;
    const Timing t = time_tree(p, config(0.5, bh::Multipole::monopole), t_trials);
    double phase_sum = 0;
    for (const auto& [name, s] : t.phase_median) phase_sum += s;
    const double dn = double(n), med = t.wall.median;
    const double exponent = prev_n > 0 ? std::log(med / prev_t) / std::log(dn / prev_n) : 0.0;
    const double ms_nlogn = 1e3 * med / (dn * std::log2(dn));
    const auto& tot = t.report.total;
    csv << n << "," << t.nodes << "," << t.depth << "," << med << "," << t.wall.min << "," << t.wall.max << ","
        << t.wall.spread();
    std::printf("%9lld %8d %3d %8.4g s %6.1f%% |", static_cast<long long>(n), t.nodes, t.depth, med,
                100 * t.wall.spread());
    for (const char* ph : kPhases) {
      const auto it = t.phase_median.find(ph);
      const double share = it == t.phase_median.end() ? 0.0 : it->second / phase_sum;
      csv << "," << share;
      std::printf(" %4.1f%%", 100 * share);
    }
    csv << "," << double(tot.node_visits) / dn << "," << double(tot.cell_interactions) / dn << ","
        << double(tot.particle_interactions) / dn << "," << ms_nlogn << ","
        << (prev_n > 0 ? std::to_string(exponent) : std::string("")) << "," << c << "," << canary.drift(c) << "\n";
    std::printf(" | %7.0f %7.0f %7.0f %10.3g %6s %+6.1f%%\n", double(tot.node_visits) / dn,
                double(tot.cell_interactions) / dn, double(tot.particle_interactions) / dn, ms_nlogn,
                prev_n > 0 ? std::to_string(exponent).substr(0, 5).c_str() : "-", canary.drift(c));
    std::fflush(stdout);
    tree_seconds[n] = med;
    prev_n = dn;
    prev_t = med;
  }
}

void crossover(const std::string& prefix, const std::map<std::int64_t, double>& tree_seconds, std::int64_t max_n,
               int trials) {
  std::ofstream csv(prefix + "_crossover.csv");
  csv << "n,tree_s,direct_s,direct_over_tree\n";
  std::printf("\n== crossover with the CPU direct solver (float, same softening)\n%9s %10s %10s %8s\n", "N", "tree",
              "direct", "ratio");
  std::vector<double> ns, ratios;
  for (std::int64_t n = 1024; n <= std::min<std::int64_t>(max_n, 65536); n *= 2) {
    const auto it = tree_seconds.find(n);
    if (it == tree_seconds.end()) break;
    rest();
    const double direct = time_direct(plummer(n), n <= 16384 ? std::max(trials, 7) : trials);
    const double ratio = direct / it->second;
    csv << n << "," << it->second << "," << direct << "," << ratio << "\n";
    std::printf("%9lld %8.4g s %8.4g s %8.3f\n", static_cast<long long>(n), it->second, direct, ratio);
    ns.push_back(double(n));
    ratios.push_back(ratio);
  }
  // The crossover is taken after the last row where direct still wins (a
  // noisy small-N row must not end the search), by logarithmic interpolation
  // of the ratio to the next row; -1 when the tree wins at every N measured.
  double cross = -1;
  for (std::size_t k = ns.size(); k-- > 0;) {
    if (ratios[k] >= 1) continue;
    cross = k + 1 < ns.size()
                ? ns[k] * std::pow(ns[k + 1] / ns[k], std::log(1 / ratios[k]) / std::log(ratios[k + 1] / ratios[k]))
                : 0;  // direct still wins at the largest N measured
    break;
  }
  if (cross > 0) std::printf("crossover: the tree beats direct summation above N ~ %.0f\n", cross);
  if (cross < 0) std::printf("crossover: the tree wins at every N measured\n");
  if (cross == 0) std::printf("crossover: above the largest N measured\n");
  csv << "# crossover_n," << cross << "\n";
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * double(v.size() - 1) + 0.5))];
}

/// What the accuracy table covers.
struct AccuracyRows {
  std::vector<double> thetas = {0.3, 0.4, 0.5, 0.6, 0.7, 0.8};
  std::vector<bh::Multipole> orders = {bh::Multipole::monopole, bh::Multipole::quadrupole};
  std::vector<std::string> precisions = {"single"};
  std::vector<int> group_openings = {0};  // TreeParams::group_opening values (docs/adr/0017)
};

template <class Real>
void accuracy_rows(std::ofstream& csv, const Particles<float>& p, const std::vector<std::int64_t>& targets,
                   const std::vector<double>& rx, const std::vector<double>& ry, const std::vector<double>& rz,
                   const AccuracyRows& rows, int trials);

void accuracy(const std::string& prefix, std::int64_t n, int trials, const AccuracyRows& rows) {
  std::ofstream csv(prefix + "_accuracy.csv");
  csv << "n,precision,theta,multipole,rms,max,median,p99,median_s,spread,cells_per_particle,particles_per_particle,"
         "group_opening\n";
  const auto p = plummer(n);
  std::vector<std::int64_t> targets;
  const std::int64_t count = std::min<std::int64_t>(n, 4096);
  for (std::int64_t k = 0; k < count; ++k) targets.push_back((k * 7919) % n);
  std::vector<double> rx(targets.size()), ry(targets.size()), rz(targets.size());
  gravity::reference_accelerations_at(p.sources(), targets, SofteningKind::plummer, kSoftening, rx.data(), ry.data(),
                                      rz.data());
  std::printf("\n== accuracy at N = %lld against the double compensated reference on %lld targets\n",
              static_cast<long long>(n), static_cast<long long>(count));
  std::printf("%6s %5s %12s %5s %10s %10s %10s %10s %10s %8s %8s\n", "real", "theta", "multipole", "group", "rms",
              "worst", "median", "p99", "time", "cells", "parts");
  for (const auto& precision : rows.precisions) {
    if (precision == "double")
      accuracy_rows<double>(csv, p, targets, rx, ry, rz, rows, trials);
    else
      accuracy_rows<float>(csv, p, targets, rx, ry, rz, rows, trials);
  }
}

template <class Real>
void accuracy_rows(std::ofstream& csv, const Particles<float>& input, const std::vector<std::int64_t>& targets,
                   const std::vector<double>& rx, const std::vector<double>& ry, const std::vector<double>& rz,
                   const AccuracyRows& rows, int trials) {
  const char* real = sizeof(Real) == 4 ? "single" : "double";
  // The very float positions the reference summed, widened exactly for double.
  const std::int64_t n = input.size();
  Particles<Real> p(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    p.x[i] = input.x[i];
    p.y[i] = input.y[i];
    p.z[i] = input.z[i];
    p.mass[i] = input.mass[i];
  }
  for (double theta : rows.thetas) {
    for (auto mp : rows.orders) {
      for (const int group : rows.group_openings) {
        rest();
        Accelerations<Real> a(static_cast<std::size_t>(n));
        bh::TreeSolverConfig c = config(theta, mp);
        c.tree.group_opening = group;
        const Timing t = time_tree(p, c, trials, &a);
        std::vector<double> e;
        double sum2 = 0;
        for (std::size_t k = 0; k < targets.size(); ++k) {
          const auto i = targets[k];
          const double dx = a.ax[i] - rx[k], dy = a.ay[i] - ry[k], dz = a.az[i] - rz[k];
          const double e2 = (dx * dx + dy * dy + dz * dz) / (rx[k] * rx[k] + ry[k] * ry[k] + rz[k] * rz[k]);
          sum2 += e2;
          e.push_back(std::sqrt(e2));
        }
        const double rms = std::sqrt(sum2 / double(e.size())), worst = quantile(e, 1.0), med = quantile(e, 0.5),
                     p99 = quantile(e, 0.99);
        const auto& tot = t.report.total;
        csv << n << "," << real << "," << theta << "," << bh::to_string(mp) << "," << rms << "," << worst << "," << med << "," << p99
            << "," << t.wall.median << "," << t.wall.spread() << "," << double(tot.cell_interactions) / double(n) << ","
            << double(tot.particle_interactions) / double(n) << "," << group << "\n";
        std::printf("%6s %5.2f %12s %5d %10.3e %10.3e %10.3e %10.3e %8.4g s %8.0f %8.0f\n", real, theta,
                    std::string(bh::to_string(mp)).c_str(), group, rms, worst, med, p99, t.wall.median,
                    double(tot.cell_interactions) / double(n), double(tot.particle_interactions) / double(n));
        std::fflush(stdout);
      }
    }
  }
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: cpu_tree_bench OUT_PREFIX [--min-n N] [--max-n N] [--trials T] [--budget-s S] "
                 "[--scaling-only 1] [--isa avx2|avx512|auto]\n");
    return 2;
  }
  const std::string prefix = argv[1];
  std::int64_t min_n = 1024, max_n = 4194304;
  int trials = 3;
  double budget_s = 1e9;
  bool scaling_only = false, accuracy_only = false;
  AccuracyRows rows;
  const auto list = [](const char* text) {
    std::vector<std::string> out;
    std::string item;
    for (const char* c = text;; ++c) {
      if (*c == ',' || *c == '\0') {
        if (!item.empty()) out.push_back(item);
        item.clear();
        if (*c == '\0') break;
      } else {
        item += *c;
      }
    }
    return out;
  };
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--max-n")) max_n = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--min-n")) min_n = std::max<std::int64_t>(1024, std::atoll(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--trials")) trials = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--budget-s")) budget_s = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--scaling-only")) scaling_only = std::atoi(argv[i + 1]) != 0;
    else if (!std::strcmp(argv[i], "--accuracy-only")) accuracy_only = std::atoi(argv[i + 1]) != 0;
    else if (!std::strcmp(argv[i], "--thetas")) {
      rows.thetas.clear();
      for (const auto& t : list(argv[i + 1])) rows.thetas.push_back(std::atof(t.c_str()));
    } else if (!std::strcmp(argv[i], "--orders")) {
      rows.orders.clear();
      try {
        for (const auto& o : list(argv[i + 1])) rows.orders.push_back(gravity::tree_multipole(std::atoi(o.c_str())));
      } catch (const orrery::InputError& e) {
        std::fprintf(stderr, "cpu_tree_bench: --orders: %s\n", e.what());
        return 2;
      }
    } else if (!std::strcmp(argv[i], "--group-openings")) {
      rows.group_openings.clear();
      for (const auto& g : list(argv[i + 1])) rows.group_openings.push_back(std::atoi(g.c_str()));
    } else if (!std::strcmp(argv[i], "--precision")) {
      const std::string v = argv[i + 1];
      if (v != "single" && v != "double" && v != "both") {
        std::fprintf(stderr, "cpu_tree_bench: --precision %s is invalid; accepted: single, double, both\n", v.c_str());
        return 2;
      }
      rows.precisions = v == "both" ? std::vector<std::string>{"single", "double"} : std::vector<std::string>{v};
    }
    else if (!std::strcmp(argv[i], "--isa")) {
      try {
        orrery::bh::set_walk_isa(orrery::bh::parse_walk_isa(argv[i + 1], "--isa"));
      } catch (const orrery::InputError& e) {
        std::fprintf(stderr, "cpu_tree_bench: %s\n", e.what());
        return 2;
      }
    } else {
      std::fprintf(stderr, "cpu_tree_bench: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  const auto start = Clock::now();
  std::string isa;
  try {
    isa = orrery::bh::to_string(orrery::bh::walk_isa_in_use());  // reads ORRERY_CPU_WALK
  } catch (const orrery::InputError& e) {
    std::fprintf(stderr, "cpu_tree_bench: %s\n", e.what());
    return 2;
  }
  std::printf("cpu_tree_bench: %s, %d threads (%u hardware), compiler %s, walk %s (AVX-512 %s)\n",
              cpu_model().c_str(), omp_get_max_threads(), std::thread::hardware_concurrency(), __VERSION__, isa.c_str(),
              orrery::bh::cpu_supports_avx512_walk() ? "available" : "not available");
  Canary canary;
  canary.measure();
  std::map<std::int64_t, double> tree_seconds;
  if (!accuracy_only) scaling(prefix, min_n, max_n, trials, budget_s, start, canary, tree_seconds);
  if (!scaling_only) {
    if (!accuracy_only) crossover(prefix, tree_seconds, max_n, trials);
    accuracy(prefix, std::min<std::int64_t>(max_n, 65536), trials, rows);
  }
  const double c = canary.measure();
  std::printf("\ncanary drift over the session: %+.1f %% (%.0f s in all)\n", canary.drift(c), since(start));
  return 0;
}
