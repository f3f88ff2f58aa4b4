// The GPU Barnes-Hut benchmark (issue 7; the tables of the seed report 004 on
// the H200): independent vs coherent walk, scaling, group width, accuracy
// against a double-precision direct sum, the cost of exact mode, the CPU tree
// at 1M, and the largest N that fits. Writes one CSV (a `table` column names
// the table of each row) and prints a summary.
//
// Protocol: Plummer sphere (Henon units, generated on the device), softening
// 0.05, float, theta 0.5, leaf capacity 16, monopole unless a table varies it.
// Each row: warm-up evaluations, then timed trials; the median and the
// interquartile spread (IQR / median) are reported. The whole evaluation is
// solve_device() (device build, then the walk, which writes in the caller's order; particles stay on the GPU),
// timed on the host around the call, which returns when the results are in
// place; the phases are CUDA-event times from the solver's report. A canary
// (the coherent walk at N = 131072) is timed before every row and its drift
// against the first canary is reported beside the row.
//
// usage: gpu_tree_bench --help lists the tables (kUsage below). Issue 21's
// tables, none in the default list: distributions (both criteria on the
// uniform cube, Plummer and Hernquist at 2^18 and 2^20), double (float
// against double at 1M and 16M), cost (a cell term's cost in particle terms,
// measured, and the direct kernel's rate), rate (the walk's interaction rate
// against the direct kernel's at the targets' configurations) and cube24
// (the uniform cube at 2^24 - 1).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cub/block/block_reduce.cuh>
#include <fstream>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "device_timing.hpp"
#include "issue21_inputs.hpp"
#include "orrery/core/error.hpp"
#include "orrery/cuda/check_cuda.cuh"
#include "orrery/cuda/device.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/gravity/direct_gpu.hpp"
#include "orrery/gravity/tree_gpu_solver.hpp"
#include "orrery/gravity/tree_solver.hpp"
#include "orrery/ic/hernquist.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/ic/uniform_cube.hpp"
#include "term_cost.hpp"

namespace orrery::bench {
namespace {

using gravity::GpuTreeSolver;
using gravity::GpuTreeSolverConfig;
using gravity::WarpOrder;
using bh::Traversal;

constexpr double kSoftening = 0.05;
constexpr std::uint64_t kSeed = 20261129;

// ---------------------------------------------------------------- particles

__host__ __device__ std::uint64_t splitmix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

__device__ double uniform(std::uint64_t seed, std::int64_t i, int k) {
  return double(splitmix(seed ^ splitmix(std::uint64_t(i) * 4 + k)) >> 11) * 0x1.0p-53;
}

/// Plummer sphere in Henon units (scale radius 3 pi / 16), truncated at 99.9 %
/// of the mass, equal masses 1/N, in random (caller's) order.
template <class Real>
__global__ void plummer_kernel(std::int64_t n, std::uint64_t seed, Real* x, Real* y, Real* z, Real* m) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double a = 3.0 * 3.14159265358979323846 / 16.0;
  const double u = 1e-9 + 0.999 * uniform(seed, i, 0);
  const double r = a / sqrt(pow(u, -2.0 / 3.0) - 1.0);
  const double cz = 2.0 * uniform(seed, i, 1) - 1.0, phi = 6.283185307179586 * uniform(seed, i, 2);
  const double s = sqrt(1.0 - cz * cz);
  x[i] = Real(r * s * cos(phi));
  y[i] = Real(r * s * sin(phi));
  z[i] = Real(r * cz);
  m[i] = Real(1.0 / double(n));
}

/// N particles and their results, all on the device: the device Plummer
/// sphere, or particles made on the host (ic::uniform_cube, ic::hernquist_sphere).
template <class Real>
struct DeviceSetOf {
  std::int64_t n;
  cuda::DeviceBuffer<Real> x, y, z, m, ax, ay, az, pot;
  explicit DeviceSetOf(std::int64_t count, bool potential = true)
      : n(count), x(count), y(count), z(count), m(count), ax(count), ay(count), az(count), pot(potential ? count : 0) {
    plummer_kernel<Real><<<unsigned((n + 255) / 256), 256>>>(n, kSeed, x.data(), y.data(), z.data(), m.data());
    ORRERY_CUDA_CHECK_LAUNCH("plummer_kernel");
    cuda::synchronize(nullptr);
  }
  DeviceSetOf(const Particles<double>& host, bool potential)
      : DeviceSetOf(host.size(), potential, [&](DeviceSetOf& d) {
          const Particles<Real> h = ic::to_precision<Real>(host);
          d.x.upload(std::span<const Real>(h.x));
          d.y.upload(std::span<const Real>(h.y));
          d.z.upload(std::span<const Real>(h.z));
          d.m.upload(std::span<const Real>(h.mass));
        }) {}
  SourcesView<Real> sources() const { return {n, x.data(), y.data(), z.data(), m.data()}; }
  AccelerationsView<Real> out() { return {n, ax.data(), ay.data(), az.data(), pot.empty() ? nullptr : pot.data()}; }
  std::size_t bytes() const { return x.bytes() * 7 + pot.bytes(); }

 private:
  template <class Fill>
  DeviceSetOf(std::int64_t count, bool potential, Fill fill)
      : n(count), x(count), y(count), z(count), m(count), ax(count), ay(count), az(count), pot(potential ? count : 0) {
    fill(*this);
    cuda::synchronize(nullptr);
  }
};
using DeviceSet = DeviceSetOf<float>;

// ---------------------------------------------------------------- reference

constexpr int kRefBlock = 256;

/// Direct sum in double for the targets listed, one block per target.
template <class Real>
__global__ void __launch_bounds__(kRefBlock)
    reference_kernel(std::int64_t n, const Real* x, const Real* y, const Real* z, const Real* m,
                     const std::int64_t* targets, double eps2, double* ref) {
  using Reduce = cub::BlockReduce<double, kRefBlock>;
  __shared__ typename Reduce::TempStorage tmp;
  const std::int64_t t = targets[blockIdx.x];
  const double tx = x[t], ty = y[t], tz = z[t];
  double s[3] = {0, 0, 0};
  for (std::int64_t j = threadIdx.x; j < n; j += kRefBlock) {
    const double dx = double(x[j]) - tx, dy = double(y[j]) - ty, dz = double(z[j]) - tz;
    const double r2 = dx * dx + dy * dy + dz * dz + eps2;
    const double f = j == t ? 0.0 : double(m[j]) / (r2 * sqrt(r2));
    s[0] += f * dx;
    s[1] += f * dy;
    s[2] += f * dz;
  }
  for (int k = 0; k < 3; ++k) {
    const double v = Reduce(tmp).Sum(s[k]);
    if (threadIdx.x == 0) ref[3 * blockIdx.x + k] = v;
    __syncthreads();
  }
}

struct Reference {
  std::vector<std::int64_t> targets;
  std::vector<double> acc;  // 3 per target
};

template <class Real>
Reference reference(const DeviceSetOf<Real>& p, int count, double softening = kSoftening) {
  Reference r;
  for (int k = 0; k < count; ++k) r.targets.push_back(std::int64_t(k) * p.n / count);
  cuda::DeviceBuffer<std::int64_t> t(r.targets.size());
  t.upload(std::span<const std::int64_t>(r.targets));
  cuda::DeviceBuffer<double> ref(3 * r.targets.size());
  const double eps = double(Real(softening));
  reference_kernel<Real><<<unsigned(count), kRefBlock>>>(p.n, p.x.data(), p.y.data(), p.z.data(), p.m.data(), t.data(),
                                                   eps * eps, ref.data());
  ORRERY_CUDA_CHECK_LAUNCH("reference_kernel");
  r.acc.resize(3 * r.targets.size());
  ref.download(std::span<double>(r.acc));
  return r;
}

struct Errors {
  double median = 0, p99 = 0, max = 0;
};

template <class Real>
Errors errors(const DeviceSetOf<Real>& p, const Reference& r) {
  std::vector<Real> a[3] = {std::vector<Real>(p.n), std::vector<Real>(p.n), std::vector<Real>(p.n)};
  p.ax.download(std::span<Real>(a[0]));
  p.ay.download(std::span<Real>(a[1]));
  p.az.download(std::span<Real>(a[2]));
  std::vector<double> e;
  for (std::size_t k = 0; k < r.targets.size(); ++k) {
    double d2 = 0, n2 = 0;
    for (int c = 0; c < 3; ++c) {
      const double want = r.acc[3 * k + c], got = a[c][r.targets[k]];
      d2 += (got - want) * (got - want);
      n2 += want * want;
    }
    e.push_back(std::sqrt(d2 / n2));
  }
  std::sort(e.begin(), e.end());
  return {e[e.size() / 2], e[std::min(e.size() - 1, e.size() * 99 / 100)], e.back()};
}

// ---------------------------------------------------------------- timing

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * double(v.size() - 1);
  const auto lo = static_cast<std::size_t>(at);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - double(lo)) * (v[hi] - v[lo]);
}

struct Timing {
  double total_ms = 0, spread_pct = 0;
  std::map<std::string, double> phase_ms;  // medians
  SolverReport last;
  int trials = 0;
};

/// previous: evaluations after the first read the previous one's
/// accelerations (a simulation's steady state under the relative opening);
/// otherwise every evaluation is a first one (with the relative opening: a
/// bootstrap walk, then the walk).
template <class Real>
Timing time_solver(GpuTreeSolver<Real>& s, DeviceSetOf<Real>& p, int warm, int trials, bool previous = false) {
  bool have = false;
  const auto options = [&] {
    const gravity::SolveOptions o{.potential = !p.pot.empty(), .previous_accelerations = previous && have};
    have = true;
    return o;
  };
  for (int k = 0; k < warm; ++k) s.solve_device(p.sources(), p.out(), options());
  std::vector<double> total;
  std::map<std::string, std::vector<double>> phases;
  Timing t;
  for (int k = 0; k < trials; ++k) {
    const gravity::SolveOptions o = options();
    const auto t0 = std::chrono::steady_clock::now();
    t.last = s.solve_device(p.sources(), p.out(), o);
    total.push_back(1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    for (const auto& [name, sec] : t.last.phase_seconds) phases[name].push_back(1e3 * sec);
  }
  t.trials = trials;
  t.total_ms = median(total);
  t.spread_pct = 100.0 * (quantile(total, 0.75) - quantile(total, 0.25)) / t.total_ms;
  for (auto& [name, v] : phases) t.phase_ms[name] = median(v);
  return t;
}

int trials_for(std::int64_t n) { return n >= (std::int64_t(1) << 26) ? 3 : n >= (std::int64_t(1) << 23) ? 5 : 11; }

GpuTreeSolverConfig config(Traversal t, int w, double theta = 0.5, bh::Multipole mp = bh::Multipole::monopole,
                           MathMode math = MathMode::fast, int leaf_capacity = 16, double eps = kSoftening) {
  GpuTreeSolverConfig c;
  c.tree.tree.theta = theta;
  c.tree.tree.leaf_capacity = leaf_capacity;
  c.tree.tree.multipole = mp;
  c.tree.softening = eps;
  c.tree.math = math;
  c.traversal = t;
  c.group_width = w;
  return c;
}

// ---------------------------------------------------------------- output

class Csv {
 public:
  explicit Csv(const std::string& path) : f_(path) {
    f_ << "table,n,traversal,width,multipole,math,theta,leaf_capacity,softening,trials,total_ms,spread_pct,build_ms,walk_ms,"
          "box_ms,keys_ms,sort_ms,levels_ms,order_ms,moments_ms,nodes,depth,visits_pp,cells_pp,particles_pp,"
          "ms_per_nlogn,exponent,err_median,err_p99,err_max,bytes_pp,cpu_ms,canary_drift_pct,potential,counters,"
          "opening,tolerance,previous,bootstrap_ms,model,precision,relative_cap,cell_cost,particle_term_rate,cell_term_rate,"
          "direct_rate,interaction_rate,rate_ratio,group_opening,warp_order,warp_order_ms,list_walk\n";
  }
  struct Row {
    std::string table;
    std::int64_t n = 0;
    GpuTreeSolverConfig c;
    Timing t;
    std::int32_t nodes = 0;
    int depth = 0;
    double exponent = NAN;
    Errors err{NAN, NAN, NAN};
    double bytes_pp = NAN, cpu_ms = NAN, drift = NAN;
    bool potential = true;
    bool previous = false;  // timed with the previous evaluation's accelerations (relative opening)
    std::string model = "plummer";
    std::string precision = "single";
    /// The tree build's phases, box to moments (medians).
    double build_ms() const {
      double sum = 0;
      for (const char* name : {"box", "keys", "sort", "levels", "order", "moments"})
        if (const auto it = t.phase_ms.find(name); it != t.phase_ms.end()) sum += it->second;
      return sum;
    }
    // Tables cost, rate, cube24 (NAN elsewhere): a cell term's measured cost in
    // particle terms; the micro-benchmark's particle and cell terms per second
    // (term_cost.hpp); the direct kernel's interactions per second (N^2 / time);
    // the walk's interactions per second, N (particles_pp + cells_pp cell_cost) /
    // walk time; and its ratio to direct_rate.
    double cell_cost = NAN, particle_term_rate = NAN, cell_term_rate = NAN, direct_rate = NAN,
           interaction_rate = NAN, rate_ratio = NAN;
  };
  void write(const Row& r) {
    const auto ph = [&](const char* name) {
      const auto it = r.t.phase_ms.find(name);
      return it == r.t.phase_ms.end() ? 0.0 : it->second;
    };
    const double build = r.build_ms();
    const double n = double(r.n);
    const auto& tot = r.t.last.total;
    char buf[2048];
    std::snprintf(buf, sizeof buf,
                  "%s,%lld,%s,%d,%s,%s,%.2f,%d,%.3g,%d,%.5g,%.3g,%.5g,%.5g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%d,%d,%.6g,%.6g,"
                  "%.6g,%.4g,%.3g,%.4g,%.4g,%.4g,%.4g,%.5g,%.3g,%d,%d,%s,%.4g,%d,%.5g,%s,%s,%.3g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%d,%s,%.4g,%d\n",
                  r.table.c_str(), (long long)r.n, std::string(to_string(r.c.traversal)).c_str(), r.c.group_width,
                  std::string(bh::to_string(r.c.tree.tree.multipole)).c_str(),
                  std::string(to_string(r.c.tree.math)).c_str(), r.c.tree.tree.theta, r.c.tree.tree.leaf_capacity, r.c.tree.softening, r.t.trials, r.t.total_ms,
                  r.t.spread_pct, build, ph("walk"), ph("box"), ph("keys"), ph("sort"), ph("levels"),
                  ph("order"), ph("moments"), r.nodes, r.depth, double(tot.node_visits) / n,
                  double(tot.cell_interactions) / n, double(tot.particle_interactions) / n,
                  r.t.total_ms / (n * std::log2(n)), r.exponent, r.err.median, r.err.p99, r.err.max, r.bytes_pp,
                  r.cpu_ms, r.drift, int(r.potential), int(r.c.counters),
                  std::string(bh::to_string(r.c.tree.tree.opening)).c_str(), r.c.tree.tree.tolerance, int(r.previous),
                  ph("bootstrap walk") + ph("relative scales"), r.model.c_str(), r.precision.c_str(),
                  r.c.tree.tree.relative_cap, r.cell_cost, r.particle_term_rate, r.cell_term_rate, r.direct_rate,
                  r.interaction_rate, r.rate_ratio, r.c.tree.tree.group_opening,
                  r.c.warp_order == WarpOrder::hilbert ? "hilbert" : "tree", ph("warp order"),
                  int(r.c.tree.tree.list_walk));
    f_ << buf;
    f_.flush();
  }

 private:
  std::ofstream f_;
};

// Issue 21's inputs: issue21_inputs.hpp.

/// The quadrupole, leaf 32 configurations of issue 21: geometric at theta,
/// or relative (theta 1) at tolerance and cap.
GpuTreeSolverConfig issue21_config(double theta, double eps) {
  return config(Traversal::coherent, 32, theta, bh::Multipole::quadrupole, MathMode::fast, 32, eps);
}
GpuTreeSolverConfig issue21_relative(double tolerance, double cap, double eps) {
  GpuTreeSolverConfig c = issue21_config(1.0, eps);
  c.tree.tree.opening = bh::Opening::relative;
  c.tree.tree.tolerance = tolerance;
  c.tree.tree.relative_cap = cap;
  return c;
}

// ---------------------------------------------------------------- the session

class Session {
 public:
  Session(const std::string& out, bool quick) : csv_(out), quick_(quick), canary_set_(131072) {}

  double canary() {
    GpuTreeSolver<float> s(config(Traversal::coherent, 32));
    const double ms = time_solver(s, canary_set_, 1, 5).total_ms;
    if (canary0_ == 0) canary0_ = ms;
    return 100.0 * (ms / canary0_ - 1.0);
  }

  template <class Real>
  Csv::Row run(const std::string& table, DeviceSetOf<Real>& p, const GpuTreeSolverConfig& c, int trials = 0,
               bool previous = false) {
    Csv::Row r;
    r.precision = sizeof(Real) == 4 ? "single" : "double";
    r.drift = canary();
    r.table = table;
    r.n = p.n;
    r.c = c;
    r.potential = !p.pot.empty();
    r.previous = previous;
    GpuTreeSolver<Real> s(c);
    r.t = time_solver(s, p, 2, trials > 0 ? trials : quick_ ? 3 : trials_for(p.n), previous);
    r.nodes = s.num_nodes();
    r.depth = s.depth();
    r.bytes_pp = double(s.device_bytes() + p.bytes()) / double(p.n);
    return r;
  }

  void divergence() {
    std::printf("\n== independent vs coherent (W=32): walk ms, visits per particle\n");
    std::printf("%10s %12s %12s %8s %10s %10s %8s\n", "N", "indep walk", "coh walk", "speedup", "indep vis", "coh vis",
                "redund");
    for (std::int64_t n : {std::int64_t(16384), std::int64_t(131072), std::int64_t(1) << 20}) {
      DeviceSet p(n);
      Csv::Row a = run("divergence", p, config(Traversal::independent, 32));
      Csv::Row b = run("divergence", p, config(Traversal::coherent, 32));
      csv_.write(a);
      csv_.write(b);
      const double va = double(a.t.last.total.node_visits) / n, vb = double(b.t.last.total.node_visits) / n;
      std::printf("%10lld %12.4g %12.4g %7.2fx %10.1f %10.1f %7.3fx   (total %.4g vs %.4g ms)\n", (long long)n,
                  a.t.phase_ms["walk"], b.t.phase_ms["walk"], a.t.phase_ms["walk"] / b.t.phase_ms["walk"], va, vb,
                  vb / va, a.t.total_ms, b.t.total_ms);
    }
  }

  void scaling(std::int64_t max_n) {
    std::printf("\n== scaling, coherent W=32: total ms (spread), walk, build, exponent, cells/particles per particle\n");
    double prev_ms = 0;
    std::int64_t prev_n = 0;
    for (std::int64_t n = 1024; n <= max_n; n *= 2) {
      DeviceSet p(n);
      Csv::Row r = run("scaling", p, config(Traversal::coherent, 32));
      if (prev_n) r.exponent = std::log(r.t.total_ms / prev_ms) / std::log(double(n) / double(prev_n));
      csv_.write(r);
      std::printf("%10lld %10.4g ms (%4.1f%%) walk %9.4g build %8.4g  exp %5.2f  cells %7.1f parts %7.1f  drift %+.1f%%\n",
                  (long long)n, r.t.total_ms, r.t.spread_pct, r.t.phase_ms["walk"],
                  r.t.total_ms - r.t.phase_ms["walk"], r.exponent,
                  double(r.t.last.total.cell_interactions) / n, double(r.t.last.total.particle_interactions) / n,
                  r.drift);
      prev_ms = r.t.total_ms;
      prev_n = n;
    }
  }

  void widths() {
    std::printf("\n== group width at N = 1048576\n");
    DeviceSet p(std::int64_t(1) << 20);
    for (int w : bh::kGroupWidths) {
      Csv::Row r = run("width", p, config(Traversal::coherent, w));
      csv_.write(r);
      std::printf("W=%2d  walk %8.4g ms  total %8.4g ms (%4.1f%%)  visits/particle %7.1f\n", w, r.t.phase_ms["walk"],
                  r.t.total_ms, r.t.spread_pct, double(r.t.last.total.node_visits) / double(p.n));
    }
  }

  void accuracy() {
    std::printf("\n== accuracy at N = 1048576 against a double direct sum on 4096 targets\n");
    DeviceSet p(std::int64_t(1) << 20);
    const Reference ref = reference(p, 4096);
    for (auto mp : {bh::Multipole::monopole, bh::Multipole::quadrupole}) {
      for (double theta : {0.3, 0.4, 0.5, 0.55, 0.6, 0.7, 0.8}) {
        Csv::Row r = run("accuracy", p, config(Traversal::coherent, 32, theta, mp));
        r.err = errors(p, ref);
        csv_.write(r);
        std::printf("%-10s theta %.2f  total %8.4g ms  err median %.3g p99 %.3g max %.3g\n",
                    std::string(bh::to_string(mp)).c_str(), theta, r.t.total_ms, r.err.median, r.err.p99,
                    r.err.max);
      }
    }
  }

  /// The relative opening (docs/adr/0007) at 1M, for the accuracy-matched
  /// target: tolerance x multipole at theta 1 (the cap), accelerations only
  /// and with potentials; timed in a simulation's steady state (each
  /// evaluation reads the previous one's accelerations), and as first
  /// evaluations (bootstrap walk + walk). Errors of the steady state.
  void relative() {
    std::printf("\n== relative opening at N = 1048576 (theta = cap, errors on 4096 targets)\n");
    for (bool pot : {false, true}) {
      DeviceSet p(std::int64_t(1) << 20, pot);
      const Reference ref = reference(p, 4096);
      for (auto mp : {bh::Multipole::quadrupole, bh::Multipole::monopole}) {
        const bool quad = mp == bh::Multipole::quadrupole;
        const std::vector<double> tols = quad ? std::vector<double>{0.002, 0.003, 0.004, 0.005, 0.006}
                                              : std::vector<double>{0.0001, 0.0002, 0.0004};
        for (double theta : {1.0, 0.7}) {
          for (double tol : tols) {
            if (pot && !(quad && theta == 1.0 && (tol == 0.004 || tol == 0.005))) continue;  // a few rows suffice
            if (!quad && theta != 1.0) continue;
            GpuTreeSolverConfig c = config(Traversal::coherent, 32, theta, mp);
            c.tree.tree.opening = bh::Opening::relative;
            c.tree.tree.tolerance = tol;
            for (bool previous : {true, false}) {
              if (!previous && !(theta == 1.0 && quad && (tol == 0.004 || tol == 0.005))) continue;
              Csv::Row r = run("relative", p, c, 0, previous);
              r.err = errors(p, ref);  // the last timed evaluation's
              csv_.write(r);
              std::printf("%-10s theta %.1f tol %.4f pot %d %s  total %8.4g ms (%4.1f%%)  walk %8.4g  first %7.4g  "
                          "visits %6.0f cells %6.0f parts %5.0f  err median %.3g p99 %.3g\n",
                          std::string(bh::to_string(mp)).c_str(), theta, tol, int(pot),
                          previous ? "steady" : "first ", r.t.total_ms, r.t.spread_pct, r.t.phase_ms["walk"],
                          r.t.phase_ms["bootstrap walk"], double(r.t.last.total.node_visits) / double(p.n),
                          double(r.t.last.total.cell_interactions) / double(p.n),
                          double(r.t.last.total.particle_interactions) / double(p.n), r.err.median, r.err.p99);
            }
          }
        }
      }
    }
  }

  /// One row of the distributions, double, rate and cube24 tables: timed
  /// (steady state for the relative opening), errors of the last evaluation,
  /// with rate the interaction rate columns (add_rate), printed.
  template <class Real>
  Csv::Row accuracy_row(const char* table, const std::string& model, DeviceSetOf<Real>& p, const Reference& ref,
                        const GpuTreeSolverConfig& c, bool rate = false) {
    const bool relative = c.tree.tree.opening == bh::Opening::relative;
    Csv::Row r = run(table, p, c, 0, relative);
    r.model = model;
    r.err = errors(p, ref);
    if (rate) add_rate(r);
    csv_.write(r);
    const double n = double(p.n);
    std::printf("%-9s N %8lld %-6s %-9s group %4d%s leaf %3d theta %.2f tol %.4g cap %.2f  total %8.4g ms (%4.1f%%)  "
                "walk %8.4g  parts %5.0f + cells %5.0f  err median %.3g p99 %.3g\n",
                model.c_str(), (long long)p.n, r.precision.c_str(), std::string(bh::to_string(c.tree.tree.opening)).c_str(),
                c.tree.tree.group_opening, c.tree.tree.list_walk ? " lists" : "", c.tree.tree.leaf_capacity,
                c.tree.tree.theta, relative ? c.tree.tree.tolerance : 0.0, relative ? c.tree.tree.relative_cap : 0.0,
                r.t.total_ms, r.t.spread_pct, r.t.phase_ms["walk"], double(r.t.last.total.particle_interactions) / n,
                double(r.t.last.total.cell_interactions) / n, r.err.median, r.err.p99);
    if (rate)
      std::printf("%9s rate %.4g interactions/s (cell term = %.3g particle terms) = %.3f of the direct kernel's %.4g\n",
                  "", r.interaction_rate, r.cell_cost, r.rate_ratio, r.direct_rate);
    return r;
  }

  // ------------------------------------------------ issue 21: cost, rate, cube24

  /// The direct kernel's interaction rate, measured once per run:
  /// DirectGpuSolver<float>::solve_device (the library's fast kernel, packing
  /// included) at N = 2^20 on the device Plummer sphere, eps 0.05,
  /// potentials on, CUDA events (device_timing.hpp: a warm-up and a probe
  /// call, then 3 trials of one call each, 0.5 s a call); N^2 interactions
  /// per call (the self pair is evaluated and masked, as gpu_direct.md
  /// counts). Float only: the walk's rows it is compared with are float.
  struct DirectRate {
    std::int64_t n = 0;
    Stats s;
    int trials = 0;
    double drift = NAN;
    double rate() const { return double(n) * double(n) / s.median; }
  };
  const DirectRate& direct_rate() {
    DirectRate& d = direct_;
    if (d.n > 0) return d;
    d.drift = canary();
    DeviceSet p(std::int64_t(1) << 20);
    gravity::DirectGpuSolver<float, PlummerSoftening<float>> direct{float(kSoftening)};
    d.trials = 3;
    d.s = time_device([&] { direct.solve_device(p.sources(), p.out(), {.potential = true}, nullptr); }, d.trials);
    d.n = p.n;
    return d;
  }

  /// A cell term's cost against a particle term's, measured once per run for
  /// each expansion, potential and precision (term_cost.hpp); the particle
  /// term's timing is shared by the four expansions.
  struct TermCost {
    TermTiming particle, cell;
    double drift = NAN;
    double ratio() const { return (cell.seconds / cell.terms) / (particle.seconds / particle.terms); }
  };
  template <class Real>
  const TermCost& term_cost(bh::Multipole m, bool potential) {
    const auto key = std::tuple{int(m), potential, sizeof(Real) == 8};
    if (const auto it = costs_.find(key); it != costs_.end()) return it->second;
    TermCost c;
    c.drift = canary();
    const auto pk = std::pair{potential, sizeof(Real) == 8};
    if (!particle_terms_.contains(pk)) particle_terms_[pk] = time_particle_terms<Real>(potential);
    c.particle = particle_terms_[pk];
    c.cell = time_cell_terms<Real>(m, potential);
    return costs_[key] = c;
  }

  /// The interaction-rate columns of a float row (the direct rate is float's):
  /// N (particles_pp + cells_pp x cost) / walk, the cost measured for the
  /// row's expansion and potential.
  void add_rate(Csv::Row& r) {
    if (r.precision != "single")
      throw InputError("gpu_tree_bench: the rate columns compare float rows with the float direct kernel; got a " +
                       r.precision + " row");
    const TermCost& c = term_cost<float>(r.c.tree.tree.multipole, r.potential);
    const auto& tot = r.t.last.total;
    r.cell_cost = c.ratio();
    r.particle_term_rate = c.particle.rate();
    r.cell_term_rate = c.cell.rate();
    r.direct_rate = direct_rate().rate();
    r.interaction_rate =
        (double(tot.particle_interactions) + double(tot.cell_interactions) * r.cell_cost) / (1e-3 * r.t.phase_ms.at("walk"));
    r.rate_ratio = r.interaction_rate / r.direct_rate;
  }

  /// What a cell term costs in particle terms (issue 21), measured by
  /// term_cost.hpp's micro-benchmark: each expansion with and without the
  /// potential, float and double; and the direct kernel's interaction rate
  /// (float). Rows "cost": n = terms per launch, total_ms and
  /// spread_pct the cell-term launch's median and (max - min) / median,
  /// cell_cost the ratio; row "cost-direct": n = N, total_ms one direct
  /// solve, direct_rate = N^2 / that.
  void cost() {
    std::printf("\n== cost of a cell term in particle terms (fast math, Plummer softening, -ftz; term_cost.hpp)\n");
    for (const bool dbl : {false, true}) {
      for (const bool pot : {true, false}) {
        for (const auto m : {bh::Multipole::monopole, bh::Multipole::quadrupole, bh::Multipole::octupole,
                             bh::Multipole::hexadecapole}) {
          const TermCost& c = dbl ? term_cost<double>(m, pot) : term_cost<float>(m, pot);
          Csv::Row r;
          r.table = "cost";
          r.model = "terms";
          r.precision = dbl ? "double" : "single";
          r.n = static_cast<std::int64_t>(c.cell.terms);
          r.c = config(Traversal::coherent, 32, 0.0, m, MathMode::fast, 0);
          r.t.trials = c.cell.trials;
          r.t.total_ms = 1e3 * c.cell.seconds;
          r.t.spread_pct = 100.0 * c.cell.spread;
          r.potential = pot;
          r.drift = c.drift;
          r.cell_cost = c.ratio();
          r.particle_term_rate = c.particle.rate();
          r.cell_term_rate = c.cell.rate();
          csv_.write(r);
          std::printf("%-6s %-12s potential %-3s  particle terms %.4g/s (%.2g%%)  cell terms %.4g/s (%.2g%%)  "
                      "cell = %.3f particle terms\n",
                      r.precision.c_str(), std::string(bh::to_string(m)).c_str(), pot ? "on" : "off", r.particle_term_rate,
                      100.0 * c.particle.spread, r.cell_term_rate, 100.0 * c.cell.spread, r.cell_cost);
        }
      }
    }
    {
      const DirectRate& d = direct_rate();
      Csv::Row r;
      r.table = "cost-direct";
      r.n = d.n;
      r.c = config(Traversal::coherent, 32);
      r.t.trials = d.trials;
      r.t.total_ms = 1e3 * d.s.median;
      r.t.spread_pct = 100.0 * d.s.spread();
      r.drift = d.drift;
      r.direct_rate = d.rate();
      csv_.write(r);
      std::printf("direct kernel (float, potential on) N %lld: %.5g ms, %.4g interactions/s (spread %.2g%%)\n",
                  (long long)d.n, r.t.total_ms, r.direct_rate, r.t.spread_pct);
    }
  }

  /// The walk's interaction rate (issue 21: particle and cell terms per
  /// second, each cell term counted at its measured cost, at least half the
  /// direct kernel's) at the targets' configurations: quadrupole, leaf 32,
  /// potentials and counters on, errors on 4096 targets. The cube 2^20 - 1
  /// (eps 0.17) geometric theta 0.55 and relative tolerance 0.004 cap 0.55;
  /// Plummer and Hernquist 2^20 (eps 0.05) relative tolerance 0.002 at caps
  /// 0.5 and 0.55, and geometric theta 0.55 (a walk of more particle terms).
  void rate() {
    std::printf("\n== the walk's interaction rate against the direct kernel's (quadrupole, leaf 32)\n");
    const TermCost& c = term_cost<float>(bh::Multipole::quadrupole, true);
    std::printf("cell term (quadrupole, potential, float) = %.3f particle terms; direct kernel %.4g interactions/s\n",
                c.ratio(), direct_rate().rate());
    for_each_issue21_model([&](const std::string& model, DeviceSet& p, const Reference& ref, double eps) {
      const std::vector<GpuTreeSolverConfig> cs =
          model == "cube" ? std::vector{issue21_config(0.55, eps), issue21_relative(0.004, 0.55, eps)}
                          : std::vector{issue21_relative(0.002, 0.5, eps), issue21_relative(0.002, 0.55, eps),
                                        issue21_config(0.55, eps)};
      for (const auto& cfg : cs) accuracy_row("rate", model, p, ref, cfg, true);
    });
  }

  /// f(model, particles, reference, eps) for issue 21's three inputs at 2^20
  /// (the cube 2^20 - 1): the uniform cube, Plummer and Hernquist, with
  /// potentials, and their reference on 4096 targets.
  template <class F>
  void for_each_issue21_model(F&& f) {
    for (const std::string model : {"cube", "plummer", "hernquist"}) {
      const std::int64_t n = model == "cube" ? (std::int64_t(1) << 20) - 1 : std::int64_t(1) << 20;
      const double eps = issue21_softening(model);
      DeviceSet p(issue21_distribution(model, n), true);
      const Reference ref = reference(p, 4096, eps);
      f(model, p, ref, eps);
    }
  }

  /// Group opening (docs/adr/0017) against each target's own walk, at
  /// issue 21's accuracy: the cube 2^20 - 1, Plummer and Hernquist 2^20
  /// (the `rate` table's inputs, seeds and softenings), quadrupole, leaf 32,
  /// potentials and counters on, errors on 4096 targets, the rate columns.
  /// The own walks' fastest rows of the `rate` table first, then group
  /// opening geometric over theta (group cells of 32), and relative (cap
  /// 0.5) over tolerance and the group cells' size, 32 to 512 particles; then
  /// the cube 2^24 - 1 (cube24's input) with the own walk's best row and
  /// group opening's.
  void group() {
    std::printf("\n== group opening against each target's own walk (quadrupole, leaf 32, errors on 4096 targets)\n");
    const auto grouped = [](GpuTreeSolverConfig c, int most = bh::kOpeningGroup) {
      c.tree.tree.group_opening = most;
      return c;
    };
    for_each_issue21_model([&](const std::string& model, DeviceSet& p, const Reference& ref, double eps) {
      std::vector<GpuTreeSolverConfig> cs = model == "cube" ? std::vector{issue21_relative(0.004, 0.55, eps)}
                                                            : std::vector{issue21_relative(0.002, 0.5, eps)};
      for (double theta : {0.55, 0.6, 0.65}) cs.push_back(grouped(issue21_config(theta, eps)));
      // The group cells' size (the group_opening value): 32 to 512 particles.
      for (int most : {32, 64, 128, 256, 512})
        for (double tol : {0.002, 0.004, 0.006, 0.008}) cs.push_back(grouped(issue21_relative(tol, 0.5, eps), most));
      for (const auto& cfg : cs) accuracy_row("group", model, p, ref, cfg, true);
    });
    constexpr double eps = 0.0675;
    DeviceSet p(issue21_distribution("cube", (std::int64_t(1) << 24) - 1), true);
    const Reference ref = reference(p, 4096, eps);
    std::vector<GpuTreeSolverConfig> cs{issue21_relative(0.004, 0.55, eps)};
    for (int most : {32, 128, 512})
      for (double tol : {0.004, 0.008}) cs.push_back(grouped(issue21_relative(tol, 0.5, eps), most));
    for (const auto& cfg : cs) accuracy_row("group24", "cube", p, ref, cfg, true);
  }

  /// Group opening's leaf capacity (issue 21): a group sums a leaf's
  /// particles on every lane that shares its group, so larger leaves may suit
  /// it better than the own walk. The own walk at leaf 16, 32 and 64, and
  /// group opening (G = 32 and 128) at leaf 16 to 128, relative at cap 0.5,
  /// tolerances 0.004 and 0.008, on issue 21's three inputs at 2^20.
  void group_leaf() {
    std::printf("\n== group opening's leaf capacity (quadrupole, relative cap 0.5, errors on 4096 targets)\n");
    for_each_issue21_model([&](const std::string& model, DeviceSet& p, const Reference& ref, double eps) {
      std::vector<GpuTreeSolverConfig> cs;
      for (int leaf : {16, 32, 64}) {
        GpuTreeSolverConfig c = issue21_relative(0.002, 0.55, eps);
        c.tree.tree.leaf_capacity = leaf;
        cs.push_back(c);
      }
      for (int leaf : {16, 32, 64, 128})
        for (int most : {32, 128})
          for (double tol : {0.004, 0.008}) {
            GpuTreeSolverConfig c = issue21_relative(tol, 0.5, eps);
            c.tree.tree.leaf_capacity = leaf;
            c.tree.tree.group_opening = most;
            cs.push_back(c);
          }
      for (const auto& cfg : cs) accuracy_row("group-leaf", model, p, ref, cfg);
    });
  }

  /// The warps' order (GpuTreeSolverConfig::warp_order, bh/leaf_order_gpu.hpp):
  /// the tree's key order against its leaves in Hilbert order, at the `rate`
  /// table's configurations and the cube 2^24 - 1's best, each pair run
  /// twice, alternately (tree, Hilbert, tree, Hilbert), so that a drift of
  /// the clock shows as a difference between the rounds. Every row's bits are
  /// the same function of the input; node visits are the groups'.
  void warp_order() {
    std::printf("\n== the warps' order: tree (key) order against Hilbert order of the leaves (quadrupole, leaf 32)\n");
    const auto rows = [&](const char* table, const std::string& model, DeviceSet& p, const Reference& ref,
                          const std::vector<GpuTreeSolverConfig>& cs) {
      for (const auto& cfg : cs)
        for (int round = 0; round < 2; ++round)
          for (const WarpOrder o : {WarpOrder::tree, WarpOrder::hilbert}) {
            GpuTreeSolverConfig c = cfg;
            c.warp_order = o;
            const Csv::Row r = accuracy_row(table, model, p, ref, c);
            std::printf("%9s %-7s round %d: visits %6.1f per target, warp order %.4g ms\n", "",
                        o == WarpOrder::hilbert ? "hilbert" : "tree", round,
                        double(r.t.last.total.node_visits) / double(p.n), r.t.phase_ms.count("warp order") != 0
                                                                                 ? r.t.phase_ms.at("warp order")
                                                                                 : 0.0);
          }
    };
    for_each_issue21_model([&](const std::string& model, DeviceSet& p, const Reference& ref, double eps) {
      rows("warp-order", model, p, ref,
           model == "cube" ? std::vector{issue21_config(0.55, eps), issue21_relative(0.004, 0.55, eps)}
                           : std::vector{issue21_relative(0.002, 0.5, eps), issue21_relative(0.002, 0.55, eps)});
    });
    constexpr double eps = 0.0675;
    DeviceSet p(issue21_distribution("cube", (std::int64_t(1) << 24) - 1), true);
    const Reference ref = reference(p, 4096, eps);
    rows("warp-order24", "cube", p, ref, {issue21_relative(0.004, 0.55, eps)});
  }

  /// The list walk (docs/adr/0019) against each target's own walk, at issue
  /// 21's accuracy (median <= 2.8e-4, p99 <= 1.3e-3): the `rate` table's
  /// inputs, quadrupole, potentials and counters on, errors on 4096 targets,
  /// the rate columns. Per input the own walk's fastest rows (key and Hilbert
  /// warp order), then the list walk over geometric theta, over the relative
  /// tolerance at caps 0.55 to 0.65, and leaf 16 and 64; then the cube
  /// 2^24 - 1 with the own walk's best rows and the list walk's.
  void list_walk() {
    std::printf("\n== the list walk against each target's own walk (quadrupole, errors on 4096 targets)\n");
    const auto listed = [](GpuTreeSolverConfig c, int leaf = 32) {
      c.tree.tree.list_walk = true;
      c.tree.tree.leaf_capacity = leaf;
      return c;
    };
    const auto ordered = [](GpuTreeSolverConfig c, WarpOrder o) {
      c.warp_order = o;
      return c;
    };
    const auto hilbert = [&](const GpuTreeSolverConfig& c) { return ordered(c, WarpOrder::hilbert); };
    for_each_issue21_model([&](const std::string& model, DeviceSet& p, const Reference& ref, double eps) {
      const GpuTreeSolverConfig own =
          model == "cube" ? issue21_relative(0.004, 0.55, eps) : issue21_relative(0.002, 0.55, eps);
      std::vector<GpuTreeSolverConfig> cs{ordered(own, WarpOrder::tree), hilbert(own)};
      for (double theta : {0.6, 0.65, 0.7, 0.8}) cs.push_back(listed(issue21_config(theta, eps)));
      // The relative criterion about the bound (cf017d1's rows: the cap decides the cube, the
      // tolerance the halos): caps 0.55 to 0.65, tolerances 0.005 to 0.016.
      for (double cap : {0.55, 0.6, 0.65})
        for (double tol : {0.005, 0.008, 0.011, 0.016}) cs.push_back(listed(issue21_relative(tol, cap, eps)));
      for (int leaf : {16, 64}) cs.push_back(listed(issue21_relative(0.008, 0.55, eps), leaf));
      for (const auto& cfg : cs) accuracy_row("list", model, p, ref, cfg, true);
    });
    constexpr double eps = 0.0675;
    DeviceSet p(issue21_distribution("cube", (std::int64_t(1) << 24) - 1), true);
    const Reference ref = reference(p, 4096, eps);
    std::vector<GpuTreeSolverConfig> cs{ordered(issue21_relative(0.004, 0.55, eps), WarpOrder::tree),
                                        hilbert(issue21_relative(0.004, 0.55, eps))};
    for (double cap : {0.55, 0.6})
      for (double tol : {0.008, 0.011, 0.016}) cs.push_back(listed(issue21_relative(tol, cap, eps)));
    for (const auto& cfg : cs) accuracy_row("list24", "cube", p, ref, cfg, true);
  }

  /// Issue 21's large cube: N = 2^24 - 1 uniform in [-3, 3]^3, eps 0.0675
  /// (the 2^20 cube's 0.17 scaled by N^(-1/3)); quadrupole, leaf 32,
  /// geometric theta 0.55 and relative tolerance 0.002 and 0.004 at caps 0.5
  /// and 0.55 (steady state); errors on 4096 targets; the rate columns.
  /// Memory: about 130 bytes a particle (2.2 GB; the 16M rows of the double
  /// table: 109-130 in float), printed per row against the device's.
  void cube24() {
    std::printf("\n== uniform cube N = 2^24 - 1, eps 0.0675 (quadrupole, leaf 32, errors on 4096 targets)\n");
    constexpr double eps = 0.0675;
    DeviceSet p(issue21_distribution("cube", (std::int64_t(1) << 24) - 1), true);
    const Reference ref = reference(p, 4096, eps);
    std::vector<GpuTreeSolverConfig> cs{issue21_config(0.55, eps)};
    for (double cap : {0.5, 0.55})
      for (double tol : {0.002, 0.004}) cs.push_back(issue21_relative(tol, cap, eps));
    for (const auto& cfg : cs) {
      const Csv::Row r = accuracy_row("cube24", "cube", p, ref, cfg, true);
      std::printf("%9s build %.4g ms; %.1f bytes/particle on the device, %.2f GB of %.1f\n", "",
                  r.build_ms(), r.bytes_pp, r.bytes_pp * double(p.n) / 1e9,
                  double(cuda::memory_info().total_bytes) / 1e9);
    }
  }

  /// The two criteria on three distributions (issue 21; docs/performance/
  /// gpu_tree.md, "Choosing the relative cap"): the uniform cube ([-3, 3]^3,
  /// masses U(0, 1) / N, eps 0.17), the Plummer sphere (eps 0.05) and the
  /// Hernquist halo (truncation 100 scale radii, eps 0.05), made on the host
  /// by ic/ with the seeds of bench/opening_sweep_bench.cpp: at N = 2^18 the
  /// inputs are that CPU sweep's, so the geometric rows' interaction counts
  /// must equal its counts (the relative rows' too, up to the few decisions
  /// that the fast-mode rounding of a_old can flip); at 2^20 (the cube 2^20 -
  /// 1) the issue's sizes. Quadrupole, leaf 32, potentials and counters on;
  /// geometric over theta, relative (theta 1, steady state) over tolerance
  /// and cap, plus the first evaluation (bootstrap) at the defaults.
  void distributions() {
    std::printf("\n== criteria x distributions (quadrupole, leaf 32, errors on 4096 targets)\n");
    for (const std::int64_t n : {std::int64_t(1) << 18, std::int64_t(1) << 20}) {
      for (const std::string model : {"cube", "plummer", "hernquist"}) {
        const double eps = issue21_softening(model);
        DeviceSet p(issue21_distribution(model, model == "cube" && n == (std::int64_t(1) << 20) ? n - 1 : n), true);
        const Reference ref = reference(p, 4096, eps);
        for (double theta : {0.45, 0.5, 0.55, 0.6, 0.7, 0.8})
          accuracy_row("distributions", model, p, ref, issue21_config(theta, eps));
        for (double cap : {0.5, 0.55, 0.6}) {
          for (double tol : {0.0005, 0.001, 0.002, 0.004, 0.008}) {
            const GpuTreeSolverConfig c = issue21_relative(tol, cap, eps);
            accuracy_row("distributions", model, p, ref, c);
            if (cap == bh::TreeParams{}.relative_cap && tol == bh::TreeParams{}.tolerance) {
              Csv::Row first = run("distributions-first", p, c, 0, false);  // every evaluation bootstraps
              first.model = model;
              csv_.write(first);
              std::printf("%-9s N %lld first evaluation (bootstrap + walk) total %8.4g ms, bootstrap walk %8.4g ms, "
                          "walk %8.4g ms\n",
                          model.c_str(), (long long)p.n, first.t.total_ms, first.t.phase_ms["bootstrap walk"],
                          first.t.phase_ms["walk"]);
            }
          }
        }
      }
    }
  }

  /// Double against float, both criteria, at 1M and 16M (Plummer, eps 0.05,
  /// quadrupole, leaf 32, potentials and counters on): geometric at theta
  /// 0.55 and relative at the default tolerance and cap (steady state).
  void double_precision() {
    std::printf("\n== double against float (Plummer, quadrupole, leaf 32, errors on 4096 targets)\n");
    GpuTreeSolverConfig geometric = config(Traversal::coherent, 32, 0.55, bh::Multipole::quadrupole, MathMode::fast, 32);
    GpuTreeSolverConfig relative = config(Traversal::coherent, 32, 1.0, bh::Multipole::quadrupole, MathMode::fast, 32);
    relative.tree.tree.opening = bh::Opening::relative;
    for (std::int64_t n : {std::int64_t(1) << 20, std::int64_t(1) << 24}) {
      double ms[2][2] = {};
      const auto both = [&]<class Real>(int k, DeviceSetOf<Real>& p) {
        const Reference ref = reference(p, 4096);
        for (int c = 0; c < 2; ++c) ms[k][c] = accuracy_row("double", "plummer", p, ref, c ? relative : geometric).t.total_ms;
      };
      {
        DeviceSetOf<float> p(n);
        both(0, p);
      }
      {
        DeviceSetOf<double> p(n);
        both(1, p);
      }
      std::printf("N %lld: double / float total  geometric %.2f  relative %.2f\n", (long long)n, ms[1][0] / ms[0][0],
                  ms[1][1] / ms[0][1]);
    }
  }

  /// The relative opening's best rows, tuned: cap angle x leaf capacity x
  /// tolerance at 1M (quadrupole, no potential, steady state). theta <= 1.15
  /// keeps every accepted cell's particles within d of its centre of mass
  /// (they lie within delta + side sqrt(3)/2 of it).
  void relative_tuning() {
    std::printf("\n== relative opening tuning at N = 1048576 (quadrupole, no potential, steady)\n");
    DeviceSet p(std::int64_t(1) << 20, false);
    const Reference ref = reference(p, 4096);
    for (const auto& [theta, cap] : {std::pair{1.0, 16}, std::pair{1.0, 24}, std::pair{1.0, 32}, std::pair{1.0, 48},
                                     std::pair{1.15, 16}, std::pair{1.15, 32}, std::pair{1.15, 48}}) {
      for (double tol : {0.005, 0.0055}) {
        GpuTreeSolverConfig c =
            config(Traversal::coherent, 32, theta, bh::Multipole::quadrupole, MathMode::fast, cap);
        c.tree.tree.opening = bh::Opening::relative;
        c.tree.tree.tolerance = tol;
        Csv::Row r = run("relative-tuning", p, c, 0, true);
        r.err = errors(p, ref);
        csv_.write(r);
        std::printf("theta %.2f cap %2d tol %.4f  total %8.4g ms (%4.1f%%)  walk %8.4g  visits %6.0f cells %6.0f "
                    "parts %5.0f  err median %.3g p99 %.3g\n",
                    theta, cap, tol, r.t.total_ms, r.t.spread_pct, r.t.phase_ms["walk"],
                    double(r.t.last.total.node_visits) / double(p.n),
                    double(r.t.last.total.cell_interactions) / double(p.n),
                    double(r.t.last.total.particle_interactions) / double(p.n), r.err.median, r.err.p99);
      }
    }
  }

  /// Opening angle x leaf capacity x multipole at 1M: time against error,
  /// for the accuracy-matched target (median <= 3e-4, p99 <= 1.5e-3).
  void tuning() {
    std::printf("\n== tuning at N = 1048576: softening x leaf capacity x multipole x theta (errors on 4096 targets)\n");
    DeviceSet p(std::int64_t(1) << 20);
    for (double eps : {kSoftening, 0.005}) {
      const Reference ref = reference(p, 4096, eps);
      for (int cap : {16, 32, 64}) {
        for (auto mp : {bh::Multipole::monopole, bh::Multipole::quadrupole}) {
          for (double theta : {0.4, 0.5, 0.6, 0.7}) {
            if (eps == kSoftening && cap == 16) continue;  // the accuracy table has these
            Csv::Row r = run("tuning", p, config(Traversal::coherent, 32, theta, mp, MathMode::fast, cap, eps), 5);
            r.err = errors(p, ref);
            csv_.write(r);
            std::printf("eps %.3f cap %2d %-10s theta %.2f  total %8.4g ms (walk %8.4g)  err median %.3g p99 %.3g\n",
                        eps, cap, std::string(bh::to_string(mp)).c_str(), theta, r.t.total_ms, r.t.phase_ms["walk"],
                        r.err.median, r.err.p99);
          }
        }
      }
    }
  }

  /// Multipole order x theta x leaf capacity at 1M (coherent W=32, fast
  /// math, eps 0.05): the time of each order at each accuracy, to find the
  /// fastest configuration at issue 21's target (median <= 2.8e-4, p99 <=
  /// 1.3e-3; docs/adr/0016). Not in the default tables.
  void orders() {
    std::printf("\n== multipole orders at N = 1048576: order x leaf capacity x theta (errors on 4096 targets)\n");
    DeviceSet p(std::int64_t(1) << 20);
    const Reference ref = reference(p, 4096, kSoftening);
    for (int cap : {16, 32}) {
      for (auto mp : {bh::Multipole::monopole, bh::Multipole::quadrupole, bh::Multipole::octupole,
                      bh::Multipole::hexadecapole}) {
        for (double theta : {0.4, 0.5, 0.6, 0.7, 0.8, 0.9}) {
          Csv::Row r = run("orders", p, config(Traversal::coherent, 32, theta, mp, MathMode::fast, cap), 5);
          r.err = errors(p, ref);
          csv_.write(r);
          std::printf("cap %2d %-12s theta %.2f  total %8.4g ms (walk %8.4g, moments %6.3g)  err median %.3g p99 %.3g%s\n",
                      cap, std::string(bh::to_string(mp)).c_str(), theta, r.t.total_ms, r.t.phase_ms["walk"],
                      r.t.phase_ms["moments"], r.err.median, r.err.p99,
                      r.err.median <= 2.8e-4 && r.err.p99 <= 1.3e-3 ? "  (meets the target's accuracy)" : "");
        }
      }
    }
  }

  /// Leaf capacity at 1M and 16M (theta 0.5, monopole): time, visits, interactions.
  void leaves() {
    std::printf("\n== leaf capacity (coherent W=32, theta 0.5, monopole)\n");
    for (std::int64_t n : {std::int64_t(1) << 20, std::int64_t(1) << 24}) {
      DeviceSet p(n);
      for (int cap : {8, 16, 32, 64, 128}) {
        Csv::Row r = run("leaf", p, config(Traversal::coherent, 32, 0.5, bh::Multipole::monopole, MathMode::fast, cap),
                         n > (1 << 20) ? 3 : 0);
        csv_.write(r);
        std::printf("N %9lld cap %3d  total %8.4g ms  walk %8.4g  build %6.3g  visits %7.1f cells %7.1f parts %7.1f\n",
                    (long long)n, cap, r.t.total_ms, r.t.phase_ms["walk"],
                    r.t.total_ms - r.t.phase_ms["walk"],
                    double(r.t.last.total.node_visits) / double(n), double(r.t.last.total.cell_interactions) / double(n),
                    double(r.t.last.total.particle_interactions) / double(n));
      }
    }
  }

  void exact_cost() {
    std::printf("\n== exact vs fast math at N = 1048576 (coherent W=32, theta 0.5)\n");
    DeviceSet p(std::int64_t(1) << 20);
    for (auto mp : {bh::Multipole::monopole, bh::Multipole::quadrupole}) {
      for (auto math : {MathMode::fast, MathMode::exact}) {
        Csv::Row r = run("math", p, config(Traversal::coherent, 32, 0.5, mp, math));
        csv_.write(r);
        std::printf("%-10s %-5s walk %8.4g ms total %8.4g ms\n", std::string(bh::to_string(mp)).c_str(),
                    std::string(to_string(math)).c_str(), r.t.phase_ms["walk"], r.t.total_ms);
      }
    }
  }

  void cpu_tree() {
    std::printf("\n== CPU TreeSolver (all host threads) at N = 1048576\n");
    DeviceSet p(std::int64_t(1) << 20);
    Particles<float> h(static_cast<std::size_t>(p.n));
    p.x.download(std::span<float>(h.x));
    p.y.download(std::span<float>(h.y));
    p.z.download(std::span<float>(h.z));
    p.m.download(std::span<float>(h.mass));
    bh::TreeSolverConfig c;
    c.softening = kSoftening;
    gravity::TreeSolver<float> cpu(c);
    Accelerations<float> out(h.size());
    cpu.solve(h.sources(), out.view());  // warm-up
    std::vector<double> ms;
    for (int k = 0; k < 3; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      cpu.solve(h.sources(), out.view());
      ms.push_back(1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    Csv::Row r = run("cpu_vs_gpu", p, config(Traversal::coherent, 32));
    r.cpu_ms = median(ms);
    csv_.write(r);
    std::printf("CPU tree %.4g ms, GPU tree %.4g ms: %.1fx\n", r.cpu_ms, r.t.total_ms, r.cpu_ms / r.t.total_ms);
  }

  /// What a force evaluation costs with and without the potential (computed
  /// on diagnostic steps only) and the per-target counters, at 1M and 16M.
  void variants() {
    std::printf("\n== potential and counters (coherent W=32, theta 0.5, monopole)\n");
    for (std::int64_t n : {std::int64_t(1) << 20, std::int64_t(1) << 24}) {
      for (bool pot : {true, false}) {
        DeviceSet p(n, pot);
        for (bool counters : {true, false}) {
          if (pot && !counters) continue;
          GpuTreeSolverConfig c = config(Traversal::coherent, 32);
          c.counters = counters;
          Csv::Row r = run("variants", p, c);
          csv_.write(r);
          std::printf("N %9lld potential %-3s counters %-3s  total %8.4g ms (%4.1f%%)  walk %8.4g  build %6.3g\n",
                      (long long)n, pot ? "on" : "off", counters ? "on" : "off", r.t.total_ms, r.t.spread_pct,
                      r.t.phase_ms["walk"], r.t.total_ms - r.t.phase_ms["walk"]);
        }
      }
    }
  }

  /// One warm-up and one evaluation of each walk variant at 1M, no canary:
  /// for a profiler (ncu -k regex:coherent_walk), not a timing.
  /// relative: only the relative opening (quadrupole, theta 1, tolerance
  /// 0.005, no potential), timed as a simulation's steady state.
  void profile(bool relative) {
    DeviceSet p(std::int64_t(1) << 20), q(std::int64_t(1) << 20, false);
    GpuTreeSolverConfig rel = config(Traversal::coherent, 32, 1.0, bh::Multipole::quadrupole);
    rel.tree.tree.opening = bh::Opening::relative;
    rel.tree.tree.tolerance = 0.005;
    const std::vector<GpuTreeSolverConfig> cs =
        relative ? std::vector<GpuTreeSolverConfig>{rel}
                 : std::vector<GpuTreeSolverConfig>{config(Traversal::coherent, 32),
                                                    config(Traversal::coherent, 32, 0.6, bh::Multipole::quadrupole)};
    for (const auto& c : cs) {
      for (DeviceSet* d : {&p, &q}) {
        if (relative && d == &p) continue;
        GpuTreeSolver<float> s(c);
        const Timing t = time_solver(s, *d, 2, 1, relative);
        std::printf("profile: %s theta %.1f potential %d: walk %.4g ms\n",
                    std::string(bh::to_string(c.tree.tree.multipole)).c_str(), c.tree.tree.theta,
                    int(!d->pot.empty()), t.phase_ms.at("walk"));
      }
    }
  }

  /// GPU direct (fast mode, with potential) against the GPU tree (coherent
  /// W=32, theta 0.5, monopole, with potential) on the same particles, both
  /// timed on the host clock around solve_device + stream synchronisation.
  void crossover() {
    std::printf("\n== GPU direct vs GPU tree, side by side (potentials on)\n");
    for (std::int64_t n = 8192; n <= (std::int64_t(1) << 18); n *= 2) {
      DeviceSet p(n);
      gravity::DirectGpuSolver<float, PlummerSoftening<float>> direct{float(kSoftening)};
      const auto solve = [&] {
        direct.solve_device(p.sources(), p.out(), {.potential = true}, nullptr);
        cuda::synchronize(nullptr);
      };
      for (int k = 0; k < 2; ++k) solve();
      std::vector<double> ms;
      for (int k = 0; k < (quick_ ? 3 : 11); ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        solve();
        ms.push_back(1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      Csv::Row r = run("crossover", p, config(Traversal::coherent, 32));
      r.cpu_ms = median(ms);  // this table's cpu_ms column holds the GPU direct time
      csv_.write(r);
      std::printf("N %8lld  direct %9.4g ms  tree %8.4g ms  direct/tree %6.3f\n", (long long)n, r.cpu_ms,
                  r.t.total_ms, r.cpu_ms / r.t.total_ms);
    }
  }

  /// The largest N that evaluates: float, monopole, no potential, no counters.
  void capacity() {
    std::printf("\n== capacity (float, monopole, no potential, counters off)\n");
    // One evaluation per size (the first at that size, allocation included):
    // at these sizes an evaluation is seconds, and device time is scarce.
    for (std::int64_t n : {std::int64_t(1) << 29, std::int64_t(1) << 30, std::int64_t(1280) << 20,
                           std::int64_t(1536) << 20, std::int64_t(2047) << 20}) {
      try {
        const double drift = canary();  // before this row's solver exists: one solver at a time
        DeviceSet p(n, false);
        GpuTreeSolverConfig c = config(Traversal::coherent, 32);
        c.counters = false;
        GpuTreeSolver<float> s(c);
        Csv::Row r;
        r.table = "capacity";
        r.n = n;
        r.c = c;
        r.drift = drift;
        r.t = time_solver(s, p, 0, 1);
        r.nodes = s.num_nodes();
        r.depth = s.depth();
        const cuda::MemoryInfo mem = cuda::memory_info();
        r.bytes_pp = double(s.device_bytes() + p.bytes()) / double(n);
        csv_.write(r);
        std::printf("N = %lld: %.4g ms (walk %.4g), %.1f bytes/particle, %.1f GB in use of %.1f\n", (long long)n,
                    r.t.total_ms, r.t.phase_ms["walk"], r.bytes_pp, double(mem.total_bytes - mem.free_bytes) / 1e9,
                    double(mem.total_bytes) / 1e9);
      } catch (const std::exception& e) {
        std::printf("N = %lld does not fit: %s\n", (long long)n, e.what());
        (void)cudaGetLastError();
        break;
      }
    }
  }

 private:
  Csv csv_;
  bool quick_;
  DeviceSet canary_set_;
  double canary0_ = 0;
  DirectRate direct_;
  std::map<std::pair<bool, bool>, TermTiming> particle_terms_;  // (potential, double)
  std::map<std::tuple<int, bool, bool>, TermCost> costs_;       // (multipole, potential, double)
};

}  // namespace
}  // namespace orrery::bench

namespace {

constexpr const char* kUsage = R"(usage: gpu_tree_bench [--out FILE.csv] [--mode quick|full] [--capacity 0|1] [--tables a,b,...] [--help]
tables (default: divergence,width,math,accuracy,relative,tuning,leaf,variants,scaling,cpu,crossover,capacity):
  divergence       independent vs coherent walk at 16K, 128K, 1M
  width            coherent walk's group width at 1M
  math             exact vs fast math at 1M
  accuracy         monopole and quadrupole over theta at 1M, errors against a double direct sum
  relative         the relative opening at 1M over tolerance, steady and first evaluations
  relative-tuning  the relative opening's cap angle x leaf capacity x tolerance at 1M
  tuning           softening x leaf capacity x multipole x theta at 1M
  orders           multipole order x leaf capacity x theta at 1M
  distributions    both criteria on the uniform cube, Plummer and Hernquist at 2^18 and 2^20 (issue 21)
  double           float against double at 1M and 16M, both criteria (issue 21)
  cost             a cell term's cost in particle terms, measured by a micro-benchmark per expansion,
                   potential and precision, and the direct kernel's interaction rate at 2^20 (issue 21)
  rate             the walk's interaction rate (cell terms at their measured cost) against the direct
                   kernel's, at issue 21's configurations on the cube, Plummer and Hernquist at 2^20
  cube24           the uniform cube at N = 2^24 - 1, eps 0.0675: geometric theta 0.55 and relative
                   rows, errors, times, rates (issue 21)
  group            group opening (docs/adr/0017) against each target's own walk on the cube, Plummer and
                   Hernquist at 2^20 and the cube at 2^24 - 1: errors, times, rates
  group-leaf       group opening and the own walk over the leaf capacity (16 to 128) at 2^20
  warp-order       the warps' order, tree (key) order against the leaves' Hilbert order, at the rate
                   table's configurations and the cube 2^24 - 1 (issue 21)
  list             the list walk (docs/adr/0019) against the own walk at issue 21's accuracy on the cube,
                   Plummer and Hernquist at 2^20 and the cube at 2^24 - 1
  leaf             leaf capacity at 1M and 16M
  variants         potential and counters on and off at 1M and 16M
  profile          one evaluation per walk variant at 1M, for a profiler (profile-relative: the relative opening)
  scaling          N = 1K .. 128M (16M in quick mode)
  cpu              the CPU tree solver at 1M (not in quick mode)
  crossover        GPU direct vs GPU tree at 8K .. 256K
  capacity         the largest N that evaluates (skipped with --capacity 0)
Not in the default list: relative-tuning, orders, distributions, double, cost, rate, cube24, group, group-leaf,
warp-order, list, profile, profile-relative.
)";

constexpr std::string_view kTables[] = {"divergence", "width", "math", "accuracy", "relative", "relative-tuning",
                                        "tuning", "orders", "distributions", "double", "cost", "rate", "cube24", "group", "group-leaf", "warp-order", "list",
                                        "leaf", "variants", "profile", "profile-relative", "scaling", "cpu",
                                        "crossover", "capacity"};

}  // namespace

int main(int argc, char** argv) {
  std::string out = "gpu_tree.csv", mode = "full",
              tables = "divergence,width,math,accuracy,relative,tuning,leaf,variants,scaling,cpu,crossover,capacity";
  bool capacity = true;
  for (int i = 1; i < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--help" || k == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "option %s needs a value\n%s", k.c_str(), kUsage);
      return 2;
    }
    const std::string v = argv[i + 1];
    if (k == "--out") out = v;
    else if (k == "--mode") mode = v;
    else if (k == "--capacity") capacity = v != "0";
    else if (k == "--tables") tables = "," + v + ",";
    else {
      std::fprintf(stderr, "unknown option %s\n%s", k.c_str(), kUsage);
      return 2;
    }
  }
  for (std::size_t at = 0; at < tables.size();) {  // every name one of kTables
    const std::size_t end = std::min(tables.find(',', at), tables.size());
    const std::string name = tables.substr(at, end - at);
    if (!name.empty() && std::find(std::begin(kTables), std::end(kTables), name) == std::end(kTables)) {
      std::fprintf(stderr, "gpu_tree_bench: unknown table '%s'\n%s", name.c_str(), kUsage);
      return 2;
    }
    at = end + 1;
  }
  if (!orrery::cuda::device_available()) {
    std::fprintf(stderr, "gpu_tree_bench: no CUDA device\n");
    return 1;
  }
  try {
    const auto info = orrery::cuda::device_info(0);
    std::printf("gpu_tree_bench: %s, %d SMs, %.2f GHz peak, %.1f GB; mode %s\n", info.name.c_str(),
                info.multiprocessors, info.peak_clock_ghz, double(info.total_bytes) / 1e9, mode.c_str());
    const bool quick = mode == "quick";
    orrery::bench::Session s(out, quick);
    tables = "," + tables + ",";
    const auto want = [&](const char* t) { return tables.find("," + std::string(t) + ",") != std::string::npos; };
    if (want("divergence")) s.divergence();
    if (want("width")) s.widths();
    if (want("math")) s.exact_cost();
    if (want("accuracy")) s.accuracy();
    if (want("tuning")) s.tuning();
    if (want("orders")) s.orders();  // not in the default list
    if (want("relative")) s.relative();
    if (want("relative-tuning")) s.relative_tuning();
    if (want("distributions")) s.distributions();
    if (want("double")) s.double_precision();
    if (want("cost")) s.cost();
    if (want("rate")) s.rate();
    if (want("cube24")) s.cube24();
    if (want("group")) s.group();
    if (want("group-leaf")) s.group_leaf();
    if (want("warp-order")) s.warp_order();
    if (want("list")) s.list_walk();
    if (want("leaf")) s.leaves();
    if (want("variants")) s.variants();
    if (want("profile")) s.profile(false);  // not in the default list
    if (want("profile-relative")) s.profile(true);
    if (want("scaling")) s.scaling(quick ? (std::int64_t(1) << 24) : (std::int64_t(1) << 27));
    if (want("cpu") && !quick) s.cpu_tree();  // the CPU at 1M is seconds of held device time
    if (want("crossover")) s.crossover();
    if (want("capacity") && capacity) s.capacity();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_tree_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
