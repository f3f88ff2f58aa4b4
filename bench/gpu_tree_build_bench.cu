// GPU tree construction benchmark: DeviceOctree::build (box, keys, sort,
// levels, order, moments: everything before the walk), per phase.
//
// Protocol (DESIGN contract 5): per row, `warmup` builds, then `trials`
// builds, each timed by the CUDA events DeviceOctree records between its
// phases (GpuBuildTimes) and by the host clock around build() + stream sync
// ("wall", what a solver waits for); median, min, max, spread = (max - min) /
// median. A canary (1M uniform, float, monopole) is timed before every row and
// its drift against the first reported; 100 ms rest between rows. The tree's
// node count and depth are printed with each row: they must reproduce.
//
// usage: gpu_tree_build_bench [--out FILE.csv] [--n N1,N2,...] [--trials T] [--warmup W]
//   default: N = 1048576,16777216; T = 21; W = 3. CSV on stdout without --out.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_stats.hpp"
#include "orrery/core/error.hpp"
#include "orrery/cuda/device.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/stream.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/bh/octree_gpu.hpp"
#include "support/test_inputs.hpp"

namespace {

using namespace orrery;
using bh::DeviceOctree;
using bh::GpuBuildTimes;
using bh::Multipole;
using bh::TreeParams;

using bench::Stats;
using bench::stats_of;

template <class Real>
struct DeviceSources {
  std::int64_t n;
  cuda::DeviceBuffer<Real> x, y, z, m;
  explicit DeviceSources(const Particles<Real>& p) : n(p.size()), x(p.x.size()), y(p.y.size()), z(p.z.size()), m(p.mass.size()) {
    x.upload(p.x);
    y.upload(p.y);
    z.upload(p.z);
    m.upload(p.mass);
  }
  SourcesView<Real> view() const { return {n, x.data(), y.data(), z.data(), m.data()}; }
};

template <class Real>
Particles<Real> make_input(const std::string& dist, std::int64_t n) {
  if (dist == "plummer") return ic::to_precision<Real>(ic::plummer_sphere(n, 2026));
  const Particles<float> u = testing::uniform_cube(static_cast<std::size_t>(n), 2026);
  Particles<Real> p(static_cast<std::size_t>(n));
  std::copy(u.x.begin(), u.x.end(), p.x.begin());
  std::copy(u.y.begin(), u.y.end(), p.y.begin());
  std::copy(u.z.begin(), u.z.end(), p.z.begin());
  std::copy(u.mass.begin(), u.mass.end(), p.mass.begin());
  return p;
}

constexpr const char* kPhases[] = {"box", "keys", "sort", "gather", "levels", "moments", "order", "total", "wall"};
constexpr int kNumPhases = 9;

struct Row {
  std::string dist, precision, multipole;
  int cap = 0;
  std::int64_t n = 0;
  std::int32_t nodes = 0;
  int depth = 0;
  double bytes_per_particle = 0;
  Stats phase[kNumPhases];
  double canary_drift = 0;
};

/// Builds `trials` times after `warmup` builds; per-phase statistics in ms.
template <class Real>
Row time_builds(DeviceOctree<Real>& tree, const SourcesView<Real>& s, const TreeParams& p, cuda::StreamHandle stream,
                int warmup, int trials) {
  for (int i = 0; i < warmup; ++i) tree.build(s, p, stream);
  cuda::synchronize(stream);
  std::vector<double> t[kNumPhases];
  for (int i = 0; i < trials; ++i) {
    const auto start = std::chrono::steady_clock::now();
    tree.build(s, p, stream);
    cuda::synchronize(stream);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const GpuBuildTimes g = tree.times();
    const double v[kNumPhases] = {g.box, g.keys, g.sort, g.gather, g.levels, g.moments, g.order, g.total(), wall};
    for (int k = 0; k < kNumPhases; ++k) t[k].push_back(1e3 * v[k]);
  }
  Row r;
  for (int k = 0; k < kNumPhases; ++k) r.phase[k] = stats_of(t[k]);
  r.n = s.count;
  r.nodes = tree.num_nodes();
  r.depth = tree.depth();
  r.bytes_per_particle = double(tree.device_bytes()) / double(s.count);
  r.cap = p.leaf_capacity;
  r.multipole = std::string(to_string(p.multipole));
  r.precision = sizeof(Real) == 4 ? "float" : "double";
  return r;
}

class Bench {
 public:
  Bench(std::ostream& csv, int warmup, int trials)
      : csv_(csv), warmup_(warmup), trials_(trials), canary_input_(make_input<float>("uniform", 1 << 20)),
        canary_(canary_input_) {
    csv_ << "dist,precision,multipole,leaf_capacity,n,nodes,depth,bytes_per_particle,phase,median_ms,min_ms,max_ms,"
            "spread,canary_drift\n";
    std::printf("%-8s %-6s %-10s %3s %10s %9s %5s %6s | %s (median ms, spread %%)\n", "dist", "real", "multipole",
                "cap", "N", "nodes", "depth", "B/part", "box keys sort gather levels moments order | total wall");
  }

  double canary() {
    DeviceOctree<float> t;
    const Row r = time_builds(t, canary_.view(), TreeParams{}, stream_.get(), 2, 7);
    if (canary_first_ == 0) canary_first_ = r.phase[7].median;
    const double drift = r.phase[7].median / canary_first_ - 1;
    worst_drift_ = std::max(worst_drift_, std::abs(drift));
    return drift;
  }

  template <class Real>
  void row(const std::string& dist, std::int64_t n, const TreeParams& p) {
    const double drift = canary();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const DeviceSources<Real> d(make_input<Real>(dist, n));
    DeviceOctree<Real> tree;
    Row r = time_builds(tree, d.view(), p, stream_.get(), warmup_, trials_);
    r.dist = dist;
    r.canary_drift = drift;
    emit(r);
  }

  double worst_drift() const { return worst_drift_; }

 private:
  void emit(const Row& r) {
    for (int k = 0; k < kNumPhases; ++k) {
      const Stats& s = r.phase[k];
      csv_ << r.dist << ',' << r.precision << ',' << r.multipole << ',' << r.cap << ',' << r.n << ',' << r.nodes << ','
           << r.depth << ',' << r.bytes_per_particle << ',' << kPhases[k] << ',' << s.median << ',' << s.min << ','
           << s.max << ',' << s.spread() << ',' << r.canary_drift << '\n';
    }
    csv_.flush();
    std::printf("%-8s %-6s %-10s %3d %10lld %9d %5d %6.1f |", r.dist.c_str(), r.precision.c_str(), r.multipole.c_str(),
                r.cap, static_cast<long long>(r.n), r.nodes, r.depth, r.bytes_per_particle);
    for (int k = 0; k < kNumPhases; ++k) std::printf(" %.3f(%.0f)", r.phase[k].median, 100 * r.phase[k].spread());
    std::printf("  canary %+.1f%%\n", 100 * r.canary_drift);
    std::fflush(stdout);
  }

  std::ostream& csv_;
  int warmup_, trials_;
  cuda::Stream stream_;
  Particles<float> canary_input_;
  DeviceSources<float> canary_;
  double canary_first_ = 0, worst_drift_ = 0;
};

std::vector<std::int64_t> parse_list(const std::string& s) {
  std::vector<std::int64_t> v;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) v.push_back(std::stoll(item));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string out;
    std::vector<std::int64_t> sizes = {1 << 20, 1 << 24};
    int trials = 21, warmup = 3;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      const bool has_value = i + 1 < argc;
      if (a == "--out" && has_value) out = argv[++i];
      else if (a == "--n" && has_value) sizes = parse_list(argv[++i]);
      else if (a == "--trials" && has_value) trials = std::stoi(argv[++i]);
      else if (a == "--warmup" && has_value) warmup = std::stoi(argv[++i]);
      else throw InputError("gpu_tree_build_bench: unknown or incomplete argument '" + a +
                            "'; accepted: --out FILE, --n N1,N2,..., --trials T, --warmup W");
    }
    if (!cuda::device_available()) {
      std::fprintf(stderr, "gpu_tree_build_bench: no CUDA device\n");
      return 2;
    }
    const auto info = cuda::device_info(0);
    std::fprintf(stderr, "device: %s, %d SMs, %.2f GHz peak; trials %d, warm-up %d\n", info.name.c_str(),
                 info.multiprocessors, info.peak_clock_ghz, trials, warmup);
    std::ofstream file;
    if (!out.empty()) file.open(out);
    Bench bench(out.empty() ? std::cout : file, warmup, trials);
    for (std::int64_t n : sizes) {
      bench.row<float>("plummer", n, TreeParams{0.5, 16, Multipole::monopole});
      bench.row<float>("uniform", n, TreeParams{0.5, 16, Multipole::monopole});
      bench.row<float>("plummer", n, TreeParams{0.5, 16, Multipole::quadrupole});
      bench.row<float>("plummer", n, TreeParams{0.5, 8, Multipole::monopole});
      bench.row<float>("plummer", n, TreeParams{0.5, 32, Multipole::monopole});
      bench.row<double>("plummer", n, TreeParams{0.5, 16, Multipole::monopole});
    }
    bench.canary();
    std::fprintf(stderr, "worst canary drift %.2f %%\n", 100 * bench.worst_drift());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpu_tree_build_bench: %s\n", e.what());
    return 1;
  }
}
