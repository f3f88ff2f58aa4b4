#pragma once
// The fast-mode direct-summation kernel on the GPU (CUDA only; included by
// direct_gpu_fast.cu and bench/gpu_direct_bench.cu, both compiled -ftz=true).
//
// Layout: sources are packed once per solve into an array of `Pair::Packed`
// (16 or 32 bytes each), then streamed through shared memory in tiles of Tile
// sources. Each thread owns K targets (register blocking: a source read from
// shared memory serves K interactions). Each target sums the sources in index
// order j = 0..N-1, so results are deterministic run to run; they differ from
// the CPU's only in rounding (rsqrtf, contraction, the order of the sums).
//
// The branch discipline (DESIGN §2): the softening, K, Tile and whether the
// potential is summed are template parameters; the inner loop has no branch.
// Self-interaction is masked with a select only in the tiles that hold the
// block's own targets (a block-uniform branch picks the masked loop there);
// sources past N are padding that contributes exactly zero.
//
// Targets: every source (a SourcesView, target i being source i: the block's
// own targets are the K tiles at its first target) or a gathered set
// (GatheredTargets, direct_gpu_launch.hpp: positions and the source each one
// is, or none), whose masked tiles the block finds by a vote per tile. A
// target sums the same sources in the same order and slices in both, so a
// gathered target gets the bits of the all-targets solve.
#include <cstdint>
#include <type_traits>

#include "orrery/core/exact_math.hpp"
#include "orrery/core/math_mode.hpp"
#include "orrery/core/particles.hpp"
#include "orrery/core/softening.hpp"
#include "orrery/gravity/direct_gpu_launch.hpp"
#include "orrery/gravity/direct_gpu_targets.cuh"
#include "orrery/gravity/direct_gpu_tuning.hpp"
#include "orrery/cuda/check_cuda.cuh"
#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/stream.hpp"

namespace orrery::gravity::gpu {

template <class Real>
struct alignas(4 * sizeof(Real)) Quad {
  Real x, y, z, w;
};

template <class Real>
struct Point {
  Real x, y, z;
};

template <class Real>
struct Field {
  Real ax = 0, ay = 0, az = 0, pot = 0;
};

/// The smallest squared softening the fast kernels use: with eps = 0 a
/// coincident pair then gives 0 * finite = 0 instead of 0 * inf = NaN (the
/// cube of 1/sqrt of it stays finite). Physically irrelevant (1e-12 length units).
template <class Real>
inline constexpr Real kMinEps2 = sizeof(Real) == 4 ? Real(1e-24) : Real(1e-200);

/// Plummer, the textbook form. Source = (x, y, z, m). Per interaction: 3 FADD
/// (separation), 3 FFMA (r^2 + eps^2), 1 MUFU (rsqrt), 3 FMUL (m/r, m/r^3),
/// 3 FFMA (acceleration), 1 FADD (potential): 14 issue slots, 13 without the potential.
template <class Real>
struct PlummerPlainPair {
  using RealType = Real;
  using Packed = Quad<Real>;
  Real eps2;  // >= kMinEps2

  explicit PlummerPlainPair(const PlummerSoftening<Real>& s) : eps2(s.eps2 > kMinEps2<Real> ? s.eps2 : kMinEps2<Real>) {}

  __device__ Packed pack(Real x, Real y, Real z, Real m) const { return {x, y, z, m}; }
  __device__ static Packed padding() { return {Real(0), Real(0), Real(0), Real(0)}; }  // massless

  template <bool Pot, bool Masked>
  __device__ __forceinline__ void interact(const Packed& s, const Point<Real>& t, Field<Real>& f, bool valid) const {
    const Real dx = s.x - t.x, dy = s.y - t.y, dz = s.z - t.z;
    const Real r2 = fma(dx, dx, fma(dy, dy, fma(dz, dz, eps2)));
    const Real rinv = rsqrt<MathMode::fast>(r2);
    Real m_r = s.w * rinv;
    if constexpr (Masked) m_r = valid ? m_r : Real(0);
    const Real m_r3 = m_r * (rinv * rinv);
    f.ax = fma(dx, m_r3, f.ax);
    f.ay = fma(dy, m_r3, f.ay);
    f.az = fma(dz, m_r3, f.az);
    if constexpr (Pot) f.pot -= m_r;
  }
};

/// Plummer with the source's mass folded into its coordinates: with
/// s = m^(-1/2), the source is stored as (s x, s y, s z, s, s^2 eps^2, sqrt m), and
///   d' = fma(-s, x_target, s x_source) = s d           (one FFMA per axis, not FADD)
///   q  = rsqrt(|d'|^2 + s^2 eps^2)     = 1 / (s R)      (R^2 = |d|^2 + eps^2)
///   q^3 d' = m d / R^3,   sqrt(m) q = m / R.
/// Per interaction: 3 + 3 FFMA, 1 MUFU, 2 FMUL (q^3), 3 FFMA, 1 FFMA (potential):
/// 13 issue slots, 12 without the potential, plus two shared loads per source
/// per thread (amortised over K targets). Rounding: s x is rounded once, an
/// error like moving the source by half an ulp of its coordinate.
template <class Real>
struct PlummerScaledPair {
  using RealType = Real;
  struct alignas(8 * sizeof(Real)) Packed {
    Quad<Real> q;  // s x, s y, s z, s
    Real e;        // s^2 eps^2 (>= kMinEps2)
    Real root_m;   // sqrt(m)
  };
  Real eps2;

  explicit PlummerScaledPair(const PlummerSoftening<Real>& s) : eps2(s.eps2 > kMinEps2<Real> ? s.eps2 : kMinEps2<Real>) {}

  __device__ Packed pack(Real x, Real y, Real z, Real m) const {
    const bool massive = m > Real(0);  // a massless source becomes padding
    const Real root_m = xm::sqrt(massive ? m : Real(1));
    const Real s = xm::div(Real(1), root_m);
    const Real e = xm::mul(xm::mul(s, s), eps2);
    const Packed p{{xm::mul(s, x), xm::mul(s, y), xm::mul(s, z), s}, e > kMinEps2<Real> ? e : kMinEps2<Real>, root_m};
    return massive ? p : padding();
  }
  /// Contributes exactly zero: d' = 0, q = 1, q^3 d' = 0, sqrt(m) q = 0.
  __device__ static Packed padding() { return {{Real(0), Real(0), Real(0), Real(0)}, Real(1), Real(0)}; }

  template <bool Pot, bool Masked>
  __device__ __forceinline__ void interact(const Packed& s, const Point<Real>& t, Field<Real>& f, bool valid) const {
    const Real dx = fma(-s.q.w, t.x, s.q.x), dy = fma(-s.q.w, t.y, s.q.y), dz = fma(-s.q.w, t.z, s.q.z);
    const Real r2 = fma(dx, dx, fma(dy, dy, fma(dz, dz, s.e)));
    Real q = rsqrt<MathMode::fast>(r2);
    if constexpr (Masked) q = valid ? q : Real(0);
    const Real q3 = q * (q * q);
    f.ax = fma(dx, q3, f.ax);
    f.ay = fma(dy, q3, f.ay);
    f.az = fma(dz, q3, f.az);
    if constexpr (Pot) f.pot = fma(-s.root_m, q, f.pot);
  }
};

/// Any softening policy (the spline kernel): source = (x, y, z, m), the
/// policy's branch-free factors in fast mode.
template <class Softening>
struct GenericPair {
  using RealType = decltype(Softening::tiny());
  using Real = RealType;
  using Packed = Quad<Real>;
  Softening soft;

  explicit GenericPair(const Softening& s) : soft(s) {}

  __device__ Packed pack(Real x, Real y, Real z, Real m) const { return {x, y, z, m}; }
  /// Massless and far away: the factors stay finite even with eps = 0.
  __device__ static Packed padding() { return {Real(1e18), Real(1e18), Real(1e18), Real(0)}; }

  template <bool Pot, bool Masked>
  __device__ __forceinline__ void interact(const Packed& s, const Point<Real>& t, Field<Real>& f, bool valid) const {
    const Real dx = s.x - t.x, dy = s.y - t.y, dz = s.z - t.z;
    const auto ff = soft.template factors<MathMode::fast>(fma(dx, dx, fma(dy, dy, dz * dz)));
    Real w = s.w * ff.f;
    // Rounded on its own (never fused into the subtraction below), so the
    // masked and the unmasked loop give the potential the same bits.
    Real p = xm::mul(s.w, ff.phi);
    if constexpr (Masked) {
      w = valid ? w : Real(0);
      p = valid ? p : Real(0);
    }
    f.ax = fma(dx, w, f.ax);
    f.ay = fma(dy, w, f.ay);
    f.az = fma(dz, w, f.az);
    if constexpr (Pot) f.pot -= p;
  }
};

/// The pair the library uses for each softening policy in fast mode.
template <class Softening>
struct FastPairFor {
  using type = GenericPair<Softening>;
};
template <class Real>
struct FastPairFor<PlummerSoftening<Real>> {
  using type = PlummerPlainPair<Real>;  // the scaled form issues fewer instructions but ran slower (gpu_direct.md)
};

template <class Pair>
__global__ void pack_sources_kernel(SourcesView<typename Pair::RealType> s, Pair pair, typename Pair::Packed* out) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < s.count) out[i] = pair.pack(s.x[i], s.y[i], s.z[i], s.mass[i]);  // tail guard
}

template <class Pair>
void pack_sources(const SourcesView<typename Pair::RealType>& s, const Pair& pair, typename Pair::Packed* out,
                  cuda::StreamHandle stream) {
  constexpr int threads = 256;
  const auto blocks = static_cast<unsigned>((s.count + threads - 1) / threads);
  if (blocks == 0) return;
  pack_sources_kernel<<<blocks, threads, 0, stream>>>(s, pair, out);
  ORRERY_CUDA_CHECK_LAUNCH("pack_sources_kernel");
}

/// Sums tile[0..Tile) into the K targets' fields. Masked: the tile holds
/// some of the block's own targets, and target k of this thread is the
/// tile's source self_column[k] (-1: none of them).
template <int K, int Tile, bool Pot, bool Masked, class Pair>
__device__ __forceinline__ void accumulate_tile(const typename Pair::Packed* tile, const Pair& pair,
                                                const Point<typename Pair::RealType> (&t)[K],
                                                Field<typename Pair::RealType> (&f)[K], const int (&self_column)[K]) {
#pragma unroll 8
  for (int s = 0; s < Tile; ++s) {
    const typename Pair::Packed src = tile[s];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      pair.template interact<Pot, Masked>(src, t[k], f[k], s != self_column[k]);
    }
  }
}

/// Block (bx, by) sums source tiles [by * tiles_per_slice, ...) of the n
/// packed sources into targets [bx * Tile * K, ...). With one slice
/// (gridDim.y == 1) it writes `out`; otherwise slice by's partial field goes
/// to out + by * slice_stride.
template <class Pair, int K, int Tile, bool Pot, class Targets>
__global__ void __launch_bounds__(Tile)
    direct_fast_kernel(const typename Pair::Packed* __restrict__ sources, int n, Targets targets, Pair pair,
                       AccelerationsView<typename Pair::RealType> out, int tiles_per_slice, std::int64_t slice_stride) {
  using Real = typename Pair::RealType;
  using Packed = typename Pair::Packed;
  constexpr bool every_source = std::is_same_v<Targets, SourcesView<Real>>;
  __shared__ Packed tile[Tile];
  const int m = static_cast<int>(targets.count);
  const int first = static_cast<int>(blockIdx.x) * (Tile * K);
  Point<Real> t[K];
  Field<Real> f[K];
  int self[K];  // the source each target is (-1: a point)
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int i = min(first + k * Tile + static_cast<int>(threadIdx.x), m - 1);
    t[k] = {targets.x[i], targets.y[i], targets.z[i]};
    self[k] = source_of_target(targets, i);
  }
  const auto load = [&](int j) {
    const Packed v = sources[min(j, n - 1)];
    return j < n ? v : Pair::padding();
  };
  const int tile_begin = static_cast<int>(blockIdx.y) * tiles_per_slice;
  const int tile_end = min((n + Tile - 1) / Tile, tile_begin + tiles_per_slice);
  Packed next = load(tile_begin * Tile + static_cast<int>(threadIdx.x));
  for (int tt = tile_begin; tt < tile_end; ++tt) {
    __syncthreads();  // every thread is done reading the previous tile
    tile[threadIdx.x] = next;
    __syncthreads();
    next = load((tt + 1) * Tile + static_cast<int>(threadIdx.x));  // in flight while this tile is summed
    int self_column[K];
    bool own_tile = false;  // the tile holds one of this thread's targets
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int column = self[k] - tt * Tile;
      const bool here = (column >= 0) & (column < Tile);
      self_column[k] = here ? column : -1;
      own_tile |= here;
    }
    // Every source a target: the block's own targets are the K tiles at its
    // first target, known without asking; a gathered set asks the block.
    bool masked;
    if constexpr (every_source) {
      const int own = tt * Tile - first;
      masked = (own >= 0) & (own < Tile * K);
    } else {
      masked = __syncthreads_or(own_tile) != 0;
    }
    // Block-uniform branch: only the tiles that hold this block's own
    // targets pay for the self-interaction mask.
    if (masked) {
      accumulate_tile<K, Tile, Pot, true>(tile, pair, t, f, self_column);
    } else {
      accumulate_tile<K, Tile, Pot, false>(tile, pair, t, f, self_column);
    }
  }
  const std::int64_t base = std::int64_t(blockIdx.y) * slice_stride;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int i = first + k * Tile + static_cast<int>(threadIdx.x);
    if (i < m) {  // the last block's tail
      out.ax[base + i] = f[k].ax;
      out.ay[base + i] = f[k].ay;
      out.az[base + i] = f[k].az;
      if constexpr (Pot) out.potential[base + i] = f[k].pot;
    }
  }
}

/// out[i] = sum over slices s = 0, 1, ... of partial[s * stride + i], in that
/// order (deterministic).
template <class Real, bool Pot>
__global__ void sum_slices_kernel(AccelerationsView<Real> partial, std::int64_t stride, int slices,
                                  AccelerationsView<Real> out) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= out.count) return;  // the last block's tail
  Field<Real> f;
  for (int s = 0; s < slices; ++s) {
    const std::int64_t j = s * stride + i;
    f.ax += partial.ax[j];
    f.ay += partial.ay[j];
    f.az += partial.az[j];
    if constexpr (Pot) f.pot += partial.potential[j];
  }
  out.ax[i] = f.ax;
  out.ay[i] = f.ay;
  out.az[i] = f.az;
  if constexpr (Pot) out.potential[i] = f.pot;
}

/// Launches the fast kernel: out (device arrays, targets.count entries) =
/// field of the n packed sources at `targets` (device arrays: every source,
/// or a GatheredTargets), with the source tiles split into slices of
/// `per_slice` tiles (plan_for). With more than one slice the partial fields
/// go to `partials` (grown as needed) and are summed in slice order. The
/// slices depend on n and per_slice only, so a target's sum does not depend
/// on how many targets there are.
template <class Pair, int K, int Tile, bool Pot, class Targets>
void launch_direct_fast(const typename Pair::Packed* packed, std::int64_t n, const Targets& targets, const Pair& pair,
                        const AccelerationsView<typename Pair::RealType>& out, std::int64_t per_slice,
                        cuda::DeviceBuffer<typename Pair::RealType>& partials, cuda::StreamHandle stream) {
  using Real = typename Pair::RealType;
  const std::int64_t m = targets.count;
  const std::int64_t blocks = ceil_div(m, Tile * K);
  if (blocks == 0) return;
  const std::int64_t slices = ceil_div(ceil_div(n, Tile), per_slice);
  const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(slices));
  const int tiles_per_slice = static_cast<int>(per_slice);
  const int sources = static_cast<int>(n);
  if (slices == 1) {
    direct_fast_kernel<Pair, K, Tile, Pot>
        <<<grid, Tile, 0, stream>>>(packed, sources, targets, pair, out, tiles_per_slice, 0);
    ORRERY_CUDA_CHECK_LAUNCH("direct_fast_kernel");
    return;
  }
  const auto need = static_cast<std::size_t>(4 * slices * m);
  if (partials.size() < need) partials.resize(need);
  Real* p = partials.data();
  const std::int64_t stride = 4 * m;  // slice s: ax, ay, az, potential at p + s * 4m + {0, m, 2m, 3m}
  const AccelerationsView<Real> part{m, p, p + m, p + 2 * m, p + 3 * m};
  direct_fast_kernel<Pair, K, Tile, Pot>
      <<<grid, Tile, 0, stream>>>(packed, sources, targets, pair, part, tiles_per_slice, stride);
  ORRERY_CUDA_CHECK_LAUNCH("direct_fast_kernel");
  sum_slices_kernel<Real, Pot><<<static_cast<unsigned>(ceil_div(m, 256)), 256, 0, stream>>>(part, stride,
                                                                                          static_cast<int>(slices), out);
  ORRERY_CUDA_CHECK_LAUNCH("sum_slices_kernel");
}

/// Every source a target (the benchmark's entry): n = targets.count.
template <class Pair, int K, int Tile, bool Pot>
void launch_direct_fast(const typename Pair::Packed* packed, const SourcesView<typename Pair::RealType>& targets,
                        const Pair& pair, const AccelerationsView<typename Pair::RealType>& out,
                        std::int64_t per_slice, cuda::DeviceBuffer<typename Pair::RealType>& partials,
                        cuda::StreamHandle stream) {
  launch_direct_fast<Pair, K, Tile, Pot>(packed, targets.count, targets, pair, out, per_slice, partials, stream);
}

}  // namespace orrery::gravity::gpu
