#pragma once
// The particles a rank's assembled tree holds (let.hpp), described where
// they already lie instead of copied into the tree: the rank's own sorted
// particles and each piece received, in held order. A GPU rank's walk puts
// them together on its device, the own piece from the copy its subtree build
// uploaded (docs/adr/0021, phase 1): the host then copies none of the own
// particles into the tree, and the walk's upload carries only the received
// ones. place_held() is the host's same placement, which CPU ranks (and a
// rank naming a node it was not sent) use.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "orrery/core/copy_bytes.hpp"

namespace orrery::mpi {

/// Held particles [at, at + n): the rank's own sorted particles (own; x, y,
/// z, m point at its arrays) or one rank's piece received (x, y, z, m point
/// into the received bytes, where they need not be aligned: copy them as
/// bytes).
struct HeldPiece {
  std::int64_t at = 0, n = 0;
  const std::byte *x = nullptr, *y = nullptr, *z = nullptr, *m = nullptr;
  bool own = false;
};

/// An assembled tree's held particles: the pieces tile [0, held) in held
/// order (by key and index), then one more, the sentinel that stands for the
/// particles of every node that was not sent. Valid while the rank's sorted
/// particles and the received bytes are: within the evaluation that
/// assembled the tree (the next exchange reuses the bytes).
template <class Real>
struct HeldParticles {
  std::vector<HeldPiece> pieces;
  std::int64_t held = 0;
  Real sentinel[4] = {};  // x, y, z (the cube's corner) and m (NaN)
};

/// Writes the held particles and the sentinel into x, y, z, m [held + 1]
/// (host arrays): the arrays the host assembly writes.
template <class Real>
void place_held(const HeldParticles<Real>& h, Real* x, Real* y, Real* z, Real* m) {
  Real* to[4] = {x, y, z, m};
  for (const HeldPiece& p : h.pieces) {
    const std::byte* from[4] = {p.x, p.y, p.z, p.m};
    for (int c = 0; c < 4; ++c)
      copy_bytes(to[c] + p.at, from[c], static_cast<std::size_t>(p.n) * sizeof(Real));
  }
  for (int c = 0; c < 4; ++c) to[c][h.held] = h.sentinel[c];
}

}  // namespace orrery::mpi
