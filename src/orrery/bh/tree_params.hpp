#pragma once
// The parameters of a Barnes-Hut tree and its opening criterion: what a
// configuration (gravity/gravity_config.hpp) needs to name them, without the
// tree's layout (octree.hpp).
#include <cstdint>
#include <string_view>

namespace orrery::bh {

enum class Multipole : std::uint8_t { monopole, quadrupole };

constexpr std::string_view to_string(Multipole m) {
  return m == Multipole::monopole ? "monopole" : "quadrupole";
}

/// Which cells a target accepts: the opening criterion, one policy type each
/// (opening.hpp). geometric: Barnes' d > side/theta + delta
/// (opening_geometric.hpp). relative: GADGET's criterion with theta as the
/// cap (opening_relative.hpp, docs/adr/0007).
enum class Opening : std::uint8_t { geometric, relative };

constexpr std::string_view to_string(Opening o) { return o == Opening::geometric ? "geometric" : "relative"; }

struct TreeParams {
  double theta = 0.5;         // opening angle, >= 0 (0 opens every cell: direct summation)
  int leaf_capacity = 16;     // a node with more particles is split (unless at the deepest level)
  Multipole multipole = Multipole::monopole;
  Opening opening = Opening::geometric;
  double tolerance = 0.002;   // relative opening: alpha (GADGET's ErrTolForceAcc, unit-free), > 0; docs/adr/0015
  // Relative opening: the cap's angle as a fraction of theta, in [0, 1]: a
  // cell that Barnes' criterion at relative_cap * theta accepts is accepted
  // whatever the relative test says (opening_relative.hpp); 0: no cap.
  double relative_cap = 0.5;
};

}  // namespace orrery::bh
