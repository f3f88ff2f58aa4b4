// The GPU walk's order of every source (leaf_order_gpu.hpp) against the
// host's (leaf_order.hpp, whose properties leaf_order_test.cpp checks) on the
// same tree, with each target's place in the caller's order. Skipped without
// a CUDA device.
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "orrery/cuda/device.hpp"
#include "orrery/bh/device_tree_copy.hpp"
#include "orrery/bh/leaf_order.hpp"
#include "orrery/bh/leaf_order_gpu.hpp"
#include "orrery/bh/octree_build.hpp"
#include "support/test_inputs.hpp"
#include "support/tree_gpu_test_support.hpp"

namespace orrery::bh {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (!cuda::device_available()) GTEST_SKIP() << "no CUDA device"

void expect_hilbert_leaf_order(const Particles<float>& p, int leaf_capacity, const std::string& what) {
  TreeParams params;
  params.leaf_capacity = leaf_capacity;
  const Octree<float> tree = build_octree(p.sources(), params);
  DeviceTreeCopy<float> d;
  d.upload(tree);
  const std::vector<std::int32_t> want = hilbert_leaf_order(tree.view());
  const auto n = tree.x.size();
  ASSERT_EQ(want.size(), n) << what << ": the leaves do not hold every particle once";
  // In memory of its own, then in a caller's scratch (offset by 4 bytes from
  // an allocation: its alignment is the order's to mend), then too small a one.
  cuda::DeviceBuffer<std::byte> scratch(64 * static_cast<std::size_t>(tree.num_nodes()) + 8192);
  const std::span<std::byte> given{scratch.data() + 4, scratch.size() - 4};
  HilbertLeafOrder order;
  for (const auto& [where, memory] : {std::pair{"own memory", std::span<std::byte>{}}, std::pair{"scratch", given},
                                      std::pair{"too small a scratch", given.first(64)}}) {
    order.compute(d.view(), d.order(), tree.depth, memory, nullptr);
    std::vector<std::int32_t> source(n), place(n);
    cuda::copy_device_to_host(source.data(), order.source(), n * sizeof(std::int32_t), nullptr);
    cuda::copy_device_to_host(place.data(), order.place(), n * sizeof(std::int32_t), nullptr);
    cuda::synchronize(nullptr);
    for (std::size_t w = 0; w < n; ++w) {
      ASSERT_EQ(source[w], want[w]) << what << ", " << where << ": walk position " << w;
      ASSERT_EQ(place[w], tree.order[static_cast<std::size_t>(source[w])]) << what << ", " << where << ": " << w;
    }
  }
}

TEST(HilbertLeafOrder, TakesLeavesAlongTheCurveOnEveryInput) {
  SKIP_WITHOUT_GPU();
  for (int capacity : {1, 8, 32})
    expect_hilbert_leaf_order(testing::plummer(20000, 3), capacity, "plummer, leaf capacity " + std::to_string(capacity));
  for (const auto& in : testing::structured_inputs()) expect_hilbert_leaf_order(in.particles, 16, in.name);
}

}  // namespace
}  // namespace orrery::bh
