#pragma once
// The parameters of a force evaluation, independent of where they came from
// (a TOML file, Python, a test). io/config fills it from the [gravity] table;
// make_solver() (solver_factory.hpp) turns it into a ForceSolver.
#include <cstdint>
#include <string>
#include <string_view>

#include "orrery/core/math_mode.hpp"
#include "orrery/core/softening.hpp"
#include "orrery/bh/tree_params.hpp"

namespace orrery::gravity {

enum class Precision : std::uint8_t { single, double_ };

constexpr std::string_view to_string(Precision p) { return p == Precision::single ? "single" : "double"; }

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
  MathMode math = MathMode::fast;  // device force kernels only; the host is always IEEE
  // Tree parameters (used by the tree solvers only).
  double theta = 0.5;          // opening angle, > 0
  int leaf_capacity = 16;      // particles per leaf, >= 1
  int multipole_order = 1;     // 1 = monopole, 2 = quadrupole
  // Which cells a target accepts (bh::Opening, docs/adr/0007): geometric
  // (theta alone) or relative (GADGET's criterion with tolerance, theta the cap).
  bh::Opening opening = bh::Opening::geometric;
  double tolerance = 0.0025;   // relative opening: alpha (GADGET's ErrTolForceAcc), > 0
  // GPU tree walk (backend cuda, solver tree): tree_walk_gpu.hpp.
  std::string traversal = "coherent";  // coherent | independent
  int group_width = 32;                // coherent walk: lanes sharing a node index, 8 | 16 | 32 | 64
  // Under mpirun only; a single process ignores it.
  RankLayout mpi_layout = RankLayout::replicated;
};

}  // namespace orrery::gravity
