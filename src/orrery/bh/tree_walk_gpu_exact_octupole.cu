// The octupole walks in exact math mode (the CPU's bits:
// tree_walk_gpu_exact.cu): a translation unit per order, compiled in parallel (tree_walk_gpu_modes.hpp).
#include "orrery/bh/tree_walk_gpu_kernels.cuh"

namespace orrery::bh::detail {

ORRERY_INSTANTIATE_WALK_ORDER(MathMode::exact, Multipole::octupole)

}  // namespace orrery::bh::detail
