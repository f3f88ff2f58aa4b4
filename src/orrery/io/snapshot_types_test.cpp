// Several GADGET particle types in one snapshot, and the unit attributes
// written for the readers (snapshot_units.hpp).
#include <gtest/gtest.h>
#include <hdf5.h>

#include <array>
#include <optional>

#include "orrery/io/snapshot.hpp"
#include "orrery/io/snapshot_units.hpp"
#include "orrery/io/test_files.hpp"

namespace orrery::io {
namespace {

using testing::expect_input_error;
using testing::expect_same_particles;
using testing::random_particles;
using testing::ScratchDir;

bool has_group(const std::filesystem::path& path, const char* name) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const bool has = H5Lexists(f, name, H5P_DEFAULT) > 0;
  H5Fclose(f);
  return has;
}

std::string string_attr(const std::filesystem::path& path, const char* object, const char* name) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t o = H5Oopen(f, object, H5P_DEFAULT);
  const hid_t a = H5Aopen(o, name, H5P_DEFAULT);
  const hid_t t = H5Aget_type(a);
  std::string v(H5Tget_size(t), '\0');
  H5Aread(a, t, v.data());
  H5Tclose(t), H5Aclose(a), H5Oclose(o), H5Fclose(f);
  return v.c_str();
}

TEST(SnapshotTypes, EachTypeGoesToItsGroupAndComesBackInOrder) {
  ScratchDir dir;
  const auto p = random_particles<double>(12, 5);
  Accelerations<double> a(12);
  for (std::size_t i = 0; i < 12; ++i) a.ax[i] = double(i), a.potential[i] = -1.0 - double(i);
  SnapshotInfo info;
  info.types.count = {2, 0, 7, 3, 0, 0};
  const auto path = dir.path() / "types.h5";
  write_snapshot(path, p, info, SnapshotFields<double>{&a});
  EXPECT_TRUE(has_group(path, "PartType0") && has_group(path, "PartType2") && has_group(path, "PartType3"));
  EXPECT_FALSE(has_group(path, "PartType1"));  // GADGET writes groups for the types present only
  const auto s = read_snapshot<double>(path);
  expect_same_particles(s.particles, p);
  EXPECT_EQ(s.info.types, info.types);
  ASSERT_TRUE(s.has_potential && s.has_acceleration);
  EXPECT_EQ(s.field.ax, a.ax);
  EXPECT_EQ(s.field.potential, a.potential);
}

TEST(SnapshotTypes, CountsThatDoNotAddUpAreRefused) {
  ScratchDir dir;
  SnapshotInfo info;
  info.types.count = {0, 5, 5, 0, 0, 0};
  expect_input_error([&] { write_snapshot(dir.path() / "s.h5", random_particles<double>(12, 5), info); },
                     {"s.h5", "add up to 10", "12 particles"});
}

double double_attr(const std::filesystem::path& path, const char* name) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t o = H5Oopen(f, "Parameters", H5P_DEFAULT);
  const hid_t a = H5Aopen(o, name, H5P_DEFAULT);
  double v = -1;
  H5Aread(a, H5T_NATIVE_DOUBLE, &v);
  H5Aclose(a), H5Oclose(o), H5Fclose(f);
  return v;
}

void set_double_attr(const std::filesystem::path& path, const char* name, double v) {
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t o = H5Oopen(f, "Parameters", H5P_DEFAULT);
  if (H5Aexists(o, name) > 0) H5Adelete(o, name);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(o, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_DOUBLE, &v);
  H5Aclose(a), H5Sclose(space), H5Oclose(o), H5Fclose(f);
}

TEST(SnapshotTypes, ASofteningPerTypeIsWrittenAsGadget4SofteningClassesAndReadBack) {
  ScratchDir dir;
  const auto p = random_particles<double>(12, 5);
  SnapshotInfo info;
  info.types.count = {0, 8, 4, 0, 0, 0};
  info.softening = 0.02;
  info.softening_per_type = std::array<double, kParticleTypes>{0.02, 0.02, 0.1, 0.02, 0.02, 0.02};
  const auto path = dir.path() / "soft.h5";
  write_snapshot(path, p, info);
  // Class N is type N: what GADGET-4 and pynbody read.
  EXPECT_EQ(double_attr(path, "SofteningComovingClass2"), 0.1);
  EXPECT_EQ(double_attr(path, "SofteningMaxPhysClass1"), 0.02);
  EXPECT_EQ(read_snapshot<double>(path).info.softening_per_type, info.softening_per_type);
  // One softening: one class, and nothing per type on reading.
  info.softening_per_type.reset();
  write_snapshot(path, p, info);
  EXPECT_EQ(double_attr(path, "SofteningComovingClass0"), 0.02);
  EXPECT_FALSE(read_snapshot<double>(path).info.softening_per_type);
  // Another writer's classes: PartType1 in class 0 (0.02), PartType2 in class 0 too, then moved to a class of 0.3.
  set_double_attr(path, "SofteningComovingClass0", 0.3);
  EXPECT_EQ(read_snapshot<double>(path).info.softening_per_type, std::nullopt);  // still one class for all
  set_double_attr(path, "SofteningComovingClass0", -0.3);
  expect_input_error([&] { read_snapshot<double>(path); },
                     {"soft.h5", "Parameters.SofteningComovingClass0", "-0.3", "accepted: a finite number >= 0"});
}

TEST(SnapshotUnits, DatasetsSayWhichPowerOfTheCodeUnitsTheyAreIn) {
  ScratchDir dir;
  const auto p = random_particles<double>(4, 1);
  Accelerations<double> a(4);
  SnapshotInfo info;
  info.units = physical_units();
  const auto path = dir.path() / "u.h5";
  write_snapshot(path, p, info, SnapshotFields<double>{&a});
  EXPECT_EQ(string_attr(path, "PartType1/Coordinates", "VarDescription"), "U_L [cgs]");
  EXPECT_EQ(string_attr(path, "PartType1/Potential", "VarDescription"), "U_V^2 [cgs]");
  EXPECT_EQ(string_attr(path, "PartType1/Acceleration", "VarDescription"), "U_L^-1 U_V^2 [cgs]");
  EXPECT_EQ(string_attr(path, "PartType1/ParticleIDs", "VarDescription"), "dimensionless [cgs]");
  EXPECT_EQ(read_snapshot<double>(path).info.units, physical_units());
}

TEST(SnapshotUnits, FileUnitsMustHaveGEqualToOne) {
  const h5::Where w{"f.h5"};
  const auto phys = physical_units();
  EXPECT_EQ(units_from_attributes(w, "", phys.length_cm, phys.mass_g, phys.velocity_cm_per_s), phys);
  const auto scaled = henon_units(2.0, 3e11);
  EXPECT_TRUE(same_units(units_from_attributes(w, "henon", scaled.length_cm, scaled.mass_g, scaled.velocity_cm_per_s),
                         scaled));
  // GADGET's usual kpc, 1e10 Msun, km/s: G = 43009 in code units.
  expect_input_error([&] { units_from_attributes(w, "", cgs::kpc, 1e10 * cgs::msun, 1e5); },
                     {"f.h5", "G = 43009", "Orrery computes with G = 1"});
  expect_input_error([&] { units_from_attributes(w, "physical", scaled.length_cm, scaled.mass_g, scaled.velocity_cm_per_s); },
                     {"unit_system", "\"physical\" but", "are not kpc, km/s"});
  expect_input_error([&] { units_from_attributes(w, "cgs", phys.length_cm, phys.mass_g, phys.velocity_cm_per_s); },
                     {"unit_system", "\"cgs\"", "accepted: henon, physical"});
}

}  // namespace
}  // namespace orrery::io
