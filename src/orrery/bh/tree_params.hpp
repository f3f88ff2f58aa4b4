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

/// Which cells a target accepts (walk.hpp, docs/adr/0007). geometric:
/// Barnes' d > side/theta + delta. relative: GADGET's criterion, which also
/// requires mass * side^2 <= tolerance * |a_old| * d^4 for the target's
/// acceleration a_old of the previous evaluation, theta then being the
/// geometric cap (GADGET's ErrTolThetaMax) and the angle of the bootstrap
/// evaluation that supplies a_old when there is none.
enum class Opening : std::uint8_t { geometric, relative };

constexpr std::string_view to_string(Opening o) { return o == Opening::geometric ? "geometric" : "relative"; }

struct TreeParams {
  double theta = 0.5;         // opening angle, >= 0 (0 opens every cell: direct summation)
  int leaf_capacity = 16;     // a node with more particles is split (unless at the deepest level)
  Multipole multipole = Multipole::monopole;
  Opening opening = Opening::geometric;
  double tolerance = 0.0025;  // relative opening: alpha (GADGET's ErrTolForceAcc), > 0
};

}  // namespace orrery::bh
