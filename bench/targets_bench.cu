// Forces on a fraction of the particles (issue 14's seam, what block time
// steps need): N = 2^20 Plummer sources, random subsets of 0.1 %, 1 %, 10 %
// and 100 % of them as targets (random order; the solver walks them in key
// order), and the all-targets solve for comparison. GPU rows are
// device-resident (GpuTreeSolver::solve_device with a TargetSet), CPU rows
// TreeSolver::solve with a TargetSet on all host threads. Protocol: 2 warm-up
// solves, then 7 timed (3 on the CPU); median and (max - min) / median; the
// walk phase is the solver's own figure (CUDA events on the GPU).
//
// --lanes sweeps GpuTreeSolverConfig::subset_target_lanes (0: the solver's
// choice); --fractions the subsets.
//
// usage: targets_bench [--out FILE.csv] [--cpu 0|1] [--lanes L,...] [--fractions F,...]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "bench_stats.hpp"
#include "orrery/core/rng.hpp"
#include "support/random_subset.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/stream.hpp"
#include "orrery/gravity/tree_gpu_solver.hpp"
#include "orrery/gravity/tree_solver.hpp"
#include "orrery/ic/plummer.hpp"

namespace orrery::bench {
namespace {

constexpr std::int64_t kN = std::int64_t(1) << 20;

double phase(const SolverReport& r, const std::string& name) {
  for (const auto& [n, s] : r.phase_seconds)
    if (n == name) return 1e3 * s;
  return 0;
}

struct Row {
  std::string backend, config;
  double fraction;
  std::int64_t targets;
  Stats total, walk;
};

bh::TreeSolverConfig config(bool relative) {
  bh::TreeSolverConfig c;
  c.softening = 0.05;
  c.tree.theta = relative ? 1.0 : 0.5;
  c.tree.leaf_capacity = relative ? 32 : 16;
  c.tree.multipole = relative ? bh::Multipole::quadrupole : bh::Multipole::monopole;
  c.tree.opening = relative ? bh::Opening::relative : bh::Opening::geometric;
  c.tree.tolerance = 0.0055;
  return c;
}

Row timed(const std::string& backend, const std::string& cfg, double fraction, std::int64_t k, int trials,
          const std::function<SolverReport()>& once) {
  for (int w = 0; w < 2; ++w) once();
  std::vector<double> total, walk;
  for (int t = 0; t < trials; ++t) {
    const auto t0 = std::chrono::steady_clock::now();
    const SolverReport r = once();
    total.push_back(1e3 * std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    walk.push_back(phase(r, "walk"));
  }
  Row row{backend, cfg, fraction, k, stats_of(total), stats_of(walk)};
  std::printf("%-4s %-22s %8.3f %% %8lld targets  total %9.3f ms (%4.1f %%)  walk %9.3f ms\n", backend.c_str(),
              cfg.c_str(), 100 * fraction, (long long)k, row.total.median, 100 * row.total.spread(), row.walk.median);
  std::fflush(stdout);
  return row;
}

}  // namespace
}  // namespace orrery::bench

int main(int argc, char** argv) {
  using namespace orrery;
  using namespace orrery::bench;
  std::string out = "targets.csv";
  bool cpu = true;
  std::vector<int> lanes{0};
  std::vector<double> fractions{0.001, 0.01, 0.1, 1.0};
  const auto numbers = [](const std::string& list) {
    std::vector<double> v;
    for (std::size_t at = 0; at < list.size();) {
      const std::size_t end = std::min(list.find(',', at), list.size());
      v.push_back(std::stod(list.substr(at, end - at)));
      at = end + 1;
    }
    return v;
  };
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a], v = argv[a + 1];
    if (k == "--out") out = v;
    else if (k == "--cpu") cpu = v != "0";
    else if (k == "--lanes") {
      lanes.clear();
      for (const double l : numbers(v)) lanes.push_back(static_cast<int>(l));
    } else if (k == "--fractions") fractions = numbers(v);
    else {
      std::fprintf(stderr,
                   "unknown option %s; accepted: --out FILE --cpu 0|1 --lanes L,... (0 automatic, 1-32) "
                   "--fractions F,... (0 < F <= 1)\n",
                   k.c_str());
      return 2;
    }
  }
  try {
    const Particles<double> pd = ic::plummer_sphere(kN, 20261202);
    std::vector<float> x(pd.x.begin(), pd.x.end()), y(pd.y.begin(), pd.y.end()), z(pd.z.begin(), pd.z.end()),
        m(pd.mass.begin(), pd.mass.end());
    cuda::DeviceBuffer<float> dx(kN), dy(kN), dz(kN), dm(kN), ax(kN), ay(kN), az(kN), pot(kN);
    dx.upload(x);
    dy.upload(y);
    dz.upload(z);
    dm.upload(m);
    const SourcesView<float> dsrc{kN, dx.data(), dy.data(), dz.data(), dm.data()};
    const SourcesView<float> hsrc{kN, x.data(), y.data(), z.data(), m.data()};
    std::vector<Row> rows;
    for (const bool relative : {false, true}) for (const int lane : lanes) {
      const std::string cfg = std::string(relative ? "relative quadrupole" : "geometric monopole") +
                              (lane > 0 ? " lanes " + std::to_string(lane) : "");
      gravity::GpuTreeSolverConfig g;
      g.tree = config(relative);
      g.subset_target_lanes = lane;
      gravity::GpuTreeSolver<float> gpu(g);
      gravity::TreeSolver<float> host(config(relative));
      const bool first_lanes = lane == lanes.front();  // the CPU rows once
      for (const double f : fractions) {
        const auto k = static_cast<std::int64_t>(f * double(kN));
        const auto idx = testing::random_subset(kN, k, 7 + k);
        cuda::DeviceBuffer<std::int64_t> didx(static_cast<std::size_t>(k));
        didx.upload(idx);
        const auto set = gravity::TargetSet<float>::of_sources(k, didx.data());
        // Steady state of the relative opening: the targets' previous
        // accelerations are in `out` (here the last solve's), the floor the
        // whole set's (a fixed value, as a block-step run would pass).
        gravity::SolveOptions o;
        o.potential = !relative;
        o.previous_accelerations = relative;
        o.largest_previous_acceleration = relative ? 10.0 : -1.0;
        rows.push_back(timed("gpu", cfg, f, k, 7, [&] {
          const auto r = gpu.solve_device(dsrc, set, {k, ax.data(), ay.data(), az.data(), pot.data()}, o);
          cuda::synchronize(nullptr);
          return r;
        }));
        if (cpu && first_lanes) {
          std::vector<float> hax(k, 0.1f), hay(k, 0.1f), haz(k, 0.1f), hpot(k);
          const auto hset = gravity::TargetSet<float>::of_sources(k, idx.data());
          rows.push_back(timed("cpu", cfg, f, k, 3, [&] {
            return host.solve(hsrc, hset, {k, hax.data(), hay.data(), haz.data(), hpot.data()}, o);
          }));
        }
      }
      if (!first_lanes) continue;
      gravity::SolveOptions all;
      all.potential = !relative;
      all.previous_accelerations = relative;
      rows.push_back(timed("gpu", cfg + " (all)", 1.0, kN, 7, [&] {
        const auto r = gpu.solve_device(dsrc, {kN, ax.data(), ay.data(), az.data(), pot.data()}, all);
        cuda::synchronize(nullptr);
        return r;
      }));
    }
    std::ofstream csv(out);
    csv << "backend,config,fraction,targets,total_median_ms,total_spread,walk_median_ms\n";
    for (const Row& r : rows)
      csv << r.backend << "," << r.config << "," << r.fraction << "," << r.targets << "," << r.total.median << ","
          << r.total.spread() << "," << r.walk.median << "\n";
  } catch (const std::exception& e) {
    std::fprintf(stderr, "targets_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
