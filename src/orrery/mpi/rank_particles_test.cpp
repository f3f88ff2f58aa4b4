// A rank's particles reordered where they are (rank_particles.hpp's
// permute_in_place) equal the copy permuted() makes, every field, and the
// scratch and the spare keep their allocations from one call to the next.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "orrery/mpi/rank_particles.hpp"

namespace orrery::mpi {
namespace {

/// n particles whose every field holds values that differ between particles.
RankParticles<double> numbered(std::size_t n) {
  RankParticles<double> s;
  s.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    const double v = 0.5 + static_cast<double>(k);
    s.p.x[k] = v, s.p.y[k] = -v, s.p.z[k] = 2 * v, s.p.vx[k] = 3 * v, s.p.vy[k] = 4 * v, s.p.vz[k] = 5 * v;
    s.p.mass[k] = 1 / v, s.p.id[k] = 1000 + k, s.index[k] = 7 * k;
    s.a.ax[k] = 6 * v, s.a.ay[k] = 8 * v, s.a.az[k] = 9 * v, s.a.potential[k] = -1 / v;
    s.work[k] = static_cast<std::uint32_t>(3 * k + 1);
    s.bin[k] = static_cast<std::int8_t>(k % 120), s.active[k] = static_cast<std::uint8_t>(k % 2);
  }
  return s;
}

TEST(PermuteInPlace, EqualsPermutedInEveryField) {
  // Above kParallelLoop, so the gathers and the copies back run on the threads.
  const std::size_t n = 40000;
  std::vector<std::int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(5));
  const RankParticles<double> original = numbered(n);
  const RankParticles<double> want = permuted(original, order);
  RankParticles<double> got = original;
  ByteBuffer scratch;
  std::vector<double> spare;
  permute_in_place(got, order, scratch, spare);
  for_each_field([&](const auto& g, const auto& w) { EXPECT_EQ(g, w); }, got, want);
  EXPECT_EQ(scratch.capacity(), n * sizeof(std::uint64_t)) << "the scratch grows to the widest other field once";
  EXPECT_EQ(spare.size(), n);
  // Twice more: the permutation applied three times in all, against permuted()
  // applied to its own result; no new storage (the fields' and the spare's
  // blocks are the same set, passed round).
  std::vector<const double*> blocks = {spare.data(), got.p.x.data(), got.a.potential.data()};
  const std::byte* kept = scratch.data();
  permute_in_place(got, order, scratch, spare);
  permute_in_place(got, order, scratch, spare);
  const RankParticles<double> want3 = permuted(permuted(want, order), order);
  for_each_field([&](const auto& g, const auto& w) { EXPECT_EQ(g, w); }, got, want3);
  EXPECT_EQ(scratch.data(), kept) << "a second permutation must reuse the scratch";
  std::vector<const double*> all = {spare.data()};
  for_each_field(
      [&](const auto& f) {
        if constexpr (std::is_same_v<typename std::decay_t<decltype(f)>::value_type, double>) all.push_back(f.data());
      },
      got);
  for (const double* b : blocks) EXPECT_NE(std::find(all.begin(), all.end(), b), all.end()) << "a block was replaced";
}

TEST(PermuteInPlace, RefusesAFieldOfAnotherSize) {
  RankParticles<double> s = numbered(10);
  s.bin.resize(9);
  ByteBuffer scratch;
  std::vector<double> spare;
  std::vector<std::int32_t> order(10);
  std::iota(order.begin(), order.end(), 0);
  EXPECT_THROW(permute_in_place(s, order, scratch, spare), RuntimeFailure);
}

}  // namespace
}  // namespace orrery::mpi
