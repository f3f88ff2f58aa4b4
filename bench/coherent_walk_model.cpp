// A host model of the GPU's coherent walk (bh/tree_walk_gpu_kernels.cuh):
// it replays the loop of a group of W consecutive targets of a walk order (W
// = 32, a warp; 16 or 8 to compare) and counts what the kernel would do per
// group: the steps (the union of the lanes' walks, one node each), the steps
// where some lane accepts the node (the cell term, evaluated by every lane
// behind a vote), the leaf steps where some lane sums the leaf and the
// particles the group then iterates; and per target its own walk's nodes and
// the terms it keeps. Issue 21's inputs (issue21_inputs.hpp) and its fastest
// own-walk configurations, the tree and the relative scales from the CPU
// solver (the GPU's bits). Compares the tree's key order with the leaves'
// Hilbert order (bh/leaf_order.hpp; GpuTreeSolverConfig::warp_order), and
// writes an estimate of warp instructions per group (the weights at kStep)
// (docs/performance/gpu_tree.md, "Warps in Hilbert order").
//
// usage: coherent_walk_model [--models cube,plummer,hernquist] [--stride 64] [--leaf 32] [--width 32]
//                            [--out coherent_walk_model.csv]
//   --width W    targets a group: 32 (the GPU's warp), 16, or 8 (the CPU's AVX2 group)
//   --stride S   model every S-th group (1: all; the counts are per group, so a sample suffices)
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "issue21_inputs.hpp"
#include "orrery/bh/leaf_order.hpp"
#include "orrery/bh/opening.hpp"
#include "orrery/gravity/tree_solver.hpp"

namespace {

using namespace orrery;
using Real = float;

// Warp instructions weighing the counts, for comparing orders (an estimate,
// not a measurement): a step without its leaf loop took 77 at 52a9619
// (gpu_tree.md "Instructions per step"), split here as 37 for the cell term
// (that table's floating-point count, most of which is the term) and 40 for
// the rest; a leaf particle is the particle term's 19.25 (term_cost's SASS,
// gpu_tree.md "What a cell term costs") and about 2 for its shared-memory load
// and loop; a leaf chunk's staging and syncs, 12, is assumed.
constexpr double kStep = 40, kCellTerm = 37, kLeafParticle = 21, kLeafStep = 12;

template <int W>
struct WarpCounts {
  double groups = 0, steps = 0, accept_steps = 0, cells = 0, leaf_steps = 0, leaf_particles = 0, kept_particles = 0,
         own_nodes = 0;
  double per_group(double v) const { return v / groups; }
  double per_target(double v) const { return v / (groups * W); }
  double instructions() const {
    return per_group(steps * kStep + accept_steps * kCellTerm + leaf_particles * kLeafParticle + leaf_steps * kLeafStep);
  }
};

/// The coherent walk's loop (coherent_walk's) over the groups of W targets of
/// `order` (sorted source indices), every stride-th group.
template <int W, class Criterion>
WarpCounts<W> replay(const bh::OctreeView<Real>& t, const std::vector<Real>& scale, const std::vector<std::int32_t>& order,
                  std::int64_t stride) {
  WarpCounts<W> w;
  const auto n = static_cast<std::int64_t>(order.size());
  for (std::int64_t first = 0; first + W <= n; first += W * stride) {
    std::int32_t want[W], self[W];
    for (int l = 0; l < W; ++l) {
      want[l] = 0;
      self[l] = order[static_cast<std::size_t>(first + l)];
    }
    ++w.groups;
    for (std::int32_t node = 0; node < t.num_nodes; node = *std::min_element(want, want + W)) {
      ++w.steps;
      const bool leaf = t.next[node] == node + 1;
      int accepted = 0, summed = 0;
      for (int l = 0; l < W; ++l) {
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

/// Issue 21's fastest own-walk configuration of each input that meets its
/// accuracy (gpu_tree.md's `rate` table): quadrupole, leaf 32 (or `leaf`), relative.
bh::TreeSolverConfig issue21_config(const std::string& model, int leaf) {
  bh::TreeSolverConfig c;
  c.tree.multipole = bh::Multipole::quadrupole;
  c.tree.leaf_capacity = leaf;
  c.tree.opening = bh::Opening::relative;
  c.tree.theta = 1.0;
  c.softening = bench::issue21_softening(model);
  c.tree.tolerance = model == "cube" ? 0.004 : 0.002;
  c.tree.relative_cap = model == "cube" ? 0.55 : 0.5;
  return c;
}

template <int W>
void run(const std::string& model, std::int64_t stride, int leaf, std::ofstream& csv) {
  const Particles<double> pd =
      bench::issue21_distribution(model, model == "cube" ? (std::int64_t(1) << 20) - 1 : std::int64_t(1) << 20);
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
    const WarpCounts<W> w = replay<W, bh::RelativeOpening>(t, scale, order, stride);
    std::printf("%-9s W %2d %-7s groups %6.0f  steps %7.1f (any accept %7.1f, leaf %5.1f)  own nodes %7.1f  cells %6.1f  "
                "leaf particles %6.1f (kept %5.1f per target)  est. instructions %6.0f per group\n",
                model.c_str(), W, name, w.groups, w.per_group(w.steps), w.per_group(w.accept_steps),
                w.per_group(w.leaf_steps), w.per_target(w.own_nodes), w.per_target(w.cells),
                w.per_group(w.leaf_particles), w.per_target(w.kept_particles), w.instructions());
    csv << model << ',' << n << ',' << W << ',' << leaf << ',' << c.tree.tolerance << ',' << c.tree.relative_cap << ',' << name << ',' << stride
        << ',' << w.groups << ',' << w.per_group(w.steps) << ',' << w.per_group(w.accept_steps) << ','
        << w.per_group(w.leaf_steps) << ',' << w.per_group(w.leaf_particles) << ',' << w.per_target(w.own_nodes) << ','
        << w.per_target(w.cells) << ',' << w.per_target(w.kept_particles) << ',' << w.instructions() << '\n';
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string models = "cube,plummer,hernquist", out = "coherent_walk_model.csv";
  std::int64_t stride = 64;
  int leaf = 32, width = 32;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--models") models = v;
    else if (k == "--stride") stride = std::stoll(v);
    else if (k == "--out") out = v;
    else if (k == "--leaf") leaf = std::stoi(v);
    else if (k == "--width") width = std::stoi(v);
    else {
      std::fprintf(stderr, "coherent_walk_model: unknown option %s; accepted: --models, --stride, --leaf, --width, --out\n", k.c_str());
      return 2;
    }
  }
  if (width != 8 && width != 16 && width != 32) {
    std::fprintf(stderr, "coherent_walk_model: --width %d; accepted: 8, 16, 32\n", width);
    return 2;
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
    csv << "model,n,width,leaf_capacity,tolerance,relative_cap,order,stride,groups,steps_pg,accept_steps_pg,leaf_steps_pg,"
           "leaf_particles_pg,own_nodes_pt,cells_pt,kept_particles_pt,est_instructions_pg\n";
    for (std::size_t at = 0; at <= models.size();) {
      const std::size_t end = std::min(models.find(',', at), models.size());
      if (end > at) {
        const std::string m = models.substr(at, end - at);
        if (width == 8) run<8>(m, stride, leaf, csv);
        else if (width == 16) run<16>(m, stride, leaf, csv);
        else run<32>(m, stride, leaf, csv);
      }
      at = end + 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "coherent_walk_model: %s\n", e.what());
    return 1;
  }
  return 0;
}
