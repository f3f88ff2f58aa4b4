// A host model of the GPU's coherent walk (bh/tree_walk_gpu_kernels.cuh,
// W = 32): it replays the warp's loop for groups of 32 consecutive targets of
// a walk order and counts what the kernel would do per warp: the steps (the
// union of the lanes' walks, one node each), the steps where some lane
// accepts the node (the cell term, evaluated by every lane behind a vote),
// the leaf steps where some lane sums the leaf and the particles the warp
// then iterates; and per target its own walk's nodes and the terms it keeps.
// Issue 21's inputs and configurations (gpu_tree_bench's `rate` table: the
// same generators and seeds), the tree and the relative scales from the CPU
// solver (the GPU's bits). Compares the tree's key order with the leaves'
// Hilbert order (bh/leaf_order.hpp; GpuTreeSolverConfig::warp_order), and writes an
// estimate of warp instructions per warp from per-step costs read off the
// walk's SASS (docs/performance/gpu_tree.md, "Warps in Hilbert order").
//
// usage: coherent_walk_model [--models cube,plummer,hernquist] [--stride 64] [--leaf 32] [--out coherent_walk_model.csv]
//   --stride S   model every S-th warp (1: all; the counts are per warp, so a sample suffices)
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "orrery/bh/leaf_order.hpp"
#include "orrery/bh/opening.hpp"
#include "orrery/core/error.hpp"
#include "orrery/gravity/tree_solver.hpp"
#include "orrery/ic/hernquist.hpp"
#include "orrery/ic/plummer.hpp"
#include "orrery/ic/uniform_cube.hpp"

namespace {

using namespace orrery;
using Real = float;
constexpr int kWarp = 32;

// Warp instructions of the relative quadrupole walk's parts (52a9619's SASS,
// gpu_tree.md "Instructions per step", and the leaf loop): a step's common
// path without the cell term, the cell term, a particle of a leaf chunk and a
// chunk's staging. An estimate for comparing orders, not a measurement.
constexpr double kStep = 40, kCellTerm = 37, kLeafParticle = 21, kLeafStep = 12;

struct WarpCounts {
  double warps = 0, steps = 0, accept_steps = 0, cells = 0, leaf_steps = 0, leaf_particles = 0, kept_particles = 0,
         own_nodes = 0;
  double per_warp(double v) const { return v / warps; }
  double per_target(double v) const { return v / (warps * kWarp); }
  double instructions() const {
    return per_warp(steps * kStep + accept_steps * kCellTerm + leaf_particles * kLeafParticle + leaf_steps * kLeafStep);
  }
};

/// The coherent walk's loop (coherent_walk's) over the warps of `order`
/// (sorted source indices), every stride-th warp.
template <class Criterion>
WarpCounts replay(const bh::OctreeView<Real>& t, const std::vector<Real>& scale, const std::vector<std::int32_t>& order,
                  std::int64_t stride) {
  WarpCounts w;
  const auto n = static_cast<std::int64_t>(order.size());
  for (std::int64_t first = 0; first + kWarp <= n; first += kWarp * stride) {
    std::int32_t want[kWarp], self[kWarp];
    for (int l = 0; l < kWarp; ++l) {
      want[l] = 0;
      self[l] = order[static_cast<std::size_t>(first + l)];
    }
    ++w.warps;
    for (std::int32_t node = 0; node < t.num_nodes; node = *std::min_element(want, want + kWarp)) {
      ++w.steps;
      const bool leaf = t.next[node] == node + 1;
      int accepted = 0, summed = 0;
      for (int l = 0; l < kWarp; ++l) {
        const std::int32_t i = self[l];
        const bool mine = want[l] == node;
        const bool far = bh::accepts_node<Criterion>(t.com_x[node], t.com_y[node], t.com_z[node], t.crit2[node],
                                                     t.crit_rel != nullptr ? t.crit_rel[node] : Real(0), scale[i],
                                                     t.cap2, t.first[node], t.count[node], i, t.x[i], t.y[i], t.z[i]);
        const bool accept = mine && far;
        accepted += accept;
        summed += mine && !accept && leaf;
        w.own_nodes += mine;
        if (mine) want[l] = accept || leaf ? t.next[node] : node + 1;
      }
      w.accept_steps += accepted > 0;
      w.cells += accepted;
      if (summed > 0) {
        ++w.leaf_steps;
        w.leaf_particles += t.count[node];
        w.kept_particles += double(summed) * t.count[node];
      }
    }
  }
  return w;
}

struct ModelCase {
  std::string model;
  bh::TreeSolverConfig config;
};

Particles<double> distribution(const std::string& model) {
  if (model == "cube") return ic::uniform_cube((std::int64_t(1) << 20) - 1, 20261221, 3.0);
  if (model == "hernquist") return ic::hernquist_sphere(std::int64_t(1) << 20, 20261223);
  if (model == "plummer") return ic::plummer_sphere(std::int64_t(1) << 20, 20261222);
  throw InputError("coherent_walk_model: unknown model '" + model + "'; accepted: cube, plummer, hernquist");
}

/// Issue 21's fastest own-walk configuration of each input that meets its
/// accuracy (gpu_tree.md's `rate` table): quadrupole, leaf 32 (or `leaf`), relative.
bh::TreeSolverConfig issue21_config(const std::string& model, int leaf) {
  bh::TreeSolverConfig c;
  c.tree.multipole = bh::Multipole::quadrupole;
  c.tree.leaf_capacity = leaf;
  c.tree.opening = bh::Opening::relative;
  c.tree.theta = 1.0;
  c.softening = model == "cube" ? 0.17 : 0.05;
  c.tree.tolerance = model == "cube" ? 0.004 : 0.002;
  c.tree.relative_cap = model == "cube" ? 0.55 : 0.5;
  return c;
}

void run(const std::string& model, std::int64_t stride, int leaf, std::ofstream& csv) {
  const Particles<double> pd = distribution(model);
  const std::int64_t n = pd.size();
  Particles<Real> p(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    p.x[i] = Real(pd.x[i]);
    p.y[i] = Real(pd.y[i]);
    p.z[i] = Real(pd.z[i]);
    p.mass[i] = Real(pd.mass[i]);
  }
  const bh::TreeSolverConfig c = issue21_config(model, leaf);
  gravity::TreeSolver<Real> solver(c);
  Accelerations<Real> a(static_cast<std::size_t>(n));
  gravity::SolveOptions first;
  first.potential = false;
  solver.solve(p.sources(), a.view(), first);  // a_old: the bootstrap and one relative walk
  const bh::Octree<Real>& tree = solver.last_tree();
  const bh::OctreeView<Real> t = tree.view();
  // The steady state's scales (tree_solver.cpp's relative_scales), in sorted order.
  double largest = 0;
  for (std::int64_t i = 0; i < n; ++i) largest = std::max(largest, bh::acceleration_magnitude(a.ax[i], a.ay[i], a.az[i]));
  const double floor = bh::relative_floor(largest);
  std::vector<Real> scale(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) {
    const auto j = static_cast<std::size_t>(tree.order[static_cast<std::size_t>(k)]);
    scale[static_cast<std::size_t>(k)] = bh::relative_scale(a.ax[j], a.ay[j], a.az[j], floor);
  }
  std::vector<std::int32_t> key_order(static_cast<std::size_t>(n));
  std::iota(key_order.begin(), key_order.end(), 0);
  for (const auto& [name, order] : {std::pair{"tree", key_order}, std::pair{"hilbert", bh::hilbert_leaf_order(t)}}) {
    const WarpCounts w = replay<bh::RelativeOpening>(t, scale, order, stride);
    std::printf("%-9s %-7s warps %6.0f  steps %7.1f (any accept %7.1f, leaf %5.1f)  own nodes %7.1f  cells %6.1f  "
                "leaf particles %6.1f (kept %5.1f per target)  est. instructions %6.0f per warp\n",
                model.c_str(), name, w.warps, w.per_warp(w.steps), w.per_warp(w.accept_steps),
                w.per_warp(w.leaf_steps), w.per_target(w.own_nodes), w.per_target(w.cells),
                w.per_warp(w.leaf_particles), w.per_target(w.kept_particles), w.instructions());
    csv << model << ',' << n << ',' << leaf << ',' << c.tree.tolerance << ',' << c.tree.relative_cap << ',' << name << ',' << stride
        << ',' << w.warps << ',' << w.per_warp(w.steps) << ',' << w.per_warp(w.accept_steps) << ','
        << w.per_warp(w.leaf_steps) << ',' << w.per_warp(w.leaf_particles) << ',' << w.per_target(w.own_nodes) << ','
        << w.per_target(w.cells) << ',' << w.per_target(w.kept_particles) << ',' << w.instructions() << '\n';
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string models = "cube,plummer,hernquist", out = "coherent_walk_model.csv";
  std::int64_t stride = 64;
  int leaf = 32;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--models") models = v;
    else if (k == "--stride") stride = std::stoll(v);
    else if (k == "--out") out = v;
    else if (k == "--leaf") leaf = std::stoi(v);
    else {
      std::fprintf(stderr, "coherent_walk_model: unknown option %s; accepted: --models, --stride, --leaf, --out\n", k.c_str());
      return 2;
    }
  }
  if (leaf < 1) {
    std::fprintf(stderr, "coherent_walk_model: --leaf %d; accepted: 1 or more\n", leaf);
    return 2;
  }
  if (stride < 1) {
    std::fprintf(stderr, "coherent_walk_model: --stride %lld; accepted: 1 or more\n", (long long)stride);
    return 2;
  }
  try {
    std::ofstream csv(out);
    csv << "model,n,leaf_capacity,tolerance,relative_cap,order,stride,warps,steps_pw,accept_steps_pw,leaf_steps_pw,"
           "leaf_particles_pw,own_nodes_pt,cells_pt,kept_particles_pt,est_instructions_pw\n";
    for (std::size_t at = 0; at <= models.size();) {
      const std::size_t end = std::min(models.find(',', at), models.size());
      if (end > at) run(models.substr(at, end - at), stride, leaf, csv);
      at = end + 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "coherent_walk_model: %s\n", e.what());
    return 1;
  }
  return 0;
}
