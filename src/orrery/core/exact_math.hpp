#pragma once
// Arithmetic with identical bits under g++ and nvcc (docs/adr/0001).
//
// Code that decides the tree or the walk (bounding cube, keys, moments, the
// opening test) and the force kernels of the `exact` math mode use only these
// functions. Each rounds exactly once per operation, in IEEE round-to-nearest:
// on the device the _rn intrinsics, which nvcc never contracts into an fma;
// on the host plain operators, which -ffp-contract=off (cmake/OrreryFlags)
// never contracts. A multiply-add that is meant to be fused is written fma().
#include <cmath>

#include "orrery/core/hd.hpp"

namespace orrery::xm {

ORRERY_HDI float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
ORRERY_HDI double mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
ORRERY_HDI float add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
ORRERY_HDI double add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
ORRERY_HDI float sub(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
ORRERY_HDI double sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
ORRERY_HDI float div(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
ORRERY_HDI double div(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
ORRERY_HDI float sqrt(float a) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}
ORRERY_HDI double sqrt(double a) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}
ORRERY_HDI float fma(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}
ORRERY_HDI double fma(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

/// Squared norm of (dx, dy, dz), fused in a fixed order: dz*dz + (dy*dy + dx*dx).
template <class Real>
ORRERY_HDI Real norm2(Real dx, Real dy, Real dz) {
  return fma(dz, dz, fma(dy, dy, mul(dx, dx)));
}

}  // namespace orrery::xm
