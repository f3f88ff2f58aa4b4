// GPU direct-summation benchmark (CSV on stdout or --out). Sections:
//   ceiling  the FP32 issue rate measured with an FFMA chain, and the peak clock
//   variant  the fast kernel's forms (plain, scaled Plummer) x K x potential at one N
//   library  DirectGpuSolver::solve_device (packing included), N = 1K..1M,
//            float and double, with and without the potential
//   host     DirectGpuSolver::solve (upload + kernel + download) and the CPU
//            DirectSolver at small N: the crossover
//   targets  DirectGpuSolver::solve_device at a random subset of 0.1-100 % of
//            N = 1M sources (the gather and the kernels, both modes' fast one
//            and exact at 1 %), against the all-targets row of the same N:
//            a subset should cost its share (k N interactions), no more
//   canary   a fixed workload timed before every row; drift against the first
// Protocol (DESIGN contract 5): warm-up launch, `trials` timed trials (CUDA
// events; a trial repeats the launch until it lasts >= 20 ms), median, min,
// max, spread = (max - min) / median, a 100 ms rest between rows.
// Interactions per launch are N^2 pair evaluations (the self pair is masked),
// k N for a subset of k targets.
//
// Compiled -ftz=true like direct_gpu_fast.cu, since it instantiates its kernels.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_stats.hpp"
#include "device_timing.hpp"
#include "support/random_subset.hpp"
#include "orrery/cuda/device.hpp"
#include "orrery/cuda/event_timer.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/gravity/direct_gpu.hpp"
#include "orrery/gravity/direct_gpu_kernel.cuh"
#include "orrery/gravity/direct_gpu_tuning.hpp"
#include "orrery/gravity/direct_solver.hpp"
#include "orrery/ic/initial_conditions.hpp"
#include "orrery/ic/plummer.hpp"

namespace {

using namespace orrery;
using gravity::gpu::PlummerPlainPair;
using gravity::gpu::PlummerScaledPair;

using bench::Stats;
using bench::stats_of;
using bench::time_device;

Stats time_host(const std::function<void()>& call, int trials) {
  call();
  std::vector<double> t;
  for (int i = 0; i < trials; ++i) {
    int reps = 0;
    const auto start = std::chrono::steady_clock::now();
    double s = 0;
    do {
      call();
      ++reps;
      s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (s < 0.02);
    t.push_back(s / reps);
  }
  return stats_of(t);
}

template <class Real>
struct DeviceParticles {
  std::int64_t n;
  Particles<Real> host;
  cuda::DeviceBuffer<Real> x, y, z, m, ax, ay, az, pot;
  explicit DeviceParticles(std::int64_t count)
      : n(count), host(ic::to_precision<Real>(ic::plummer_sphere(count, 2026))) {
    const auto s = static_cast<std::size_t>(n);
    for (auto* b : {&x, &y, &z, &m, &ax, &ay, &az, &pot}) b->resize(s);
    x.upload(host.x);
    y.upload(host.y);
    z.upload(host.z);
    m.upload(host.mass);
  }
  SourcesView<Real> sources() const { return {n, x.data(), y.data(), z.data(), m.data()}; }
  AccelerationsView<Real> out() { return {n, ax.data(), ay.data(), az.data(), pot.data()}; }
};

/// The FP32 issue rate: 16 independent FFMA chains per thread, unrolled so the
/// loop counter costs under 1 % of the issue slots, a full grid.
__global__ void ffma_kernel(float* out, int iters) {
  float a[16];
#pragma unroll
  for (int k = 0; k < 16; ++k) a[k] = threadIdx.x * 1e-3f + k;
#pragma unroll 16
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 16; ++k) a[k] = fmaf(a[k], 0.999999f, 1e-7f);
  }
  float s = 0;
#pragma unroll
  for (int k = 0; k < 16; ++k) s += a[k];
  if (s == 12345.0f) out[0] = s;  // never true: keeps the chains alive
}

struct Row {
  std::string section, precision, softening, form;
  int k = 0, tile = 0;
  bool potential = false;
  std::int64_t n = 0;
  Stats s;
  double slots = 0;     // issue slots per interaction (0: not applicable)
  double canary = 0;    // canary drift before this row
  int slices = 1;       // source slices (direct_gpu_tuning.hpp)
  std::int64_t targets = 0;  // a subset's size (0: every source)
};

class Bench {
 public:
  Bench(std::ostream& out, int trials, double issue_rate, std::map<std::string, double> slots, int sms)
      : out_(out), trials_(trials), issue_rate_(issue_rate), slots_(std::move(slots)), sms_(sms), canary_(65536) {
    out_ << "section,precision,softening,form,K,tile,potential,n,median_s,min_s,max_s,spread,"
            "interactions_per_s,slots_per_interaction,issue_bound_per_s,fraction_of_bound,canary_drift,slices,"
            "targets\n";
  }

  double canary_drift() {
    gravity::DirectGpuSolver<float, PlummerSoftening<float>> solver(0.01f);
    const Stats s = time_device([&] { solver.solve_device(canary_.sources(), canary_.out(), {.potential = true}); }, 5);
    if (canary_first_ == 0) canary_first_ = s.median;
    const double drift = s.median / canary_first_ - 1;
    worst_drift_ = std::max(worst_drift_, std::abs(drift));
    emit({"canary", "single", "plummer", "library", 0, 0, true, canary_.n, s, 0, drift, 1});
    return drift;
  }

  void emit(const Row& r) {
    const double inter = double(r.n) * double(r.targets > 0 ? r.targets : r.n);
    const double rate = r.s.median > 0 ? inter / r.s.median : 0;
    const double bound = r.slots > 0 ? issue_rate_ / r.slots : 0;
    char line[512];
    std::snprintf(line, sizeof line, "%s,%s,%s,%s,%d,%d,%d,%lld,%.6e,%.6e,%.6e,%.4f,%.4e,%.3f,%.4e,%.4f,%.4f,%d,%lld\n",
                  r.section.c_str(), r.precision.c_str(), r.softening.c_str(), r.form.c_str(), r.k, r.tile,
                  int(r.potential), static_cast<long long>(r.n), r.s.median, r.s.min, r.s.max, r.s.spread(), rate,
                  r.slots, bound, bound > 0 ? rate / bound : 0.0, r.canary, r.slices,
                  static_cast<long long>(r.targets));
    out_ << line << std::flush;
    std::fprintf(stderr, "%-8s %-6s %-7s %-10s K=%d T=%d S=%-2d pot=%d n=%8lld  %9.3f ms  %.3e int/s  spread %.3f%s\n",
                 r.section.c_str(), r.precision.c_str(), r.softening.c_str(), r.form.c_str(), r.k, r.tile, r.slices,
                 int(r.potential),
                 static_cast<long long>(r.n), r.s.median * 1e3, rate, r.s.spread(),
                 bound > 0 ? (" frac " + std::to_string(rate / bound)).c_str() : "");
  }

  double slots(const std::string& key) const {
    const auto it = slots_.find(key);
    return it == slots_.end() ? 0 : it->second;
  }

  template <class Pair, int K, int Tile>
  void variant(const char* form, DeviceParticles<float>& p, bool pot) {
    const double drift = canary_drift();
    rest();
    const Pair pair(PlummerSoftening<float>(0.01f));
    cuda::DeviceBuffer<typename Pair::Packed> packed(static_cast<std::size_t>(p.n));
    cuda::DeviceBuffer<float> partials;
    gravity::gpu::pack_sources(p.sources(), pair, packed.data(), nullptr);
    const auto plan = gravity::gpu::plan_for({K, Tile}, p.n, sms_);
    const auto run = [&] {
      if (pot) {
        gravity::gpu::launch_direct_fast<Pair, K, Tile, true>(packed.data(), p.sources(), pair, p.out(),
                                                                plan.per_slice, partials, nullptr);
      } else {
        gravity::gpu::launch_direct_fast<Pair, K, Tile, false>(packed.data(), p.sources(), pair, p.out(),
                                                                 plan.per_slice, partials, nullptr);
      }
    };
    const std::string key = std::string(form) + "_K" + std::to_string(K) + "_T" + std::to_string(Tile) +
                            (pot ? "_pot" : "_nopot");
    emit({"variant", "single", "plummer", form, K, Tile, pot, p.n, time_device(run, trials_), slots(key), drift,
          static_cast<int>(plan.slices())});
  }

  template <class Real, class Softening>
  void library(std::int64_t n, bool pot, int trials) {
    const double drift = canary_drift();
    rest();
    DeviceParticles<Real> p(n);
    gravity::DirectGpuSolver<Real, Softening> solver(Real(0.01));
    const Stats s = time_device([&] { solver.solve_device(p.sources(), p.out(), {.potential = pot}); }, trials);
    const auto plan = gravity::gpu::choose_fast_plan<Real>(n, sms_);
    const auto c = plan.config;
    const std::string soft(to_string(Softening::kind));
    const std::string key = (soft == "plummer" ? std::string("plain") : soft) + "_K" +
                            std::to_string(c.targets_per_thread) + "_T" + std::to_string(c.tile) + (pot ? "_pot" : "_nopot");
    emit({"library", sizeof(Real) == 4 ? "single" : "double", soft, "fast", c.targets_per_thread, c.tile, pot, n, s,
          sizeof(Real) == 4 ? slots(key) : 0, drift, static_cast<int>(plan.slices())});
  }

  /// solve_device at k random targets of n float sources (device indices), with the potential.
  void subset(std::int64_t n, std::int64_t k, MathMode mode, int trials) {
    const double drift = canary_drift();
    rest();
    DeviceParticles<float> p(n);
    const auto idx = testing::random_subset(n, k, 5);
    cuda::DeviceBuffer<std::int64_t> index(idx.size());
    index.upload(std::span<const std::int64_t>(idx));
    const auto size = static_cast<std::size_t>(k);
    cuda::DeviceBuffer<float> ax(size), ay(size), az(size), pot(size);
    const AccelerationsView<float> results{k, ax.data(), ay.data(), az.data(), pot.data()};
    gravity::DirectGpuSolver<float, PlummerSoftening<float>> solver(0.01f, mode);
    const auto set = gravity::TargetSet<float>::of_sources(k, index.data());
    const Stats s = time_device([&] { solver.solve_device(p.sources(), set, results, {.potential = true}); },
                                trials);
    const auto plan = gravity::gpu::choose_fast_plan<float>(n, sms_);
    Row r{"targets", "single", "plummer", std::string(to_string(mode)), plan.config.targets_per_thread,
          plan.config.tile, true, n, s, 0, drift, static_cast<int>(plan.slices())};
    r.targets = k;
    emit(r);
  }

  /// GPU with staging against the CPU DirectSolver, both from host arrays.
  void crossover(std::int64_t n) {
    const auto p = ic::to_precision<float>(ic::plummer_sphere(n, 7));
    Accelerations<float> a(static_cast<std::size_t>(n));
    gravity::DirectGpuSolver<float, PlummerSoftening<float>> gpu(0.01f);
    gravity::DirectSolver<float, PlummerSoftening<float>> cpu(0.01f);
    const Stats g = time_host([&] { gpu.solve(p.sources(), a.view(false), {.potential = false}); }, trials_);
    const Stats c = time_host([&] { cpu.solve(p.sources(), a.view(false), {.potential = false}); }, trials_);
    emit({"host", "single", "plummer", "gpu_staged", 0, 0, false, n, g, 0, 0, 1});
    emit({"host", "single", "plummer", "cpu_direct", 0, 0, false, n, c, 0, 0, 1});
  }

  double worst_drift() const { return worst_drift_; }

 private:
  static void rest() { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }
  std::ostream& out_;
  int trials_;
  double issue_rate_;
  std::map<std::string, double> slots_;
  int sms_;
  DeviceParticles<float> canary_;
  double canary_first_ = 0;
  double worst_drift_ = 0;
};

/// "key,value" lines (from scripts/sass_slots.py): issue slots per interaction.
std::map<std::string, double> read_slots(const std::string& path) {
  std::map<std::string, double> m;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const auto comma = line.find(',');
    if (comma == std::string::npos) continue;
    try {
      m[line.substr(0, comma)] = std::stod(line.substr(comma + 1));
    } catch (const std::exception&) {
    }
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out_path, slots_path, mode = "full";
  int trials = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--out") out_path = argv[i + 1];
    else if (a == "--slots") slots_path = argv[i + 1];
    else if (a == "--trials") trials = std::stoi(argv[i + 1]);
    else if (a == "--mode") mode = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: %s [--out FILE.csv] [--slots FILE] [--trials T] [--mode full|quick]\n", argv[0]);
      return 2;
    }
  }
  if (!cuda::device_available()) {
    std::fprintf(stderr, "gpu_direct_bench: no CUDA device\n");
    return 1;
  }
  const cuda::DeviceInfo info = cuda::device_info(0);
  std::fprintf(stderr, "device: %s, %d SMs, peak clock %.3f GHz, driver %d, runtime %d\n", info.name.c_str(),
               info.multiprocessors, info.peak_clock_ghz, info.driver_version, info.runtime_version);

  // The issue rate: FFMA instructions per second over the whole chip.
  cuda::DeviceBuffer<float> sink(1);
  const int blocks = info.multiprocessors * 8, threads = 256, iters = 1 << 16;
  const Stats f = time_device(
      [&] {
        ffma_kernel<<<blocks, threads>>>(sink.data(), iters);
        ORRERY_CUDA_CHECK_LAUNCH("ffma_kernel");
      },
      trials);
  const double ffma_per_s = double(blocks) * threads * iters * 16 / f.median;
  const double peak_issue = double(info.multiprocessors) * 4 * 32 * info.peak_clock_ghz * 1e9;
  std::fprintf(stderr, "FFMA rate %.4e lane-instr/s (%.1f TFLOP/s) = %.3f of the issue bound at the peak clock, "
               "%.4e (SMs x 4 schedulers x 32 lanes x %.3f GHz)\n", ffma_per_s, 2 * ffma_per_s * 1e-12,
               ffma_per_s / peak_issue, peak_issue, info.peak_clock_ghz);

  std::ofstream file;
  if (!out_path.empty()) file.open(out_path);
  std::ostream& out = out_path.empty() ? static_cast<std::ostream&>(std::cout) : file;
  Bench bench(out, trials, peak_issue, read_slots(slots_path), info.multiprocessors);
  {
    out << "ceiling,single,-,ffma,0,0,0,0," << f.median << ",0,0,0," << ffma_per_s << ",1," << peak_issue << ","
        << ffma_per_s / peak_issue << ",0,1\n";
  }

  const bool quick = mode == "quick";
  {
    DeviceParticles<float> p(262144);
    for (bool pot : {true, false}) {
      bench.variant<PlummerPlainPair<float>, 1, 128>("plain", p, pot);
      bench.variant<PlummerPlainPair<float>, 2, 256>("plain", p, pot);
      bench.variant<PlummerPlainPair<float>, 4, 256>("plain", p, pot);
      bench.variant<PlummerPlainPair<float>, 4, 128>("plain", p, pot);
      bench.variant<PlummerPlainPair<float>, 8, 128>("plain", p, pot);
      bench.variant<PlummerScaledPair<float>, 4, 256>("scaled", p, pot);
      bench.variant<PlummerScaledPair<float>, 8, 128>("scaled", p, pot);
    }
  }
  std::vector<std::int64_t> sizes = {1024, 4096, 16384, 65536, 262144, 1048576};
  if (quick) sizes = {1024, 16384, 262144};
  for (const auto n : sizes) {
    const int t = n >= 1048576 ? std::max(3, trials / 2) : trials;
    for (bool pot : {true, false}) bench.library<float, PlummerSoftening<float>>(n, pot, t);
  }
  for (const auto n : sizes) {
    if (n > 262144 && quick) continue;
    const int t = n >= 1048576 ? 3 : trials;
    for (bool pot : {true, false}) bench.library<double, PlummerSoftening<double>>(n, pot, t);
  }
  bench.library<float, SplineSoftening<float>>(262144, true, trials);
  bench.library<double, SplineSoftening<double>>(65536, true, trials);
  for (const std::int64_t n : {256, 512, 1024, 2048, 4096, 8192, 16384}) bench.crossover(n);
  {
    const std::int64_t n = quick ? 262144 : 1048576;
    bench.library<float, PlummerSoftening<float>>(n, true, 3);  // the all-targets row the subsets compare with
    for (const double share : {0.001, 0.01, 0.1, 0.5, 1.0})
      bench.subset(n, std::max<std::int64_t>(1, static_cast<std::int64_t>(share * double(n))), MathMode::fast, 3);
    bench.subset(n, n / 100, MathMode::exact, 3);
  }
  bench.canary_drift();
  std::fprintf(stderr, "worst canary drift %.2f %%\n", 100 * bench.worst_drift());
  return 0;
}
