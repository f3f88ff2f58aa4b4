#pragma once
// What one Barnes-Hut evaluation computes, whatever the backend: the tree's
// parameters and the softened force law its walks sum (gravity::TreeSolver
// and gravity::GpuTreeSolver take it; gravity::tree_solver_config fills it
// from a GravityConfig).
#include <optional>

#include "orrery/bh/octree.hpp"
#include "orrery/core/math_mode.hpp"
#include "orrery/core/softening.hpp"
#include "orrery/core/softening_classes.hpp"

namespace orrery::bh {

struct TreeSolverConfig {
  TreeParams tree;
  double softening = 0.05;
  SofteningKind softening_kind = SofteningKind::plummer;
  MathMode math = MathMode::fast;
  // A softening per type (walk_per_type.hpp), set only when the types'
  // softenings differ: the CPU solver walks with it, the GPU solver refuses it.
  std::optional<SofteningClasses> per_type;
};

}  // namespace orrery::bh
