#pragma once
// HDF5 snapshots in the GADGET-4 layout, so that yt, pynbody and h5py read
// them as GADGET files with no plugin (../shared/research/users-and-formats.md
// §2.6; docs/snapshots.md says how to load them):
//
//   /Header      NumPart_ThisFile, NumPart_Total (uint64[6]), NumPart_Total_HighWord
//                (uint32[6]), MassTable (float64[6], all 0: masses per particle),
//                Time, Redshift = 0, BoxSize = 0 (isolated), NumFilesPerSnapshot = 1,
//                Flag_Entropy_ICs = 0, Flag_DoublePrecision
//   /PartType1   Coordinates (N,3), Velocities (N,3), Masses (N), ParticleIDs (N,
//                uint64), optionally Potential (N) and Acceleration (N,3); floats in
//                the run's precision, chunked with Fletcher-32 checksums; each with
//                its units as pynbody and GADGET-4 state them (snapshot_units.hpp)
//   /Parameters  UnitLength_in_cm, UnitMass_in_g, UnitVelocity_in_cm_per_s,
//                GravityConstantInternal, Time_GYR, unit_system, BoundingBox
//                (bounding_cube.hpp), softening, GADGET-4's softening classes
//                (snapshot_softening.hpp), softening_kernel, theta, solver, precision, step, version, config
//                (the full TOML text); strings fixed-length ASCII. No HubbleParam
//                or OmegaLambda: pynbody would treat the run as cosmological.
//
// Writing goes through a temporary file renamed into place (atomic_file.hpp):
// an existing file is never damaged. Reading validates everything and throws
// InputError naming the file, the dataset and the problem.
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "orrery/core/particles.hpp"
#include "orrery/core/units.hpp"
#include "orrery/io/particle_columns.hpp"
#include "orrery/io/particle_types.hpp"

namespace orrery::io {

/// Run metadata stored with the particles (in /Header and /Parameters).
struct SnapshotInfo {
  double time = 0;  // code units
  std::int64_t step = 0;
  UnitSystem units;
  double softening = 0;  // code units
  // The softening of each type PartType0..5 when they differ (docs/softening.md); none: `softening` for all.
  std::optional<std::array<double, kParticleTypes>> softening_per_type;
  std::string softening_kernel = "plummer";
  double theta = 0;  // opening angle (0 for direct summation)
  std::string solver;
  std::string config;  // the run's full TOML configuration
  std::string version;  // filled by the writer; read back from the file
  std::string precision;  // "float" or "double": filled by the writer / read from Coordinates
  ParticleTypes types;  // how many of the particles, in order, are PartType0..5 (none set: all PartType1)
};

template <class Real>
struct Snapshot {
  Particles<Real> particles;
  /// Present when the file holds Potential / Acceleration; then sized N
  /// (potential empty when only accelerations were stored, and vice versa).
  Accelerations<Real> field;
  bool has_potential = false;
  bool has_acceleration = false;
  SnapshotInfo info;
};

/// What to store besides positions, velocities, masses and IDs.
template <class Real>
struct SnapshotFields {
  const Accelerations<Real>* field = nullptr;  // null: neither Potential nor Acceleration
  bool potential = true;
  bool acceleration = true;
};

/// Writes `p` (N >= 1, all arrays of equal size) to `path` atomically.
/// Throws InputError when the directory is not writable, the disk is full, or
/// `p` is empty or inconsistent; `path` is then unchanged.
template <class Real>
void write_snapshot(const std::filesystem::path& path, const Particles<Real>& p, const SnapshotInfo& info,
                    const SnapshotFields<Real>& fields = {});

/// write_snapshot for particles that no one array holds: N particles whose
/// columns `source` hands out in pieces of at most `piece` rows, in the
/// file's order (per type: Coordinates x, y, z, Velocities, Masses,
/// ParticleIDs, with `fields` Potential and Acceleration), and `cube` their
/// bounding_cube (bounding_cube.hpp), computed apart. The datasets and
/// attributes are write_snapshot's for the same particles. HDF5 writes a
/// temporary file beside `path` (renamed into place; a disk without room
/// for it is refused first). `writes` false: `source` is asked for the same
/// pieces in the same order and nothing is written (an MPI rank that only
/// takes part in the gathers).
template <class Real>
void write_snapshot_in_pieces(const std::filesystem::path& path, std::int64_t n, const SnapshotInfo& info,
                              const std::array<double, 6>& cube, bool fields, const ColumnSource& source, bool writes,
                              std::int64_t piece = kColumnPiece);

/// Reads and validates a snapshot (any GADGET-4-layout file: the particles of
/// PartType0..5 in that order, info.types their counts; a type's masses from
/// its Masses or from MassTable; the unit system from /Parameters,
/// which must have G = 1: units_from_attributes). Converts to Real. Throws
/// InputError for: a missing, truncated, corrupt or non-HDF5 file; missing
/// groups, datasets or attributes; wrong shapes or types; NumPart not matching
/// the datasets; N = 0; non-finite positions or velocities; masses <= 0 or
/// non-finite; duplicated IDs.
template <class Real>
Snapshot<Real> read_snapshot(const std::filesystem::path& path);

/// read_snapshot's rows [begin, end) of every type's particles in order
/// (their Potential and Acceleration when every type stores them), read by
/// hyperslab: the memory of end - begin rows (an MPI rank's block of a run's
/// initial conditions); `total` the file's N. The header, parameters and
/// every dataset's shape are checked as read_snapshot checks them, and the
/// rows read as it validates them (rows named in the file's numbering); IDs
/// are unique among these rows only. 0 <= begin <= end <= N (RuntimeFailure
/// otherwise): (0, 0) reads the header alone, to learn N.
template <class Real>
Snapshot<Real> read_snapshot_rows(const std::filesystem::path& path, std::int64_t begin, std::int64_t end,
                                  std::int64_t& total);

/// True when the file starts with the HDF5 signature (used by `orrery info`).
bool is_hdf5_file(const std::filesystem::path& path);

extern template void write_snapshot<float>(const std::filesystem::path&, const Particles<float>&,
                                           const SnapshotInfo&, const SnapshotFields<float>&);
extern template void write_snapshot<double>(const std::filesystem::path&, const Particles<double>&,
                                            const SnapshotInfo&, const SnapshotFields<double>&);
extern template Snapshot<float> read_snapshot<float>(const std::filesystem::path&);
extern template Snapshot<double> read_snapshot<double>(const std::filesystem::path&);
extern template Snapshot<float> read_snapshot_rows<float>(const std::filesystem::path&, std::int64_t, std::int64_t,
                                                          std::int64_t&);
extern template Snapshot<double> read_snapshot_rows<double>(const std::filesystem::path&, std::int64_t, std::int64_t,
                                                            std::int64_t&);

}  // namespace orrery::io
