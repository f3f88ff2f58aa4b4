// A new run's particles on rank r of K (run_parts.hpp: initial_particles):
// the rows rank_block gives it, the same bits as the whole set's, for every
// generator and for a snapshot of several types, in either precision; and a
// rank's start holds no array of all N (docs/adr/0012 decision 14).
#include <gtest/gtest.h>

#include <string>

#include "orrery/driver/run_parts.hpp"
#include "orrery/io/config.hpp"
#include "orrery/io/particle_types.hpp"
#include "orrery/io/snapshot.hpp"
#include "orrery/io/test_files.hpp"
#include "support/largest_allocation.hpp"

namespace orrery::driver {
namespace {

using io::testing::expect_same_particles;
using io::testing::ScratchDir;

integrate::RunConfig config_of(const std::vector<std::string>& settings) {
  io::Config c = io::Config::defaults();
  for (const auto& s : settings) c.set(s);
  return c.run_config();
}

template <class Real>
void expect_blocks_are_the_whole(const integrate::RunConfig& config, const std::string& what) {
  const auto whole = parts::initial_particles<Real>(config);
  const std::int64_t n = whole.particles.size();
  EXPECT_EQ(whole.total, n);
  for (const int k : {1, 3, 5}) {
    for (int r = 0; r < k; ++r) {
      SCOPED_TRACE(what + ", rank " + std::to_string(r) + " of " + std::to_string(k));
      const auto [b, e] = rank_block(r, k, n);
      const auto mine = parts::initial_particles<Real>(config, r, k);
      EXPECT_EQ(mine.total, n);
      EXPECT_EQ(mine.first, b);
      expect_same_particles(mine.particles, io::slice(whole.particles, b, e - b));
      EXPECT_EQ(mine.time, whole.time);
      EXPECT_EQ(mine.types, whole.types);
    }
  }
}

TEST(InitialParticles, ARanksBlockIsTheWholeSetsRowsForEveryGenerator) {
  for (const char* kind : {"plummer", "hernquist", "cold_sphere", "collision", "kepler"}) {
    const auto c = config_of({std::string("initial_conditions.kind=") + kind, "initial_conditions.count=1001",
                              "initial_conditions.mass=2", "initial_conditions.length=3"});
    expect_blocks_are_the_whole<double>(c, kind);
    expect_blocks_are_the_whole<float>(c, kind);
  }
}

TEST(InitialParticles, ARanksBlockIsTheWholeSnapshotsRows) {
  ScratchDir dir;
  io::SnapshotInfo info;
  info.time = 0.75;
  info.types.count = {300, 501, 0, 200, 0, 0};
  write_snapshot(dir / "ic.h5", io::testing::random_particles<double>(1001, 4), info);
  const auto c = config_of({"initial_conditions.kind=file", "initial_conditions.path=" + (dir / "ic.h5").string()});
  expect_blocks_are_the_whole<double>(c, "file");
  expect_blocks_are_the_whole<float>(c, "file");
}

// Rank 3 of 8 allocates nothing of half a column of all N (4 N bytes) while
// it makes or reads its block (N / 8 rows; the snapshot's read buffer of
// three columns of them is the largest); making or reading the whole set
// and cutting it would allocate at least a column of N doubles (8 N bytes).
TEST(InitialParticles, ARanksStartHoldsNoArrayOfEveryParticle) {
  constexpr std::int64_t n = 160000;
  ScratchDir dir;
  write_snapshot(dir / "ic.h5", io::testing::random_particles<double>(n, 4), io::SnapshotInfo{});
  for (const auto& settings : std::vector<std::vector<std::string>>{
           {"initial_conditions.kind=plummer", "initial_conditions.count=" + std::to_string(n)},
           {"initial_conditions.kind=collision", "initial_conditions.count=" + std::to_string(n)},
           {"initial_conditions.kind=file", "initial_conditions.path=" + (dir / "ic.h5").string()}}) {
    const auto c = config_of(settings);
    std::size_t largest = 0;
    {
      const orrery::testing::LargestAllocation watch;
      const auto mine = parts::initial_particles<double>(c, 3, 8);
      largest = watch.bytes();
      EXPECT_EQ(mine.particles.size(), n / 8);
    }
    EXPECT_LT(largest, n * sizeof(double) / 2) << settings[0] << ": an allocation of " << largest << " bytes for "
                                                << n / 8 << " of " << n << " rows";
  }
}

}  // namespace
}  // namespace orrery::driver
