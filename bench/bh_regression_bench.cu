// The no-speed-change check of issue 14 (the Barnes-Hut restructuring): the
// rows a restructuring must keep within 2 %, timed through the solver factory
// only (make_solver / make_device_solver and GravityConfig), an interface that
// the commits before and after share, so that one program measures both side
// by side in one device session (scripts/gpu_session.sh, task bench-regression).
//
// Rows (Plummer sphere from ic::plummer_sphere, float, softening 0.05):
//   gpu_tree_geometric   GPU tree, theta 0.5, monopole, leaf 16, potentials and counters, N = 1M and 16M
//   gpu_tree_relative    GPU tree, relative opening (tolerance 0.0055, theta 1), quadrupole, leaf 32,
//                        accelerations only, steady state (previous accelerations), N = 1M and 16M
//   gpu_direct           GPU direct summation, potentials, N = 1M
//   cpu_tree             CPU tree as gpu_tree_geometric, N = 1M, all host threads
//   gpu_tree_host        (not by default) gpu_tree_geometric through solve() on host arrays:
//                        the sources' upload and the results' download included, N = 1M and 16M
//   gpu_tree_phases      (not by default) the two GPU tree rows' phases from their
//                        SolverReport, rows "gpu_tree_geometric:walk" and so on
//   issue21              (not by default) issue 21's inputs at N = 2^20 with their fastest
//                        configurations at the targets' accuracy (docs/performance/gpu_tree.md,
//                        "Choosing the relative cap"): quadrupole, leaf 32, potentials on, the
//                        uniform cube (2^20 - 1, eps 0.17) geometric theta 0.55 and relative
//                        (tolerance 0.004, cap 0.55), the Plummer sphere and the Hernquist halo
//                        (eps 0.05) relative at tolerance 0.002, cap 0.5; the total and the walk
//   list21               (not by default) the list walk (docs/adr/0019) on issue 21's inputs,
//                        relative cap 0.55, tolerance 0.008 (cube, Hernquist) and 0.006 (Plummer)
// GPU rows are device-resident (solve_device) but gpu_tree_host, timed on the host around the
// call and a device synchronisation. Protocol: 3 warm-up evaluations, then
// --trials timed ones (5 at 16M and on the CPU); median, min, max and the
// interquartile spread are written.
//
// usage: bh_regression_bench --out FILE.csv [--label NAME] [--trials K] [--rows a,b,...]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "bench_stats.hpp"
#include "orrery/core/error.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/stream.hpp"
#include "orrery/gravity/solver_factory.hpp"
#include "orrery/gravity/tree_gpu_solver.hpp"
#include "orrery/ic/hernquist.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/ic/uniform_cube.hpp"

namespace orrery::bench {
namespace {

struct HostSet {
  std::int64_t n;
  std::vector<float> x, y, z, m, ax, ay, az, pot;
  explicit HostSet(std::int64_t count) : HostSet(ic::plummer_sphere(count, 20261202)) {}
  explicit HostSet(const Particles<double>& p) : n(p.size()), ax(n), ay(n), az(n), pot(n) {
    for (std::int64_t i = 0; i < n; ++i) {
      x.push_back(float(p.x[i]));
      y.push_back(float(p.y[i]));
      z.push_back(float(p.z[i]));
      m.push_back(float(p.mass[i]));
    }
  }
  SourcesView<float> sources() const { return {n, x.data(), y.data(), z.data(), m.data()}; }
  AccelerationsView<float> out() { return {n, ax.data(), ay.data(), az.data(), pot.data()}; }
};

struct DeviceSet {
  std::int64_t n;
  cuda::DeviceBuffer<float> x, y, z, m, ax, ay, az, pot;
  explicit DeviceSet(const HostSet& h)
      : n(h.n), x(h.n), y(h.n), z(h.n), m(h.n), ax(h.n), ay(h.n), az(h.n), pot(h.n) {
    x.upload(h.x);
    y.upload(h.y);
    z.upload(h.z);
    m.upload(h.m);
  }
  SourcesView<float> sources() const { return {n, x.data(), y.data(), z.data(), m.data()}; }
  AccelerationsView<float> out() { return {n, ax.data(), ay.data(), az.data(), pot.data()}; }
};

double ms_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return 1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double iqr_pct(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto q = [&](double f) {
    const double at = f * double(v.size() - 1);
    const auto lo = static_cast<std::size_t>(at);
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (at - double(lo)) * (v[hi] - v[lo]);
  };
  return 100.0 * (q(0.75) - q(0.25)) / stats_of(v).median;
}

gravity::GravityConfig geometric_tree(const char* backend) {
  gravity::GravityConfig g;
  g.solver = "tree";
  g.backend = backend;
  g.softening = 0.05;
  g.theta = 0.5;
  g.leaf_capacity = 16;
  g.multipole_order = 1;
  return g;
}

gravity::GravityConfig relative_tree() {
  gravity::GravityConfig g = geometric_tree("cuda");
  // The enum's namespace moved in the restructuring; its type is the config's.
  g.opening = decltype(gravity::GravityConfig::opening)::relative;
  g.tolerance = 0.0055;
  g.theta = 1.0;
  g.leaf_capacity = 32;
  g.multipole_order = 2;
  return g;
}

/// Issue 21's configurations (see the header): quadrupole, leaf 32, the
/// given opening; potentials on in every row.
gravity::GravityConfig issue21_tree(double softening, double theta, double tolerance, double cap) {
  gravity::GravityConfig g = geometric_tree("cuda");
  g.softening = softening;
  g.theta = theta;
  g.leaf_capacity = 32;
  g.multipole_order = 2;
  if (tolerance > 0) {
    g.opening = decltype(gravity::GravityConfig::opening)::relative;
    g.tolerance = tolerance;
    g.relative_cap = cap;
  }
  return g;
}

class Session {
 public:
  Session(const std::string& out, std::string label, int trials) : csv_(out), label_(std::move(label)), trials_(trials) {
    csv_ << "label,row,n,trials,median_ms,min_ms,max_ms,iqr_pct\n";
  }

  void write(const std::string& row, std::int64_t n, const std::vector<double>& t) {
    const Stats s = stats_of(t);
    csv_ << label_ << "," << row << "," << n << "," << t.size() << "," << s.median << "," << s.min << "," << s.max
         << "," << iqr_pct(t) << "\n";
    csv_.flush();
    std::printf("%-8s %-20s %10lld  median %9.4f ms  min %9.4f  max %9.4f  IQR %5.2f %%  (%zu trials)\n",
                label_.c_str(), row.c_str(), (long long)n, s.median, s.min, s.max, iqr_pct(t), t.size());
    std::fflush(stdout);
  }

  void gpu(const std::string& row, const gravity::GravityConfig& g, DeviceSet& d, bool potential, bool steady,
           int trials) {
    auto solver = gravity::make_device_solver<float>(g);
    bool have = false;
    const auto once = [&] {
      gravity::SolveOptions o;
      o.potential = potential;
      o.previous_accelerations = steady && have;
      solver->solve_device(d.sources(), d.out(), o, nullptr);
      cuda::synchronize(nullptr);
      have = true;
    };
    for (int k = 0; k < 3; ++k) once();
    std::vector<double> t;
    for (int k = 0; k < trials; ++k) t.push_back(ms_of(once));
    write(row, d.n, t);
  }

  // The GPU tree's own phases (its SolverReport: the build's steps and the
  // walk, device event times), one row each, "<row>:<phase>": where a
  // difference between two commits lies.
  void gpu_phases(const std::string& row, const gravity::GravityConfig& g, DeviceSet& d, bool potential,
                  bool steady, int trials) {
    auto solver = gravity::make_gpu_tree_solver<float>(g);
    bool have = false;
    const auto once = [&] {
      gravity::SolveOptions o;
      o.potential = potential;
      o.previous_accelerations = steady && have;
      have = true;
      return solver->solve_device(d.sources(), d.out(), o);
    };
    for (int k = 0; k < 3; ++k) once();
    std::vector<std::string> names;
    std::vector<std::vector<double>> ms;
    for (int k = 0; k < trials; ++k) {
      const auto r = once();  // SolverReport (its namespace moved in the restructuring)
      for (const auto& [name, seconds] : r.phase_seconds) {
        const auto at = static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
        if (at == names.size()) {
          names.push_back(name);
          ms.emplace_back();
        }
        ms[at].push_back(1e3 * seconds);
      }
    }
    for (std::size_t p = 0; p < names.size(); ++p) write(row + ":" + names[p], d.n, ms[p]);
  }

  /// A row through solve() on host arrays (the CPU solver's, or a GPU
  /// solver's with its copies).
  void host(const std::string& row, const gravity::GravityConfig& g, HostSet& h, int trials) {
    auto solver = gravity::make_solver<float>(g);
    const auto once = [&] { solver->solve(h.sources(), h.out()); };
    once();
    std::vector<double> t;
    for (int k = 0; k < trials; ++k) t.push_back(ms_of(once));
    write(row, h.n, t);
  }

  int trials() const { return trials_; }

 private:
  std::ofstream csv_;
  std::string label_;
  int trials_;
};

}  // namespace
}  // namespace orrery::bench

int main(int argc, char** argv) {
  std::string out = "bh_regression.csv", label = "run", rows = "gpu_tree_geometric,gpu_tree_relative,gpu_direct,cpu_tree";
  int trials = 11;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a], v = argv[a + 1];
    if (k == "--out") out = v;
    else if (k == "--label") label = v;
    else if (k == "--trials") trials = std::stoi(v);
    else if (k == "--rows") rows = v;
    else {
      std::fprintf(stderr, "unknown option %s; accepted: --out FILE --label NAME --trials K --rows a,b,...\n", k.c_str());
      return 2;
    }
  }
  rows = "," + rows + ",";
  const auto want = [&](const char* r) { return rows.find("," + std::string(r) + ",") != std::string::npos; };
  try {
    using namespace orrery;
    bench::Session s(out, label, trials);
    if (want("issue21")) {
      const std::int64_t n = std::int64_t(1) << 20;
      const auto rows21 = [&](const char* model, const Particles<double>& p, double eps, bool cube) {
        bench::HostSet h(p);
        bench::DeviceSet d(h);
        const std::string m = model;
        if (cube) {
          s.gpu(m + "_geometric", bench::issue21_tree(eps, 0.55, 0, 0), d, true, false, s.trials());
          s.gpu_phases(m + "_geometric", bench::issue21_tree(eps, 0.55, 0, 0), d, true, false, s.trials());
        }
        const auto rel = cube ? bench::issue21_tree(eps, 1.0, 0.004, 0.55) : bench::issue21_tree(eps, 1.0, 0.002, 0.5);
        s.gpu(m + "_relative", rel, d, true, true, s.trials());
        s.gpu_phases(m + "_relative", rel, d, true, true, s.trials());
      };
      rows21("cube", ic::uniform_cube(n - 1, 20261221, 3.0), 0.17, true);
      rows21("plummer", ic::plummer_sphere(n, 20261222), 0.05, false);
      rows21("hernquist", ic::hernquist_sphere(n, 20261223), 0.05, false);
    }
    if (want("list21")) {
      // The list walk (docs/adr/0019) on issue 21's inputs, relative at cap 0.55.
      const std::int64_t n = std::int64_t(1) << 20;
      const auto list_row = [&](const char* model, const Particles<double>& p, double eps, double tolerance) {
        bench::HostSet h(p);
        bench::DeviceSet d(h);
        gravity::GravityConfig g = bench::issue21_tree(eps, 1.0, tolerance, 0.55);
        g.list_walk = true;
        s.gpu(std::string(model) + "_list", g, d, true, true, s.trials());
        s.gpu_phases(std::string(model) + "_list", g, d, true, true, s.trials());
      };
      list_row("cube", ic::uniform_cube(n - 1, 20261221, 3.0), 0.17, 0.008);
      list_row("plummer", ic::plummer_sphere(n, 20261222), 0.05, 0.006);
      list_row("hernquist", ic::hernquist_sphere(n, 20261223), 0.05, 0.008);
    }
    const bool plummer_rows = want("gpu_tree_geometric") || want("gpu_tree_relative") || want("gpu_tree_phases") ||
                              want("gpu_direct") || want("cpu_tree") || want("gpu_tree_host");
    for (const std::int64_t n : {std::int64_t(1) << 20, std::int64_t(1) << 24}) {
      if (!plummer_rows) break;
      bench::HostSet h(n);
      bench::DeviceSet d(h);
      const int k = n > (std::int64_t(1) << 20) ? 5 : s.trials();
      if (want("gpu_tree_geometric")) s.gpu("gpu_tree_geometric", bench::geometric_tree("cuda"), d, true, false, k);
      if (want("gpu_tree_relative")) s.gpu("gpu_tree_relative", bench::relative_tree(), d, false, true, k);
      if (want("gpu_tree_host")) s.host("gpu_tree_host", bench::geometric_tree("cuda"), h, k);
      if (want("gpu_tree_phases")) {
        s.gpu_phases("gpu_tree_geometric", bench::geometric_tree("cuda"), d, true, false, k);
        s.gpu_phases("gpu_tree_relative", bench::relative_tree(), d, false, true, k);
      }
      if (n == (std::int64_t(1) << 20)) {
        gravity::GravityConfig direct;
        direct.solver = "direct";
        direct.backend = "cuda";
        direct.softening = 0.05;
        if (want("gpu_direct")) s.gpu("gpu_direct", direct, d, true, false, 5);
        if (want("cpu_tree")) s.host("cpu_tree", bench::geometric_tree("cpu"), h, 5);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bh_regression_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
