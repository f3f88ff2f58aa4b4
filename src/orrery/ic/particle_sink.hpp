#pragma once
// Where a generator puts its particles, and the rows of a model kept from
// them. Every generator draws its particles from one sequential orrery::Rng
// with rejection sampling, so particle i cannot be reached without drawing
// 0..i-1 first; instead of filling an array a generator puts particle
// i = 0..N-1, in order, into a ParticleSink. Keeping every particle gives the
// whole model; keeping the rows [begin, end) alone gives an MPI rank its
// block of the same bits in O(end - begin) memory and O(N) time (issue 19,
// docs/adr/0012 decision 14). A model shifted to its centre-of-mass frame has
// the whole model's sums accumulated as the particles pass, in the order
// move_to_centre_of_mass sums the array, so every row's shift is the same bits.
#include <cstdint>
#include <functional>
#include <utility>

#include "orrery/core/particles.hpp"

namespace orrery::ic {

/// One particle as a generator makes it (Henon units, double).
struct GeneratedParticle {
  double x, y, z, vx, vy, vz, mass;
  std::uint64_t id;
};

/// Takes particle i of a model; a generator puts i = 0..N-1 once each, in order.
class ParticleSink {
 public:
  virtual void put(std::int64_t i, const GeneratedParticle& q) = 0;

 protected:
  ~ParticleSink() = default;
};

/// A sink that hands each particle to `f(i, q)` (a pass that transforms or sums them).
template <class F>
class SinkOf final : public ParticleSink {
 public:
  explicit SinkOf(F f) : f_(std::move(f)) {}
  void put(std::int64_t i, const GeneratedParticle& q) override { f_(i, q); }

 private:
  F f_;
};

/// A model: its N, whether it is shifted to its centre-of-mass frame once
/// made, and its generator (which has checked its parameters already).
struct Model {
  std::int64_t count = 0;
  bool centred = false;
  std::function<void(ParticleSink&)> generate;
};

/// Rows [begin, end) of the model, 0 <= begin <= end <= count (RuntimeFailure
/// otherwise): the same bits as those rows of the whole model.
Particles<double> model_rows(const Model& model, std::int64_t begin, std::int64_t end);

/// Every row of the model.
inline Particles<double> whole_model(const Model& model) { return model_rows(model, 0, model.count); }

}  // namespace orrery::ic
