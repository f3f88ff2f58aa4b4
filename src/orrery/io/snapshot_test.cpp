#include "orrery/io/snapshot.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <limits>

#include "orrery/io/test_files.hpp"

namespace orrery::io {
namespace {

using testing::expect_input_error;
using testing::expect_same_particles;
using testing::random_particles;
using testing::same_bits;
using testing::ScratchDir;

SnapshotInfo sample_info() {
  SnapshotInfo info;
  info.time = 1.25;
  info.step = 40;
  info.units = henon_units(2.0, 1e11);
  info.softening = 0.01;
  info.softening_kernel = "spline";
  info.theta = 0.5;
  info.solver = "tree/cpu/monopole";
  info.config = "[gravity]\nsolver = \"tree\"\n";
  return info;
}

template <class Real>
void round_trip() {
  ScratchDir dir;
  const auto p = random_particles<Real>(1000, 3);
  Accelerations<Real> acc(1000);
  Rng rng(5);
  for (std::size_t i = 0; i < 1000; ++i)
    acc.ax[i] = Real(rng.normal()), acc.ay[i] = Real(rng.normal()), acc.az[i] = Real(rng.normal()),
    acc.potential[i] = Real(-rng.uniform());
  const auto info = sample_info();
  write_snapshot(dir / "s.h5", p, info, SnapshotFields<Real>{&acc});
  const auto s = read_snapshot<Real>(dir / "s.h5");
  expect_same_particles(p, s.particles);
  ASSERT_TRUE(s.has_potential && s.has_acceleration);
  EXPECT_TRUE(same_bits(acc.ax, s.field.ax));
  EXPECT_TRUE(same_bits(acc.ay, s.field.ay));
  EXPECT_TRUE(same_bits(acc.az, s.field.az));
  EXPECT_TRUE(same_bits(acc.potential, s.field.potential));
  EXPECT_EQ(s.info.time, info.time);
  EXPECT_EQ(s.info.step, info.step);
  EXPECT_EQ(s.info.units, info.units);
  EXPECT_EQ(s.info.softening, info.softening);
  EXPECT_EQ(s.info.softening_kernel, info.softening_kernel);
  EXPECT_EQ(s.info.theta, info.theta);
  EXPECT_EQ(s.info.solver, info.solver);
  EXPECT_EQ(s.info.config, info.config);
  EXPECT_EQ(s.info.version, ORRERY_VERSION);
  EXPECT_EQ(s.info.precision, sizeof(Real) == 8 ? "double" : "float");
}

TEST(Snapshot, RoundTripIsBitwiseDouble) { round_trip<double>(); }
TEST(Snapshot, RoundTripIsBitwiseFloat) { round_trip<float>(); }

TEST(Snapshot, WithoutFieldsHasNoPotentialOrAcceleration) {
  ScratchDir dir;
  write_snapshot(dir / "s.h5", random_particles<double>(10, 1), sample_info());
  const auto s = read_snapshot<double>(dir / "s.h5");
  EXPECT_FALSE(s.has_potential);
  EXPECT_FALSE(s.has_acceleration);
}

TEST(Snapshot, FloatFileReadAsDoubleIsExact) {
  ScratchDir dir;
  const auto p = random_particles<float>(50, 2);
  write_snapshot(dir / "s.h5", p, sample_info());
  const auto s = read_snapshot<double>(dir / "s.h5");
  for (std::size_t i = 0; i < 50; ++i) EXPECT_EQ(s.particles.x[i], double(p.x[i]));
}

TEST(Snapshot, OverwritesAnExistingSnapshotAtomically) {
  ScratchDir dir;
  write_snapshot(dir / "s.h5", random_particles<double>(10, 1), sample_info());
  const auto p = random_particles<double>(20, 2);
  write_snapshot(dir / "s.h5", p, sample_info());
  expect_same_particles(p, read_snapshot<double>(dir / "s.h5").particles);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1) << "a temporary file was left";
}

// ---- writing errors: nothing existing is damaged -------------------------

TEST(Snapshot, WriteRefusesEmptyParticleSetAndKeepsTheOldFile) {
  ScratchDir dir;
  const auto p = random_particles<double>(10, 1);
  write_snapshot(dir / "s.h5", p, sample_info());
  expect_input_error([&] { write_snapshot(dir / "s.h5", Particles<double>{}, sample_info()); }, {"s.h5", "N = 0"});
  expect_same_particles(p, read_snapshot<double>(dir / "s.h5").particles);
}

TEST(Snapshot, MissingOrNonDirectoryOutputDirectoryIsAnError) {
  ScratchDir dir;
  const auto p = random_particles<double>(10, 1);
  expect_input_error([&] { write_snapshot(dir / "nope/s.h5", p, sample_info()); }, {"nope", "No such file"});
  testing::write_bytes(dir / "file", "x");
  expect_input_error([&] { write_snapshot(dir / "file/s.h5", p, sample_info()); }, {"file", "Not a directory"});
}

TEST(Snapshot, ReadOnlyDirectoryIsAnError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only directories";
  ScratchDir dir;
  std::filesystem::create_directory(dir / "ro");
  std::filesystem::permissions(dir / "ro", std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  // An environment failure (exit status 3), not the user's input; tests/cli/environment_errors.sh runs this as an
  // unprivileged user when CI runs as root.
  testing::expect_error<EnvironmentError>(
      [&] { write_snapshot(dir / "ro/s.h5", random_particles<double>(10, 1), sample_info()); }, {"ro", "Permission denied"});
  std::filesystem::permissions(dir / "ro", std::filesystem::perms::owner_all);
}

// A full disk, simulated with a file-size limit in a child process: the write
// fails with a clean InputError (exit 2 below) and the old file is intact.
TEST(Snapshot, FullDiskIsACleanErrorAndKeepsTheOldFile) {
  ScratchDir dir;
  const auto old_particles = random_particles<double>(10, 1);
  write_snapshot(dir / "s.h5", old_particles, sample_info());
  EXPECT_EQ(testing::exit_status_on_full_disk(
                [&] { write_snapshot(dir / "s.h5", random_particles<double>(100000, 2), sample_info()); }, "s.h5"),
            2);
  expect_same_particles(old_particles, read_snapshot<double>(dir / "s.h5").particles);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1) << "a temporary file was left";
}

// ---- reading errors ------------------------------------------------------

/// A valid snapshot, then `edit` applied to it with the HDF5 API.
template <class Edit>
std::filesystem::path edited_snapshot(const ScratchDir& dir, Edit edit, std::size_t n = 8) {
  const auto path = dir / "bad.h5";
  write_snapshot(path, random_particles<double>(n, 1), sample_info());
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  EXPECT_GE(f, 0);
  edit(f);
  H5Fclose(f);
  return path;
}

void replace_dataset(hid_t f, const char* name, hid_t type, int rank, const hsize_t* dims, const void* data) {
  H5Ldelete(f, name, H5P_DEFAULT);
  const hid_t space = H5Screate_simple(rank, dims, nullptr);
  const hid_t set = H5Dcreate2(f, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  H5Dclose(set);
  H5Sclose(space);
}

/// Sets element `index` of a float64 dataset of `n` x `cols`.
void poke(hid_t f, const char* name, std::size_t n, int cols, std::size_t index, double value) {
  std::vector<double> v(n * cols);
  const hid_t set = H5Dopen2(f, name, H5P_DEFAULT);
  H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  v[index] = value;
  H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data());
  H5Dclose(set);
}

/// Overwrites NumPart_ThisFile and NumPart_Total (the group is opened first:
/// HDF5 1.10 cannot write an attribute opened with H5Aopen_by_name).
void set_header_counts(hid_t f, const std::uint64_t (&counts)[6]) {
  const hid_t g = H5Gopen2(f, "Header", H5P_DEFAULT);
  for (const char* name : {"NumPart_ThisFile", "NumPart_Total"}) {
    const hid_t a = H5Aopen(g, name, H5P_DEFAULT);
    EXPECT_GE(H5Awrite(a, H5T_NATIVE_UINT64, counts), 0);
    H5Aclose(a);
  }
  H5Gclose(g);
}

// A header and datasets that declare 2e8 or 1e12 particles the file does not
// hold (datasets created, never written): refused before allocating for
// them, where reading died in std::bad_alloc.
TEST(SnapshotBadInput, DeclaredParticlesTheFileDoesNotHold) {
  ScratchDir dir;
  for (const std::uint64_t n : {std::uint64_t{200'000'000}, std::uint64_t{1'000'000'000'000}}) {
    const auto path = edited_snapshot(dir, [&](hid_t f) {
      set_header_counts(f, {0, n, 0, 0, 0, 0});
      for (const auto& [name, cols] : {std::pair{"PartType1/Coordinates", 3}, std::pair{"PartType1/Velocities", 3},
                                       std::pair{"PartType1/ParticleIDs", 1}, std::pair{"PartType1/Masses", 1}}) {
        H5Ldelete(f, name, H5P_DEFAULT);
        const hsize_t dims[2] = {n, static_cast<hsize_t>(cols)};
        const hid_t space = H5Screate_simple(cols == 3 ? 2 : 1, dims, nullptr);
        H5Dclose(H5Dcreate2(f, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        H5Sclose(space);
      }
    });
    expect_input_error([&] { read_snapshot<double>(path); },
                       {"bad.h5", "PartType1/Coordinates", "declares " + std::to_string(n) + " rows", "does not hold"});
  }
}

TEST(SnapshotBadInput, MissingFile) {
  ScratchDir dir;
  expect_input_error([&] { read_snapshot<double>(dir / "none.h5"); }, {"none.h5", "no such file"});
}

TEST(SnapshotBadInput, NotHdf5) {
  ScratchDir dir;
  testing::write_bytes(dir / "text.h5", "[gravity]\nsolver = 1\n");
  expect_input_error([&] { read_snapshot<double>(dir / "text.h5"); }, {"text.h5", "not an HDF5 file"});
}

TEST(SnapshotBadInput, Truncated) {
  ScratchDir dir;
  write_snapshot(dir / "s.h5", random_particles<double>(2000, 1), sample_info());
  const auto bytes = testing::read_bytes(dir / "s.h5");
  for (const double fraction : {0.9, 0.5, 0.1, 0.001}) {
    testing::write_bytes(dir / "t.h5", bytes.substr(0, std::size_t(bytes.size() * fraction)));
    expect_input_error([&] { read_snapshot<double>(dir / "t.h5"); }, {"t.h5"});
  }
}

TEST(SnapshotBadInput, CorruptDataFailsItsChecksum) {
  ScratchDir dir;
  const auto p = random_particles<double>(4000, 1);
  write_snapshot(dir / "s.h5", p, sample_info());
  auto bytes = testing::read_bytes(dir / "s.h5");
  // Flip a byte inside the Coordinates data: find the bytes of p.x[100].
  const auto* raw = reinterpret_cast<const char*>(&p.x[100]);
  const auto at = bytes.find(std::string(raw, 8));
  ASSERT_NE(at, std::string::npos);
  bytes[at + 3] = char(bytes[at + 3] ^ 0x10);
  testing::write_bytes(dir / "c.h5", bytes);
  expect_input_error([&] { read_snapshot<double>(dir / "c.h5"); }, {"c.h5", "PartType1/Coordinates", "corrupt"});
}

TEST(SnapshotBadInput, MissingDataset) {
  ScratchDir dir;
  for (const char* name : {"Coordinates", "Velocities", "ParticleIDs", "Masses"}) {
    const auto path = edited_snapshot(dir, [&](hid_t f) { H5Ldelete(f, (std::string("PartType1/") + name).c_str(), H5P_DEFAULT); });
    expect_input_error([&] { read_snapshot<double>(path); }, {"bad.h5", std::string("PartType1/") + name, "missing dataset"});
  }
}

TEST(SnapshotBadInput, MissingHeaderOrAttribute) {
  ScratchDir dir;
  auto path = edited_snapshot(dir, [](hid_t f) { H5Ldelete(f, "Header", H5P_DEFAULT); });
  expect_input_error([&] { read_snapshot<double>(path); }, {"bad.h5", "Header", "missing group"});
  path = edited_snapshot(dir, [](hid_t f) { H5Adelete_by_name(f, "Header", "MassTable", H5P_DEFAULT); });
  expect_input_error([&] { read_snapshot<double>(path); }, {"bad.h5", "Header", "MassTable"});
}

TEST(SnapshotBadInput, WrongShape) {
  ScratchDir dir;
  const auto path = edited_snapshot(dir, [](hid_t f) {
    const hsize_t dims[2] = {8, 2};
    const std::vector<double> v(16, 0.5);
    replace_dataset(f, "PartType1/Velocities", H5T_NATIVE_DOUBLE, 2, dims, v.data());
  });
  expect_input_error([&] { read_snapshot<double>(path); }, {"bad.h5", "PartType1/Velocities", "wrong shape (8, 2)", "(8, 3)"});
}

TEST(SnapshotBadInput, WrongType) {
  ScratchDir dir;
  const auto path = edited_snapshot(dir, [](hid_t f) {
    const hsize_t dims[1] = {8};
    const std::vector<int> v(8, 1);
    replace_dataset(f, "PartType1/Masses", H5T_NATIVE_INT, 1, dims, v.data());
  });
  expect_input_error([&] { read_snapshot<double>(path); }, {"bad.h5", "PartType1/Masses", "wrong type"});
}

TEST(SnapshotBadInput, NumPartMismatch) {
  ScratchDir dir;
  const auto path = edited_snapshot(dir, [](hid_t f) {
    const std::uint64_t counts[6] = {0, 9, 0, 0, 0, 0};
    set_header_counts(f, counts);
  });
  expect_input_error([&] { read_snapshot<double>(path); }, {"bad.h5", "PartType1/Coordinates", "NumPart"});
}

TEST(SnapshotBadInput, NonFinitePositionsAndVelocities) {
  ScratchDir dir;
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  auto path = edited_snapshot(dir, [&](hid_t f) { poke(f, "PartType1/Coordinates", 8, 3, 13, nan); });
  expect_input_error([&] { read_snapshot<double>(path); }, {"bad.h5", "PartType1/Coordinates", "row 4", "not finite"});
  path = edited_snapshot(dir, [&](hid_t f) { poke(f, "PartType1/Velocities", 8, 3, 0, -inf); });
  expect_input_error([&] { read_snapshot<double>(path); }, {"bad.h5", "PartType1/Velocities", "row 0", "not finite"});
}

TEST(SnapshotBadInput, NonPositiveMasses) {
  ScratchDir dir;
  for (const double m : {0.0, -1.0}) {
    const auto path = edited_snapshot(dir, [&](hid_t f) { poke(f, "PartType1/Masses", 8, 1, 5, m); });
    expect_input_error([&] { read_snapshot<double>(path); }, {"bad.h5", "PartType1/Masses", "row 5"});
  }
}

TEST(SnapshotBadInput, DuplicatedIds) {
  ScratchDir dir;
  const auto path = edited_snapshot(dir, [](hid_t f) {
    const std::uint64_t ids[8] = {1, 2, 3, 4, 5, 3, 7, 8};
    const hid_t set = H5Dopen2(f, "PartType1/ParticleIDs", H5P_DEFAULT);
    H5Dwrite(set, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, ids);
    H5Dclose(set);
  });
  expect_input_error([&] { read_snapshot<double>(path); }, {"bad.h5", "PartType1/ParticleIDs", "ID 3", "more than once"});
}

TEST(SnapshotBadInput, ACountedTypeWithoutItsGroupIsAnError) {
  ScratchDir dir;
  const auto path = edited_snapshot(dir, [](hid_t f) {
    const std::uint64_t counts[6] = {5, 8, 0, 0, 0, 0};
    set_header_counts(f, counts);
  });
  expect_input_error([&] { read_snapshot<double>(path); }, {"bad.h5", "PartType0", "missing group"});
}

}  // namespace
}  // namespace orrery::io
