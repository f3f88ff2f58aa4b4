#pragma once
// Block time steps on the device (integration.kind = "block" with
// gravity.backend = "cuda"): the scheme of BlockLeapfrog (block_leapfrog.hpp)
// on device-resident particles, with the same bits in exact mode. The time
// bins live on the device; each substep's active set is found and compacted
// there (a CUB scan of the particles whose step ends, in ascending index
// order, the order of the host's in-order scan), solved through
// GpuTreeSolver's TargetSet overload against the tree over every particle,
// kicked and re-binned by kernels that call the host's own functions
// (leapfrog.hpp fma3, step_criterion.hpp wanted_bin_of, time_bins.hpp).
//
// Per substep the host reads back two small records and nothing else: before
// the solve, the active count (the TargetSet's count, the launch sizes) and
// the relative opening's floor (SolveOptions is a host struct); after the
// re-binning, the lowest particle that asked for a step outside the bins (the
// error names it) and the deepest occupied bin (the next substep's length).
// The substep log (Substep, substeps.csv) splits the wall time as the host's
// does: solve_seconds is the solve's wall time; kick, drift and bookkeeping
// (active set, gather, scatter, new bins) are CUDA-event times of their
// kernels on `stream`, read after the substep's closing synchronisation, so
// the timing adds no synchronisation.
// No CUDA header: the buffers are behind a pointer.
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "orrery/cuda/stream.hpp"
#include "orrery/gravity/tree_gpu_solver.hpp"
#include "orrery/integrate/block_leapfrog.hpp"

namespace orrery::integrate {

/// Device arrays of n particles, the state a block step advances.
template <class Real>
struct DeviceParticleArrays {
  std::int64_t n = 0;
  Real *x, *y, *z, *vx, *vy, *vz;
  const Real* mass;
  Real *ax, *ay, *az;  // the latest evaluation of every particle
  Real* potential;     // [n]; written when a solve computes potentials
};

template <class Real>
class DeviceBlockLeapfrog {
 public:
  /// n particles without bins yet; the parameters as BlockLeapfrog checks them.
  DeviceBlockLeapfrog(BlockStepConfig config, double dt_max, std::int64_t n);
  ~DeviceBlockLeapfrog();
  DeviceBlockLeapfrog(const DeviceBlockLeapfrog&) = delete;
  DeviceBlockLeapfrog& operator=(const DeviceBlockLeapfrog&) = delete;

  /// One block step of dt_max, as BlockLeapfrog::step: `s` holds the
  /// accelerations (and, for the dynamical criterion, potentials) at the
  /// current positions; on return those at the new ones. Kernels on
  /// `stream`, solves on the solver's own stream; returns when done.
  /// `ids`: the particles' ids, for the error naming one. Returns the
  /// interactions the solves counted.
  std::uint64_t step(const DeviceParticleArrays<Real>& s, const std::vector<std::uint64_t>& ids,
                     gravity::GpuTreeSolver<Real>& solver, bool potential, double time_at_start,
                     std::int64_t block_step, cuda::StreamHandle stream);

  bool has_bins() const { return has_bins_; }
  /// A host copy of the bins (empty before the first step).
  std::vector<TimeBin> bins() const;
  /// As BlockLeapfrog::restore_bins (the same checks), uploaded.
  void restore_bins(std::vector<TimeBin> bins);
  /// Particles per bin, bins 0..deepest() (from a download of the bins).
  std::vector<std::int64_t> histogram() const;
  int deepest() const { return deepest_; }
  bool needs_potential() const { return config_.rule.criterion == StepCriterion::dynamical; }
  std::uint64_t target_evaluations() const { return evaluations_; }

  /// Called after every substep (optional), e.g. for the substep log.
  std::function<void(const Substep&)> on_substep;

 private:
  struct Buffers;
  void assign_bins(const DeviceParticleArrays<Real>& s, const std::vector<std::uint64_t>& ids, double time,
                   cuda::StreamHandle stream);
  // Re-bins the first m particles of the active list (all n, unrestricted,
  // when `assign`), then reads back the failure and the deepest occupied bin;
  // throws the host's error for the lowest particle that failed.
  void update_bins(const DeviceParticleArrays<Real>& s, const std::vector<std::uint64_t>& ids, std::int64_t m,
                   std::int64_t tick, bool assign, double time, cuda::StreamHandle stream);

  BlockStepConfig config_;
  double dt_max_;
  int deepest_;
  std::int64_t n_;
  bool has_bins_ = false;
  int deepest_occupied_ = 0;
  std::uint64_t evaluations_ = 0;
  std::unique_ptr<Buffers> buf_;
};

extern template class DeviceBlockLeapfrog<float>;
extern template class DeviceBlockLeapfrog<double>;

}  // namespace orrery::integrate
