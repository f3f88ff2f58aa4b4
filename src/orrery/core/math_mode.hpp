#pragma once
// The two math modes of the force kernels (DESIGN §1 contract 2).
//
// exact: IEEE division and square root, explicit fma, no implicit contraction:
//        CPU and GPU give bit-identical accelerations.
// fast:  as exact, except that the device uses rsqrtf (and -ftz) for 1/sqrt.
//        Only rounding differs; nothing that decides the tree or the walk.
// On the host both modes compute the same thing (IEEE 1/sqrt).
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

#include "orrery/core/exact_math.hpp"

namespace orrery {

enum class MathMode : std::uint8_t { exact, fast };

constexpr std::string_view to_string(MathMode m) { return m == MathMode::exact ? "exact" : "fast"; }

/// A math mode as a type: what with_math_mode passes, and what a function
/// compiled once per mode can take to be chosen by overload.
template <MathMode Mode>
using MathModeTag = std::integral_constant<MathMode, Mode>;

/// Calls f(MathModeTag<MathMode::exact>{}) or f(MathModeTag<MathMode::fast>{})
/// and returns what f returns (both calls must return the same type); inside
/// f, `decltype(tag)::value` (or `tag()`) is the mode as a constant. One of
/// the run-time-to-template dispatchers (with_softening in softening.hpp,
/// with_precision in gravity/dispatch.hpp): configuration is dispatched once
/// on the host, never branched on inside a kernel (DESIGN §2).
template <class F>
decltype(auto) with_math_mode(MathMode m, F&& f) {
  if (m == MathMode::exact) return std::forward<F>(f)(MathModeTag<MathMode::exact>{});
  return std::forward<F>(f)(MathModeTag<MathMode::fast>{});
}

/// 1/sqrt(x) in the given mode. x > 0 (callers guard with max(x, tiny) first).
template <MathMode Mode>
ORRERY_HDI float rsqrt(float x) {
#if defined(__CUDA_ARCH__)
  if constexpr (Mode == MathMode::fast) return rsqrtf(x);
#endif
  return xm::div(1.0f, xm::sqrt(x));
}
template <MathMode Mode>
ORRERY_HDI double rsqrt(double x) {
#if defined(__CUDA_ARCH__)
  if constexpr (Mode == MathMode::fast) return ::rsqrt(x);
#endif
  return xm::div(1.0, xm::sqrt(x));
}

}  // namespace orrery
