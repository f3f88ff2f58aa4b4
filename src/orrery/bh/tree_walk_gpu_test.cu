// The GPU walks against the CPU walk, on a device copy of the very tree the
// CPU walked (the device build is tested apart, in octree_gpu_test.cu):
// contract 2 (counters equal) and contract 1 (the same terms in the same
// order: exact-mode bits equal, and every traversal and width equal bitwise).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "orrery/core/error.hpp"
#include "orrery/cuda/device.hpp"
#include "support/tree_gpu_test_support.hpp"

namespace orrery::bh {
namespace {

using testing::all_walks;
using testing::cpu_walk;
using testing::first_bit_difference;
using testing::first_difference;
using testing::gpu_walk;
using testing::WalkResults;

#define SKIP_WITHOUT_GPU() \
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device"

std::string label(const std::string& input, const GpuWalkParams& p, bh::Multipole mp) {
  return input + " " + std::string(to_string(p.traversal)) + " W=" + std::to_string(p.group_width) + " " +
         std::string(bh::to_string(mp)) + " " + std::string(to_string(p.math)) + " " +
         std::string(to_string(p.softening_kind));
}

std::vector<testing::NamedInput> all_inputs() {
  auto v = testing::structured_inputs();
  v.push_back({"uniform_6000", testing::uniform_cube(6000, 21)});
  v.push_back({"plummer_6000", testing::plummer(6000, 22)});
  return v;
}

// Counters equal the CPU's; accelerations and potentials equal the CPU's
// bit for bit (exact mode) for every traversal and width.
void expect_same_as_cpu(const std::string& name, const Particles<float>& p, const bh::TreeSolverConfig& c) {
  const auto tc = testing::prepare(p, c);
  const WalkResults<float>& cpu = tc.cpu;
  const auto own = testing::own_visits(tc.tree);
  for (const GpuWalkParams& w : all_walks(c)) {
    const std::string what = label(name, w, c.tree.multipole);
    const WalkResults<float> gpu = gpu_walk(tc.device, w);
    EXPECT_EQ(first_difference(gpu.cells, cpu.cells), -1) << what << ": particle-cell counts differ";
    EXPECT_EQ(first_difference(gpu.particles, cpu.particles), -1) << what << ": particle-particle counts differ";
    if (w.traversal == Traversal::independent) {
      EXPECT_EQ(first_difference(gpu.visits, own), -1) << what << ": node visits differ from walk_target's";
    } else {
      for (std::size_t i = 0; i < own.size(); ++i)
        ASSERT_GE(gpu.visits[i], own[i]) << what << ": a group visited fewer nodes than target " << i << " needs";
    }
    if (c.math == MathMode::exact) {
      EXPECT_EQ(first_bit_difference(gpu.ax, cpu.ax), -1) << what << ": ax bits differ";
      EXPECT_EQ(first_bit_difference(gpu.ay, cpu.ay), -1) << what << ": ay bits differ";
      EXPECT_EQ(first_bit_difference(gpu.az, cpu.az), -1) << what << ": az bits differ";
      EXPECT_EQ(first_bit_difference(gpu.pot, cpu.pot), -1) << what << ": potential bits differ";
    }
  }
}

TEST(GpuTreeWalk, ExactModeEqualsCpuBitwiseOnEveryInputTraversalAndWidth) {
  SKIP_WITHOUT_GPU();
  for (const auto& in : all_inputs()) {
    for (auto mp : {bh::Multipole::monopole, bh::Multipole::quadrupole}) {
      bh::TreeSolverConfig c;
      c.tree.multipole = mp;
      c.math = MathMode::exact;
      expect_same_as_cpu(in.name, in.particles, c);
    }
  }
}

TEST(GpuTreeWalk, SplineSofteningAndOtherParametersExactBitsEqualCpu) {
  SKIP_WITHOUT_GPU();
  const auto p = testing::plummer(3000, 23);
  for (auto mp : {bh::Multipole::monopole, bh::Multipole::quadrupole}) {
    bh::TreeSolverConfig c;
    c.tree.multipole = mp;
    c.tree.theta = 0.8;
    c.tree.leaf_capacity = 40;  // leaves wider than a group of 8, 16 or 32: several chunks
    c.softening = 0.02;
    c.softening_kind = SofteningKind::spline;
    c.math = MathMode::exact;
    expect_same_as_cpu("plummer_3000_spline_cap40", p, c);
  }
}

double max_relative_difference(const WalkResults<float>& a, const WalkResults<float>& b) {
  // Relative to |a_i| plus 1 % of the RMS, so targets near the centre, where
  // the field nearly cancels, are judged by the scale of their terms.
  const std::size_t n = a.ax.size();
  double rms = 0;
  for (std::size_t i = 0; i < n; ++i) rms += double(b.ax[i]) * b.ax[i] + double(b.ay[i]) * b.ay[i] + double(b.az[i]) * b.az[i];
  rms = std::sqrt(rms / double(n));
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double dx = double(a.ax[i]) - b.ax[i], dy = double(a.ay[i]) - b.ay[i], dz = double(a.az[i]) - b.az[i];
    const double mag = std::sqrt(double(b.ax[i]) * b.ax[i] + double(b.ay[i]) * b.ay[i] + double(b.az[i]) * b.az[i]);
    worst = std::max(worst, std::sqrt(dx * dx + dy * dy + dz * dz) / (mag + 0.01 * rms));
  }
  return worst;
}

TEST(GpuTreeWalk, FastModeAgreesWithCpuToRoundingAndAllWalksAgreeBitwise) {
  SKIP_WITHOUT_GPU();
  const auto p = testing::plummer(20000, 24);
  for (auto mp : {bh::Multipole::monopole, bh::Multipole::quadrupole}) {
    bh::TreeSolverConfig c;
    c.tree.multipole = mp;
    c.math = MathMode::fast;
    const auto tc = testing::prepare(p, c);
    const WalkResults<float>& cpu = tc.cpu;
    const auto walks = all_walks(c);
    const WalkResults<float> first = gpu_walk(tc.device, walks.front());
    for (const GpuWalkParams& w : walks) {
      const std::string what = label("plummer_20000", w, mp);
      const WalkResults<float> gpu = gpu_walk(tc.device, w);
      EXPECT_EQ(first_difference(gpu.cells, cpu.cells), -1) << what;
      EXPECT_EQ(first_difference(gpu.particles, cpu.particles), -1) << what;
      EXPECT_EQ(first_bit_difference(gpu.ax, first.ax), -1) << what << " vs the independent walk";
      EXPECT_EQ(first_bit_difference(gpu.ay, first.ay), -1) << what << " vs the independent walk";
      EXPECT_EQ(first_bit_difference(gpu.az, first.az), -1) << what << " vs the independent walk";
      EXPECT_EQ(first_bit_difference(gpu.pot, first.pot), -1) << what << " vs the independent walk";
      EXPECT_LT(max_relative_difference(gpu, cpu), 1e-4) << what << " vs the CPU";
    }
  }
}

TEST(GpuTreeWalk, WithoutPotentialTheAccelerationBitsAreUnchanged) {
  SKIP_WITHOUT_GPU();
  const auto p = testing::uniform_cube(4000, 25);
  bh::TreeSolverConfig c;
  c.math = MathMode::exact;
  const auto tc = testing::prepare(p, c);
  const auto n = tc.tree.x.size();
  cuda::DeviceBuffer<float> a[3] = {cuda::DeviceBuffer<float>(n), cuda::DeviceBuffer<float>(n), cuda::DeviceBuffer<float>(n)};
  GpuWalkParams w{Traversal::coherent, 16, c.math, c.softening_kind, c.softening, false};
  walk_tree_gpu(tc.device.view(), w, DeviceWalkTargets<float>{a[0].data(), a[1].data(), a[2].data()}, nullptr);
  cuda::synchronize(nullptr);
  std::vector<float> ax(n);
  a[0].download(std::span<float>(ax));
  EXPECT_EQ(first_bit_difference(ax, tc.cpu.ax), -1);
}

TEST(GpuTreeWalk, DoublePrecisionExactBitsEqualCpu) {
  SKIP_WITHOUT_GPU();
  const auto p = testing::to_double(testing::plummer(3000, 26));
  for (auto mp : {bh::Multipole::monopole, bh::Multipole::quadrupole}) {
    bh::TreeSolverConfig c;
    c.tree.multipole = mp;
    c.math = MathMode::exact;
    const auto tc = testing::prepare(p, c);
    const WalkResults<double>& cpu = tc.cpu;
    for (const GpuWalkParams& w : all_walks(c)) {
      const std::string what = label("plummer_3000_double", w, mp);
      const WalkResults<double> gpu = gpu_walk(tc.device, w);
      EXPECT_EQ(first_difference(gpu.cells, cpu.cells), -1) << what;
      EXPECT_EQ(first_difference(gpu.particles, cpu.particles), -1) << what;
      EXPECT_EQ(first_bit_difference(gpu.ax, cpu.ax), -1) << what;
      EXPECT_EQ(first_bit_difference(gpu.pot, cpu.pot), -1) << what;
    }
  }
}

// The relative opening (docs/adr/0007): counters and exact-mode bits equal
// walk_target's with the same scales, for every traversal and width. The
// scales come from a geometric evaluation, with a few targets at zero
// acceleration (the largest scale: only massless cells accepted) and a few
// at scale 0 (the bootstrap's geometric test), so every path of the test runs.
template <bh::Multipole M>
void expect_relative_same_as_reference(const std::string& name, const Particles<float>& p) {
  bh::TreeSolverConfig c;
  c.tree.multipole = M;
  c.tree.opening = bh::Opening::relative;
  c.tree.theta = 1.0;
  c.tree.tolerance = 0.004;
  c.math = MathMode::exact;
  const auto tree = bh::build_octree(p.sources(), c.tree);
  ASSERT_FALSE(tree.crit_rel.empty());
  const std::size_t n = tree.x.size();
  const WalkResults<float> geometric = testing::reference_walk<M, MathMode::exact>(tree, c, std::vector<float>(n));
  std::vector<float> scale(n);
  for (std::size_t i = 0; i < n; ++i) scale[i] = relative_scale(geometric.ax[i], geometric.ay[i], geometric.az[i]);
  for (std::size_t i = 0; i < n; i += 97) scale[i] = relative_scale(0.0f, 0.0f, 0.0f);
  for (std::size_t i = 50; i < n; i += 101) scale[i] = 0.0f;
  const WalkResults<float> ref = testing::reference_walk<M, MathMode::exact>(tree, c, scale);
  std::uint64_t cells = 0, geometric_cells = 0;
  for (std::size_t i = 0; i < n; ++i) cells += ref.cells[i], geometric_cells += geometric.cells[i];
  // The relative test only adds a condition: cells it refuses are opened
  // into more, smaller ones.
  ASSERT_GT(cells, geometric_cells) << name << ": the relative test opened nothing more: the scales are not used";
  DeviceTreeCopy<float> device;
  device.upload(tree);
  for (const GpuWalkParams& w : all_walks(c)) {
    const std::string what = label(name + " relative", w, c.tree.multipole);
    const WalkResults<float> gpu = gpu_walk(device, w, &scale);
    EXPECT_EQ(first_difference(gpu.cells, ref.cells), -1) << what << ": particle-cell counts differ";
    EXPECT_EQ(first_difference(gpu.particles, ref.particles), -1) << what << ": particle-particle counts differ";
    if (w.traversal == Traversal::independent)
      EXPECT_EQ(first_difference(gpu.visits, ref.visits), -1) << what << ": node visits differ";
    EXPECT_EQ(first_bit_difference(gpu.ax, ref.ax), -1) << what << ": ax bits differ";
    EXPECT_EQ(first_bit_difference(gpu.ay, ref.ay), -1) << what << ": ay bits differ";
    EXPECT_EQ(first_bit_difference(gpu.az, ref.az), -1) << what << ": az bits differ";
    EXPECT_EQ(first_bit_difference(gpu.pot, ref.pot), -1) << what << ": potential bits differ";
  }
  // No scales on a relative tree: the bootstrap, i.e. the geometric walk.
  const WalkResults<float> boot = gpu_walk(device, {Traversal::coherent, 32, c.math, c.softening_kind, c.softening, true});
  EXPECT_EQ(first_difference(boot.cells, geometric.cells), -1) << name << ": bootstrap cells";
  EXPECT_EQ(first_bit_difference(boot.ax, geometric.ax), -1) << name << ": bootstrap ax";
}

TEST(GpuTreeWalk, RelativeOpeningExactBitsEqualWalkTargetOnEveryTraversalAndWidth) {
  SKIP_WITHOUT_GPU();
  const auto p = testing::plummer(6000, 27);
  const auto u = testing::uniform_cube(5000, 28);
  expect_relative_same_as_reference<bh::Multipole::monopole>("plummer_6000", p);
  expect_relative_same_as_reference<bh::Multipole::quadrupole>("plummer_6000", p);
  expect_relative_same_as_reference<bh::Multipole::quadrupole>("uniform_5000", u);
}

// Orders 3 and 4 (docs/adr/0016): the same contracts as the monopole and
// the quadrupole above (every input, traversal and width; spline softening
// and wide leaves; double; the relative opening), their cell terms the
// shared add_cell_terms_high.
TEST(GpuTreeWalk, OctupoleAndHexadecapoleExactBitsEqualCpu) {
  SKIP_WITHOUT_GPU();
  for (auto mp : {bh::Multipole::octupole, bh::Multipole::hexadecapole}) {
    for (const auto& in : all_inputs()) {
      bh::TreeSolverConfig c;
      c.tree.multipole = mp;
      c.math = MathMode::exact;
      expect_same_as_cpu(in.name, in.particles, c);
    }
    bh::TreeSolverConfig s;
    s.tree = {0.8, 40, mp};
    s.softening = 0.02;
    s.softening_kind = SofteningKind::spline;
    s.math = MathMode::exact;
    expect_same_as_cpu("plummer_3000_spline_cap40", testing::plummer(3000, 23), s);
    bh::TreeSolverConfig d;
    d.tree.multipole = mp;
    d.math = MathMode::exact;
    const auto tc = testing::prepare(testing::to_double(testing::plummer(3000, 26)), d);
    for (const GpuWalkParams& w : all_walks(d)) {
      const std::string what = label("plummer_3000_double", w, mp);
      const WalkResults<double> gpu = gpu_walk(tc.device, w);
      EXPECT_EQ(first_difference(gpu.cells, tc.cpu.cells), -1) << what;
      EXPECT_EQ(first_bit_difference(gpu.ax, tc.cpu.ax), -1) << what;
      EXPECT_EQ(first_bit_difference(gpu.pot, tc.cpu.pot), -1) << what;
    }
  }
  expect_relative_same_as_reference<bh::Multipole::octupole>("plummer_6000", testing::plummer(6000, 27));
  expect_relative_same_as_reference<bh::Multipole::hexadecapole>("uniform_5000", testing::uniform_cube(5000, 28));
}

// Group opening (docs/adr/0017): the warp-wide walk's counters equal the
// CPU's walk_group_opening, its exact-mode bits too, on every input, both
// expansions and openings, float and double, every source and subsets
// (the groups are the targets' own, 32 at a time), with spline softening
// and leaves wider than a warp.
template <class Real>
WalkResults<Real> cpu_group_walk(const bh::Octree<Real>& tree, bh::TreeSolverConfig c, const std::vector<Real>* scale,
                                 int most) {
  c.tree.group_opening = most;
  const std::size_t n = tree.x.size();
  WalkResults<Real> r(n);
  std::vector<InteractionCounts> pt(n);
  bh::walk_all(tree, c, true, r.ax.data(), r.ay.data(), r.az.data(), r.pot.data(), pt.data(),
               scale != nullptr ? scale->data() : nullptr);
  for (std::size_t i = 0; i < n; ++i) {
    r.visits[i] = static_cast<std::uint32_t>(pt[i].node_visits);
    r.cells[i] = static_cast<std::uint32_t>(pt[i].cell_interactions);
    r.particles[i] = static_cast<std::uint32_t>(pt[i].particle_interactions);
  }
  return r;
}

GpuWalkParams group_params(const bh::TreeSolverConfig& c, int most = kOpeningGroup) {
  GpuWalkParams w{Traversal::coherent, 32, c.math, c.softening_kind, c.softening, true};
  w.group_opening = most;
  return w;
}

template <class Real>
void expect_group_same_as_cpu(const std::string& name, const Particles<Real>& p, const bh::TreeSolverConfig& c,
                              int most = kOpeningGroup) {
  const auto tree = bh::build_octree(p.sources(), c.tree);
  std::vector<Real> scale;
  if (!tree.crit_rel.empty()) {  // scales of a real evaluation, a few at 0 (the geometric test)
    const WalkResults<Real> first = testing::cpu_walk(tree, c);
    for (std::size_t i = 0; i < first.ax.size(); ++i)
      scale.push_back(i % 17 == 3 ? Real(0) : relative_scale(first.ax[i], first.ay[i], first.az[i]));
  }
  const std::vector<Real>* s = scale.empty() ? nullptr : &scale;
  const WalkResults<Real> cpu = cpu_group_walk(tree, c, s, most);
  DeviceTreeCopy<Real> device;
  device.upload(tree);
  const WalkResults<Real> gpu = gpu_walk(device, group_params(c, most), s);
  const std::string what = name + " group opening " + std::to_string(most) + " " + std::string(bh::to_string(c.tree.multipole)) + " " +
                           std::string(to_string(c.tree.opening)) + " " + std::string(to_string(c.math));
  // A warp walks the union of its groups' walks: at least each group's steps.
  for (std::size_t i = 0; i < cpu.visits.size(); ++i)
    ASSERT_GE(gpu.visits[i], cpu.visits[i]) << what << ": the warp took fewer steps than target " << i << "'s group";
  EXPECT_EQ(first_difference(gpu.cells, cpu.cells), -1) << what << ": particle-cell counts differ";
  EXPECT_EQ(first_difference(gpu.particles, cpu.particles), -1) << what << ": particle-particle counts differ";
  if (c.math == MathMode::exact) {
    EXPECT_EQ(first_bit_difference(gpu.ax, cpu.ax), -1) << what << ": ax bits differ";
    EXPECT_EQ(first_bit_difference(gpu.ay, cpu.ay), -1) << what << ": ay bits differ";
    EXPECT_EQ(first_bit_difference(gpu.az, cpu.az), -1) << what << ": az bits differ";
    EXPECT_EQ(first_bit_difference(gpu.pot, cpu.pot), -1) << what << ": potential bits differ";
  }
}

bh::TreeSolverConfig d_float_relative() {
  bh::TreeSolverConfig c;
  c.tree.multipole = bh::Multipole::quadrupole;
  c.tree.opening = bh::Opening::relative;
  c.tree.tolerance = 0.004;
  c.math = MathMode::exact;
  return c;
}

TEST(GpuTreeWalk, GroupOpeningEqualsCpuOnEveryInput) {
  SKIP_WITHOUT_GPU();
  for (const auto& in : all_inputs()) {
    for (auto mp : {bh::Multipole::monopole, bh::Multipole::quadrupole}) {
      for (auto opening : {bh::Opening::geometric, bh::Opening::relative}) {
        for (auto mode : {MathMode::exact, MathMode::fast}) {
          bh::TreeSolverConfig c;
          c.tree.multipole = mp;
          c.tree.opening = opening;
          c.tree.tolerance = 0.004;
          c.math = mode;
          expect_group_same_as_cpu(in.name, in.particles, c);
        }
      }
    }
  }
  bh::TreeSolverConfig s;
  s.tree = {0.8, 40, bh::Multipole::quadrupole};
  s.softening = 0.02;
  s.softening_kind = SofteningKind::spline;
  s.math = MathMode::exact;
  expect_group_same_as_cpu("plummer_3000_spline_cap40", testing::plummer(3000, 23), s);
  bh::TreeSolverConfig d;
  d.tree.multipole = bh::Multipole::quadrupole;
  d.tree.opening = bh::Opening::relative;
  d.math = MathMode::exact;
  expect_group_same_as_cpu("plummer_3000_double", testing::to_double(testing::plummer(3000, 26)), d);
  // Group cells of up to 256 particles: groups of whole blocks of 32 more often.
  for (const auto& in : all_inputs()) expect_group_same_as_cpu(in.name, in.particles, d_float_relative(), 256);
}

TEST(GpuTreeWalk, GroupOpeningOnASubsetEqualsCpu) {
  SKIP_WITHOUT_GPU();
  const auto p = testing::plummer(6000, 29);
  bh::TreeSolverConfig c;
  c.tree.multipole = bh::Multipole::quadrupole;
  c.tree.group_opening = kOpeningGroup;
  c.math = MathMode::exact;
  const auto tree = bh::build_octree(p.sources(), c.tree);
  std::vector<std::int32_t> subset;
  for (std::int32_t i = 0; i < std::int32_t(tree.x.size()); i += 5) subset.push_back(i);
  const auto m = subset.size();
  std::vector<float> cpu[4] = {std::vector<float>(m), std::vector<float>(m), std::vector<float>(m), std::vector<float>(m)};
  std::vector<InteractionCounts> counts(m);
  const WalkTargets<float> host_targets{std::int32_t(m), subset.data()};
  bh::walk_targets(tree, host_targets, c, true, cpu[0].data(), cpu[1].data(), cpu[2].data(), cpu[3].data(), counts.data());
  DeviceTreeCopy<float> device;
  device.upload(tree);
  cuda::DeviceBuffer<std::int32_t> dsub(m);
  dsub.upload(std::span<const std::int32_t>(subset));
  cuda::DeviceBuffer<float> a[4] = {cuda::DeviceBuffer<float>(m), cuda::DeviceBuffer<float>(m),
                                    cuda::DeviceBuffer<float>(m), cuda::DeviceBuffer<float>(m)};
  cuda::DeviceBuffer<std::uint32_t> cells(m);
  walk_tree_gpu(device.view(), WalkTargets<float>{std::int32_t(m), dsub.data()}, group_params(c),
                DeviceWalkTargets<float>{a[0].data(), a[1].data(), a[2].data(), a[3].data(), nullptr, cells.data()},
                nullptr);
  cuda::synchronize(nullptr);
  for (int k = 0; k < 4; ++k) {
    std::vector<float> g(m);
    a[k].download(std::span<float>(g));
    EXPECT_EQ(first_bit_difference(g, cpu[k]), -1) << "component " << k;
  }
  std::vector<std::uint32_t> gc(m), cc(m);
  cells.download(std::span<std::uint32_t>(gc));
  for (std::size_t i = 0; i < m; ++i) cc[i] = static_cast<std::uint32_t>(counts[i].cell_interactions);
  EXPECT_EQ(first_difference(gc, cc), -1);
}

TEST(GpuTreeWalk, GroupOpeningRefusesOtherTraversalsWidthsAndLanes) {
  // Validated before anything touches a device: runs without a GPU too.
  GpuWalkParams w{Traversal::coherent, 16, MathMode::fast, SofteningKind::plummer, 0.05, true};
  w.group_opening = kOpeningGroup;
  const auto refused = [](const GpuWalkParams& p) {
    try {
      walk_tree_gpu(bh::OctreeView<float>{}, p, DeviceWalkTargets<float>{}, nullptr);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no InputError");
  };
  EXPECT_NE(refused(w).find("gravity.group_width = 32"), std::string::npos) << refused(w);
  w.group_width = 32;
  w.traversal = Traversal::independent;
  EXPECT_NE(refused(w).find("gravity.traversal = \"coherent\""), std::string::npos) << refused(w);
  w.traversal = Traversal::coherent;
  w.target_lanes = 4;
  EXPECT_NE(refused(w).find("4 lanes"), std::string::npos) << refused(w);
  w.target_lanes = 1;
  w.group_opening = 48;
  EXPECT_NE(refused(w).find("gravity.group_opening = 48"), std::string::npos) << refused(w);
}

TEST(GpuTreeWalk, RejectsAGroupWidthItIsNotBuiltFor) {
  // Validated before anything touches a device: runs without a GPU too.
  const GpuWalkParams w{Traversal::coherent, 12, MathMode::fast, SofteningKind::plummer, 0.05, true};
  try {
    walk_tree_gpu(bh::OctreeView<float>{}, w, DeviceWalkTargets<float>{}, nullptr);
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("gravity.group_width = 12"), std::string::npos) << m;
    EXPECT_NE(m.find("8, 16, 32, 64"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace orrery::bh
