// The GPU tree build: the level-by-level algorithm of build_steps.hpp, one
// kernel (or one CUB call) per step, each node's work done by the same
// ORRERY_HD functions the CPU build calls (octree_build.cpp), so that the two
// trees are equal bit for bit.
//
// Phases (one CUDA event between each, see GpuBuildTimes):
//   box      box_partial_kernel (per-block min/max + validation flags),
//            box_final_kernel (one block: the Cube, exact and order-free)
//   keys     keys_kernel: position_key, and the index 0..N-1
//   sort     CUB radix sort of (key, index), bits [0, 63); LSD radix sort is
//            stable and the indices go in ascending, so ties are broken by the
//            original index exactly as the CPU's (key, index) comparison does
//   gather   the sources into sorted order
//   levels   for L = 0..20: count_children_kernel (is_split, child_bounds'
//            ranges found by child_bounds_interleaved, non-empty children,
//            chunk sums; the last block to finish scans
//            them and writes the next level's extent, after a capacity
//            check), write_children_kernel (block scan, child_key, ranges).
//            The level extents live on the device, so all 21 levels are
//            enqueued without a host round trip; a level past the tree's
//            depth is an empty launch.
//   moments  bottom-up over the levels: subtree sizes, and leaf_moments /
//            combine_moments in double
//   order    top-down over the levels: pre-order indices; then one scatter
//            of every node into pre-order (topology, next = preorder +
//            subtree size, moments rounded to Real, crit2)
// The three phases after the sort are fixed sequences of launches, replayed
// as CUDA graphs (re-captured only when N, the parameters or a buffer
// change). One readback at the end gives the node count, the level sizes, the
// overflow flag (the arrays are then grown and the tree phases run again) and
// the validation flags.
//
// Breadth-first arrays (prefix b_) hold the nodes as the levels create them:
// the children of a node are contiguous and in child order, as in the CPU's
// LevelTree. No floating-point atomics anywhere: every sum has a fixed order.
#include "orrery/tree/octree_gpu.hpp"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <array>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/cuda/check_cuda.cuh"
#include "orrery/cuda/memory.hpp"
#include "orrery/tree/build_steps.hpp"
#include "orrery/tree/child_bounds_interleaved.hpp"
#include "orrery/tree/octree_build.hpp"

namespace orrery::tree {
namespace {

using cuda::DeviceBuffer;
using cuda::StreamHandle;

constexpr int kBlock = 256;        // threads per block of the per-node and per-particle kernels
constexpr unsigned kMaxGridBlocks = 1056;  // grid-stride launches: 8 blocks per SM of an H200
constexpr int kBoxBlocks = 528;    // blocks of the box reduction (4 per SM of an H200)
constexpr int kNumLevelSlots = kMaxLevel + 2;  // level L is [level_begin[L], level_begin[L+1]), L = 0..21

/// What the device tells the host once per build (one small copy).
struct BuildStatus {
  std::int32_t level_begin[kNumLevelSlots];
  std::int32_t overflow;  // 1 when the breadth-first arrays were too small for the tree
  unsigned int ticket;    // blocks of count_children_kernel done (the last one scans)
  // 1 + the largest index of a non-finite x, y, z, or an invalid mass; 0 if none.
  unsigned long long bad[4];
};

template <class Real>
struct BoxAccumulator {
  Real lo[3], hi[3];
  unsigned long long bad[4];
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
    for (int k = 0; k < 4; ++k) r.bad[k] = a.bad[k] > b.bad[k] ? a.bad[k] : b.bad[k];
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
  for (int k = 0; k < 4; ++k) r.bad[k] = 0;
  return r;
}

template <class Real>
__global__ void box_partial_kernel(SourcesView<Real> s, BoxAccumulator<Real>* partial) {
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
  }
  using Reduce = cub::BlockReduce<BoxAccumulator<Real>, kBlock>;
  __shared__ typename Reduce::TempStorage temp;
  const BoxAccumulator<Real> block = Reduce(temp).Reduce(acc, CombineBox{});
  if (threadIdx.x == 0) partial[blockIdx.x] = block;
}

template <class Real>
__global__ void box_final_kernel(const BoxAccumulator<Real>* partial, int num_partials, Cube* cube,
                                 BuildStatus* status) {
  BoxAccumulator<Real> acc = empty_box<Real>();
  for (int b = threadIdx.x; b < num_partials; b += blockDim.x) acc = CombineBox{}(acc, partial[b]);
  using Reduce = cub::BlockReduce<BoxAccumulator<Real>, kBlock>;
  __shared__ typename Reduce::TempStorage temp;
  const BoxAccumulator<Real> box = Reduce(temp).Reduce(acc, CombineBox{});
  if (threadIdx.x == 0) {
    *cube = cube_from_box(box.lo[0], box.lo[1], box.lo[2], box.hi[0], box.hi[1], box.hi[2]);
    for (int k = 0; k < 4; ++k) status->bad[k] = box.bad[k];
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

/// The breadth-first nodes (the CPU's LevelTree), device pointers.
struct LevelArrays {
  std::uint64_t* key;
  std::int32_t* level;
  std::int32_t* first;
  std::int32_t* count;
  std::int32_t* child_begin;
  std::int32_t* num_children;
};

__global__ void init_levels_kernel(LevelArrays t, std::int32_t n, BuildStatus* status, std::int32_t* preorder) {
  t.key[0] = 0;
  t.level[0] = 0;
  t.first[0] = 0;
  t.count[0] = n;
  t.child_begin[0] = 0;
  t.num_children[0] = 0;
  preorder[0] = 0;  // the root comes first
  status->level_begin[0] = 0;
  for (int l = 1; l < kNumLevelSlots; ++l) status->level_begin[l] = 1;
  status->overflow = 0;
  status->ticket = 0;
}

/// The nodes of level L, [lo, lo + width), read on the device: the host
/// enqueues every level without knowing their sizes.
struct LevelExtent {
  std::int32_t lo, width;
  __device__ std::int32_t chunks() const { return (width + kBlock - 1) / kBlock; }
};

__device__ LevelExtent level_extent(const BuildStatus* status, int L) {
  const std::int32_t lo = status->level_begin[L];
  return {lo, status->level_begin[L + 1] - lo};
}

/// Per node of level L: split or not, child ranges (kept in `inner`: the 7
/// inner bounds), non-empty children, summed per chunk of kBlock nodes. The
/// last block to finish then scans the chunk sums into chunk offsets and
/// writes the extent of level L+1, after a capacity check (an overflowing
/// level creates no children; the host grows the arrays and builds again).
/// Blocks loop over chunks (block-uniform trip count), so the grid can be
/// capped and an empty level costs one short launch.
__global__ void __launch_bounds__(kBlock)
    count_children_kernel(LevelArrays t, const std::uint64_t* keys, int L, std::int32_t cap, std::int64_t capacity,
                          BuildStatus* status, std::int32_t* inner, std::int32_t* chunk_sum,
                          std::int32_t* chunk_offset) {
  const LevelExtent e = level_extent(status, L);
  using Reduce = cub::BlockReduce<int, kBlock>;
  using Scan = cub::BlockScan<std::int64_t, kBlock>;
  __shared__ union {
    typename Reduce::TempStorage reduce;
    typename Scan::TempStorage scan;
  } temp;
  __shared__ bool last;
  for (std::int32_t chunk = blockIdx.x; chunk < e.chunks(); chunk += gridDim.x) {
    const std::int32_t k = chunk * kBlock + threadIdx.x;
    int children = 0;
    if (k < e.width) {
      const std::int32_t i = e.lo + k;
      const std::int32_t first = t.first[i], count = t.count[i];
      // Only split nodes search for their children: leaves are most nodes of deep levels.
      if (is_split(keys, first, count, L, cap)) {
        std::int32_t b[9];
        child_bounds_interleaved(keys, first, count, t.key[i], L, b);  // child_bounds' bounds, shorter load chain
        for (int c = 1; c < 8; ++c) inner[std::int64_t(k) * 7 + c - 1] = b[c];
        for (int c = 0; c < 8; ++c) children += b[c + 1] > b[c];
      }
      t.num_children[i] = children;
    }
    const int sum = Reduce(temp.reduce).Sum(children);
    if (threadIdx.x == 0) chunk_sum[chunk] = sum;
    __syncthreads();  // temp is reused by the next chunk
  }
  __threadfence();  // this block's chunk sums are visible before its ticket is
  if (threadIdx.x == 0) last = atomicAdd(&status->ticket, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;  // all but the last block are done
  std::int64_t running = 0;
  for (std::int32_t base = 0; base < e.chunks(); base += kBlock) {
    const std::int32_t j = base + threadIdx.x;
    const std::int64_t v = j < e.chunks() ? __ldcg(chunk_sum + j) : 0;  // L2: written by other blocks
    std::int64_t offset, total;
    Scan(temp.scan).ExclusiveSum(v, offset, total);
    if (j < e.chunks()) chunk_offset[j] = static_cast<std::int32_t>(running + offset);
    running += total;
    __syncthreads();  // temp is reused by the next chunk
  }
  if (threadIdx.x == 0) {
    const std::int64_t hi = e.lo + e.width;
    const bool over = (status->overflow != 0) | (hi + running > capacity);
    status->overflow = over ? 1 : 0;
    status->level_begin[L + 2] = over ? static_cast<std::int32_t>(hi) : static_cast<std::int32_t>(hi + running);
    status->ticket = 0;
  }
}

/// Per node of level L: where its children go (breadth-first, after the
/// level), and the children themselves, in child order.
__global__ void __launch_bounds__(kBlock)
    write_children_kernel(LevelArrays t, int L, const BuildStatus* status, const std::int32_t* inner,
                          const std::int32_t* chunk_offset) {
  if (status->overflow != 0) return;  // nothing is written: the levels are built again
  const LevelExtent e = level_extent(status, L);
  const std::int32_t hi = e.lo + e.width;
  using Scan = cub::BlockScan<int, kBlock>;
  __shared__ typename Scan::TempStorage temp;
  for (std::int32_t chunk = blockIdx.x; chunk < e.chunks(); chunk += gridDim.x) {
    const std::int32_t k = chunk * kBlock + threadIdx.x;
    const int children = k < e.width ? t.num_children[e.lo + k] : 0;
    int offset;
    Scan(temp).ExclusiveSum(children, offset);
    __syncthreads();  // temp is reused by the next chunk
    if (k >= e.width) continue;  // tail of the level, after the block-wide scan
    const std::int32_t i = e.lo + k;
    std::int32_t out = hi + chunk_offset[chunk] + offset;
    t.child_begin[i] = out;
    if (children == 0) continue;  // a leaf has nothing to write
    std::int32_t b[9];
    b[0] = t.first[i];
    b[8] = b[0] + t.count[i];
    for (int c = 1; c < 8; ++c) b[c] = inner[std::int64_t(k) * 7 + c - 1];
    const std::uint64_t key = t.key[i];
    for (int c = 0; c < 8; ++c) {
      if (b[c + 1] == b[c]) continue;  // empty children are not nodes
      t.key[out] = child_key(key, L, c);
      t.level[out] = L + 1;
      t.first[out] = b[c];
      t.count[out] = b[c + 1] - b[c];
      t.child_begin[out] = 0;  // the deepest level is never counted: its nodes are leaves
      t.num_children[out] = 0;
      ++out;
    }
  }
}

template <class Real>
struct SortedSources {
  const Real *x, *y, *z, *m;
};

/// Bottom-up over level L: subtree sizes (for the pre-order) and moments
/// (leaf_moments over a leaf's particles, combine_moments over the children).
template <bool Quad, class Real>
__global__ void bottom_up_kernel(int L, LevelArrays t, const BuildStatus* status, const Cube* cube,
                                 SortedSources<Real> s, std::int32_t* subtree, NodeMoments* mo) {
  if (status->overflow != 0) return;  // the levels are incomplete: built again
  const LevelExtent e = level_extent(status, L);
  for (std::int32_t i = e.lo + blockIdx.x * kBlock + threadIdx.x; i < e.lo + e.width; i += gridDim.x * kBlock) {
    const std::int32_t n = t.num_children[i], cb = t.child_begin[i];
    std::int32_t size = 1;
    for (std::int32_t c = 0; c < n; ++c) size += subtree[cb + c];
    subtree[i] = size;
    const CellGeometry g = cell_geometry(t.key[i], L, *cube);
    // Leaves sum particles, internal nodes children: two different loops.
    if (n == 0)
      mo[i] = leaf_moments<Quad>(s.x, s.y, s.z, s.m, t.first[i], t.count[i], g);
    else
      mo[i] = combine_moments<Quad>(mo + cb, n, g);
  }
}

/// Top-down over level L: the pre-order indices of the children.
__global__ void preorder_kernel(int L, const BuildStatus* status, const std::int32_t* child_begin,
                                const std::int32_t* num_children, const std::int32_t* subtree,
                                std::int32_t* preorder) {
  if (status->overflow != 0) return;  // the levels are incomplete: built again
  const LevelExtent e = level_extent(status, L);
  for (std::int32_t i = e.lo + blockIdx.x * kBlock + threadIdx.x; i < e.lo + e.width; i += gridDim.x * kBlock) {
    std::int32_t at = preorder[i] + 1;
    const std::int32_t cb = child_begin[i], n = num_children[i];
    for (std::int32_t c = 0; c < n; ++c) {
      preorder[cb + c] = at;
      at += subtree[cb + c];
    }
  }
}

/// The tree in pre-order: the pointers of an OctreeView, writable.
template <class Real>
struct TreeOut {
  std::uint64_t* key;
  std::int32_t *level, *first, *count, *next;
  MomentArrays<Real> moments;
};

/// Every node to its pre-order place: topology, next = preorder + subtree
/// size, moments rounded to Real, crit2.
template <bool Quad, class Real>
__global__ void scatter_kernel(LevelArrays t, const BuildStatus* status, const std::int32_t* subtree,
                               const std::int32_t* preorder, const Cube* cube, double theta, double tolerance,
                               const NodeMoments* mo,
                               TreeOut<Real> out) {
  if (status->overflow != 0) return;  // the levels are incomplete: built again
  const std::int32_t num_nodes = status->level_begin[kNumLevelSlots - 1];
  for (std::int32_t i = blockIdx.x * kBlock + threadIdx.x; i < num_nodes; i += gridDim.x * kBlock) {
    const std::int32_t d = preorder[i];
    out.key[d] = t.key[i];
    out.level[d] = t.level[i];
    out.first[d] = t.first[i];
    out.count[d] = t.count[i];
    out.next[d] = d + subtree[i];
    store_moments<Quad>(out.moments, d, mo[i], cell_geometry(t.key[i], t.level[i], *cube), theta, tolerance);
  }
}

unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

/// Blocks of a grid-stride launch over at most n items: enough to fill the
/// GPU, few enough that an empty level is a short launch.
unsigned capped_blocks(std::int64_t n) { return std::min(blocks_for(n), kMaxGridBlocks); }

/// A first guess of the breadth-first node count: about 3N/cap nodes (leaves
/// a third full on average), plus slack. Overflow is detected on the
/// device and the arrays grown (by doubling), so this needs to be good, not safe.
std::int64_t initial_node_capacity(std::int64_t n, int cap) {
  return std::min<std::int64_t>(n / cap * 3 + n / 16 + 4096, std::numeric_limits<std::int32_t>::max() - 1);
}

/// Upper bound of the number of nodes at level L, known on the host without
/// a readback: at most N (each holds a particle), 8^L, and below the root
/// 8 children of each split node, which holds more than cap particles.
std::int64_t level_width_bound(int L, std::int64_t n, int cap, std::int64_t capacity) {
  std::int64_t w = std::min(n, capacity);
  if (L < kMaxLevel) w = std::min<std::int64_t>(w, std::int64_t(1) << (3 * L));
  if (L > 0) w = std::min<std::int64_t>(w, 8 * (n / (std::int64_t(cap) + 1)));
  return std::max<std::int64_t>(w, 1);
}

template <class T>
void copy_to_host(std::vector<T>& host, const T* device, std::size_t count, StreamHandle stream) {
  host.resize(count);
  cuda::copy_device_to_host(host.data(), device, count * sizeof(T), stream);
}

}  // namespace

template <class Real>
struct DeviceOctree<Real>::Impl {
  static constexpr int kNumEvents = 8;
  static constexpr int kNumGraphs = 3;  // levels, bottom-up, top-down

  TreeParams params;
  StreamHandle stream = nullptr;
  std::int64_t num_particles = 0;
  std::int32_t num_nodes = 0;
  int depth = 0;
  std::int64_t node_capacity = 0;  // of the breadth-first arrays
  std::uint64_t generation = 0;    // bumped whenever a buffer is reallocated (the graphs hold pointers)

  // Particles: keys and indices before and after the sort, sorted sources.
  DeviceBuffer<std::uint64_t> key_in, key_sorted;
  DeviceBuffer<std::int32_t> index_in, order;
  DeviceBuffer<Real> x, y, z, m;
  DeviceBuffer<unsigned char> sort_temp;
  DeviceBuffer<BoxAccumulator<Real>> box_partial;
  DeviceBuffer<Cube> cube;
  DeviceBuffer<BuildStatus> status;
  // Breadth-first nodes and the scratch of the level phase.
  DeviceBuffer<std::uint64_t> b_key;
  DeviceBuffer<std::int32_t> b_level, b_first, b_count, b_child_begin, b_num_children;
  DeviceBuffer<std::int32_t> inner, chunk_sum, chunk_offset, subtree, preorder;
  DeviceBuffer<NodeMoments> moments;
  // The tree in pre-order.
  DeviceBuffer<std::uint64_t> key;
  DeviceBuffer<std::int32_t> level, first, count, next;
  DeviceBuffer<Real> mass, com_x, com_y, com_z, crit2, quad, crit_rel;

  BuildStatus* host_status = nullptr;  // pinned, for the one readback
  std::array<cudaEvent_t, kNumEvents> events{};
  // The steps after the sort are a fixed sequence of ~110 small launches (the
  // level extents live on the device), replayed as CUDA graphs: one launch
  // each instead of one host call per kernel. Captured on a private stream
  // (the legacy default stream cannot be captured), launched on the build's.
  cuda::Stream capture_stream;
  std::array<cudaGraph_t, kNumGraphs> graph{};
  std::array<cudaGraphExec_t, kNumGraphs> graph_exec{};
  struct GraphKey {
    std::int64_t n = -1, capacity = 0;
    int cap = 0;
    Multipole multipole = Multipole::monopole;
    double theta = 0;
    std::uint64_t generation = 0;
    bool operator==(const GraphKey&) const = default;
  } graph_key;

  Impl() {
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

  LevelArrays level_arrays() {
    return {b_key.data(), b_level.data(), b_first.data(), b_count.data(), b_child_begin.data(),
            b_num_children.data()};
  }
  void mark(int phase) { ORRERY_CUDA_CHECK(cudaEventRecord(events[phase], stream)); }

  void build(const SourcesView<Real>& s, const TreeParams& p, StreamHandle st);
  void box_and_keys(const SourcesView<Real>& s);
  void sort_and_gather(const SourcesView<Real>& s);
  void grow_node_buffers();
  void tree_phases();
  void capture_graphs();
  template <class Enqueue>
  void capture(int index, Enqueue&& enqueue);
  void enqueue_levels(StreamHandle s);
  template <bool Quad>
  void enqueue_bottom_up(StreamHandle s);
  template <bool Quad>
  void enqueue_top_down(StreamHandle s);
  void throw_if_invalid(const SourcesView<Real>& s) const;
};

template <class Real>
void DeviceOctree<Real>::Impl::box_and_keys(const SourcesView<Real>& s) {
  const std::int64_t n = s.count;
  grow(box_partial, kBoxBlocks);
  grow(cube, 1);
  grow(status, 1);
  const unsigned box_blocks = std::min<unsigned>(kBoxBlocks, blocks_for(n));
  box_partial_kernel<Real><<<box_blocks, kBlock, 0, stream>>>(s, box_partial.data());
  ORRERY_CUDA_CHECK_LAUNCH("box_partial_kernel");
  box_final_kernel<Real><<<1, kBlock, 0, stream>>>(box_partial.data(), int(box_blocks), cube.data(), status.data());
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
  grow(b_key, c);
  grow(key, c);
  grow(moments, c);
  for (auto* b : {&b_level, &b_first, &b_count, &b_child_begin, &b_num_children, &subtree, &preorder, &level, &first,
                  &count, &next})
    grow(*b, c);
  for (auto* b : {&mass, &com_x, &com_y, &com_z, &crit2}) grow(*b, c);
  if (params.multipole == Multipole::quadrupole) grow(quad, c * kQuadComponents);
  if (params.opening == Opening::relative) grow(crit_rel, c);
  const std::int64_t widest = std::min<std::int64_t>(num_particles, node_capacity);
  grow(inner, static_cast<std::size_t>(widest) * 7);
  grow(chunk_sum, blocks_for(widest));
  grow(chunk_offset, blocks_for(widest));
}

template <class Real>
void DeviceOctree<Real>::Impl::enqueue_levels(StreamHandle s) {
  const std::int64_t n = num_particles;
  const int cap = params.leaf_capacity;
  const LevelArrays t = level_arrays();
  init_levels_kernel<<<1, 1, 0, s>>>(t, static_cast<std::int32_t>(n), status.data(), preorder.data());
  ORRERY_CUDA_CHECK_LAUNCH("init_levels_kernel");
  for (int L = 0; L < kMaxLevel; ++L) {
    const unsigned blocks = capped_blocks(level_width_bound(L, n, cap, node_capacity));
    count_children_kernel<<<blocks, kBlock, 0, s>>>(t, key_sorted.data(), L, cap, node_capacity, status.data(),
                                                    inner.data(), chunk_sum.data(), chunk_offset.data());
    ORRERY_CUDA_CHECK_LAUNCH("count_children_kernel");
    write_children_kernel<<<blocks, kBlock, 0, s>>>(t, L, status.data(), inner.data(), chunk_offset.data());
    ORRERY_CUDA_CHECK_LAUNCH("write_children_kernel");
  }
}

template <class Real>
template <bool Quad>
void DeviceOctree<Real>::Impl::enqueue_bottom_up(StreamHandle s) {
  const SortedSources<Real> src{x.data(), y.data(), z.data(), m.data()};
  for (int L = kMaxLevel; L >= 0; --L) {
    const unsigned blocks = capped_blocks(level_width_bound(L, num_particles, params.leaf_capacity, node_capacity));
    bottom_up_kernel<Quad, Real><<<blocks, kBlock, 0, s>>>(L, level_arrays(), status.data(), cube.data(), src,
                                                           subtree.data(), moments.data());
    ORRERY_CUDA_CHECK_LAUNCH("bottom_up_kernel");
  }
}

template <class Real>
template <bool Quad>
void DeviceOctree<Real>::Impl::enqueue_top_down(StreamHandle s) {
  for (int L = 0; L < kMaxLevel; ++L) {
    const unsigned blocks = capped_blocks(level_width_bound(L, num_particles, params.leaf_capacity, node_capacity));
    preorder_kernel<<<blocks, kBlock, 0, s>>>(L, status.data(), b_child_begin.data(), b_num_children.data(),
                                              subtree.data(), preorder.data());
    ORRERY_CUDA_CHECK_LAUNCH("preorder_kernel");
  }
  const TreeOut<Real> out{key.data(),
                          level.data(),
                          first.data(),
                          count.data(),
                          next.data(),
                          {mass.data(), com_x.data(), com_y.data(), com_z.data(), crit2.data(), Quad ? quad.data() : nullptr,
                           params.opening == Opening::relative ? crit_rel.data() : nullptr}};
  scatter_kernel<Quad, Real><<<capped_blocks(node_capacity), kBlock, 0, s>>>(
      level_arrays(), status.data(), subtree.data(), preorder.data(), cube.data(), params.theta, params.tolerance, moments.data(),
      out);
  ORRERY_CUDA_CHECK_LAUNCH("scatter_kernel");
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
  const bool quad_moments = params.multipole == Multipole::quadrupole;
  capture(0, [&](StreamHandle s) { enqueue_levels(s); });
  capture(1, [&](StreamHandle s) { quad_moments ? enqueue_bottom_up<true>(s) : enqueue_bottom_up<false>(s); });
  capture(2, [&](StreamHandle s) { quad_moments ? enqueue_top_down<true>(s) : enqueue_top_down<false>(s); });
}

template <class Real>
void DeviceOctree<Real>::Impl::tree_phases() {
  node_capacity = std::max(node_capacity, initial_node_capacity(num_particles, params.leaf_capacity));
  for (;;) {
    grow_node_buffers();
    const GraphKey k{num_particles, node_capacity, params.leaf_capacity, params.multipole, params.theta, generation};
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
    if (host_status->overflow == 0) return;
    if (node_capacity >= std::numeric_limits<std::int32_t>::max() - 1)
      throw RuntimeFailure("the octree of " + std::to_string(num_particles) + " particles has more than 2^31 - 1 nodes");
    node_capacity = std::min<std::int64_t>(2 * node_capacity, std::numeric_limits<std::int32_t>::max() - 1);
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
}

template <class Real>
void DeviceOctree<Real>::Impl::build(const SourcesView<Real>& s, const TreeParams& p, StreamHandle st) {
  validate_tree_params(p, s.count);
  num_nodes = 0;  // until this build has succeeded
  params = p;
  stream = st;
  num_particles = s.count;
  mark(0);
  box_and_keys(s);
  sort_and_gather(s);
  tree_phases();
  throw_if_invalid(s);
  const std::int32_t* level_begin = host_status->level_begin;
  int num_levels = 1;
  while (num_levels < kMaxLevel + 1 && level_begin[num_levels + 1] > level_begin[num_levels]) ++num_levels;
  num_nodes = level_begin[kNumLevelSlots - 1];
  depth = num_levels - 1;
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
void DeviceOctree<Real>::build(const SourcesView<Real>& sources, const TreeParams& params, StreamHandle stream) {
  impl_->build(sources, params, stream);
}

template <class Real>
OctreeView<Real> DeviceOctree<Real>::view() const {
  const Impl& t = *impl_;
  if (t.num_nodes == 0) return {};
  const bool quad = t.params.multipole == Multipole::quadrupole;
  return {t.num_nodes,    t.num_particles, t.key.data(),   t.level.data(), t.first.data(), t.count.data(),
          t.next.data(),  t.mass.data(),   t.com_x.data(), t.com_y.data(), t.com_z.data(), t.crit2.data(),
          quad ? t.quad.data() : nullptr,  t.x.data(),     t.y.data(),     t.z.data(),     t.m.data(),
          t.params.opening == Opening::relative ? t.crit_rel.data() : nullptr};
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
  double* phase[Impl::kNumEvents - 1] = {&t.box,    &t.keys,    &t.sort, &t.gather,
                                         &t.levels, &t.moments, &t.order};  // in the order run
  for (int k = 0; k + 1 < Impl::kNumEvents; ++k) {
    float ms = 0;
    ORRERY_CUDA_CHECK(cudaEventElapsedTime(&ms, e[k], e[k + 1]));
    *phase[k] = 1e-3 * ms;
  }
  return t;
}

template <class Real>
std::span<std::byte> DeviceOctree<Real>::scratch_between_builds() const {
  auto& m = impl_->moments;  // written by the bottom-up pass, read by the top-down one, then dead
  return {reinterpret_cast<std::byte*>(m.data()), m.bytes()};
}

template <class Real>
std::size_t DeviceOctree<Real>::device_bytes() const {
  const Impl& t = *impl_;
  std::size_t b = t.key_in.bytes() + t.key_sorted.bytes() + t.index_in.bytes() + t.order.bytes() + t.sort_temp.bytes() +
                  t.box_partial.bytes() + t.cube.bytes() + t.status.bytes() + t.b_key.bytes() + t.moments.bytes() +
                  t.key.bytes();
  for (const auto* v : {&t.x, &t.y, &t.z, &t.m, &t.mass, &t.com_x, &t.com_y, &t.com_z, &t.crit2, &t.quad, &t.crit_rel})
    b += v->bytes();
  for (const auto* v : {&t.b_level, &t.b_first, &t.b_count, &t.b_child_begin, &t.b_num_children, &t.inner,
                        &t.chunk_sum, &t.chunk_offset, &t.subtree, &t.preorder, &t.level, &t.first, &t.count, &t.next})
    b += v->bytes();
  return b;
}

template <class Real>
Octree<Real> DeviceOctree<Real>::download() const {
  const Impl& t = *impl_;
  Octree<Real> h;
  if (t.num_nodes == 0) return h;
  const std::size_t nn = static_cast<std::size_t>(t.num_nodes), np = static_cast<std::size_t>(t.num_particles);
  h.cube = cube();
  h.params = t.params;
  h.depth = t.depth;
  copy_to_host(h.key, t.key.data(), nn, t.stream);
  copy_to_host(h.level, t.level.data(), nn, t.stream);
  copy_to_host(h.first, t.first.data(), nn, t.stream);
  copy_to_host(h.count, t.count.data(), nn, t.stream);
  copy_to_host(h.next, t.next.data(), nn, t.stream);
  copy_to_host(h.mass, t.mass.data(), nn, t.stream);
  copy_to_host(h.com_x, t.com_x.data(), nn, t.stream);
  copy_to_host(h.com_y, t.com_y.data(), nn, t.stream);
  copy_to_host(h.com_z, t.com_z.data(), nn, t.stream);
  copy_to_host(h.crit2, t.crit2.data(), nn, t.stream);
  if (t.params.multipole == Multipole::quadrupole) copy_to_host(h.quad, t.quad.data(), nn * kQuadComponents, t.stream);
  if (t.params.opening == Opening::relative) copy_to_host(h.crit_rel, t.crit_rel.data(), nn, t.stream);
  copy_to_host(h.x, t.x.data(), np, t.stream);
  copy_to_host(h.y, t.y.data(), np, t.stream);
  copy_to_host(h.z, t.z.data(), np, t.stream);
  copy_to_host(h.m, t.m.data(), np, t.stream);
  copy_to_host(h.order, t.order.data(), np, t.stream);
  return h;
}

template class DeviceOctree<float>;
template class DeviceOctree<double>;

}  // namespace orrery::tree
