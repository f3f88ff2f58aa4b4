#pragma once
// A rank's walk on its GPU (mpi/let_walk.hpp): the assembled tree copied to
// the device as it is (bh::DeviceTreeCopy) and walked by the GPU tree
// solver's walk (bh::walk_tree_gpu) with the solver's traversal, group width
// and math mode. Each target then has the sums the one-process GPU tree
// solver gives it on the same tree: in exact mode the CPU's bits, in fast mode
// the GPU's, for every K. The particle-cell and particle-particle counts are
// one process's; node_visits of the coherent traversal is the target's group's
// (bh/tree_walk_gpu.hpp), and a rank's groups begin at its domain's first
// particle, so that one counter may differ from one process's near a domain's
// edges. Only where CUDA is built (library orrery_mpi_gpu).
#include <memory>

#include "orrery/gravity/tree_gpu_solver.hpp"
#include "orrery/mpi/let_walk.hpp"

namespace orrery::mpi {

/// On the current device (driver::Ranks selects one per rank).
template <class Real>
std::unique_ptr<LetWalk<Real>> gpu_let_walk(const gravity::GpuTreeSolverConfig& config);

}  // namespace orrery::mpi
