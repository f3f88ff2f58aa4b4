#pragma once
// The engine of a Simulation whose particles stay resident on a device
// (gravity.backend = "cuda"): it holds the particles, steps them with the
// kick-drift-kick leapfrog where they live, and copies them to the host only
// when asked. No CUDA header: Simulation (simulation.hpp) holds one behind
// this interface and the host build never sees a kernel.
//
// Contract of an implementation (the do_* functions):
//   do_upload(p, dt)  replaces the resident state with p (positions,
//                     velocities, masses, ids); steps will be of size dt.
//                     The resident accelerations are then unknown.
//   do_step(potential) one step with the arithmetic of leapfrog.hpp (the
//                     same bits as Simulation's host path for a solver with
//                     the same bits); `potential`: the closing force solve
//                     also computes the potentials. No transfer to the host.
//   do_download(out)  out = the resident particles (resized).
//   do_download_accelerations(out, potential)  out = the accelerations (and
//                     potentials when `potential`) at the resident positions,
//                     solving on the device first when they are not known.
//   do_restore_accelerations(a)  the resident accelerations become a.ax/ay/az
//                     (N of each, the positions' own, e.g. a checkpoint's):
//                     the next step kicks with them without solving, and its
//                     solve reads them as the previous evaluation's
//                     (SolveOptions::previous_accelerations).
//
// The public wrappers count the particle transfers (uploads, downloads), so
// tests can prove that steps between outputs move no particle data.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/core/particles.hpp"
#include "orrery/integrate/block_leapfrog.hpp"

namespace orrery::integrate {

template <class Real>
class DeviceStepper {
 public:
  virtual ~DeviceStepper() = default;

  void upload(const Particles<Real>& particles, double dt) {
    ++uploads_;
    do_upload(particles, dt);
  }
  void step(bool potential) { do_step(potential); }
  void download(Particles<Real>& out) {
    ++downloads_;
    do_download(out);
  }
  void download_accelerations(Accelerations<Real>& out, bool potential) {
    ++downloads_;
    do_download_accelerations(out, potential);
  }
  void restore_accelerations(const Accelerations<Real>& a) {
    ++uploads_;
    do_restore_accelerations(a);
  }

  /// The force solver's name, e.g. "direct/cuda/single/plummer/exact".
  virtual std::string solver_name() const = 0;
  /// Interactions summed over the run (for rates in logs). The CUDA stepper
  /// counts N^2 - N per solve (DeviceForceSolver reports no counts), also
  /// for the tree: an all-pairs equivalent, not the tree's own count.
  virtual std::uint64_t interactions() const = 0;

  /// Block time steps on the device from now on (device_block_leapfrog.hpp):
  /// do_step is then one block step. An engine without them refuses
  /// (InputError naming what is accepted).
  virtual void use_block_steps(const BlockStepConfig& config) {
    (void)config;
    throw InputError("integration.kind = \"block\" with the device-resident " + solver_name() +
                     "; accepted: integration.kind = \"global\" there, or gravity.backend = \"cpu\"");
  }
  /// With block steps: the bins (empty before the first block step), set
  /// from a checkpoint, the histogram, and a call after every substep.
  virtual std::vector<TimeBin> time_bins() const { return {}; }
  virtual void restore_time_bins(std::vector<TimeBin> bins) { (void)bins; }
  virtual std::vector<std::int64_t> time_bin_histogram() const { return {}; }
  virtual void set_on_substep(std::function<void(const Substep&)> call) { (void)call; }

  /// Host-to-device transfers (particles or accelerations) so far.
  std::uint64_t uploads() const { return uploads_; }
  /// Device-to-host transfers (particles or accelerations) so far.
  std::uint64_t downloads() const { return downloads_; }

 private:
  virtual void do_upload(const Particles<Real>& particles, double dt) = 0;
  virtual void do_step(bool potential) = 0;
  virtual void do_download(Particles<Real>& out) = 0;
  virtual void do_download_accelerations(Accelerations<Real>& out, bool potential) = 0;
  virtual void do_restore_accelerations(const Accelerations<Real>& a) = 0;

  std::uint64_t uploads_ = 0;
  std::uint64_t downloads_ = 0;
};

}  // namespace orrery::integrate
