#include "orrery/mpi/let_walk.hpp"

#include <string>

#include "orrery/bh/octree_build.hpp"
#include "orrery/bh/walk_all.hpp"
#include "orrery/core/error.hpp"
#include "orrery/mpi/key_order.hpp"
#include "orrery/mpi/migrate.hpp"

namespace orrery::mpi {
namespace {

template <class Real>
class CpuLetWalk final : public LetWalk<Real> {
 public:
  explicit CpuLetWalk(const bh::TreeSolverConfig& config) : config_(config) {}
  std::string backend() const override { return "cpu"; }
  void walk(const bh::Octree<Real>& tree, const HeldParticles<Real>* /*null: places_particles() is false*/,
            std::span<const std::int32_t> targets, bool potential, Real* ax, Real* ay, Real* az, Real* pot,
            InteractionCounts* counts, const Real* scale) override {
    const bh::WalkTargets<Real> t{static_cast<std::int32_t>(targets.size()), targets.data()};
    bh::walk_targets(tree, t, config_, potential, ax, ay, az, pot, counts, scale);
  }

 private:
  bh::TreeSolverConfig config_;
};

}  // namespace

template <class Real>
bh::Octree<Real> LetWalk<Real>::build_run(const SourcesView<Real>& run, std::span<const std::uint64_t> keys,
                                          const bh::TreeParams& params, const bh::Cube* cube) {
  if (cube != nullptr) return bh::build_nodes_sorted(run, keys, params, *cube, &run_moments_);
  return bh::build_octree(run, params, nullptr, cube, &run_moments_);
}

template <class Real>
std::vector<bh::NodeMoments> LetWalk<Real>::run_moments(std::span<const std::int32_t> nodes) {
  std::vector<bh::NodeMoments> out;
  out.reserve(nodes.size());
  for (const std::int32_t n : nodes) {
    if (n < 0 || static_cast<std::size_t>(n) >= run_moments_.size())
      throw RuntimeFailure("the moments of node " + std::to_string(n) + " of the rank's last subtree build were asked "
                           "for; accepted: 0 to " + std::to_string(static_cast<std::int64_t>(run_moments_.size()) - 1));
    out.push_back(run_moments_[static_cast<std::size_t>(n)]);
  }
  return out;
}

template <class Real>
std::int32_t LetWalk<Real>::build_run_particles() const {
  return kBuildRunParticles;
}

template <class Real>
bool LetWalk<Real>::sort_particle_keys(std::vector<std::uint64_t>&& keys, std::span<const std::uint64_t> index,
                                       std::vector<std::uint64_t>& sorted_keys, std::vector<std::int32_t>& order) {
  return sort_by_key_and_tie(std::move(keys), index, sorted_keys, order);
}

template <class Real>
bool LetWalk<Real>::order_particles(const SourcesView<Real>& p, std::span<const std::uint64_t> index,
                                    const bh::Cube& cube, std::vector<std::uint64_t>& sorted_keys,
                                    std::vector<std::int32_t>& order, const std::function<void(const char*)>& lap,
                                    bool /*keep_positions: nothing to keep on the host*/) {
  std::vector<std::uint64_t> keys = position_keys(p, cube);
  if (lap) lap("keys");
  return sort_particle_keys(std::move(keys), index, sorted_keys, order);
}

template <class Real>
std::unique_ptr<LetWalk<Real>> cpu_let_walk(const bh::TreeSolverConfig& config) {
  return std::make_unique<CpuLetWalk<Real>>(config);
}

template class LetWalk<float>;
template class LetWalk<double>;
template std::unique_ptr<LetWalk<float>> cpu_let_walk<float>(const bh::TreeSolverConfig&);
template std::unique_ptr<LetWalk<double>> cpu_let_walk<double>(const bh::TreeSolverConfig&);

}  // namespace orrery::mpi
