// Compiled without the CUDA include path (see CMakeLists.txt): fails to build
// if a header that CPU code includes starts including a CUDA header
// (DESIGN §7, STYLE habit 2: the host/device boundary is plain views and
// opaque handles).
#include "orrery/cuda/check.hpp"
#include "orrery/cuda/device.hpp"
#include "orrery/cuda/event_timer.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/stream.hpp"
#include "orrery/gravity/device_force_solver.hpp"
#include "orrery/bh/device_tree_copy.hpp"
#include "orrery/gravity/direct_gpu.hpp"
#include "orrery/gravity/direct_gpu_launch.hpp"
#include "orrery/gravity/direct_gpu_tuning.hpp"
#include "orrery/gravity/tree_gpu_solver.hpp"
#include "orrery/bh/tree_walk_gpu.hpp"
#include "orrery/integrate/device_simulation.hpp"

#if defined(__CUDA_RUNTIME_H__) || defined(__CUDA_RUNTIME_API_H__) || defined(__DRIVER_TYPES_H__)
#error "a CPU-side header of the CUDA backend included a CUDA header"
#endif
