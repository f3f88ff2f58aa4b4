// The term-cost micro-benchmark (term_cost.hpp). Compiled -ftz=true, like
// the fast walk's translation units (bench/CMakeLists.txt), so that the
// terms compile to the instructions the walk issues.
#include "term_cost.hpp"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "device_timing.hpp"
#include "orrery/bh/interactions.hpp"
#include "orrery/core/error.hpp"
#include "orrery/core/softening.hpp"
#include "orrery/cuda/check_cuda.cuh"
#include "orrery/cuda/memory.hpp"

namespace orrery::bench {
namespace {

constexpr int kBlock = 256;   // the walk's block (bh::detail::kWalkBlock)
constexpr int kSources = 64;  // per block, in shared memory
constexpr int kRounds = 16;   // passes over them: 1024 terms per thread and launch
constexpr int kWaves = 4;     // full waves of resident blocks per launch (no tail)
constexpr int kChecked = 4;   // threads whose sums the host recomputes
constexpr double kEps = 0.05;

/// A source: what a cell term reads (a particle term reads x, y, z, m).
template <class Real>
struct alignas(16) Source {
  Real x, y, z, m;
  Real q[bh::moment_components(bh::Multipole::hexadecapole)];  // S, O, H (multipole_tensors.hpp's layout)
  Real trace;                                                  // quadrupole_trace(q)
};

/// The terms, and how far the kernel unrolls its loop over the sources: far
/// enough that the loop's own instructions are a few per cent of a particle
/// term's, no further than the instruction cache holds.
struct ParticleTerm {
  static constexpr int kUnroll = 16;
};
template <bh::Multipole M>
struct CellTerm {
  static constexpr int kUnroll = bh::multipole_order(M) <= 2 ? 16 : 4;
};

template <bool Pot, class Real>
ORRERY_HDI void add_term(ParticleTerm, bh::Accumulator<Real>& acc, const PlummerSoftening<Real>& soft, Real tx, Real ty,
                         Real tz, const Source<Real>& s, bool keep) {
  bh::add_particle<Pot, MathMode::fast>(acc, soft, tx, ty, tz, s.x, s.y, s.z, s.m, keep);
}
template <bool Pot, bh::Multipole M, class Real>
ORRERY_HDI void add_term(CellTerm<M>, bh::Accumulator<Real>& acc, const PlummerSoftening<Real>& soft, Real tx, Real ty,
                         Real tz, const Source<Real>& s, bool keep) {
  bh::add_cell_terms<Pot, M, MathMode::fast>(acc, soft, tx, ty, tz, s.x, s.y, s.z, s.m, s.q, s.trace, keep);
}

/// Thread id's target: 2-3 length units from the sources (inside [-0.5, 0.5]^3), distinct per lane.
template <class Real>
ORRERY_HDI void target_of(std::int64_t id, Real& tx, Real& ty, Real& tz) {
  tx = Real(2) + Real(1e-3) * Real(id & 1023);
  ty = Real(-1) + Real(1e-3) * Real((id >> 10) & 1023);
  tz = Real(0.5) + Real(1e-3) * Real((id >> 20) & 1023);
}

/// Every thread sums kRounds passes over the block's sources, the softening
/// built on the host as the walk's launcher builds it; skip is -1
/// (keep is a run-time value that is always true). out: 4 per thread.
template <class Term, bool Pot, class Real>
__global__ void __launch_bounds__(kBlock) term_kernel(const Source<Real>* __restrict__ sources,
                                                      const PlummerSoftening<Real> soft, int skip, Real* __restrict__ out) {
  __shared__ Source<Real> s[kSources];
  for (int k = threadIdx.x; k < kSources; k += kBlock) s[k] = sources[k];
  __syncthreads();
  const std::int64_t id = std::int64_t(blockIdx.x) * kBlock + threadIdx.x;
  Real tx, ty, tz;
  target_of(id, tx, ty, tz);
  bh::Accumulator<Real> acc;
#pragma unroll 1
  for (int r = 0; r < kRounds; ++r) {
#pragma unroll(Term::kUnroll)
    for (int j = 0; j < kSources; ++j) add_term<Pot>(Term{}, acc, soft, tx, ty, tz, s[j], j != skip);
  }
  out[4 * id + 0] = acc.ax;
  out[4 * id + 1] = acc.ay;
  out[4 * id + 2] = acc.az;
  out[4 * id + 3] = acc.pot;
}

/// Deterministic sources: positions in [-0.5, 0.5]^3, masses in [0.5, 1.5) / kSources,
/// moments of size ~1e-3 (a cell's moments are small against its mass times its size).
template <class Real>
std::vector<Source<Real>> make_sources() {
  std::vector<Source<Real>> v(kSources);
  std::uint64_t state = 20261203;
  const auto next = [&] {  // a linear congruential step's top bits, in [0, 1)
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return double(state >> 11) * 0x1.0p-53;
  };
  for (auto& s : v) {
    s.x = Real(next() - 0.5);
    s.y = Real(next() - 0.5);
    s.z = Real(next() - 0.5);
    s.m = Real((0.5 + next()) / kSources);
    for (auto& q : s.q) q = Real(1e-3 * (next() - 0.5));
    s.trace = bh::quadrupole_trace(s.q);
  }
  return v;
}

template <class Term, bool Pot, class Real>
TermTiming time_term(const char* what) {
  const auto kernel = term_kernel<Term, Pot, Real>;
  int per_sm = 0, sms = 0;
  ORRERY_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlock, 0));
  ORRERY_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int blocks = kWaves * per_sm * sms;
  const std::vector<Source<Real>> host = make_sources<Real>();
  cuda::DeviceBuffer<Source<Real>> sources(host.size());
  sources.upload(std::span<const Source<Real>>(host));
  const std::int64_t threads = std::int64_t(blocks) * kBlock;
  cuda::DeviceBuffer<Real> out(static_cast<std::size_t>(4 * threads));
  const PlummerSoftening<Real> soft(static_cast<Real>(kEps));
  const auto launch = [&] {
    kernel<<<unsigned(blocks), kBlock>>>(sources.data(), soft, -1, out.data());
    ORRERY_CUDA_CHECK_LAUNCH("term_kernel");
  };
  constexpr int kTrials = 5;
  const Stats s = time_device(launch, kTrials);
  // The first threads' sums against the host's: the same terms in the same
  // order, IEEE 1/sqrt where the device's fast mode uses rsqrt, so only
  // rounding may differ.
  std::vector<Real> got(4 * kChecked);
  out.download(std::span<Real>(got));
  for (int id = 0; id < kChecked; ++id) {
    Real tx, ty, tz;
    target_of(id, tx, ty, tz);
    bh::Accumulator<Real> want;
    for (int r = 0; r < kRounds; ++r)
      for (int j = 0; j < kSources; ++j) add_term<Pot>(Term{}, want, soft, tx, ty, tz, host[j], true);
    const double d[3] = {double(got[4 * id]) - want.ax, double(got[4 * id + 1]) - want.ay,
                         double(got[4 * id + 2]) - want.az};
    const double a2 = double(want.ax) * want.ax + double(want.ay) * want.ay + double(want.az) * want.az;
    const double da = std::sqrt((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / a2);
    const double dp = Pot ? std::abs((double(got[4 * id + 3]) - want.pot) / double(want.pot)) : 0.0;
    const double bound = sizeof(Real) == 4 ? 1e-4 : 1e-12;
    if (!(da <= bound && dp <= bound))  // also catches NaN
      throw RuntimeFailure("term_cost: the device's " + std::string(what) + " sums of thread " + std::to_string(id) +
                           " differ from the host's by " + std::to_string(da) + " (acceleration) and " +
                           std::to_string(dp) + " (potential), relative; accepted: rounding, <= " +
                           std::to_string(bound));
  }
  return {double(threads) * kRounds * kSources, s.median, s.spread(), kTrials};
}

template <bool Pot, class Real>
TermTiming time_cell(bh::Multipole m) {
  switch (m) {
    case bh::Multipole::monopole:
      return time_term<CellTerm<bh::Multipole::monopole>, Pot, Real>("monopole cell term");
    case bh::Multipole::quadrupole:
      return time_term<CellTerm<bh::Multipole::quadrupole>, Pot, Real>("quadrupole cell term");
    case bh::Multipole::octupole:
      return time_term<CellTerm<bh::Multipole::octupole>, Pot, Real>("octupole cell term");
    case bh::Multipole::hexadecapole:
      return time_term<CellTerm<bh::Multipole::hexadecapole>, Pot, Real>("hexadecapole cell term");
  }
  throw InputError("term_cost: unknown multipole; accepted: monopole, quadrupole, octupole, hexadecapole");
}

}  // namespace

template <class Real>
TermTiming time_particle_terms(bool potential) {
  return potential ? time_term<ParticleTerm, true, Real>("particle term")
                   : time_term<ParticleTerm, false, Real>("particle term");
}

template <class Real>
TermTiming time_cell_terms(bh::Multipole m, bool potential) {
  return potential ? time_cell<true, Real>(m) : time_cell<false, Real>(m);
}

template TermTiming time_particle_terms<float>(bool);
template TermTiming time_particle_terms<double>(bool);
template TermTiming time_cell_terms<float>(bh::Multipole, bool);
template TermTiming time_cell_terms<double>(bh::Multipole, bool);

}  // namespace orrery::bench
