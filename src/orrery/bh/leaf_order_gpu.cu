#include "orrery/bh/leaf_order_gpu.hpp"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "orrery/cuda/check_cuda.cuh"
#include "orrery/bh/hilbert.hpp"

namespace orrery::bh {
namespace {

constexpr int kBlock = 256;

unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

/// key[n] = the Hilbert key of node n's cell if it is a leaf, shifted right
/// by `shift` (the zero bits below the deepest level present), `not_a_leaf`
/// (above every leaf's) otherwise; node[n] = n.
__global__ void __launch_bounds__(kBlock)
    leaf_keys(std::int32_t nodes, const std::uint64_t* cell_key, const std::int32_t* level, const std::int32_t* next,
              int shift, std::uint64_t not_a_leaf, std::uint64_t* key, std::int32_t* node) {
  const std::int32_t n = static_cast<std::int32_t>(blockIdx.x) * kBlock + static_cast<std::int32_t>(threadIdx.x);
  if (n >= nodes) return;
  key[n] = next[n] == n + 1 ? cell_hilbert_key(cell_key[n], level[n]) >> shift : not_a_leaf;
  node[n] = n;
}

/// size[p] = the particles of the p-th node in Hilbert order (0 past the leaves).
__global__ void __launch_bounds__(kBlock)
    leaf_sizes(std::int32_t nodes, const std::uint64_t* key, const std::int32_t* node, const std::int32_t* count,
               std::uint64_t not_a_leaf, std::int32_t* size) {
  const std::int32_t p = static_cast<std::int32_t>(blockIdx.x) * kBlock + static_cast<std::int32_t>(threadIdx.x);
  if (p < nodes) size[p] = key[p] != not_a_leaf ? count[node[p]] : 0;
}

/// One warp a leaf: its particles' sorted indices and the caller's indices
/// from offset[p] on (a leaf at the deepest level may hold many).
__global__ void __launch_bounds__(kBlock)
    place_leaves(std::int32_t nodes, const std::uint64_t* key, const std::int32_t* node, const std::int32_t* first,
                 const std::int32_t* count, const std::int32_t* offset, std::uint64_t not_a_leaf,
                 const std::int32_t* order, std::int32_t* source, std::int32_t* place) {
  const std::int64_t p = (std::int64_t(blockIdx.x) * kBlock + threadIdx.x) / 32;
  if (p >= nodes || key[p] == not_a_leaf) return;
  const std::int32_t n = node[p], f = first[n], c = count[n], o = offset[p];
  for (std::int32_t j = static_cast<std::int32_t>(threadIdx.x % 32); j < c; j += 32) {
    source[o + j] = f + j;
    place[o + j] = order[f + j];
  }
}

/// The order's arrays in one piece of memory from `base` (256-byte aligned:
/// CUB's temporaries want it): two key and two node buffers for the sort,
/// the leaves' sizes, their offsets, then `temp` bytes for CUB. `bytes`
/// gets the span they take; with a null base only that is of use.
struct Scratch {
  std::uint64_t* key[2];
  std::int32_t* node[2];
  std::int32_t* size;
  std::int32_t* offset;
  void* temp;
};
Scratch lay_out(std::byte* base, std::size_t nodes, std::size_t temp, std::size_t& bytes) {
  std::size_t at = 0;
  const auto take = [&](std::size_t b) {
    const auto p = reinterpret_cast<std::byte*>(reinterpret_cast<std::uintptr_t>(base) + at);
    at += (b + 255) / 256 * 256;
    return p;
  };
  Scratch r{};
  for (auto*& k : r.key) k = reinterpret_cast<std::uint64_t*>(take(nodes * sizeof(std::uint64_t)));
  for (auto*& n : r.node) n = reinterpret_cast<std::int32_t*>(take(nodes * sizeof(std::int32_t)));
  r.size = reinterpret_cast<std::int32_t*>(take(nodes * sizeof(std::int32_t)));
  r.offset = reinterpret_cast<std::int32_t*>(take(nodes * sizeof(std::int32_t)));
  r.temp = take(temp);
  bytes = at;
  return r;
}

}  // namespace

template <class Real>
void HilbertLeafOrder::compute(const OctreeView<Real>& t, const std::int32_t* order, int depth,
                               std::span<std::byte> scratch, cuda::StreamHandle s) {
  const std::int32_t nodes = t.num_nodes;
  source_.resize(static_cast<std::size_t>(t.num_particles));
  place_.resize(static_cast<std::size_t>(t.num_particles));
  if (nodes == 0) return;
  // Keys of 3 depth bits (a leaf at level L <= depth has zeros below bit
  // 3 (kMaxLevel - L)) and one above them for the internal nodes: the sort
  // reads 3 depth + 1 bits, not 64.
  const int shift = 3 * (kMaxLevel - depth);
  const std::uint64_t not_a_leaf = std::uint64_t(1) << (3 * depth);
  const int end_bit = 3 * depth + 1;
  const auto un = static_cast<std::size_t>(nodes);
  cub::DoubleBuffer<std::uint64_t> keys(nullptr, nullptr);
  cub::DoubleBuffer<std::int32_t> ids(nullptr, nullptr);
  std::size_t sort_bytes = 0, scan_bytes = 0;
  std::int32_t* none = nullptr;
  ORRERY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, ids, nodes, 0, end_bit, s));
  ORRERY_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, none, none, nodes, s));
  const std::size_t temp = sort_bytes > scan_bytes ? sort_bytes : scan_bytes;
  std::size_t bytes = 0;
  lay_out(nullptr, un, temp, bytes);
  bytes += 255;  // room to align the base
  // The caller's scratch when it is large enough, else memory of our own kept across calls.
  if (scratch.size() < bytes) {
    if (own_.size() < bytes) own_.resize(bytes);
    scratch = {own_.data(), own_.size()};
  }
  const auto base = reinterpret_cast<std::uintptr_t>(scratch.data());
  const Scratch m = lay_out(scratch.data() + ((base + 255) / 256 * 256 - base), un, temp, bytes);
  keys = cub::DoubleBuffer<std::uint64_t>(m.key[0], m.key[1]);
  ids = cub::DoubleBuffer<std::int32_t>(m.node[0], m.node[1]);
  leaf_keys<<<blocks_for(nodes), kBlock, 0, s>>>(nodes, t.key, t.level, t.next, shift, not_a_leaf, keys.Current(),
                                                 ids.Current());
  ORRERY_CUDA_CHECK_LAUNCH("leaf_keys");
  ORRERY_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(m.temp, sort_bytes, keys, ids, nodes, 0, end_bit, s));
  leaf_sizes<<<blocks_for(nodes), kBlock, 0, s>>>(nodes, keys.Current(), ids.Current(), t.count, not_a_leaf, m.size);
  ORRERY_CUDA_CHECK_LAUNCH("leaf_sizes");
  ORRERY_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(m.temp, scan_bytes, m.size, m.offset, nodes, s));
  place_leaves<<<blocks_for(std::int64_t(nodes) * 32), kBlock, 0, s>>>(
      nodes, keys.Current(), ids.Current(), t.first, t.count, m.offset, not_a_leaf, order, source_.data(), place_.data());
  ORRERY_CUDA_CHECK_LAUNCH("place_leaves");
}

template void HilbertLeafOrder::compute(const OctreeView<float>&, const std::int32_t*, int, std::span<std::byte>,
                                        cuda::StreamHandle);
template void HilbertLeafOrder::compute(const OctreeView<double>&, const std::int32_t*, int, std::span<std::byte>,
                                        cuda::StreamHandle);

}  // namespace orrery::bh
