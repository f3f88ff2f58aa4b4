#include "orrery/bh/leaf_order_gpu.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "orrery/cuda/check_cuda.cuh"
#include "orrery/cuda/stream_scratch.cuh"
#include "orrery/bh/hilbert.hpp"

namespace orrery::bh {
namespace {

constexpr int kBlock = 256;
constexpr std::uint64_t kNotALeaf = ~0ull;  // above every cell_hilbert_key (< 2^63): internal nodes sort last

unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

/// key[n] = the Hilbert key of node n's cell if it is a leaf, kNotALeaf otherwise; node[n] = n.
__global__ void __launch_bounds__(kBlock)
    leaf_keys(std::int32_t nodes, const std::uint64_t* cell_key, const std::int32_t* level, const std::int32_t* next,
              std::uint64_t* key, std::int32_t* node) {
  const std::int32_t n = static_cast<std::int32_t>(blockIdx.x) * kBlock + static_cast<std::int32_t>(threadIdx.x);
  if (n >= nodes) return;
  key[n] = next[n] == n + 1 ? cell_hilbert_key(cell_key[n], level[n]) : kNotALeaf;
  node[n] = n;
}

/// size[p] = the particles of the p-th node in Hilbert order (0 past the leaves).
__global__ void __launch_bounds__(kBlock)
    leaf_sizes(std::int32_t nodes, const std::uint64_t* key, const std::int32_t* node, const std::int32_t* count,
               std::int32_t* size) {
  const std::int32_t p = static_cast<std::int32_t>(blockIdx.x) * kBlock + static_cast<std::int32_t>(threadIdx.x);
  if (p < nodes) size[p] = key[p] != kNotALeaf ? count[node[p]] : 0;
}

/// One warp a leaf: its particles' sorted indices and the caller's indices
/// from offset[p] on (a leaf at the deepest level may hold many).
__global__ void __launch_bounds__(kBlock)
    place_leaves(std::int32_t nodes, const std::uint64_t* key, const std::int32_t* node, const std::int32_t* first,
                 const std::int32_t* count, const std::int32_t* offset, const std::int32_t* order, std::int32_t* source,
                 std::int32_t* place) {
  const std::int64_t p = (std::int64_t(blockIdx.x) * kBlock + threadIdx.x) / 32;
  if (p >= nodes || key[p] == kNotALeaf) return;
  const std::int32_t n = node[p], f = first[n], c = count[n], o = offset[p];
  for (std::int32_t j = static_cast<std::int32_t>(threadIdx.x % 32); j < c; j += 32) {
    source[o + j] = f + j;
    place[o + j] = order[f + j];
  }
}

}  // namespace

template <class Real>
void HilbertLeafOrder::compute(const OctreeView<Real>& t, const std::int32_t* order, cuda::StreamHandle s) {
  const std::int32_t nodes = t.num_nodes;
  source_.resize(static_cast<std::size_t>(t.num_particles));
  place_.resize(static_cast<std::size_t>(t.num_particles));
  if (nodes == 0) return;
  const auto un = static_cast<std::size_t>(nodes);
  const cuda::StreamScratch<std::uint64_t> key(2 * un, s);
  const cuda::StreamScratch<std::int32_t> node(3 * un, s);  // unsorted, sorted, and the scan's input
  std::uint64_t* const key_in = key.get();
  std::uint64_t* const key_out = key.get() + un;
  std::int32_t* const node_in = node.get();
  std::int32_t* const node_out = node.get() + un;
  std::int32_t* const size = node.get() + 2 * un;
  leaf_keys<<<blocks_for(nodes), kBlock, 0, s>>>(nodes, t.key, t.level, t.next, key_in, node_in);
  ORRERY_CUDA_CHECK_LAUNCH("leaf_keys");
  std::size_t sort_bytes = 0, scan_bytes = 0;
  ORRERY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, key_in, key_out, node_in, node_out, nodes, 0,
                                                    64, s));
  ORRERY_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, size, node_in, nodes, s));
  const cuda::StreamScratch<std::byte> temp(sort_bytes > scan_bytes ? sort_bytes : scan_bytes, s);
  ORRERY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.get(), sort_bytes, key_in, key_out, node_in, node_out, nodes,
                                                    0, 64, s));
  leaf_sizes<<<blocks_for(nodes), kBlock, 0, s>>>(nodes, key_out, node_out, t.count, size);
  ORRERY_CUDA_CHECK_LAUNCH("leaf_sizes");
  // The offsets overwrite the unsorted nodes, no longer needed.
  ORRERY_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.get(), scan_bytes, size, node_in, nodes, s));
  place_leaves<<<blocks_for(std::int64_t(nodes) * 32), kBlock, 0, s>>>(nodes, key_out, node_out, t.first, t.count,
                                                                      node_in, order, source_.data(), place_.data());
  ORRERY_CUDA_CHECK_LAUNCH("place_leaves");
}

template void HilbertLeafOrder::compute(const OctreeView<float>&, const std::int32_t*, cuda::StreamHandle);
template void HilbertLeafOrder::compute(const OctreeView<double>&, const std::int32_t*, cuda::StreamHandle);

}  // namespace orrery::bh
