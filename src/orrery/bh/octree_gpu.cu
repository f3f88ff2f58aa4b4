// The GPU tree build: one kernel (or one CUB call) per step, each particle's
// and node's work done by ORRERY_HD functions shared with the host
// (build_steps.hpp, build_topology.hpp), so that the tree equals the CPU's
// build_octree() bit for bit.
//
// Phases (one CUDA event between each, see GpuBuildTimes):
//   box      box_partial_kernel (per-block min/max + validation flags),
//            box_final_kernel (one block: the Cube, exact and order-free)
//   keys     keys_kernel: position_key, and the index 0..N-1
//   sort     CUB radix sort of (key, index), bits [0, 63); LSD radix sort is
//            stable and the indices go in ascending, so ties are broken by the
//            original index exactly as the CPU's (key, index) comparison does
//   gather   the sources into sorted order
//   levels   the topology in pre-order, with no pass per level
//            (build_topology.hpp): count_nodes_kernel (nodes_at: how many
//            nodes start at each particle; the node count and the depth by
//            integer atomics), an in-place CUB exclusive scan of those counts
//            (each particle's first pre-order index), write_nodes_kernel (key,
//            level, first of each node), extent_kernel (count and next of
//            each node: a galloping search for the end of its cell)
//   order    link_children_kernel: each node's parent and number of
//            children, from the children chains (p + 1, then next)
//   moments  moments_kernel: bottom-up in one launch. Each leaf's thread
//            computes its moments (leaf_moments) and climbs: the last child
//            to arrive at a parent (an integer counter) combines the
//            children in child order (combine_moments) and climbs on. Every
//            node's moments are rounded to Real (store_moments) in place.
// The three phases after the gather are fixed sequences of launches, replayed
// as CUDA graphs (re-captured only when N, the parameters or a buffer
// change). One readback at the end gives the node count, the depth and the
// validation flags; when the node count exceeds the node arrays (a first
// guess), nothing was written past them: they are grown to the count and the
// tree phases run again.
//
// No floating-point atomics anywhere: every sum has a fixed order.
#include "orrery/bh/octree_gpu.hpp"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/cuda/check_cuda.cuh"
#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/staged_download.hpp"
#include "orrery/bh/build_steps.hpp"
#include "orrery/bh/build_topology.hpp"
#include "orrery/bh/octree_build.hpp"

namespace orrery::bh {
namespace {

using cuda::DeviceBuffer;
using cuda::StreamHandle;

constexpr int kBlock = 256;  // threads per block of the per-node and per-particle kernels (a compile-time
                             // constant: the block reductions' shared storage is sized by it)

/// The build's launch geometry on one device (STYLE habit 3: tuning is a
/// named struct, not constants in kernels), in blocks per SM so that it
/// follows the device's size.
struct BuildTuning {
  // Grid-stride launches (count_nodes, write_nodes, extent, link_children):
  // enough blocks to fill the GPU, few enough that a launch over a small tree
  // is short and the per-block atomics of count_nodes_kernel stay few.
  int grid_blocks_per_sm = 8;
  int box_blocks_per_sm = 4;  // the box reduction's partial blocks

  unsigned max_grid_blocks(int sms) const { return static_cast<unsigned>(grid_blocks_per_sm * sms); }
  int box_blocks(int sms) const { return box_blocks_per_sm * sms; }
};

/// Measured rows, by compute capability; a device of another capability
/// takes the nearest row below (or the first). The H200 (9.0, 132 SMs: 1056
/// grid-stride blocks, 528 box blocks) is the one the build was tuned on
/// (docs/adr/0009); add a row when another device is measured.
struct TuningRow {
  int compute_major;
  BuildTuning tuning;
};
constexpr TuningRow kTuningRows[] = {
    {9, {8, 4}},  // H200
};

/// The build's launch geometry on the current device: its row's tuning
/// times its SM count.
struct LaunchGeometry {
  unsigned max_grid_blocks;
  int box_blocks;
};

LaunchGeometry current_device_geometry() {
  int device = 0, sms = 0, major = 0;
  ORRERY_CUDA_CHECK(cudaGetDevice(&device));
  ORRERY_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  ORRERY_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  BuildTuning t = kTuningRows[0].tuning;
  for (const TuningRow& r : kTuningRows)
    if (r.compute_major <= major) t = r.tuning;
  sms = std::max(sms, 1);
  return {t.max_grid_blocks(sms), t.box_blocks(sms)};
}

/// What the device tells the host once per build (one small copy).
/// What the box phase checks of each source: x, y, z finite, the mass, and
/// (with a cube given) the position inside it.
constexpr int kBadFields = 5;

struct BuildStatus {
  // Nodes of the tree, summed in 64 bits so that a count past the node
  // arrays (or past 2^31) is seen rather than wrapped.
  unsigned long long num_nodes;
  int depth;  // deepest level present
  // 1 + the largest index of a non-finite x, y, z, an invalid mass, or a
  // position outside the cube given from outside; 0 if none.
  unsigned long long bad[kBadFields];
};

template <class Real>
struct BoxAccumulator {
  Real lo[3], hi[3];
  unsigned long long bad[kBadFields];
};

/// Min/max are exact and commutative: any reduction order gives the same box.
struct CombineBox {
  template <class Real>
  __device__ BoxAccumulator<Real> operator()(const BoxAccumulator<Real>& a, const BoxAccumulator<Real>& b) const {
    BoxAccumulator<Real> r;
    for (int k = 0; k < 3; ++k) {
      r.lo[k] = b.lo[k] < a.lo[k] ? b.lo[k] : a.lo[k];
      r.hi[k] = b.hi[k] > a.hi[k] ? b.hi[k] : a.hi[k];
    }
    for (int k = 0; k < kBadFields; ++k) r.bad[k] = a.bad[k] > b.bad[k] ? a.bad[k] : b.bad[k];
    return r;
  }
};

template <class Real>
__device__ BoxAccumulator<Real> empty_box() {
  BoxAccumulator<Real> r;
  for (int k = 0; k < 3; ++k) {
    r.lo[k] = std::numeric_limits<Real>::infinity();
    r.hi[k] = -std::numeric_limits<Real>::infinity();
  }
  for (int k = 0; k < kBadFields; ++k) r.bad[k] = 0;
  return r;
}

template <class Real>
__global__ void box_partial_kernel(SourcesView<Real> s, bool cube_given, Cube given, BoxAccumulator<Real>* partial) {
  BoxAccumulator<Real> acc = empty_box<Real>();
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < s.count; i += stride) {
    const Real p[3] = {s.x[i], s.y[i], s.z[i]};
    for (int k = 0; k < 3; ++k) {
      acc.lo[k] = p[k] < acc.lo[k] ? p[k] : acc.lo[k];
      acc.hi[k] = p[k] > acc.hi[k] ? p[k] : acc.hi[k];
      // i grows along the loop, so the last bad index seen is this thread's largest.
      acc.bad[k] = isfinite(p[k]) ? acc.bad[k] : (unsigned long long)(i + 1);
    }
    const Real m = s.mass[i];
    acc.bad[3] = (m >= Real(0)) & isfinite(m) ? acc.bad[3] : (unsigned long long)(i + 1);
    acc.bad[4] = !cube_given | in_cube(p[0], p[1], p[2], given) ? acc.bad[4] : (unsigned long long)(i + 1);
  }
  using Reduce = cub::BlockReduce<BoxAccumulator<Real>, kBlock>;
  __shared__ typename Reduce::TempStorage temp;
  const BoxAccumulator<Real> block = Reduce(temp).Reduce(acc, CombineBox{});
  if (threadIdx.x == 0) partial[blockIdx.x] = block;
}

template <class Real>
__global__ void box_final_kernel(const BoxAccumulator<Real>* partial, int num_partials, bool cube_given,
                                 Cube given, Cube* cube, BuildStatus* status) {
  BoxAccumulator<Real> acc = empty_box<Real>();
  for (int b = threadIdx.x; b < num_partials; b += blockDim.x) acc = CombineBox{}(acc, partial[b]);
  using Reduce = cub::BlockReduce<BoxAccumulator<Real>, kBlock>;
  __shared__ typename Reduce::TempStorage temp;
  const BoxAccumulator<Real> box = Reduce(temp).Reduce(acc, CombineBox{});
  if (threadIdx.x == 0) {
    *cube = cube_given ? given : cube_from_box(box.lo[0], box.lo[1], box.lo[2], box.hi[0], box.hi[1], box.hi[2]);
    for (int k = 0; k < kBadFields; ++k) status->bad[k] = box.bad[k];
  }
}

template <class Real>
__global__ void keys_kernel(SourcesView<Real> s, const Cube* cube, std::uint64_t* key, std::int32_t* index) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= s.count) return;  // tail of the last block
  const Cube c = *cube;
  key[i] = position_key(s.x[i], s.y[i], s.z[i], c);
  index[i] = static_cast<std::int32_t>(i);
}

template <class Real>
__global__ void gather_kernel(SourcesView<Real> s, const std::int32_t* order, Real* x, Real* y, Real* z, Real* m) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= s.count) return;  // tail of the last block
  const std::int32_t o = order[i];
  x[i] = s.x[o];
  y[i] = s.y[o];
  z[i] = s.z[o];
  m[i] = s.mass[o];
}

__global__ void init_status_kernel(BuildStatus* status) {
  status->num_nodes = 0;
  status->depth = 0;
}

struct MaxOf {
  __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

/// Per sorted particle j: start[j] = the number of nodes whose first particle
/// is j (nodes_at); start[n] = 0, so that the exclusive scan of start[0..n]
/// leaves the node count in start[n]. The total and the depth go to status
/// by integer atomics (order-free), one per block.
__global__ void __launch_bounds__(kBlock)
    count_nodes_kernel(const std::uint64_t* keys, std::int32_t n, std::int32_t cap, std::int32_t* start,
                       BuildStatus* status) {
  long long total = 0;
  int depth = 0;
  for (std::int64_t j = std::int64_t(blockIdx.x) * kBlock + threadIdx.x; j < n; j += std::int64_t(gridDim.x) * kBlock) {
    const NodesAt a = nodes_at(keys, n, static_cast<std::int32_t>(j), cap);
    start[j] = a.count;
    total += a.count;
    const int deepest = a.first_level + a.count - 1;
    depth = a.count > 0 && deepest > depth ? deepest : depth;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) start[n] = 0;
  __shared__ typename cub::BlockReduce<long long, kBlock>::TempStorage sum_temp;
  __shared__ typename cub::BlockReduce<int, kBlock>::TempStorage max_temp;
  total = cub::BlockReduce<long long, kBlock>(sum_temp).Sum(total);
  depth = cub::BlockReduce<int, kBlock>(max_temp).Reduce(depth, MaxOf{});
  if (threadIdx.x == 0) {
    atomicAdd(&status->num_nodes, static_cast<unsigned long long>(total));
    atomicMax(&status->depth, depth);
  }
}

/// True when the tree does not fit the node arrays: then no kernel writes a
/// node (the host grows the arrays to the count and builds again).
__device__ bool over_capacity(const BuildStatus* status, std::int64_t capacity) {
  return status->num_nodes > static_cast<unsigned long long>(capacity);
}

/// Per sorted particle: key, level and first of the nodes it starts.
__global__ void __launch_bounds__(kBlock)
    write_nodes_kernel(const std::uint64_t* keys, std::int32_t n, const std::int32_t* start, std::int64_t capacity,
                       const BuildStatus* status, TopologyArrays out) {
  if (over_capacity(status, capacity)) return;
  for (std::int64_t j = std::int64_t(blockIdx.x) * kBlock + threadIdx.x; j < n; j += std::int64_t(gridDim.x) * kBlock)
    write_nodes_at(keys, start, static_cast<std::int32_t>(j), out);
}

/// Per node: count and next (write_extent).
__global__ void __launch_bounds__(kBlock)
    extent_kernel(const std::uint64_t* keys, std::int32_t n, const std::int32_t* start, std::int64_t capacity,
                  const BuildStatus* status, TopologyArrays out) {
  if (over_capacity(status, capacity)) return;
  const auto num_nodes = static_cast<std::int64_t>(status->num_nodes);
  for (std::int64_t i = std::int64_t(blockIdx.x) * kBlock + threadIdx.x; i < num_nodes;
       i += std::int64_t(gridDim.x) * kBlock)
    write_extent(keys, n, start, static_cast<std::int32_t>(i), out);
}

/// Per node p: parent[c] = p for each child c, pending[p] = the number of
/// children (the arrivals moments_kernel waits for); parent[0] = -1.
__global__ void __launch_bounds__(kBlock)
    link_children_kernel(const std::int32_t* next, std::int64_t capacity, const BuildStatus* status,
                         std::int32_t* parent, std::int32_t* pending) {
  if (over_capacity(status, capacity)) return;
  const auto num_nodes = static_cast<std::int64_t>(status->num_nodes);
  for (std::int64_t i = std::int64_t(blockIdx.x) * kBlock + threadIdx.x; i < num_nodes;
       i += std::int64_t(gridDim.x) * kBlock) {
    const auto p = static_cast<std::int32_t>(i);
    std::int32_t children[8];
    const int k = children_of(next, p, children);
    for (int c = 0; c < k; ++c) parent[children[c]] = p;
    pending[p] = k;
    if (p == 0) parent[0] = -1;  // the root: where the climb of moments_kernel stops
  }
}

template <class Real>
struct SortedSources {
  const Real *x, *y, *z, *m;
};

/// The nodes' topology as moments_kernel reads it.
struct TopologyIn {
  const std::uint64_t* key;
  const std::int32_t *level, *first, *count, *next, *parent;
};

/// A node's moments written by another thread of this launch: loaded from L2
/// (__ldcg), never from a possibly stale L1 line.
template <class Mo>
__device__ Mo load_from_l2(const Mo* p) {
  static_assert(sizeof(Mo) % sizeof(double) == 0);
  Mo m;
  const double* src = reinterpret_cast<const double*>(p);
  double* dst = reinterpret_cast<double*>(&m);
  for (int f = 0; f < int(sizeof(Mo) / sizeof(double)); ++f) dst[f] = __ldcg(src + f);
  return m;
}

/// Doubles of a node's record in the moments phase (bh::Moments<M>): 10
/// up to the quadrupole, 20 for the octupole, 35 for the hexadecapole.
std::size_t moment_doubles(Multipole m) {
  return with_multipole(m, [](auto mp) { return sizeof(Moments<decltype(mp)::value>) / sizeof(double); });
}

/// Moments bottom-up in one launch. A leaf's thread computes its moments and
/// climbs: it stores the node's rounded moments (store_moments, pre-order
/// index = node index) and its double moments in mo, then arrives at the
/// parent (atomicSub on pending); the last child to arrive combines all
/// children in child order, the same operands in the same order as the CPU's
/// combine_moments, and climbs on. No thread waits for another.
template <Multipole M, class Real>
__global__ void __launch_bounds__(kBlock)
    moments_kernel(TopologyIn t, std::int64_t capacity, const BuildStatus* status, std::int32_t* pending,
                   const Cube* cube, SortedSources<Real> s, double theta, double tolerance, Moments<M>* mo,
                   MomentArrays<Real> out) {
  if (over_capacity(status, capacity)) return;
  const auto num_nodes = static_cast<std::int64_t>(status->num_nodes);
  const Cube c = *cube;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kBlock + threadIdx.x; i < num_nodes;
       i += std::int64_t(gridDim.x) * kBlock) {
    // Climbs start at leaves only: an internal node is done by its last child's thread.
    if (t.next[i] != i + 1) continue;
    auto node = static_cast<std::int32_t>(i);
    CellGeometry g = cell_geometry(t.key[node], t.level[node], c);
    Moments<M> m = leaf_moments<M>(s.x, s.y, s.z, s.m, t.first[node], t.count[node], g);
    for (;;) {  // one step per level climbed: as long as this thread arrives last
      store_moments<M>(out, node, m, g, theta, tolerance);
      const std::int32_t p = t.parent[node];
      mo[node] = m;      // the root's too: download_moments() returns every node's
      if (p < 0) break;  // the root is done
      __threadfence();  // the moments are visible device-wide before the arrival is
      if (atomicSub(pending + p, 1) != 1) break;  // a sibling is still missing: its thread climbs on
      __threadfence();  // the siblings' moments were fenced before their arrivals
      std::int32_t children[8];
      const int k = children_of(t.next, p, children);
      node = p;
      g = cell_geometry(t.key[node], t.level[node], c);
      // The children streamed from L2 (read twice with quadrupoles), not
      // copied into a local array: eight moments are 640 bytes of stack a
      // thread, local-memory traffic of the whole tree's size.
      m = combine_moments<M>(k, [&](int j) { return load_from_l2(mo + children[j]); }, g);
    }
  }
}

unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

/// Blocks of a grid-stride launch over at most n items (BuildTuning).
unsigned capped_blocks(std::int64_t n, const LaunchGeometry& g) { return std::min(blocks_for(n), g.max_grid_blocks); }

/// A first guess of the node count: about 3N/cap nodes (leaves a third full
/// on average), plus slack. The device counts the nodes before writing any,
/// and a tree past the guess is built again with arrays of its exact size,
/// so this needs to be good, not safe.
std::int64_t initial_node_capacity(std::int64_t n, int cap) {
  return std::min<std::int64_t>(n / cap * 3 + n / 16 + 4096, std::numeric_limits<std::int32_t>::max() - 1);
}

/// out[k] = mo[nodes[k]]: the moments of the nodes asked for, together.
__global__ void __launch_bounds__(kBlock)
    gather_moments(std::int32_t count, const std::int32_t* nodes, const NodeMoments* mo, NodeMoments* out) {
  const std::int32_t k = static_cast<std::int32_t>(blockIdx.x) * kBlock + static_cast<std::int32_t>(threadIdx.x);
  if (k < count) out[k] = mo[nodes[k]];
}

/// The double moments (NodeMoments) are the ranks' record up to the
/// quadrupole only, as build_octree's: a higher order is refused by name.
void refuse_moments_past_quadrupole(Multipole m) {
  if (multipole_order(m) > 2)
    throw InputError("DeviceOctree::download_moments: the double moments of a " + std::string(to_string(m)) +
                     " tree were asked for; accepted: monopole or quadrupole trees");
}

/// first = the least k with order[k] != k (first's initial value where none).
__global__ void __launch_bounds__(kBlock)
    first_not_in_place(std::int32_t n, const std::int32_t* order, std::int32_t* first) {
  const std::int32_t k = static_cast<std::int32_t>(blockIdx.x) * kBlock + static_cast<std::int32_t>(threadIdx.x);
  if (k < n && order[k] != k) atomicMin(first, k);
}

/// Sizes `host` to `count` and queues its copy from `device` in `staged`.
template <class T>
void stage_to_host(cuda::StagedDownload& staged, std::vector<T>& host, const T* device, std::size_t count) {
  host.resize(count);
  staged.add(host.data(), device, count * sizeof(T));
}

}  // namespace

template <class Real>
struct DeviceOctree<Real>::Impl : TreeArrays<Real, DeviceBuffer> {
  // The tree in pre-order, its sorted sources and their order (TreeArrays;
  // the node arrays have node_capacity elements, num_nodes in use).
  using Arrays = TreeArrays<Real, DeviceBuffer>;
  using Arrays::key, Arrays::level, Arrays::first, Arrays::count, Arrays::next, Arrays::mass, Arrays::com_x,
      Arrays::com_y, Arrays::com_z, Arrays::crit2, Arrays::quad, Arrays::crit_rel, Arrays::x, Arrays::y, Arrays::z,
      Arrays::m, Arrays::order;

  static constexpr int kNumEvents = 8;
  static constexpr int kNumGraphs = 3;  // levels, order, moments

  LaunchGeometry geometry;  // of the device current at construction, where the buffers live
  TreeParams params;
  StreamHandle stream = nullptr;
  std::int64_t num_particles = 0;
  std::int32_t num_nodes = 0;
  int depth = 0;
  std::int64_t node_capacity = 0;  // of the node arrays
  std::uint64_t generation = 0;    // bumped whenever a buffer is reallocated (the graphs hold pointers)

  // Particles: keys and indices before and after the sort (the sorted
  // indices are order). key_in, dead after the sort, holds the levels
  // phase's node starts (node_start(): n + 1 int32 fit in n uint64 for n >=
  // 1), and sort_temp the scan's temporary storage.
  DeviceBuffer<std::uint64_t> key_in, key_sorted;
  DeviceBuffer<std::int32_t> index_in;
  DeviceBuffer<unsigned char> sort_temp;
  DeviceBuffer<BoxAccumulator<Real>> box_partial;
  DeviceBuffer<Cube> cube;
  DeviceBuffer<BuildStatus> status;
  // Per node: the parent and the children still to arrive (order phase), the
  // moments in double (moments phase, bh::Moments<multipole> a node; dead between builds).
  DeviceBuffer<std::int32_t> parent, pending;
  DeviceBuffer<double> moments;

  BuildStatus* host_status = nullptr;  // pinned, for the one readback
  // The downloads come through page-locked memory (an MPI rank's subtrees,
  // every step): allocated by the first of them.
  mutable cuda::StagedDownload staged;
  // download_moments(nodes)'s nodes and their moments, kept for the next call.
  mutable DeviceBuffer<std::int32_t> picked;
  mutable DeviceBuffer<NodeMoments> picked_moments;
  mutable DeviceBuffer<std::int32_t> moved;  // first_moved()'s answer
  std::optional<Cube> given_cube;      // the last build's cube from outside, if any
  std::array<cudaEvent_t, kNumEvents> events{};
  // The steps after the gather are a fixed sequence of small launches (the
  // node count lives on the device), replayed as CUDA graphs: one launch per
  // phase instead of one host call per kernel. Captured on a private stream
  // (the legacy default stream cannot be captured), launched on the build's.
  cuda::Stream capture_stream;
  std::array<cudaGraph_t, kNumGraphs> graph{};
  std::array<cudaGraphExec_t, kNumGraphs> graph_exec{};
  struct GraphKey {
    std::int64_t n = -1, capacity = 0;
    int cap = 0;
    Multipole multipole = Multipole::monopole;
    Opening opening = Opening::geometric;
    double theta = 0, tolerance = 0;
    std::uint64_t generation = 0;
    bool operator==(const GraphKey&) const = default;
  } graph_key;

  Impl() : geometry(current_device_geometry()) {
    ORRERY_CUDA_CHECK(cudaMallocHost(&host_status, sizeof(BuildStatus)));
    for (auto& e : events) ORRERY_CUDA_CHECK(cudaEventCreate(&e));
  }
  ~Impl() {
    destroy_graphs();
    for (auto& e : events) (void)cudaEventDestroy(e);
    (void)cudaFreeHost(host_status);
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  /// Grows `b` to at least `n` elements; never shrinks (buffers are reused
  /// across builds). The old buffer is freed first to keep the peak low.
  template <class T>
  void grow(DeviceBuffer<T>& b, std::size_t n) {
    if (b.size() >= n) return;
    b = DeviceBuffer<T>();
    b = DeviceBuffer<T>(n);
    ++generation;
  }
  void destroy_graphs() {
    // Only non-null handles: a failing call would leave an error for the next launch check.
    for (auto& e : graph_exec)
      if (e != nullptr) (void)cudaGraphExecDestroy(std::exchange(e, nullptr));
    for (auto& g : graph)
      if (g != nullptr) (void)cudaGraphDestroy(std::exchange(g, nullptr));
    graph_key = GraphKey{};
  }

  TopologyArrays topology() { return {key.data(), level.data(), first.data(), count.data(), next.data()}; }
  std::int32_t* node_start() { return reinterpret_cast<std::int32_t*>(key_in.data()); }
  std::size_t scan_temp_bytes() {
    std::size_t bytes = 0;  // a size query: launches nothing
    ORRERY_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, node_start(), int(num_particles + 1), stream));
    return bytes;
  }
  /// Elements of an array of this build's tree with `nodes` nodes and
  /// `particles` particles: none for the quadrupoles of a monopole tree or
  /// crit_rel of a geometric one.
  std::size_t elements(TreeArray kind, std::size_t nodes, std::size_t particles) const {
    switch (kind) {
      case TreeArray::node: return nodes;
      case TreeArray::node_quad: return nodes * std::size_t(moment_components(params.multipole));
      case TreeArray::node_relative: return params.opening == Opening::relative ? nodes : 0;
      case TreeArray::particle: return particles;
    }
    return 0;
  }
  void mark(int phase) { ORRERY_CUDA_CHECK(cudaEventRecord(events[phase], stream)); }

  void build(const SourcesView<Real>& s, const TreeParams& p, StreamHandle st, const Cube* cube);
  void box_and_keys(const SourcesView<Real>& s);
  void sort_and_gather(const SourcesView<Real>& s);
  void grow_node_buffers();
  void tree_phases();
  void capture_graphs();
  template <class Enqueue>
  void capture(int index, Enqueue&& enqueue);
  void enqueue_levels(StreamHandle s);
  void enqueue_order(StreamHandle s);
  template <Multipole M>
  void enqueue_moments(StreamHandle s);
  void throw_if_invalid(const SourcesView<Real>& s) const;
};

template <class Real>
void DeviceOctree<Real>::Impl::box_and_keys(const SourcesView<Real>& s) {
  const std::int64_t n = s.count;
  grow(box_partial, geometry.box_blocks);
  grow(cube, 1);
  grow(status, 1);
  const unsigned box_blocks = std::min<unsigned>(geometry.box_blocks, blocks_for(n));
  const bool given = given_cube.has_value();
  const Cube c = given ? *given_cube : Cube{};
  box_partial_kernel<Real><<<box_blocks, kBlock, 0, stream>>>(s, given, c, box_partial.data());
  ORRERY_CUDA_CHECK_LAUNCH("box_partial_kernel");
  box_final_kernel<Real><<<1, kBlock, 0, stream>>>(box_partial.data(), int(box_blocks), given, c, cube.data(),
                                                   status.data());
  ORRERY_CUDA_CHECK_LAUNCH("box_final_kernel");
  mark(1);
  grow(key_in, n);
  grow(index_in, n);
  keys_kernel<Real><<<blocks_for(n), kBlock, 0, stream>>>(s, cube.data(), key_in.data(), index_in.data());
  ORRERY_CUDA_CHECK_LAUNCH("keys_kernel");
  mark(2);
}

template <class Real>
void DeviceOctree<Real>::Impl::sort_and_gather(const SourcesView<Real>& s) {
  const std::int64_t n = s.count;
  grow(key_sorted, n);
  grow(order, n);
  // 32-bit item count (N < 2^31 is validated): CUB's 64-bit-offset path is slower.
  const int items = static_cast<int>(n);
  std::size_t temp_bytes = 0;
  ORRERY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, key_in.data(), key_sorted.data(),
                                                    index_in.data(), order.data(), items, 0, 3 * kMaxLevel, stream));
  grow(sort_temp, temp_bytes);
  ORRERY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sort_temp.data(), temp_bytes, key_in.data(), key_sorted.data(),
                                                    index_in.data(), order.data(), items, 0, 3 * kMaxLevel, stream));
  mark(3);
  for (auto* b : {&x, &y, &z, &m}) grow(*b, n);
  gather_kernel<Real><<<blocks_for(n), kBlock, 0, stream>>>(s, order.data(), x.data(), y.data(), z.data(), m.data());
  ORRERY_CUDA_CHECK_LAUNCH("gather_kernel");
  mark(4);
}

template <class Real>
void DeviceOctree<Real>::Impl::grow_node_buffers() {
  const auto c = static_cast<std::size_t>(node_capacity);
  grow(moments, c * moment_doubles(params.multipole));
  for (auto* b : {&parent, &pending}) grow(*b, c);
  for_each_array([&](TreeArray kind, auto& b) { grow(b, elements(kind, c, 0)); }, static_cast<Arrays&>(*this));
}

template <class Real>
void DeviceOctree<Real>::Impl::enqueue_levels(StreamHandle s) {
  const auto n = static_cast<std::int32_t>(num_particles);
  std::int32_t* start = node_start();
  const unsigned particle_blocks = capped_blocks(n, geometry), node_blocks = capped_blocks(node_capacity, geometry);
  init_status_kernel<<<1, 1, 0, s>>>(status.data());
  ORRERY_CUDA_CHECK_LAUNCH("init_status_kernel");
  count_nodes_kernel<<<particle_blocks, kBlock, 0, s>>>(key_sorted.data(), n, params.leaf_capacity, start,
                                                      status.data());
  ORRERY_CUDA_CHECK_LAUNCH("count_nodes_kernel");
  // n + 1 <= 2^31 - 1 items (N < 2^31 - 1 is validated). The int32 sums wrap
  // only past 2^31 nodes, which status->num_nodes (64-bit) reports instead.
  std::size_t temp_bytes = sort_temp.bytes();
  ORRERY_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(sort_temp.data(), temp_bytes, start, n + 1, s));
  write_nodes_kernel<<<particle_blocks, kBlock, 0, s>>>(key_sorted.data(), n, start, node_capacity, status.data(),
                                                       topology());
  ORRERY_CUDA_CHECK_LAUNCH("write_nodes_kernel");
  extent_kernel<<<node_blocks, kBlock, 0, s>>>(key_sorted.data(), n, start, node_capacity, status.data(),
                                              topology());
  ORRERY_CUDA_CHECK_LAUNCH("extent_kernel");
}

template <class Real>
void DeviceOctree<Real>::Impl::enqueue_order(StreamHandle s) {
  link_children_kernel<<<capped_blocks(node_capacity, geometry), kBlock, 0, s>>>(next.data(), node_capacity,
                                                                                 status.data(), parent.data(),
                                                                                 pending.data());
  ORRERY_CUDA_CHECK_LAUNCH("link_children_kernel");
}

template <class Real>
template <Multipole M>
void DeviceOctree<Real>::Impl::enqueue_moments(StreamHandle s) {
  const TopologyIn t{key.data(), level.data(), first.data(), count.data(), next.data(), parent.data()};
  const SortedSources<Real> src{x.data(), y.data(), z.data(), m.data()};
  const MomentArrays<Real> out{mass.data(),
                               com_x.data(),
                               com_y.data(),
                               com_z.data(),
                               crit2.data(),
                               M != Multipole::monopole ? quad.data() : nullptr,
                               params.opening == Opening::relative ? crit_rel.data() : nullptr};
  // One thread per node (not grid-stride): a leaf's climb is a chain of
  // dependent loads, and more threads in flight hide them.
  moments_kernel<M, Real><<<blocks_for(node_capacity), kBlock, 0, s>>>(
      t, node_capacity, status.data(), pending.data(), cube.data(), src, params.theta, params.tolerance,
      reinterpret_cast<Moments<M>*>(moments.data()), out);
  ORRERY_CUDA_CHECK_LAUNCH("moments_kernel");
}

template <class Real>
template <class Enqueue>
void DeviceOctree<Real>::Impl::capture(int index, Enqueue&& enqueue) {
  const StreamHandle s = capture_stream.get();
  ORRERY_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  try {
    enqueue(s);
  } catch (...) {
    cudaGraph_t partial = nullptr;
    (void)cudaStreamEndCapture(s, &partial);
    if (partial != nullptr) (void)cudaGraphDestroy(partial);
    throw;
  }
  ORRERY_CUDA_CHECK(cudaStreamEndCapture(s, &graph[index]));
  ORRERY_CUDA_CHECK(cudaGraphInstantiate(&graph_exec[index], graph[index], 0));
}

template <class Real>
void DeviceOctree<Real>::Impl::capture_graphs() {
  destroy_graphs();
  capture(0, [&](StreamHandle s) { enqueue_levels(s); });
  capture(1, [&](StreamHandle s) { enqueue_order(s); });
  capture(2, [&](StreamHandle s) {
    with_multipole(params.multipole, [&](auto mp) { enqueue_moments<decltype(mp)::value>(s); });
  });
}

template <class Real>
void DeviceOctree<Real>::Impl::tree_phases() {
  node_capacity = std::max(node_capacity, initial_node_capacity(num_particles, params.leaf_capacity));
  grow(sort_temp, scan_temp_bytes());  // usually a no-op: the sort's storage is larger
  for (;;) {
    grow_node_buffers();
    const GraphKey k{num_particles, node_capacity, params.leaf_capacity, params.multipole,
                     params.opening,  params.theta,  params.tolerance,      generation};
    if (!(k == graph_key)) {
      capture_graphs();
      graph_key = k;
    }
    ORRERY_CUDA_CHECK(cudaGraphLaunch(graph_exec[0], stream));
    mark(5);
    ORRERY_CUDA_CHECK(cudaGraphLaunch(graph_exec[1], stream));
    mark(6);
    ORRERY_CUDA_CHECK(cudaGraphLaunch(graph_exec[2], stream));
    mark(7);
    cuda::copy_device_to_host(host_status, status.data(), sizeof(BuildStatus), stream);  // synchronises
    const unsigned long long nodes = host_status->num_nodes;
    const bool invalid = std::any_of(std::begin(host_status->bad), std::end(host_status->bad),
                                     [](unsigned long long b) { return b != 0; });
    if (nodes <= static_cast<unsigned long long>(node_capacity) || invalid) return;  // invalid: build() throws
    if (nodes > static_cast<unsigned long long>(std::numeric_limits<std::int32_t>::max() - 1))
      throw RuntimeFailure("the octree of " + std::to_string(num_particles) + " particles has " +
                           std::to_string(nodes) + " nodes, more than 2^31 - 2");
    // The count is exact, so the second pass fits; a sixteenth more spares a
    // simulation a rebuild each time its tree gains a few nodes.
    node_capacity = std::min<std::int64_t>(static_cast<std::int64_t>(nodes + nodes / 16),
                                           std::numeric_limits<std::int32_t>::max() - 1);
  }
}

template <class Real>
void DeviceOctree<Real>::Impl::throw_if_invalid(const SourcesView<Real>& s) const {
  static constexpr const char* kField[4] = {"x", "y", "z", "mass"};
  const Real* arrays[4] = {s.x, s.y, s.z, s.mass};
  for (int k = 0; k < 4; ++k) {
    if (host_status->bad[k] == 0) continue;
    const std::int64_t i = static_cast<std::int64_t>(host_status->bad[k] - 1);
    Real v{};
    cuda::copy_device_to_host(&v, arrays[k] + i, sizeof(Real), stream);
    const std::string what = "particle " + std::to_string(i) + ": " + kField[k] + " = " + std::to_string(v);
    throw InputError(k < 3 ? what + " is not finite; positions must be finite numbers"
                           : what + " is invalid; accepted: a finite number >= 0");
  }
  if (host_status->bad[4] != 0) {
    const std::int64_t i = static_cast<std::int64_t>(host_status->bad[4] - 1);
    Real p[3]{};
    for (int k = 0; k < 3; ++k) cuda::copy_device_to_host(&p[k], arrays[k] + i, sizeof(Real), stream);
    throw InputError(outside_cube_message(i, p[0], p[1], p[2], *given_cube));
  }
}

template <class Real>
void DeviceOctree<Real>::Impl::build(const SourcesView<Real>& s, const TreeParams& p, StreamHandle st,
                                     const Cube* c) {
  validate_tree_params(p, s.count);
  if (c != nullptr) validate_cube(*c);
  given_cube = c != nullptr ? std::optional<Cube>(*c) : std::nullopt;
  num_nodes = 0;  // until this build has succeeded
  params = p;
  stream = st;
  num_particles = s.count;
  mark(0);
  box_and_keys(s);
  sort_and_gather(s);
  tree_phases();
  throw_if_invalid(s);
  num_nodes = static_cast<std::int32_t>(host_status->num_nodes);
  depth = host_status->depth;
}

template <class Real>
DeviceOctree<Real>::DeviceOctree() : impl_(std::make_unique<Impl>()) {}
template <class Real>
DeviceOctree<Real>::~DeviceOctree() = default;
template <class Real>
DeviceOctree<Real>::DeviceOctree(DeviceOctree&&) noexcept = default;
template <class Real>
DeviceOctree<Real>& DeviceOctree<Real>::operator=(DeviceOctree&&) noexcept = default;

template <class Real>
void DeviceOctree<Real>::build(const SourcesView<Real>& sources, const TreeParams& params, StreamHandle stream,
                               const Cube* cube) {
  impl_->build(sources, params, stream, cube);
}

template <class Real>
OctreeView<Real> DeviceOctree<Real>::view() const {
  const Impl& t = *impl_;
  if (t.num_nodes == 0) return {};
  return t.view(t.num_nodes, t.num_particles, t.params.multipole, t.params.opening == Opening::relative, t.params);
}

template <class Real>
const std::int32_t* DeviceOctree<Real>::order() const {
  return impl_->num_nodes == 0 ? nullptr : impl_->order.data();
}
template <class Real>
std::int32_t DeviceOctree<Real>::num_nodes() const {
  return impl_->num_nodes;
}
template <class Real>
std::int64_t DeviceOctree<Real>::num_particles() const {
  return impl_->num_nodes == 0 ? 0 : impl_->num_particles;
}
template <class Real>
int DeviceOctree<Real>::depth() const {
  return impl_->depth;
}
template <class Real>
const TreeParams& DeviceOctree<Real>::params() const {
  return impl_->params;
}

template <class Real>
Cube DeviceOctree<Real>::cube() const {
  Cube c;
  if (impl_->num_nodes > 0) cuda::copy_device_to_host(&c, impl_->cube.data(), sizeof(Cube), impl_->stream);
  return c;
}

template <class Real>
GpuBuildTimes DeviceOctree<Real>::times() const {
  GpuBuildTimes t;
  if (impl_->num_nodes == 0) return t;
  const auto& e = impl_->events;
  ORRERY_CUDA_CHECK(cudaEventSynchronize(e[Impl::kNumEvents - 1]));
  double* phase[Impl::kNumEvents - 1] = {&t.box,    &t.keys,  &t.sort,   &t.gather,
                                         &t.levels, &t.order, &t.moments};  // in the order run
  for (int k = 0; k + 1 < Impl::kNumEvents; ++k) {
    float ms = 0;
    ORRERY_CUDA_CHECK(cudaEventElapsedTime(&ms, e[k], e[k + 1]));
    *phase[k] = 1e-3 * ms;
  }
  return t;
}

template <class Real>
std::span<std::byte> DeviceOctree<Real>::scratch_between_builds() const {
  auto& m = impl_->moments;  // written and read by moments_kernel only, then dead
  return {reinterpret_cast<std::byte*>(m.data()), m.bytes()};
}

template <class Real>
std::size_t DeviceOctree<Real>::device_bytes() const {
  const Impl& t = *impl_;
  std::size_t b = t.key_in.bytes() + t.key_sorted.bytes() + t.index_in.bytes() + t.sort_temp.bytes() +
                  t.box_partial.bytes() + t.cube.bytes() + t.status.bytes() + t.moments.bytes() + t.parent.bytes() +
                  t.pending.bytes();
  for_each_array([&b](TreeArray, const auto& v) { b += v.bytes(); }, static_cast<const typename Impl::Arrays&>(t));
  return b;
}

template <class Real>
Octree<Real> DeviceOctree<Real>::download() const {
  Octree<Real> h = download_nodes();
  const Impl& t = *impl_;
  if (t.num_nodes == 0) return h;
  const auto np = static_cast<std::size_t>(t.num_particles);
  stage_to_host(t.staged, h.x, t.x.data(), np);
  stage_to_host(t.staged, h.y, t.y.data(), np);
  stage_to_host(t.staged, h.z, t.z.data(), np);
  stage_to_host(t.staged, h.m, t.m.data(), np);
  t.staged.run(t.stream);
  return h;
}

template <class Real>
Octree<Real> DeviceOctree<Real>::download_nodes() const {
  return download_nodes(true);
}

template <class Real>
std::int64_t DeviceOctree<Real>::first_moved() const {
  const Impl& t = *impl_;
  if (t.num_particles == 0) return -1;
  const auto n = static_cast<std::int32_t>(t.num_particles);
  t.moved.fit(1);
  const std::int32_t none = std::numeric_limits<std::int32_t>::max();
  cuda::copy_host_to_device(t.moved.data(), &none, sizeof(none), t.stream);
  first_not_in_place<<<blocks_for(n), kBlock, 0, t.stream>>>(n, t.order.data(), t.moved.data());
  ORRERY_CUDA_CHECK_LAUNCH("first_not_in_place");
  std::int32_t first = none;
  cuda::copy_device_to_host(&first, t.moved.data(), sizeof(first), t.stream);
  return first == none ? -1 : first;
}

template <class Real>
Octree<Real> DeviceOctree<Real>::download_nodes(bool with_order) const {
  const Impl& t = *impl_;
  Octree<Real> h;
  if (t.num_nodes == 0) return h;
  const std::size_t nn = static_cast<std::size_t>(t.num_nodes), np = static_cast<std::size_t>(t.num_particles);
  h.cube = cube();
  h.params = t.params;
  h.depth = t.depth;
  for_each_array([&](TreeArray kind, auto& host, const auto& device) {
    if (kind == TreeArray::particle) return;  // the sources below, the order after
    if (const std::size_t c = t.elements(kind, nn, np); c > 0) stage_to_host(t.staged, host, device.data(), c);
  }, static_cast<TreeArrays<Real, HostBuffer>&>(h), static_cast<const typename Impl::Arrays&>(t));
  if (with_order) stage_to_host(t.staged, h.order, t.order.data(), np);
  t.staged.run(t.stream);
  return h;
}

template <class Real>
std::vector<NodeMoments> DeviceOctree<Real>::download_moments() const {
  const Impl& t = *impl_;
  refuse_moments_past_quadrupole(t.params.multipole);
  static_assert(sizeof(Moments<Multipole::quadrupole>) == sizeof(NodeMoments));
  std::vector<NodeMoments> h(static_cast<std::size_t>(t.num_nodes));
  t.staged.add(h.data(), t.moments.data(), h.size() * sizeof(NodeMoments));
  t.staged.run(t.stream);
  return h;
}

template <class Real>
std::vector<NodeMoments> DeviceOctree<Real>::download_moments(std::span<const std::int32_t> nodes) const {
  const Impl& t = *impl_;
  refuse_moments_past_quadrupole(t.params.multipole);
  for (const std::int32_t n : nodes)
    if (n < 0 || n >= t.num_nodes)
      throw InputError("DeviceOctree::download_moments: node " + std::to_string(n) + " was asked for; accepted: 0 to " +
                       std::to_string(t.num_nodes - 1) + ", the nodes of the last build");
  std::vector<NodeMoments> h(nodes.size());
  if (nodes.empty()) return h;
  const auto count = static_cast<std::int32_t>(nodes.size());
  t.picked.fit(nodes.size());
  t.picked_moments.fit(nodes.size());
  t.picked.upload(nodes, t.stream);
  gather_moments<<<blocks_for(count), kBlock, 0, t.stream>>>(
      count, t.picked.data(), reinterpret_cast<const NodeMoments*>(t.moments.data()), t.picked_moments.data());
  ORRERY_CUDA_CHECK_LAUNCH("gather_moments");
  t.staged.add(h.data(), t.picked_moments.data(), h.size() * sizeof(NodeMoments));
  t.staged.run(t.stream);
  return h;
}

template class DeviceOctree<float>;
template class DeviceOctree<double>;

}  // namespace orrery::bh
