#include "orrery/gravity/tree_gpu_solver.hpp"

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/functional>

#include <bit>
#include <chrono>
#include <span>
#include <string>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/cuda/check_cuda.cuh"
#include "orrery/cuda/device.hpp"
#include "orrery/cuda/event_timer.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/staged_download.hpp"
#include "orrery/cuda/staged_upload.hpp"
#include "orrery/bh/device_tree_copy.hpp"
#include "orrery/bh/leaf_order_gpu.hpp"
#include "orrery/bh/walk.hpp"
#include "orrery/bh/octree_build.hpp"
#include "orrery/bh/octree_gpu.hpp"
#include "orrery/gravity/per_type_softening.hpp"

namespace orrery::gravity {
namespace {

constexpr int kBlock = 256;

unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

/// A 16-bit key that orders costs as their values do, to a relative
/// resolution of 2^-10: one plus the position of the leading one (0 for a
/// zero cost), then the 10 bits below it. A radix sort of these takes two
/// passes instead of four; the launch order needs no more.
__device__ std::uint32_t cost_key(std::uint32_t c) {
  const int e = 31 - __clz(c | 1u);
  const std::uint32_t mantissa = (e >= 10 ? c >> (e - 10) : c << (10 - e)) & 0x3FFu;
  return c == 0 ? 0u : (std::uint32_t(e + 1) << 10) | mantissa;
}

/// key[b] = cost_key of the previous walk's node visits of the targets of
/// walk block b (cost_of_target in the caller's order, order: the new
/// tree's); ids[b] = b.
__global__ void __launch_bounds__(bh::kWalkBlockTargets)
    walk_block_costs(std::int64_t n, const std::int32_t* order, const std::uint32_t* cost_of_target,
                     std::uint32_t* key, std::uint32_t* ids) {
  using Reduce = cub::BlockReduce<std::uint32_t, bh::kWalkBlockTargets>;
  __shared__ typename Reduce::TempStorage tmp;
  const std::int64_t i = std::int64_t(blockIdx.x) * bh::kWalkBlockTargets + threadIdx.x;
  const std::uint32_t c = i < n ? cost_of_target[order[i]] : 0u;  // the last block's tail costs nothing
  const std::uint32_t total = Reduce(tmp).Sum(c);
  if (threadIdx.x == 0) {
    key[blockIdx.x] = cost_key(total);
    ids[blockIdx.x] = blockIdx.x;
  }
}

/// *max_bits = the bits of the largest acceleration_magnitude (non-negative
/// doubles order as their bit patterns: an exact, order-independent maximum).
template <class Real>
__global__ void __launch_bounds__(kBlock)
    largest_magnitude(std::int64_t n, const Real* ax, const Real* ay, const Real* az, unsigned long long* max_bits) {
  using Reduce = cub::BlockReduce<double, kBlock>;
  __shared__ typename Reduce::TempStorage tmp;
  double m = 0.0;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kBlock + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kBlock) {
    const double a = bh::acceleration_magnitude(ax[i], ay[i], az[i]);
    m = a > m ? a : m;  // a NaN never wins
  }
  const double block_max = Reduce(tmp).Reduce(m, ::cuda::maximum<>{});
  if (threadIdx.x == 0) atomicMax(max_bits, static_cast<unsigned long long>(__double_as_longlong(block_max)));
}

/// scale[i] = relative_scale of the acceleration at index from[i] (the
/// caller's order) or i (from null: accelerations already in sorted order),
/// floored at kRelativeFloor times the largest magnitude.
template <class Real>
__global__ void __launch_bounds__(kBlock)
    relative_scales(std::int64_t n, const std::int32_t* from, const Real* ax, const Real* ay, const Real* az,
                    const unsigned long long* max_bits, Real* scale) {
  const std::int64_t i = std::int64_t(blockIdx.x) * kBlock + threadIdx.x;
  if (i >= n) return;  // the tail of the last block
  const std::int64_t j = from != nullptr ? from[i] : i;
  const double floor = bh::relative_floor(__longlong_as_double(static_cast<long long>(*max_bits)));
  scale[i] = bh::relative_scale(ax[j], ay[j], az[j], floor);
}

/// max_bits = the bits of the largest |a| of n accelerations, or of `given`
/// when it is not negative (a subset's floor is the whole set's: SolveOptions).
template <class Real>
void enqueue_largest(std::int64_t n, const Real* ax, const Real* ay, const Real* az, double given,
                     cuda::DeviceBuffer<unsigned long long>& max_bits, cuda::StreamHandle s) {
  if (given >= 0) {
    const auto bits = static_cast<unsigned long long>(std::bit_cast<long long>(given));
    max_bits.upload(std::span<const unsigned long long>(&bits, 1), s);
    cuda::synchronize(s);  // `bits` lives on this stack frame
    return;
  }
  max_bits.zero(s);
  const unsigned grid = blocks_for(n) < 1024u ? blocks_for(n) : 1024u;
  if (n > 0) largest_magnitude<<<grid, kBlock, 0, s>>>(n, ax, ay, az, max_bits.data());
  ORRERY_CUDA_CHECK_LAUNCH("largest_magnitude");
}

/// The n walk targets' relative scales from accelerations at from[w] (or w
/// when from is null), floored by max_bits (enqueue_largest).
template <class Real>
void enqueue_relative_scales(std::int64_t n, const std::int32_t* from, const Real* ax, const Real* ay, const Real* az,
                             const cuda::DeviceBuffer<unsigned long long>& max_bits, Real* scale, cuda::StreamHandle s) {
  if (n == 0) return;
  relative_scales<<<blocks_for(n), kBlock, 0, s>>>(n, from, ax, ay, az, max_bits.data(), scale);
  ORRERY_CUDA_CHECK_LAUNCH("relative_scales");
}

/// rank[order[i]] = i: each source's place in the tree's (sorted) order.
__global__ void __launch_bounds__(kBlock) source_ranks(std::int64_t n, const std::int32_t* order, std::int32_t* rank) {
  const std::int64_t i = std::int64_t(blockIdx.x) * kBlock + threadIdx.x;
  if (i < n) rank[order[i]] = static_cast<std::int32_t>(i);
}

/// slot[rank[index[k]]] = k for the k targets; *bad = 1 + the first target
/// found out of range (status 1) or listed twice (status 2), in status[0..1].
__global__ void __launch_bounds__(kBlock)
    mark_targets(std::int64_t k, const std::int64_t* index, std::int64_t n, const std::int32_t* rank,
                 std::int32_t* slot, unsigned long long* status) {
  const std::int64_t t = std::int64_t(blockIdx.x) * kBlock + threadIdx.x;
  if (t >= k) return;
  const std::int64_t j = index[t];
  if (j < 0 || j >= n) {
    atomicMin(status, static_cast<unsigned long long>(t));
    return;
  }
  if (atomicCAS(slot + rank[j], -1, static_cast<std::int32_t>(t)) != -1) atomicMin(status + 1, static_cast<unsigned long long>(t));
}

/// The subset's walk order: source[w] = the w-th marked sorted index
/// (ascending: an exclusive scan of the marks), place[w] = its target.
__global__ void __launch_bounds__(kBlock)
    compact_targets(std::int64_t n, const std::int32_t* slot, const std::int32_t* position, std::int32_t* source,
                    std::int32_t* place) {
  const std::int64_t i = std::int64_t(blockIdx.x) * kBlock + threadIdx.x;
  if (i >= n || slot[i] < 0) return;
  source[position[i]] = static_cast<std::int32_t>(i);
  place[position[i]] = slot[i];
}

__global__ void __launch_bounds__(kBlock) marks(std::int64_t n, const std::int32_t* slot, std::int32_t* mark) {
  const std::int64_t i = std::int64_t(blockIdx.x) * kBlock + threadIdx.x;
  if (i < n) mark[i] = slot[i] >= 0;
}

template <class T>
void ensure(cuda::DeviceBuffer<T>& b, std::int64_t n) {
  b.resize(static_cast<std::size_t>(n));
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

template <class Real>
struct GpuTreeSolver<Real>::State {
  cuda::Stream stream;
  int multiprocessors = cuda::current_multiprocessors();  // a sparse subset's lanes per target
  bh::DeviceOctree<Real> device_tree;  // TreeBuild::device
  bh::Octree<Real> host_tree;          // TreeBuild::host, copied to tree_copy
  bh::DeviceTreeCopy<Real> tree_copy;
  bh::HilbertLeafOrder leaf_order;  // WarpOrder::hilbert: every source's walk order
  cuda::DeviceBuffer<Real> sources[4];  // solve() with a device build: x, y, z, mass uploaded
  // solve()'s copies from and to the caller's host arrays, through page-locked
  // staging kept across solves (pageable copies run at a few GB/s).
  cuda::StagedUpload up;
  cuda::StagedDownload down;
  cuda::DeviceBuffer<Real> sorted[3];  // the relative bootstrap: ax, ay, az in sorted order
  cuda::DeviceBuffer<Real> result[4];  // solve(): ax, ay, az, pot in the caller's order, before download
  cuda::DeviceBuffer<std::uint32_t> counts[3];
  cuda::DeviceBuffer<Real> scale;  // relative opening: each target's relative_scale, sorted order
  cuda::DeviceBuffer<unsigned long long> largest{1};  // relative opening: bits of the largest |a_old|
  // Relative opening, longest walk blocks first: each target's node visits in
  // the last walk (caller's order), and the launch order built from them.
  cuda::DeviceBuffer<std::uint32_t> cost, block_cost[2], block_ids[2];
  cuda::DeviceBuffer<std::byte> sort_temp;
  std::int64_t cost_count = 0;  // targets cost holds (0: none yet)
  cuda::DeviceBuffer<unsigned long long> totals{3};
  // A subset of the sources as targets: ranks, marks and their scan, the walk
  // order (sorted source index, place in the caller's list), the check.
  cuda::DeviceBuffer<std::int32_t> rank, slot, mark, position, subset_source, subset_place;
  cuda::DeviceBuffer<unsigned long long> subset_status{2};
  // solve() given host targets: their indices or points, uploaded.
  cuda::DeviceBuffer<std::int64_t> target_index;
  cuda::DeviceBuffer<Real> target_point[3];
  cuda::EventTimer t_upload, t_order, t_bootstrap, t_walk, t_download;
  std::vector<Real> staging[4];  // solve_device() with a host build: sources on the host
};

template <class Real>
GpuTreeSolver<Real>::GpuTreeSolver(const GpuTreeSolverConfig& config) : config_(config) {
  if (config.traversal == bh::Traversal::coherent && !bh::is_group_width(config.group_width))
    throw InputError("gravity.group_width = " + std::to_string(config.group_width) +
                     " is not supported; accepted: 8, 16, 32, 64");
  validated_softening(config.tree.softening);
  if (config.tree.per_type && !config.tree.per_type->uniform()) refuse_per_type_softening("tree/cuda");
  // At construction rather than at the first walk; subsets then walk one lane a target (walk_into).
  bh::check_group_opening_walk(config.tree.tree.group_opening, config.traversal, config.group_width, 1);
  bh::check_list_walk_precision<Real>(config.tree.tree.list_walk);
  device_ = cuda::current_device();
  state_ = std::make_unique<State>();
}

template <class Real>
GpuTreeSolver<Real>::~GpuTreeSolver() = default;

template <class Real>
std::string GpuTreeSolver<Real>::name() const {
  std::string walk(to_string(config_.traversal));
  if (config_.traversal == bh::Traversal::coherent) walk += std::to_string(config_.group_width);
  return "tree/cuda/" + walk + "/" + std::string(bh::to_string(config_.tree.tree.multipole));
}

template <class Real>
std::size_t GpuTreeSolver<Real>::device_bytes() const {
  const State& st = *state_;
  std::size_t b = st.device_tree.device_bytes() + st.tree_copy.device_bytes() + st.totals.bytes();
  for (const auto& buf : st.sources) b += buf.bytes();
  for (const auto& buf : st.sorted) b += buf.bytes();
  for (const auto& buf : st.result) b += buf.bytes();
  for (const auto& buf : st.counts) b += buf.bytes();
  for (const auto& buf : st.block_cost) b += buf.bytes();
  for (const auto& buf : st.block_ids) b += buf.bytes();
  return b + st.scale.bytes() + st.largest.bytes() + st.cost.bytes() + st.sort_temp.bytes() +
         st.leaf_order.device_bytes();
}

namespace {

void check_sizes(std::int64_t sources, std::int64_t out) {
  if (out != sources)
    throw InputError("accelerations hold " + std::to_string(out) + " entries for " + std::to_string(sources) +
                     " sources; they must be equal");
}

}  // namespace

template <class Real>
void GpuTreeSolver<Real>::build_on_host(const SourcesView<Real>& host_sources, const SolveOptions& o,
                                        SolverReport& report) {
  State& st = *state_;
  const auto t0 = std::chrono::steady_clock::now();
  st.host_tree = bh::build_octree(host_sources, config_.tree.tree, nullptr, o.cube ? &*o.cube : nullptr);
  report.add_phase("build (host)", seconds_since(t0));
  st.t_upload.start(st.stream.get());
  st.tree_copy.upload(st.host_tree, st.stream.get());
  st.t_upload.stop(st.stream.get());
  report.add_phase("upload tree", st.t_upload.seconds());
}

template <class Real>
void GpuTreeSolver<Real>::build_on_device(const SourcesView<Real>& device_sources, const SolveOptions& o,
                                          SolverReport& report) {
  State& st = *state_;
  st.device_tree.build(device_sources, config_.tree.tree, st.stream.get(), o.cube ? &*o.cube : nullptr);
  const bh::GpuBuildTimes t = st.device_tree.times();
  for (const auto& [name, sec] : {std::pair{"box", t.box}, std::pair{"keys", t.keys}, std::pair{"sort", t.sort},
                                  std::pair{"levels", t.levels}, std::pair{"order", t.order},
                                  std::pair{"moments", t.moments}})
    report.add_phase(name, sec);
}

template <class Real>
std::int32_t GpuTreeSolver<Real>::num_nodes() const {
  return tree_view().num_nodes;
}

template <class Real>
int GpuTreeSolver<Real>::depth() const {
  return config_.build == TreeBuild::device ? state_->device_tree.depth() : state_->host_tree.depth;
}

template <class Real>
bh::OctreeView<Real> GpuTreeSolver<Real>::tree_view() const {
  return config_.build == TreeBuild::device ? state_->device_tree.view() : state_->tree_copy.view();
}

template <class Real>
std::span<std::byte> GpuTreeSolver<Real>::scratch_between_builds() const {
  return config_.build == TreeBuild::device ? state_->device_tree.scratch_between_builds() : std::span<std::byte>{};
}

template <class Real>
const std::int32_t* GpuTreeSolver<Real>::tree_order() const {
  return config_.build == TreeBuild::device ? state_->device_tree.order() : state_->tree_copy.order();
}

template <class Real>
SourcesView<Real> GpuTreeSolver<Real>::upload_sources(const SourcesView<Real>& s, SolverReport& report) {
  State& st = *state_;
  const auto stream = st.stream.get();
  st.t_upload.start(stream);
  const Real* in[4] = {s.x, s.y, s.z, s.mass};
  for (int k = 0; k < 4; ++k) {
    ensure(st.sources[k], s.count);
    st.up.add(st.sources[k].data(), in[k], static_cast<std::size_t>(s.count) * sizeof(Real));
  }
  st.up.run(stream);
  st.t_upload.stop(stream);
  report.add_phase("upload", st.t_upload.seconds());
  return {s.count, st.sources[0].data(), st.sources[1].data(), st.sources[2].data(), st.sources[3].data()};
}

template <class Real>
SolverReport GpuTreeSolver<Real>::solve(const SourcesView<Real>& s, const TargetSet<Real>& targets,
                                        const AccelerationsView<Real>& out, const SolveOptions& o) {
  if (targets.all()) return solve(s, out, o);
  State& st = *state_;
  const auto stream = st.stream.get();
  SolverReport report;
  const SourcesView<Real> sources = upload_sources(s, report);
  const auto k = static_cast<std::size_t>(targets.count);
  TargetSet<Real> on_device{targets.count};
  if (targets.index != nullptr) {
    ensure(st.target_index, targets.count);
    st.target_index.upload(std::span<const std::int64_t>(targets.index, k), stream);
    on_device.index = st.target_index.data();
  } else {
    const Real* in[3] = {targets.x, targets.y, targets.z};
    for (int c = 0; c < 3; ++c) {
      if (in[c] == nullptr) break;  // solve_device names the missing coordinate
      ensure(st.target_point[c], targets.count);
      st.target_point[c].upload(std::span<const Real>(in[c], k), stream);
    }
    on_device.x = st.target_point[0].data();
    on_device.y = targets.y != nullptr ? st.target_point[1].data() : nullptr;
    on_device.z = targets.z != nullptr ? st.target_point[2].data() : nullptr;
  }
  SolverReport walked = solve_device(sources, on_device, result_buffers(out, o), o);
  walked.phase_seconds.insert(walked.phase_seconds.begin(), report.phase_seconds.begin(), report.phase_seconds.end());
  download_results(out, o, walked);
  return walked;
}

template <class Real>
AccelerationsView<Real> GpuTreeSolver<Real>::result_buffers(const AccelerationsView<Real>& out, const SolveOptions& o) {
  State& st = *state_;
  const bool pot = o.potential && out.potential != nullptr;
  const auto n = static_cast<std::size_t>(out.count);
  for (int c = 0; c < 3 + pot; ++c) ensure(st.result[c], out.count);
  // The relative opening's a_old is what the caller's arrays hold on entry,
  // not what an earlier solve left on the device.
  const Real* previous[3] = {out.ax, out.ay, out.az};
  if (o.previous_accelerations) {
    for (int c = 0; c < 3; ++c) st.up.add(st.result[c].data(), previous[c], n * sizeof(Real));
    st.up.run(st.stream.get());
  }
  return {out.count, st.result[0].data(), st.result[1].data(), st.result[2].data(), pot ? st.result[3].data() : nullptr};
}

template <class Real>
void GpuTreeSolver<Real>::download_results(const AccelerationsView<Real>& out, const SolveOptions& o,
                                           SolverReport& report) {
  State& st = *state_;
  const auto stream = st.stream.get();
  const bool pot = o.potential && out.potential != nullptr;
  Real* host[4] = {out.ax, out.ay, out.az, out.potential};
  st.t_download.start(stream);
  const auto bytes = static_cast<std::size_t>(out.count) * sizeof(Real);
  for (int c = 0; c < 3 + pot; ++c) st.down.add(host[c], st.result[c].data(), bytes);
  st.down.run(stream);
  st.t_download.stop(stream);
  report.add_phase("download", st.t_download.seconds());
}

template <class Real>
SolverReport GpuTreeSolver<Real>::solve(const SourcesView<Real>& s, const AccelerationsView<Real>& out,
                                        const SolveOptions& o) {
  check_sizes(s.count, out.count);
  State& st = *state_;
  const auto stream = st.stream.get();
  SolverReport report;
  if (config_.build == TreeBuild::host) {
    build_on_host(s, o, report);  // reads the host arrays directly
  } else {
    build_on_device(upload_sources(s, report), o, report);
  }
  walk_every_source(result_buffers(out, o), o, report);
  download_results(out, o, report);
  return report;
}

template <class Real>
SolverReport GpuTreeSolver<Real>::solve_device(const SourcesView<Real>& s, const AccelerationsView<Real>& out,
                                               const SolveOptions& o) {
  check_sizes(s.count, out.count);
  State& st = *state_;
  const auto stream = st.stream.get();
  SolverReport report;
  if (config_.build == TreeBuild::device) {
    build_on_device(s, o, report);
  } else {
    // The host build needs the sources on the host.
    const auto n = static_cast<std::size_t>(s.count);
    st.t_download.start(stream);
    const Real* src[4] = {s.x, s.y, s.z, s.mass};
    for (int k = 0; k < 4; ++k) {
      st.staging[k].resize(n);
      cuda::copy_device_to_host(st.staging[k].data(), src[k], n * sizeof(Real), stream);
    }
    st.t_download.stop(stream);
    report.add_phase("download sources", st.t_download.seconds());
    build_on_host({s.count, st.staging[0].data(), st.staging[1].data(), st.staging[2].data(), st.staging[3].data()},
                  o, report);
  }
  walk_every_source(out, o, report);
  return report;
}

template <class Real>
SolverReport GpuTreeSolver<Real>::solve_device(const SourcesView<Real>& s, const TargetSet<Real>& targets,
                                               const AccelerationsView<Real>& out, const SolveOptions& o) {
  if (targets.all()) return solve_device(s, out, o);
  if (out.count != targets.count)
    throw InputError("accelerations hold " + std::to_string(out.count) + " entries for " +
                     std::to_string(targets.count) + " targets; they must be equal");
  if (targets.index == nullptr && (targets.y == nullptr || targets.z == nullptr))
    throw InputError("target points need x, y and z; accepted: three arrays of targets.count positions");
  if (config_.build != TreeBuild::device)
    throw InputError("a GPU tree solver given targets builds its tree on the device; accepted: TreeBuild::device");
  State& st = *state_;
  const auto stream = st.stream.get();
  SolverReport report;
  build_on_device(s, o, report);
  const auto view = tree_view();
  const std::int64_t n = s.count, k = targets.count;
  if (targets.index == nullptr) {  // points, walked in the order given
    walk_into(view, {static_cast<std::int32_t>(k), nullptr, targets.x, targets.y, targets.z}, nullptr, false, out, o,
              report);
    return report;
  }
  // The subset in the tree's key order: every source's rank, the targets
  // marked at theirs (duplicates and bad indices caught), the marks scanned
  // into each target's place in the walk.
  for (auto* b : {&st.rank, &st.slot, &st.mark, &st.position}) ensure(*b, n);
  ensure(st.subset_source, k);
  ensure(st.subset_place, k);
  source_ranks<<<blocks_for(n), kBlock, 0, stream>>>(n, tree_order(), st.rank.data());
  ORRERY_CUDA_CHECK_LAUNCH("source_ranks");
  ORRERY_CUDA_CHECK(cudaMemsetAsync(st.slot.data(), 0xFF, st.slot.bytes(), stream));
  const unsigned long long none[2] = {~0ull, ~0ull};
  st.subset_status.upload(std::span<const unsigned long long>(none, 2), stream);
  if (k > 0) {
    mark_targets<<<blocks_for(k), kBlock, 0, stream>>>(k, targets.index, n, st.rank.data(), st.slot.data(),
                                                       st.subset_status.data());
    ORRERY_CUDA_CHECK_LAUNCH("mark_targets");
  }
  unsigned long long status[2];
  st.subset_status.download(std::span<unsigned long long>(status, 2), stream);
  if (status[0] != ~0ull || status[1] != ~0ull) {
    const bool range = status[0] != ~0ull;
    const auto t = static_cast<std::int64_t>(range ? status[0] : status[1]);
    std::int64_t j = 0;
    cuda::copy_device_to_host(&j, targets.index + t, sizeof j, stream);
    cuda::synchronize(stream);
    throw InputError(range ? target_out_of_range(t, j, n) : target_listed_twice(j, t));
  }
  marks<<<blocks_for(n), kBlock, 0, stream>>>(n, st.slot.data(), st.mark.data());
  ORRERY_CUDA_CHECK_LAUNCH("marks");
  std::size_t temp = 0;
  ORRERY_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp, st.mark.data(), st.position.data(), n, stream));
  ensure(st.sort_temp, static_cast<std::int64_t>(temp));
  ORRERY_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(st.sort_temp.data(), temp, st.mark.data(), st.position.data(), n, stream));
  compact_targets<<<blocks_for(n), kBlock, 0, stream>>>(n, st.slot.data(), st.position.data(),
                                                        st.subset_source.data(), st.subset_place.data());
  ORRERY_CUDA_CHECK_LAUNCH("compact_targets");
  walk_into(view, {static_cast<std::int32_t>(k), st.subset_source.data()}, st.subset_place.data(), false, out, o,
            report);
  return report;
}

template <class Real>
void GpuTreeSolver<Real>::solve_device(const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                                       const SolveOptions& options, cuda::StreamHandle stream) {
  cuda::synchronize(stream);  // the caller's work on the sources is done
  solve_device(sources, out, options);
}

template <class Real>
const std::uint32_t* GpuTreeSolver<Real>::longest_first(std::int64_t n, const std::int32_t* order, bool previous) {
  // The relative opening concentrates the work where the density is high
  // (the centre of a cluster: many groups with several times the mean
  // visits, contiguous in the launch order). Launched in tree order they
  // start late and the walk ends with most SMs idle; launched longest first
  // (the previous walk's visits of the same particles), they start first.
  State& st = *state_;
  if (!previous || st.cost_count != n) return nullptr;
  const auto stream = st.stream.get();
  const std::int64_t blocks = (n + bh::kWalkBlockTargets - 1) / bh::kWalkBlockTargets;
  for (int k = 0; k < 2; ++k) {
    ensure(st.block_cost[k], blocks);
    ensure(st.block_ids[k], blocks);
  }
  walk_block_costs<<<static_cast<unsigned>(blocks), bh::kWalkBlockTargets, 0, stream>>>(
      n, order, st.cost.data(), st.block_cost[0].data(), st.block_ids[0].data());
  ORRERY_CUDA_CHECK_LAUNCH("walk_block_costs");
  std::size_t temp = 0;
  const int items = static_cast<int>(blocks);
  ORRERY_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, temp, st.block_cost[0].data(),
                                                              st.block_cost[1].data(), st.block_ids[0].data(),
                                                              st.block_ids[1].data(), items, 0, 16, stream));
  ensure(st.sort_temp, static_cast<std::int64_t>(temp));
  ORRERY_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(st.sort_temp.data(), temp, st.block_cost[0].data(),
                                                              st.block_cost[1].data(), st.block_ids[0].data(),
                                                              st.block_ids[1].data(), items, 0, 16, stream));
  return st.block_ids[1].data();
}

template <class Real>
void GpuTreeSolver<Real>::walk_every_source(const AccelerationsView<Real>& out, const SolveOptions& o,
                                            SolverReport& report) {
  State& st = *state_;
  const bh::OctreeView<Real> view = tree_view();
  // Group opening's groups are runs within blocks of 32 targets of the key
  // order (docs/adr/0017): it keeps that order. The list walk's groups are
  // 32 targets of the Hilbert order (docs/adr/0019), whatever warp_order.
  const bool lists = config_.tree.tree.list_walk;
  if (!lists && (config_.warp_order == WarpOrder::tree || config_.tree.tree.group_opening != 0))
    return walk_into(view, bh::every_source(view), tree_order(), true, out, o, report);
  st.t_order.start(st.stream.get());
  // The order's sort, then the walk's records, use the build's free scratch in turn (stream order).
  st.leaf_order.compute(view, tree_order(), depth(), scratch_between_builds(), st.stream.get());
  st.t_order.stop(st.stream.get());
  report.add_phase("warp order", st.t_order.seconds());
  walk_into(view, {static_cast<std::int32_t>(view.num_particles), st.leaf_order.source()}, st.leaf_order.place(), true,
            out, o, report);
}

template <class Real>
void GpuTreeSolver<Real>::walk_into(const bh::OctreeView<Real>& view, const bh::WalkTargets<Real>& targets,
                                    const std::int32_t* order, bool every, const AccelerationsView<Real>& out,
                                    const SolveOptions& o, SolverReport& report) {
  State& st = *state_;
  const GpuTreeSolverConfig& cfg = config_;
  const auto stream = st.stream.get();
  const std::int64_t n = targets.count;
  const bool pot = o.potential && out.potential != nullptr;
  // Every solve passes here: refuse what this solver does not do rather than ignore it.
  if (o.per_target_counts && !cfg.counters)
    throw InputError("per-target interaction counts were requested from a GPU tree solver built with counters off");
  // The walk writes the results in the caller's order itself (no scatter
  // pass), the counter totals too; per-target counters only when asked for.
  bh::DeviceWalkTargets<Real> w{out.ax, out.ay, out.az, pot ? out.potential : nullptr};
  w.order = order;
  if (o.per_target_counts) {
    for (auto& c : st.counts) ensure(c, n);
    w.node_visits = st.counts[0].data();
    w.cell_interactions = st.counts[1].data();
    w.particle_interactions = st.counts[2].data();
  }
  if (cfg.counters) {
    st.totals.zero(stream);
    w.totals = st.totals.data();
  }
  // A device-built tree lends the walk the memory its build needs only while it runs.
  const std::span<std::byte> scratch = scratch_between_builds();
  bh::GpuWalkParams params{cfg.traversal, cfg.group_width, cfg.tree.math, cfg.tree.softening_kind,
                           cfg.tree.softening, pot, scratch};
  params.group_opening = cfg.tree.tree.group_opening;
  params.list_walk = cfg.tree.tree.list_walk;
  params.list_queue = cfg.list_queue;
  if (view.crit_rel != nullptr) {
    // The relative opening reads each target's previous acceleration: the
    // caller's (out, before the walk overwrites it), or the bootstrap's
    // geometric walk at theta (null scales, sorted order), as
    // gravity::TreeSolver does.
    ensure(st.scale, n);
    st.t_bootstrap.start(stream);
    const double given = o.largest_previous_acceleration;
    if (o.previous_accelerations) {
      enqueue_largest(n, out.ax, out.ay, out.az, given, st.largest, stream);
      enqueue_relative_scales(n, order, out.ax, out.ay, out.az, st.largest, st.scale.data(), stream);
    } else {
      // The bootstrap walk: of the points themselves, or of every source (a
      // subset's floor is the whole set's largest |a_old|), results in sorted
      // order (every source in its walk order: scattered to its sorted index).
      const bool points = targets.x != nullptr;
      const std::int64_t m = points ? n : view.num_particles;
      for (int k = 0; k < 3; ++k) ensure(st.sorted[k], m);
      bh::GpuWalkParams first = params;
      first.potential = false;
      bh::DeviceWalkTargets<Real> b{st.sorted[0].data(), st.sorted[1].data(), st.sorted[2].data()};
      b.order = every ? targets.source : nullptr;
      bh::walk_tree_gpu(view, points || every ? targets : bh::every_source(view), first, b, stream);
      enqueue_largest<Real>(m, b.ax, b.ay, b.az, given, st.largest, stream);
      enqueue_relative_scales<Real>(n, points ? nullptr : targets.source, b.ax, b.ay, b.az, st.largest,
                                    st.scale.data(), stream);
    }
    // The longest-first launch order is the all-targets walk's (the visits
    // of the same particles a step earlier).
    w.block_order = every ? longest_first(n, order, o.previous_accelerations) : nullptr;
    st.t_bootstrap.stop(stream);
    w.scale = st.scale.data();
    // Each target's visits (caller's order) for the next walk's launch order,
    // counters on or off: the walk counts its visits either way.
    if (every) {
      ensure(st.cost, n);
      w.cost = st.cost.data();
    }
  }
  st.cost_count = w.cost != nullptr ? n : 0;
  bh::GpuWalkParams walk = params;
  // A subset (group opening and the list walk: a lane a target).
  if (!every && targets.source != nullptr && params.group_opening == 0 && !params.list_walk)
    walk.target_lanes = cfg.subset_target_lanes > 0 ? cfg.subset_target_lanes
                                                    : bh::subset_target_lanes(n, st.multiprocessors);
  st.t_walk.start(stream);
  bh::walk_tree_gpu(view, targets, walk, w, stream);
  st.t_walk.stop(stream);
  if (view.crit_rel != nullptr)
    report.add_phase(o.previous_accelerations ? "relative scales" : "bootstrap walk", st.t_bootstrap.seconds());
  report.add_phase("walk", st.t_walk.seconds());

  if (cfg.counters) {
    unsigned long long totals[3];
    st.totals.download(std::span<unsigned long long>(totals, 3), stream);
    report.total = {totals[0], totals[1], totals[2]};
  }
  if (o.per_target_counts) {
    const auto un = static_cast<std::size_t>(n);
    std::vector<std::uint32_t> c[3];
    for (int k = 0; k < 3; ++k) {
      c[k].resize(un);
      st.counts[k].download(std::span<std::uint32_t>(c[k]), stream);
    }
    std::vector<std::int32_t> ord(un);
    if (order != nullptr)
      cuda::copy_device_to_host(ord.data(), order, un * sizeof(std::int32_t), stream);
    else
      for (std::size_t i = 0; i < un; ++i) ord[i] = static_cast<std::int32_t>(i);
    cuda::synchronize(stream);
    report.per_target.resize(un);
    for (std::size_t i = 0; i < un; ++i) report.per_target[ord[i]] = {c[0][i], c[1][i], c[2][i]};
  }
}

template class GpuTreeSolver<float>;
template class GpuTreeSolver<double>;

GpuTreeSolverConfig gpu_tree_config(const GravityConfig& g) {
  GpuTreeSolverConfig c;
  c.tree = gravity::tree_solver_config(g);  // the CPU solver's physics, field for field (the order checked there)
  if (g.traversal == "coherent")
    c.traversal = bh::Traversal::coherent;
  else if (g.traversal == "independent")
    c.traversal = bh::Traversal::independent;
  else
    throw InputError("gravity.traversal = \"" + g.traversal + "\" is not supported; accepted: coherent, independent");
  c.group_width = g.group_width;  // validated by the solver
  return c;
}

}  // namespace orrery::gravity
