#pragma once
// The two halves of the kick-drift-kick leapfrog, as separate element-wise
// steps so a device-resident variant can replace each with a kernel:
//   kick(p, a, dt/2); drift(p, dt); <forces at the new positions>; kick(p, a, dt/2)
// Each is v = fma(a, h, v) (resp. x = fma(v, dt, x)) per element with the
// xm:: arithmetic: the same bits on any thread count and under nvcc.
#include <cstdint>

#include "orrery/core/exact_math.hpp"
#include "orrery/core/hd.hpp"
#include "orrery/core/particles.hpp"

namespace orrery::integrate {

/// Below this many particles a kick or drift (microseconds of work) runs on
/// one thread: a parallel region's start and barrier would cost more, and far
/// more on a loaded machine where a thread may be descheduled.
inline constexpr std::int64_t kParallelFrom = 1 << 16;

/// One particle's y += a * h (a kick: v, a, dt/2; a drift: x, v, dt): the
/// element of every kick and drift here and of the device kernels
/// (device_block_leapfrog.cu), so both have the same bits.
template <class Real>
ORRERY_HDI void fma3(Real& y0, Real& y1, Real& y2, Real a0, Real a1, Real a2, Real h) {
  y0 = xm::fma(a0, h, y0);
  y1 = xm::fma(a1, h, y1);
  y2 = xm::fma(a2, h, y2);
}

/// v += a * h for every particle. a.size() == p.size().
template <class Real>
void kick(Particles<Real>& p, const Accelerations<Real>& a, Real h) {
  const std::int64_t n = p.size();
#pragma omp parallel for simd schedule(static) if (n >= kParallelFrom)
  for (std::int64_t i = 0; i < n; ++i) {
    p.vx[i] = xm::fma(a.ax[i], h, p.vx[i]);
    p.vy[i] = xm::fma(a.ay[i], h, p.vy[i]);
    p.vz[i] = xm::fma(a.az[i], h, p.vz[i]);
  }
}

/// v += a * half[bin[i]] for the particles i listed in list[0..m): the half
/// kicks of block steps (block_leapfrog.hpp), each with its own bin's dt/2.
/// Per element the arithmetic of kick(), so a particle kicked here with h
/// gets the bits kick() would give it.
template <class Real>
void kick_listed(Particles<Real>& p, const Accelerations<Real>& a, const std::int64_t* list, std::int64_t m,
                 const std::int8_t* bin, const Real* half) {
#pragma omp parallel for schedule(static) if (m >= kParallelFrom)
  for (std::int64_t k = 0; k < m; ++k) {
    const std::int64_t i = list[k];
    fma3(p.vx[i], p.vy[i], p.vz[i], a.ax[i], a.ay[i], a.az[i], half[bin[i]]);
  }
}

/// x += v * dt for every particle.
template <class Real>
void drift(Particles<Real>& p, Real dt) {
  const std::int64_t n = p.size();
#pragma omp parallel for simd schedule(static) if (n >= kParallelFrom)
  for (std::int64_t i = 0; i < n; ++i) {
    p.x[i] = xm::fma(p.vx[i], dt, p.x[i]);
    p.y[i] = xm::fma(p.vy[i], dt, p.y[i]);
    p.z[i] = xm::fma(p.vz[i], dt, p.z[i]);
  }
}

}  // namespace orrery::integrate
