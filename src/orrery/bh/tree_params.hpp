#pragma once
// The parameters of a Barnes-Hut tree and its opening criterion: what a
// configuration (gravity/gravity_config.hpp) needs to name them, without the
// tree's layout (octree.hpp).
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace orrery::bh {

/// The order of a cell's expansion (its enumerator + 1): the monopole, then
/// the second- to fourth-order Cartesian terms, as GADGET-4's orders 1 to 4
/// (interactions.hpp, docs/adr/0016).
enum class Multipole : std::uint8_t { monopole, quadrupole, octupole, hexadecapole };

constexpr std::string_view to_string(Multipole m) {
  switch (m) {
    case Multipole::monopole: return "monopole";
    case Multipole::quadrupole: return "quadrupole";
    case Multipole::octupole: return "octupole";
    default: return "hexadecapole";
  }
}

/// 1 (monopole) to 4 (hexadecapole).
constexpr int multipole_order(Multipole m) { return static_cast<int>(m) + 1; }

/// Calls f(std::integral_constant<Multipole, m>{}): the run-time order as a
/// compile-time one, once per solve.
template <class F>
decltype(auto) with_multipole(Multipole m, F&& f) {
  switch (m) {
    case Multipole::monopole: return f(std::integral_constant<Multipole, Multipole::monopole>{});
    case Multipole::quadrupole: return f(std::integral_constant<Multipole, Multipole::quadrupole>{});
    case Multipole::octupole: return f(std::integral_constant<Multipole, Multipole::octupole>{});
    default: return f(std::integral_constant<Multipole, Multipole::hexadecapole>{});
  }
}

/// Which cells a target accepts: the opening criterion, one policy type each
/// (opening.hpp). geometric: Barnes' d > side/theta + delta
/// (opening_geometric.hpp). relative: GADGET's criterion with theta as the
/// cap (opening_relative.hpp, docs/adr/0007).
enum class Opening : std::uint8_t { geometric, relative };

constexpr std::string_view to_string(Opening o) { return o == Opening::geometric ? "geometric" : "relative"; }

/// The targets of a group that opens cells together at most: a block of the
/// walk's targets, one warp (TreeParams::group_opening).
inline constexpr int kOpeningGroup = 32;

/// Whether g is a TreeParams::group_opening: 0, or a power of two from
/// kOpeningGroup to 4096 (the most particles of a group cell).
constexpr bool is_group_opening(int g) { return g == 0 || (g >= kOpeningGroup && g <= 4096 && (g & (g - 1)) == 0); }

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
  // Targets that decide the opening together (opening_group.hpp, docs/adr/0017):
  // 0, each target for itself (the walk of walk.hpp); G (a power of two, 32 to
  // 4096), the runs of targets of one group cell (the largest node of at most
  // G particles) within each block of 32 consecutive targets, each accepting
  // only cells every target of the group would accept.
  int group_opening = 0;
  // The list walk (list_walk.hpp, docs/adr/0019): groups of 32 consecutive
  // targets (every source: in the Hilbert order of their leaves) decide
  // together, breadth first, and sum interaction lists. Excludes group_opening.
  bool list_walk = false;
};

}  // namespace orrery::bh
