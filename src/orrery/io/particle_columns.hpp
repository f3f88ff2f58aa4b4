#pragma once
// The per-particle columns of a snapshot or a checkpoint, and a source that
// hands out rows [begin, end) of one of them (in one process's order) as
// bytes: a writer that asks for its data piece by piece need not have every
// particle at hand. In an MPI run whose ranks hold the particles apart, the
// source gathers the piece (a collective on every rank: driver/) and returns
// it on the writing rank alone.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace orrery::io {

/// Every column is a Real per particle but `id` (uint64) and `time_bin`
/// (int8, integrate::TimeBin: a checkpoint's with block steps).
enum class Column : int { x, y, z, vx, vy, vz, mass, id, potential, ax, ay, az, time_bin };

/// The bytes of rows [begin, end) of a column, in index order.
using ColumnSource = std::function<std::vector<std::byte>(Column, std::int64_t begin, std::int64_t end)>;

/// The pieces a writer asks for are at most this many rows: 2^15, one
/// chunk of a snapshot's datasets (hdf5_util.hpp), so each is written once.
inline constexpr std::int64_t kColumnPiece = std::int64_t{1} << 15;

}  // namespace orrery::io
