#include "orrery/bh/octree.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <span>
#include <numeric>
#include <tuple>

#include <omp.h>

#include "orrery/core/error.hpp"

#include "orrery/bh/build_steps.hpp"
#include "orrery/bh/octree_build.hpp"
#include "support/test_inputs.hpp"

namespace orrery::bh {
namespace {

using testing::structured_inputs;

void expect_invariants(const Octree<float>& t, const std::string& name, int cap) {
  const std::int32_t nn = t.num_nodes();
  const std::int64_t np = static_cast<std::int64_t>(t.x.size());
  ASSERT_GE(nn, 1) << name;
  EXPECT_EQ(t.first[0], 0) << name;
  EXPECT_EQ(t.count[0], np) << name;
  EXPECT_EQ(t.next[0], nn) << name;
  std::vector<int> leaf_of(np, 0);
  for (std::int32_t i = 0; i < nn; ++i) {
    ASSERT_GT(t.next[i], i) << name;
    ASSERT_LE(t.next[i], nn) << name;
    ASSERT_GT(t.count[i], 0) << name << " node " << i;
    const bool leaf = t.next[i] == i + 1;
    if (leaf) {
      for (int j = t.first[i]; j < t.first[i] + t.count[i]; ++j) ++leaf_of[j];
      // Over capacity only when all its particles share one key.
      if (t.count[i] > cap) {
        EXPECT_EQ(position_key(t.x[t.first[i]], t.y[t.first[i]], t.z[t.first[i]], t.cube),
                  position_key(t.x[t.first[i] + t.count[i] - 1], t.y[t.first[i] + t.count[i] - 1],
                               t.z[t.first[i] + t.count[i] - 1], t.cube))
            << name;
      }
    } else {
      // Children tile the parent's range, in order, one level down.
      std::int32_t at = t.first[i];
      for (std::int32_t c = i + 1; c < t.next[i]; c = t.next[c]) {
        EXPECT_EQ(t.first[c], at) << name;
        EXPECT_EQ(t.level[c], t.level[i] + 1) << name;
        at += t.count[c];
      }
      EXPECT_EQ(at, t.first[i] + t.count[i]) << name;
    }
  }
  for (std::int64_t j = 0; j < np; ++j) ASSERT_EQ(leaf_of[j], 1) << name << " particle " << j;
  // Independent layout check: pre-order == sort by (start key, level), and
  // next[i] == first node whose start key is past the end of cell i's range.
  std::vector<std::int32_t> idx(nn);
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](int a, int b) {
    return std::tie(t.key[a], t.level[a]) < std::tie(t.key[b], t.level[b]);
  });
  for (std::int32_t i = 0; i < nn; ++i) ASSERT_EQ(idx[i], i) << name;
  for (std::int32_t i = 0; i < nn; ++i) {
    const int shift = key_shift(t.level[i]);
    const std::uint64_t end = t.key[i] + (std::uint64_t(1) << shift);  // < 2^64: keys have 63 bits
    std::int32_t lb = i + 1;
    while (lb < nn && t.key[lb] < end) ++lb;
    ASSERT_EQ(t.next[i], lb) << name << " node " << i;
  }
}

void expect_moments_match_direct_sums(const Octree<float>& t, const std::string& name) {
  for (std::int32_t i = 0; i < t.num_nodes(); ++i) {
    double m = 0, sx = 0;
    for (int j = t.first[i]; j < t.first[i] + t.count[i]; ++j) {
      m += t.m[j];
      sx += double(t.m[j]) * t.x[j];
    }
    EXPECT_NEAR(t.mass[i], m, 1e-6 * m) << name;
    if (m > 0) {
      EXPECT_NEAR(t.com_x[i], sx / m, 1e-5 * (std::abs(sx / m) + t.cube.side)) << name;
    }
  }
}

TEST(Octree, InvariantsOnStructuredInputs) {
  for (const auto& in : structured_inputs()) {
    for (int cap : {1, 4, 16}) {
      const auto t = build_octree(in.particles.sources(), TreeParams{0.5, cap, Multipole::quadrupole});
      expect_invariants(t, in.name, cap);
      expect_moments_match_direct_sums(t, in.name);
    }
  }
}

TEST(Octree, AllParticlesAtOnePointFormOneOversizedLeaf) {
  const auto inputs = structured_inputs();
  const auto& p = inputs[1].particles;
  const auto t = build_octree(p.sources(), TreeParams{0.5, 8, Multipole::monopole});
  EXPECT_EQ(t.num_nodes(), 1);
  EXPECT_EQ(t.cube.side, 0.0);
}

TEST(Octree, DeterministicAcrossThreadCounts) {
  const auto p = testing::uniform_cube(20000, 3);
  omp_set_num_threads(1);
  const auto a = build_octree(p.sources(), TreeParams{});
  omp_set_num_threads(omp_get_num_procs());
  const auto b = build_octree(p.sources(), TreeParams{});
  EXPECT_EQ(a.key, b.key);
  EXPECT_EQ(a.next, b.next);
  EXPECT_EQ(a.com_x, b.com_x);
  EXPECT_EQ(a.crit2, b.crit2);
}

TEST(Octree, RejectsInvalidInputNamingTheField) {
  auto p = testing::uniform_cube(10, 1);
  p.y[3] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(
      {
        try {
          build_octree(p.sources(), TreeParams{});
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("particle 3: y"), std::string::npos) << e.what();
          throw;
        }
      },
      InputError);
  auto q = testing::uniform_cube(10, 1);
  q.mass[2] = -1.0f;
  EXPECT_THROW(build_octree(q.sources(), TreeParams{}), InputError);
  EXPECT_THROW(build_octree(testing::uniform_cube(10, 1).sources(), TreeParams{-0.1, 8}), InputError);
  EXPECT_THROW(build_octree(testing::uniform_cube(10, 1).sources(), TreeParams{0.5, 0}), InputError);
}

TEST(Octree, NodesFromSortedKeysAreTheSortingBuildsBitForBit) {
  // Sources put in key order by a first build, four of them repeated (equal
  // keys), in a cube larger than their box (an MPI rank's global cube).
  auto p = testing::uniform_cube(30000, 7);
  for (int k = 0; k < 4; ++k) {
    p.x[100 + k] = p.x[99], p.y[100 + k] = p.y[99], p.z[100 + k] = p.z[99];
  }
  const Cube cube{-4.0, -4.5, -5.0, 10.0};
  TreeParams params{0.5, 8, Multipole::quadrupole};
  params.opening = Opening::relative;
  const auto first = build_octree(p.sources(), params, nullptr, &cube);
  const SourcesView<float> sorted{static_cast<std::int64_t>(first.x.size()), first.x.data(), first.y.data(),
                                  first.z.data(), first.m.data()};
  std::vector<std::uint64_t> keys(first.x.size());
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = position_key(first.x[i], first.y[i], first.z[i], cube);
  std::vector<NodeMoments> want_moments, got_moments;
  const auto want = build_octree(sorted, params, nullptr, &cube, &want_moments);
  const auto got = build_nodes_sorted(sorted, std::span<const std::uint64_t>(keys), params, cube, &got_moments);
  int arrays = 0, particle_arrays = 0;
  for_each_array(
      [&](TreeArray kind, const auto& w, const auto& g) {
        ++arrays;
        if (kind == TreeArray::particle) {
          // Held by neither: the sorting build's are the input, its order the identity.
          ++particle_arrays;
          EXPECT_TRUE(g.empty()) << "array " << arrays;
          ASSERT_EQ(w.size(), first.x.size()) << "array " << arrays;
          return;
        }
        ASSERT_EQ(w.size(), g.size()) << "array " << arrays;
        EXPECT_EQ(std::memcmp(w.data(), g.data(), w.size() * sizeof(w[0])), 0) << "array " << arrays;
      },
      want, got);
  EXPECT_EQ(arrays, 17);
  EXPECT_EQ(particle_arrays, 5);
  for (std::size_t i = 0; i < want.order.size(); ++i) ASSERT_EQ(want.order[i], static_cast<std::int32_t>(i)) << i;
  EXPECT_EQ(std::memcmp(want.x.data(), first.x.data(), first.x.size() * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(want.m.data(), first.m.data(), first.m.size() * sizeof(float)), 0);
  EXPECT_FALSE(got.crit_rel.empty());
  EXPECT_EQ(got.depth, want.depth);
  ASSERT_EQ(got_moments.size(), want_moments.size());
  EXPECT_EQ(std::memcmp(got_moments.data(), want_moments.data(), got_moments.size() * sizeof(NodeMoments)), 0);

  // Keys that decrease somewhere, or not one a source: named, refused.
  std::swap(keys[500], keys[501]);
  if (keys[500] == keys[501]) std::swap(keys[500], keys[20000]);
  const auto message = [&](std::span<const std::uint64_t> k) {
    try {
      build_nodes_sorted(sorted, k, params, cube);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(keys).find("is below the one before it"), std::string::npos) << message(keys);
  EXPECT_NE(message(std::span<const std::uint64_t>(keys).first(10)).find("10 keys for 30000 sources"),
            std::string::npos);
}

}  // namespace
}  // namespace orrery::bh
