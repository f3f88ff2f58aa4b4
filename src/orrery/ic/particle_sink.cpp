#include "orrery/ic/particle_sink.hpp"

#include <string>

#include "orrery/core/error.hpp"
#include "orrery/ic/sampling.hpp"

namespace orrery::ic {
namespace {

/// Keeps rows [begin, end) and, for a centred model, the sums of every row.
class RowsSink final : public ParticleSink {
 public:
  RowsSink(std::int64_t begin, std::int64_t end, bool centred)
      : rows_(static_cast<std::size_t>(end - begin)), begin_(begin), end_(end), centred_(centred) {}

  void put(std::int64_t i, const GeneratedParticle& q) override {
    if (centred_) sums_.add(q.mass, {q.x, q.y, q.z, q.vx, q.vy, q.vz});
    if (i < begin_ || i >= end_) return;
    const auto k = static_cast<std::size_t>(i - begin_);
    rows_.x[k] = q.x, rows_.y[k] = q.y, rows_.z[k] = q.z;
    rows_.vx[k] = q.vx, rows_.vy[k] = q.vy, rows_.vz[k] = q.vz;
    rows_.mass[k] = q.mass;
    rows_.id[k] = q.id;
  }

  Particles<double> take() {
    if (centred_) sums_.shift(rows_);
    return std::move(rows_);
  }

 private:
  Particles<double> rows_;
  std::int64_t begin_, end_;
  bool centred_;
  CentreOfMass sums_;
};

}  // namespace

Particles<double> model_rows(const Model& model, std::int64_t begin, std::int64_t end) {
  if (begin < 0 || begin > end || end > model.count)
    throw RuntimeFailure("initial conditions: rows " + std::to_string(begin) + " to " + std::to_string(end) + " of " +
                         std::to_string(model.count) + "; accepted: 0 <= begin <= end <= N");
  RowsSink sink(begin, end, model.centred);
  model.generate(sink);
  return sink.take();
}

}  // namespace orrery::ic
