// read_snapshot_rows: rows [begin, end) of a snapshot read by hyperslab are
// read_snapshot's rows, bit for bit, across particle types, datasets of many
// chunks and any split into blocks (empty ones too); a bad row is named in
// the file's numbering by the block that holds it alone.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/io/particle_types.hpp"
#include "orrery/io/snapshot.hpp"
#include "orrery/io/test_files.hpp"
#include "support/block_splits.hpp"

namespace orrery::io {
namespace {

using testing::expect_input_error;
using testing::expect_same_particles;
using testing::random_particles;
using testing::same_bits;
using testing::ScratchDir;

template <class Real>
void expect_rows_are_the_whole_files(const std::filesystem::path& path) {
  const auto whole = read_snapshot<Real>(path);
  const std::int64_t n = whole.particles.size();
  for (const auto& cuts : orrery::testing::block_splits(n)) {
    for (std::size_t r = 0; r + 1 < cuts.size(); ++r) {
      const auto b = cuts[r], e = cuts[r + 1];
      std::int64_t total = -1;
      const auto rows = read_snapshot_rows<Real>(path, b, e, total);
      SCOPED_TRACE("rows " + std::to_string(b) + " to " + std::to_string(e));
      EXPECT_EQ(total, n);
      expect_same_particles(rows.particles, slice(whole.particles, b, e - b));
      const auto field = slice(whole.field, b, e - b);
      EXPECT_EQ(rows.has_potential, whole.has_potential);
      EXPECT_EQ(rows.has_acceleration, whole.has_acceleration);
      EXPECT_TRUE(same_bits(rows.field.potential, field.potential));
      EXPECT_TRUE(same_bits(rows.field.ax, field.ax) && same_bits(rows.field.ay, field.ay) &&
                  same_bits(rows.field.az, field.az));
      EXPECT_EQ(rows.info.types, whole.info.types);
      EXPECT_EQ(rows.info.time, whole.info.time);
      EXPECT_EQ(rows.info.units, whole.info.units);
      EXPECT_EQ(rows.info.precision, whole.info.precision);
    }
  }
}

TEST(SnapshotRows, AreTheWholeReadsRowsAcrossTypes) {
  ScratchDir dir;
  const auto p = random_particles<double>(40, 5);
  Accelerations<double> a(40);
  for (std::size_t i = 0; i < 40; ++i) a.ax[i] = double(i), a.ay[i] = -double(i), a.az[i] = 0.5, a.potential[i] = -1.0 - double(i);
  SnapshotInfo info;
  info.time = 2.5;
  info.types.count = {7, 0, 20, 13, 0, 0};
  write_snapshot(dir / "types.h5", p, info, SnapshotFields<double>{&a});
  expect_rows_are_the_whole_files<double>(dir / "types.h5");
  expect_rows_are_the_whole_files<float>(dir / "types.h5");
}

// Datasets of several chunks (kColumnPiece rows each): the hyperslabs cross chunk boundaries.
TEST(SnapshotRows, AreTheWholeReadsRowsAcrossChunks) {
  ScratchDir dir;
  const std::size_t n = 2 * static_cast<std::size_t>(kColumnPiece) + 1001;
  write_snapshot(dir / "big.h5", random_particles<float>(n, 9), SnapshotInfo{});
  expect_rows_are_the_whole_files<float>(dir / "big.h5");
}

TEST(SnapshotRows, NoneGiveTheCountAndRowsOutsideAreRefused) {
  ScratchDir dir;
  write_snapshot(dir / "s.h5", random_particles<double>(10, 1), SnapshotInfo{});
  std::int64_t total = 0;
  EXPECT_EQ(read_snapshot_rows<double>(dir / "s.h5", 0, 0, total).particles.size(), 0);
  EXPECT_EQ(total, 10);
  EXPECT_THROW(read_snapshot_rows<double>(dir / "s.h5", 3, 11, total), RuntimeFailure);
  EXPECT_THROW(read_snapshot_rows<double>(dir / "s.h5", 4, 3, total), RuntimeFailure);
}

// A non-finite position in row 17 of PartType2 (row 24 of the file): the block holding it
// names that row; a block without it reads cleanly.
TEST(SnapshotRows, ABadRowIsNamedInTheFilesNumbering) {
  ScratchDir dir;
  auto p = random_particles<double>(40, 5);
  p.x[24] = std::nan("");
  SnapshotInfo info;
  info.types.count = {7, 0, 20, 13, 0, 0};
  write_snapshot(dir / "bad.h5", p, info);
  std::int64_t total = 0;
  expect_input_error([&] { read_snapshot_rows<double>(dir / "bad.h5", 20, 30, total); },
                     {"bad.h5", "PartType2/Coordinates", "row 17 is not finite"});
  EXPECT_NO_THROW(read_snapshot_rows<double>(dir / "bad.h5", 25, 40, total));
}

}  // namespace
}  // namespace orrery::io
