#pragma once
// The parameters of a force evaluation, independent of where they came from
// (a TOML file, Python, a test). io/config fills it from the [gravity] table;
// make_solver() (solver_factory.hpp) turns it into a ForceSolver.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "orrery/core/error.hpp"
#include "orrery/core/math_mode.hpp"
#include "orrery/core/softening.hpp"
#include "orrery/core/softening_classes.hpp"
#include "orrery/bh/tree_params.hpp"

namespace orrery::gravity {

enum class Precision : std::uint8_t { single, double_ };

constexpr std::string_view to_string(Precision p) { return p == Precision::single ? "single" : "double"; }

/// A type's softening that is not set: the type takes gravity.softening.
inline constexpr double kUnsetSoftening = -1.0;

/// How an MPI run spreads the force solve over its ranks: every rank holds
/// every particle and walks a share of the targets (docs/adr/0013), or the
/// CPU tree itself is distributed with local essential trees (docs/adr/0012).
enum class RankLayout : std::uint8_t { replicated, distributed };

constexpr std::string_view to_string(RankLayout l) { return l == RankLayout::replicated ? "replicated" : "distributed"; }

struct GravityConfig {
  std::string solver = "direct";  // reference | direct | tree (solver_factory.cpp lists what is built)
  std::string backend = "cpu";    // cpu | cuda | auto
  Precision precision = Precision::single;
  double softening = 0.05;  // Plummer-equivalent softening length eps, >= 0 (code units)
  SofteningKind softening_kernel = SofteningKind::plummer;
  // A softening per particle type (docs/softening.md): PartTypeN's eps, or
  // kUnsetSoftening (the default) for gravity.softening. Any set makes the
  // solvers apply GADGET-4's rule for a pair (the larger eps) unless every
  // type ends up with the same eps.
  std::array<double, kSofteningClasses> softening_per_type = {kUnsetSoftening, kUnsetSoftening, kUnsetSoftening,
                                                               kUnsetSoftening, kUnsetSoftening, kUnsetSoftening};
  // The particles' type counts (PartType0 first, contiguous), which the
  // softening per type applies to: filled by whoever holds the particles (the
  // run from its snapshot or checkpoint); all 0: every particle PartType1.
  std::array<std::uint64_t, kSofteningClasses> type_counts{};
  MathMode math = MathMode::fast;  // device force kernels only; the host is always IEEE
  // Tree parameters (used by the tree solvers only).
  double theta = 0.5;          // opening angle, > 0
  int leaf_capacity = 16;      // particles per leaf, >= 1
  int multipole_order = 1;     // 1 = monopole, 2 = quadrupole, 3 = octupole, 4 = hexadecapole (tree_multipole)
  // Which cells a target accepts (bh::Opening, docs/adr/0007): geometric
  // (theta alone) or relative (GADGET's criterion with tolerance, theta the cap).
  bh::Opening opening = bh::Opening::geometric;
  double tolerance = 0.002;    // relative opening: alpha (GADGET's ErrTolForceAcc, unit-free), > 0; docs/adr/0015
  double relative_cap = 0.5;   // relative opening: the cap's angle as a fraction of theta, in [0, 1]
  int group_opening = 0;       // 0, or G (a power of two, 32..4096): groups of targets open cells together (bh::TreeParams, docs/adr/0017)
  bool list_walk = false;      // groups of 32 targets in Hilbert order, breadth first, interaction lists (bh::TreeParams, docs/adr/0019)
  // GPU tree walk (backend cuda, solver tree): tree_walk_gpu.hpp.
  std::string traversal = "coherent";  // coherent | independent
  int group_width = 32;                // coherent walk: lanes sharing a node index, 8 | 16 | 32 | 64

  /// Each type's softening (softening_per_type, unset ones gravity.softening) and the type counts.
  SofteningClasses softening_classes() const {
    SofteningClasses c;
    for (int t = 0; t < kSofteningClasses; ++t) c.eps[t] = softening_per_type[t] == kUnsetSoftening ? softening : softening_per_type[t];
    c.count = type_counts;
    return c;
  }
  /// Whether the solvers take a softening per type: the types' softenings differ.
  bool per_type_softening() const { return !softening_classes().uniform(); }

  // Under mpirun only; a single process ignores it.
  RankLayout mpi_layout = RankLayout::replicated;
  // mpi_layout = distributed: the most particles a rank may hold in its
  // walk's tree (its domain's and those other ranks sent it); 0: no limit.
  std::int64_t max_particles_per_rank = 0;
};

/// The tree's expansion of gravity.multipole_order: 1 to 4 (monopole to
/// hexadecapole); anything else is an InputError naming the accepted orders.
inline bh::Multipole tree_multipole(int multipole_order) {
  if (multipole_order < 1 || multipole_order > 4)
    throw InputError("gravity.multipole_order = " + std::to_string(multipole_order) +
                     " is not supported by the tree; accepted: 1 (monopole), 2 (quadrupole), 3 (octupole), "
                     "4 (hexadecapole)");
  return static_cast<bh::Multipole>(multipole_order - 1);
}

/// gravity.multipole's name ("monopole" .. "hexadecapole") as its order, 1 to 4
/// (an InputError naming the accepted names otherwise).
inline int multipole_order_of(std::string_view name) {
  for (int order = 1; order <= 4; ++order)
    if (name == bh::to_string(static_cast<bh::Multipole>(order - 1))) return order;
  throw InputError("gravity.multipole = \"" + std::string(name) +
                   "\" is not supported; accepted: monopole, quadrupole, octupole, hexadecapole");
}

}  // namespace orrery::gravity
