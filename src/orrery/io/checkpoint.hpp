#pragma once
// Checkpoints: everything needed to continue a run bit-identically
// (contract 6): the particles in the run's own precision, the integrator
// state (time origin, dt, step, reference energy, RNG state), the run's full
// configuration, run-loop counters, the fingerprint of the build that wrote
// it, and the accelerations at the particles' positions: the tree's relative
// opening reads them in the next evaluation (integrate/simulation.hpp), so a
// restart that recomputed them would not continue bit-identically.
//
// Format (little-endian, docs/snapshots.md): "ORRERYCK", format version,
// the fields below, then a CRC-64/XZ of every preceding byte. The whole file
// is read and its checksum verified before anything is parsed. Written
// through a temporary file, flushed and renamed (atomic_file.hpp). Version 2
// added the accelerations, version 3 the time bins of block steps; files of
// versions 1 and 2 (without them) are still read.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "orrery/core/particles.hpp"
#include "orrery/integrate/simulation.hpp"
#include "orrery/io/particle_columns.hpp"

namespace orrery::io {

/// What must match for a checkpoint to continue bit-identically.
struct BuildFingerprint {
  std::string version;    // Orrery version
  std::string precision;  // "float" or "double"
  std::string compiler;   // compiler and version that built the writer

  template <class Real>
  static BuildFingerprint current();
  friend bool operator==(const BuildFingerprint&, const BuildFingerprint&) = default;
};

template <class Real>
struct Checkpoint {
  BuildFingerprint build = BuildFingerprint::current<Real>();
  std::string config;  // the run's full TOML configuration
  integrate::SimulationState state;
  /// Run-loop bookkeeping that must survive a restart (e.g. the number of
  /// the next snapshot); any names. The run keeps its particle type counts
  /// here as "PartType0".."PartType5" (particle_types.hpp).
  std::map<std::string, std::int64_t> counters;
  Particles<Real> particles;
  /// ax, ay, az at the particles' positions, from the evaluation the run
  /// integrates with (potential unused); empty when not stored (a version 1
  /// file, or a run that had not evaluated forces yet).
  Accelerations<Real> accelerations;
  /// Each particle's time bin (integration.kind = "block": the bin of the
  /// step it starts at this synchronisation point); empty with the global
  /// step and in files of versions 1 and 2.
  std::vector<integrate::TimeBin> time_bins;
};

/// A checkpoint of `sim` now, with the run's TOML `config` and `counters`:
/// its state, particles and accelerations (evaluated first when it has none
/// yet: the evaluation its next step would make).
template <class Real>
Checkpoint<Real> checkpoint_of(integrate::Simulation<Real>& sim, std::string config,
                               std::map<std::string, std::int64_t> counters = {});

/// Writes atomically. InputError when the directory is not writable or the
/// disk is full (an existing file of that name is then unchanged).
template <class Real>
void write_checkpoint(const std::filesystem::path& path, const Checkpoint<Real>& c);

/// Reads, verifies the checksum and validates. InputError naming the file
/// and the problem: missing, not a checkpoint, a format version this build
/// does not read, truncated, checksum mismatch, a precision other than Real,
/// invalid particles or accelerations.
template <class Real>
Checkpoint<Real> read_checkpoint(const std::filesystem::path& path);

/// The precision ("float"/"double") a checkpoint holds, after verifying its
/// checksum; to pick the Real to read it with.
std::string checkpoint_precision(const std::filesystem::path& path);

/// True when the file starts with the checkpoint signature.
bool is_checkpoint_file(const std::filesystem::path& path);

/// Throws InputError naming the first field of `saved` that differs from
/// `current` (restart refuses a checkpoint of another build).
void require_same_build(const BuildFingerprint& saved, const BuildFingerprint& current,
                        const std::filesystem::path& file);

/// The checkpoints `dir` holds, named checkpoint_<step>.orrck, oldest first.
std::vector<std::filesystem::path> list_checkpoints(const std::filesystem::path& dir);

/// The counter that names the run a checkpoint belongs to: drawn when a run
/// starts, carried over by its restarts. Rotation removes only checkpoints
/// of the same run, so a run never deletes another run's files in a shared
/// directory, nor its own newest because another run numbered higher.
inline constexpr const char* kRunIdCounter = "run_id";

/// Writes dir/checkpoint_<step>.orrck, then removes the oldest checkpoints of
/// the same run (the same kRunIdCounter; none when `c` has none) until `keep`
/// (>= 1) are left, never the one just written, and temporary files left by
/// killed writers. Returns the path written (which therefore exists).
template <class Real>
std::filesystem::path write_rotating_checkpoint(const std::filesystem::path& dir, const Checkpoint<Real>& c, int keep);

/// write_rotating_checkpoint for particles that no one array holds: the
/// fields of `head` but its particles, accelerations and time bins (unused),
/// and N particles whose columns `source` hands out in pieces of at most
/// `piece` rows in the file's order (x, y, z, vx, vy, vz, mass, id, then
/// with `accelerations` ax, ay, az, then with `time_bins` time_bin). The bytes of
/// write_checkpoint for the same particles, written through a temporary file
/// with its checksum kept as it goes. `writes` false: `source` is asked for
/// the same pieces and nothing is written (an MPI rank that only takes part).
template <class Real>
std::filesystem::path write_rotating_checkpoint_in_pieces(const std::filesystem::path& dir, const Checkpoint<Real>& head,
                                                          std::int64_t n, bool accelerations, bool time_bins,
                                                          const ColumnSource& source, int keep, bool writes,
                                                          std::int64_t piece = kColumnPiece);

/// The checksum of a checkpoint verified reading it in pieces (InputError
/// naming the file as read_checkpoint's).
void verify_checkpoint(const std::filesystem::path& path);

/// The configuration (TOML) a checkpoint holds, from its head alone (its
/// checksum not verified: verify_checkpoint first).
std::string checkpoint_config(const std::filesystem::path& path);

/// A checkpoint's header fields and its particles [begin, end) only (their
/// accelerations and time bins when stored), validated; `total` its N. The
/// checksum is not verified here (verify_checkpoint): each rank of an MPI
/// run reads its own rows, one verifies the file.
template <class Real>
Checkpoint<Real> read_checkpoint_rows(const std::filesystem::path& path, std::int64_t begin, std::int64_t end,
                                      std::int64_t& total);

}  // namespace orrery::io
