// CPU direct-summation kernel throughput: interactions per second per core,
// float and double, N = 1K..64K, written as CSV.
//
// Protocol (DESIGN contract 5): per row a warm-up solve, then `trials` timed
// solves; the median and the spread (min, max) of interactions/s/core by the
// wall clock, and the median per second of process CPU time (which a shared
// machine's other tenants do not dilute; with several threads it includes
// OpenMP's spinning at barriers). A fixed canary workload (N = 16384, float,
// per CPU second; N = 4096 was bimodal on the Zen 4 VM, 1.9e9 or 2.55e9 from
// solve to solve on an idle machine, too short a workload to be a canary) is timed before every row and its
// drift over the session is reported: on a shared machine a session whose
// canary drifted by more than --max-drift percent is flagged, and should be
// repeated rather than quoted. The program rests between rows.
//
// usage: cpu_direct_bench OUT.csv [--quick] [--max-drift PCT]
//   threads: OMP_NUM_THREADS (default: all cores); "per core" divides by it.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "orrery/gravity/direct_solver.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"

namespace {

using namespace orrery;

struct Sample {
  double median = 0, min = 0, max = 0;  // wall clock
  double cpu_median = 0;                // per second of process CPU time
};

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Interactions per second per thread of `trials` solves after a warm-up: by
// the wall clock, and per second of CPU time the process actually got (on a
// shared machine the wall clock also measures the other tenants).
template <class Real>
Sample measure(std::int64_t n, bool potential, int trials) {
  const auto p = ic::to_precision<Real>(ic::plummer_sphere(n, 1));
  gravity::DirectSolver<Real, PlummerSoftening<Real>> solver(Real(0.05));
  Accelerations<Real> a(static_cast<std::size_t>(n));
  const gravity::SolveOptions options{.potential = potential};
  solver.solve(p.sources(), a.view(potential), options);  // warm-up
  std::vector<double> rates, cpu_rates;
  const double interactions = static_cast<double>(n) * static_cast<double>(n - 1);
  for (int t = 0; t < trials; ++t) {
    const double cpu_start = cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    solver.solve(p.sources(), a.view(potential), options);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rates.push_back(interactions / s / omp_get_max_threads());
    cpu_rates.push_back(interactions / (cpu_seconds() - cpu_start));
  }
  const auto [lo, hi] = std::minmax_element(rates.begin(), rates.end());
  return {median_of(rates), *lo, *hi, median_of(cpu_rates)};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.csv [--quick] [--max-drift PCT]\n", argv[0]);
    return 2;
  }
  const std::string out_path = argv[1];
  bool quick = false;
  double max_drift = 5.0;
  for (int k = 2; k < argc; ++k) {
    const std::string arg = argv[k];
    if (arg == "--quick") {
      quick = true;
    } else if (arg == "--max-drift" && k + 1 < argc) {
      max_drift = std::atof(argv[++k]);
    } else {
      std::fprintf(stderr, "%s: unknown argument %s; accepted: --quick, --max-drift PCT\n", argv[0], arg.c_str());
      return 2;
    }
  }
  std::ofstream out(out_path);
  if (!out) {
    std::fprintf(stderr, "%s: cannot write %s\n", argv[0], out_path.c_str());
    return 2;
  }
  const int trials = quick ? 3 : 7;
  const std::int64_t n_max = quick ? 8192 : 65536;
  const int threads = omp_get_max_threads();
  out << "precision,n,potential,threads,trials,median_per_core,min_per_core,max_per_core,spread_pct,median_per_cpu_second,"
         "canary_per_cpu_second\n";
  std::printf("%-9s %6s %4s %8s %14s %10s %14s %14s\n", "precision", "n", "pot", "threads", "median/core", "spread %",
              "per CPU-s", "canary/CPU-s");
  std::vector<double> canaries;
  const auto row = [&](const char* precision, std::int64_t n, bool potential, auto real) {
    using Real = decltype(real);
    std::this_thread::sleep_for(std::chrono::milliseconds(quick ? 100 : 1000));  // rest
    const double canary = measure<float>(16384, false, 3).cpu_median;
    canaries.push_back(canary);
    const Sample s = measure<Real>(n, potential, trials);
    const double spread = 100.0 * (s.max - s.min) / s.median;
    out << precision << ',' << n << ',' << int(potential) << ',' << threads << ',' << trials << ',' << s.median << ','
        << s.min << ',' << s.max << ',' << spread << ',' << s.cpu_median << ',' << canary << '\n';
    std::printf("%-9s %6lld %4d %8d %14.3e %10.1f %14.3e %14.3e\n", precision, static_cast<long long>(n), int(potential),
                threads, s.median, spread, s.cpu_median, canary);
    std::fflush(stdout);
  };
  for (std::int64_t n = 1024; n <= n_max; n *= 2) row("float", n, false, float{});
  for (std::int64_t n = 1024; n <= n_max; n *= 2) row("double", n, false, double{});
  row("float", 16384, true, float{});
  row("double", 16384, true, double{});
  const auto [lo, hi] = std::minmax_element(canaries.begin(), canaries.end());
  const double drift = 100.0 * (*hi - *lo) / *lo;
  std::printf("canary drift over the session: %.1f %% (%s)\n", drift,
              drift <= max_drift ? "ok" : "TOO HIGH: repeat the session before quoting it");
  out << "# canary drift over the session: " << drift << " %\n";
  return drift <= max_drift ? 0 : 3;
}
