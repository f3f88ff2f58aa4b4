#pragma once
// Barnes-Hut with the walk on the GPU: the physics of gravity::TreeSolver (same
// tree, same terms, same order: DESIGN §1 contracts 1 and 2), run on the
// device by either traversal of tree_walk_gpu.hpp. No CUDA header here.
//
// Two ways in:
//   solve()         ForceSolver: host arrays in, host arrays out.
//   solve_device()  device arrays in and out, for simulations that keep the
//                   particles on the GPU; nothing is copied to the host but
//                   the three counter totals (and, on request, per-target
//                   counts).
// Each evaluation: build the tree (on the device by bh::DeviceOctree, or on
// the host and copied: GpuTreeSolverConfig::build), then walk it; the walk
// writes accelerations and potentials in the caller's order on the device. SolverReport::phase_seconds holds
// the time of each phase from CUDA events on the solver's stream (host wall
// time for a host build).
//
// Errors: InputError for invalid parameters or particles (naming the key or
// the particle), RuntimeFailure for CUDA failures (no device, out of memory).
// Not thread-safe: one solver per host thread.
#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "orrery/gravity/device_force_solver.hpp"
#include "orrery/gravity/force_solver.hpp"
#include "orrery/gravity/gravity_config.hpp"
#include "orrery/gravity/targets.hpp"
#include "orrery/bh/tree_walk_gpu.hpp"
#include "orrery/gravity/tree_solver.hpp"

namespace orrery::gravity {

enum class TreeBuild : std::uint8_t { device, host };

/// The order in which a solve of every source groups its targets into the
/// coherent walk's warps (docs/adr/0018): the tree's own key order, or its
/// leaves in Hilbert order (bh/leaf_order_gpu.hpp, the default), whose warps
/// visit fewer nodes for a sort each solve. Neither changes a target's
/// results or its particle-cell and particle-particle counts. Subsets walk
/// in key order; group opening (defined over the key order's blocks of 32)
/// always does; the list walk (docs/adr/0019) always takes the Hilbert order.
enum class WarpOrder : std::uint8_t { tree, hilbert };

struct GpuTreeSolverConfig {
  bh::TreeSolverConfig tree;  // theta, leaf capacity, multipole, softening, math: as the CPU solver
  bh::Traversal traversal = bh::Traversal::coherent;
  int group_width = 32;  // coherent walk: 8, 16, 32 or 64
  TreeBuild build = TreeBuild::device;  // host: the CPU build, copied (tests, cross-checks)
  // Every source as a target: the walk's warps, by default in the Hilbert
  // order of the leaves (every total of issue 21's inputs 2.4-7.5 % faster
  // than the key order on an H100, docs/adr/0018, docs/performance/gpu_tree.md).
  WarpOrder warp_order = WarpOrder::hilbert;
  bool counters = true;  // per-target counters (contract 2); off saves 12 bytes per particle
  // Lanes per target in the walk of a subset (bh::GpuWalkParams::target_lanes):
  // 0 chooses from the subset's size and the device's SMs (bh::subset_target_lanes).
  int subset_target_lanes = 0;
  // The list walk's queue ring in shared memory, entries a warp (bh::GpuWalkParams::list_queue).
  int list_queue = 1024;
};

template <class Real>
class GpuTreeSolver final : public ForceSolver<Real>, public DeviceForceSolver<Real> {
 public:
  /// Validates the configuration (InputError naming gravity.group_width,
  /// gravity.softening, ...). Creates the solver's stream on the current device.
  explicit GpuTreeSolver(const GpuTreeSolverConfig& config);
  ~GpuTreeSolver() override;
  GpuTreeSolver(const GpuTreeSolver&) = delete;
  GpuTreeSolver& operator=(const GpuTreeSolver&) = delete;

  /// e.g. "tree/cuda/coherent32/monopole".
  std::string name() const override;
  SolverReport solve(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                     const SolveOptions& options = {}) override;
  /// ForceSolver's field at `targets` with host arrays: uploads the sources
  /// and the targets (and, for the relative opening with
  /// previous_accelerations, out's previous accelerations), runs
  /// solve_device(sources, targets, ...) and downloads `out`.
  SolverReport solve(const SourcesView<Real>& sources, const TargetSet<Real>& targets,
                     const AccelerationsView<Real>& out, const SolveOptions& options = {}) override;
  /// As solve(), with device pointers in `sources` and `out`. Returns when the
  /// results are in `out`.
  SolverReport solve_device(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                            const SolveOptions& options = {});
  /// As solve_device(), the field at `targets` (targets.hpp; device arrays):
  /// a subset of the sources by index (walked in the tree's key order) or
  /// points; `out` holds targets.count entries in the targets' order. Each
  /// target's result is bit-identical to the one it gets when every source is
  /// a target, as with TreeSolver::solve(sources, targets, ...), whose bits
  /// it has in exact mode. The walk's cost is the targets'; the tree is built
  /// over every source (and a subset's relative bootstrap walks every source).
  /// Device build only. InputError for an index out of range or listed twice.
  SolverReport solve_device(const SourcesView<Real>& sources, const TargetSet<Real>& targets,
                            const AccelerationsView<Real>& out, const SolveOptions& options = {});
  /// DeviceForceSolver: waits for `stream`, evaluates on the solver's own
  /// stream and returns when `out` is written (so later work on `stream` sees it).
  void solve_device(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                    const SolveOptions& options, cuda::StreamHandle stream) override;
  int device() const override { return device_; }
  /// Device bytes the solver holds now (tree, sorted sources, results, scratch).
  std::size_t device_bytes() const;
  /// Nodes and deepest level of the last tree built.
  std::int32_t num_nodes() const;
  int depth() const;
  const GpuTreeSolverConfig& config() const { return config_; }

 private:
  struct State;
  // Both builds take SolveOptions::cube, the key cube given from outside.
  void build_on_host(const SourcesView<Real>& host_sources, const SolveOptions& o, SolverReport& report);
  void build_on_device(const SourcesView<Real>& device_sources, const SolveOptions& o, SolverReport& report);
  // The host sources copied into the solver's device buffers (phase "upload").
  SourcesView<Real> upload_sources(const SourcesView<Real>& host_sources, SolverReport& report);
  // solve()'s device results for the host `out` (holding a_old when asked),
  // and their download into it (phase "download").
  AccelerationsView<Real> result_buffers(const AccelerationsView<Real>& out, const SolveOptions& options);
  void download_results(const AccelerationsView<Real>& out, const SolveOptions& options, SolverReport& report);
  bh::OctreeView<Real> tree_view() const;
  const std::int32_t* tree_order() const;
  // Device memory free from the end of a device build to the next (the warp
  // order's sort, the walk's records); empty for a host build.
  std::span<std::byte> scratch_between_builds() const;
  // The walk over `view` into `out` (device, the caller's order) and the
  // counters: the part both ways in share. every: the targets are every
  // source (in any order).
  void walk_into(const bh::OctreeView<Real>& view, const bh::WalkTargets<Real>& targets, const std::int32_t* order,
                 bool every, const AccelerationsView<Real>& out, const SolveOptions& options, SolverReport& report);
  // walk_into with every source as a target, in the order config_.warp_order asks for.
  void walk_every_source(const AccelerationsView<Real>& out, const SolveOptions& options, SolverReport& report);
  // The relative walk's launch order, longest blocks first, from the previous
  // walk's visits of the same particles; null when there is none.
  const std::uint32_t* longest_first(std::int64_t n, const std::int32_t* order, bool previous);
  GpuTreeSolverConfig config_;
  int device_ = 0;
  std::unique_ptr<State> state_;
};

extern template class GpuTreeSolver<float>;
extern template class GpuTreeSolver<double>;

/// The GPU tree solver a GravityConfig asks for (solver = "tree", backend =
/// "cuda"): theta, leaf_capacity, multipole_order, softening, softening_kernel,
/// math, traversal and group_width. Throws InputError naming the key for a
/// value outside what the solver accepts. Usable as a ForceSolver or a
/// DeviceForceSolver (device-resident runs).
GpuTreeSolverConfig gpu_tree_config(const GravityConfig& config);
template <class Real>
std::unique_ptr<GpuTreeSolver<Real>> make_gpu_tree_solver(const GravityConfig& config) {
  return std::make_unique<GpuTreeSolver<Real>>(gpu_tree_config(config));
}

}  // namespace orrery::gravity
