#pragma once
// ORRERY_HD marks functions compiled for both host and device: the walk, the
// tree's per-node steps and the force kernels are written once (DESIGN §4).
#if defined(__CUDACC__)
#define ORRERY_HD __host__ __device__
#define ORRERY_DEVICE_COMPILE (defined(__CUDA_ARCH__))
#else
#define ORRERY_HD
#endif
#define ORRERY_HDI ORRERY_HD inline
