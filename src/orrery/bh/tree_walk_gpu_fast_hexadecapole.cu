// The hexadecapole walks in fast math mode, -ftz=true like
// tree_walk_gpu_fast.cu (bh/CMakeLists.txt): a translation unit per order,
// compiled in parallel (tree_walk_gpu_modes.hpp).
#include "orrery/bh/tree_walk_gpu_kernels.cuh"

namespace orrery::bh::detail {

ORRERY_INSTANTIATE_WALK_ORDER(MathMode::fast, Multipole::hexadecapole)

}  // namespace orrery::bh::detail
