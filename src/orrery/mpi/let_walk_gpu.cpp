#include "orrery/mpi/let_walk_gpu.hpp"

#include <array>
#include <chrono>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "orrery/bh/device_tree_copy.hpp"
#include "orrery/bh/morton.hpp"
#include "orrery/bh/octree_gpu.hpp"
#include "orrery/bh/pair_sort_gpu.hpp"
#include "orrery/bh/particle_sort_gpu.hpp"
#include "orrery/bh/tree_walk_gpu.hpp"
#include "orrery/cuda/memory.hpp"
#include "orrery/cuda/staged_download.hpp"
#include "orrery/cuda/staged_upload.hpp"
#include "orrery/cuda/stream.hpp"
#include "orrery/mpi/kept_vector.hpp"
#include "orrery/mpi/key_order.hpp"
#include "orrery/mpi/parallel_copy.hpp"

namespace orrery::mpi {
namespace {

template <class Real>
class GpuLetWalk final : public LetWalk<Real> {
 public:
  explicit GpuLetWalk(const gravity::GpuTreeSolverConfig& config) : config_(config) {}

  std::string backend() const override {
    return std::string("cuda/") + std::string(bh::to_string(config_.traversal)) +
           (config_.traversal == bh::Traversal::coherent ? std::to_string(config_.group_width) : std::string());
  }

  void walk(const bh::Octree<Real>& tree, const HeldParticles<Real>* held, std::span<const std::int32_t> targets,
            bool potential, Real* ax, Real* ay, Real* az, Real* pot, InteractionCounts* counts,
            const Real* scale) override {
    const auto s = stream_.get();
    const std::size_t n = targets.size();
    auto t = Clock::now();
    if (held == nullptr)
      copy_.upload(tree, s);
    else
      place(tree, *held, s);
    // Targets ascending and distinct from 0 to n - 1 are sources 0..n-1
    // (one rank's, or the first rank's, own particles): the walk takes them
    // as "every source k up to n" and they are not uploaded.
    const bool first_n = n > 0 && targets.front() == 0 && targets.back() == static_cast<std::int32_t>(n) - 1;
    if (!first_n) up_.add(ensure(targets_, n).data(), targets.data(), targets.size_bytes());
    for (auto& r : result_) ensure(r, n);
    for (auto& c : counts_) ensure(c, n);
    bh::DeviceWalkTargets<Real> out{result_[0].data(), result_[1].data(), result_[2].data(),
                                    potential ? result_[3].data() : nullptr, counts_[0].data(), counts_[1].data(),
                                    counts_[2].data()};
    if (scale != nullptr) {
      up_.add(ensure(scale_, n).data(), scale, n * sizeof(Real));
      out.scale = scale_.data();
    }
    up_.run(s);
    const bh::GpuWalkParams params{config_.traversal,           config_.group_width,
                                   config_.tree.math,           config_.tree.softening_kind,
                                   config_.tree.softening,      potential};
    stream_.synchronize();  // the uploads' allocations and copies are in "upload"
    lap(0, t);
    bh::walk_tree_gpu(copy_.view(),
                      bh::WalkTargets<Real>{static_cast<std::int32_t>(n), first_n ? nullptr : targets_.data()}, params,
                      out, s);
    stream_.synchronize();
    lap(1, t);
    // Through page-locked memory (pageable copies go at a fraction of the
    // link's rate): the results into the caller's arrays, the counters kept
    // there and widened into `counts` on the rank's threads.
    Real* host[4] = {ax, ay, az, pot};
    for (int c = 0; c < 3 + potential; ++c) staged_.add(host[c], result_[c].data(), n * sizeof(Real));
    std::size_t counted[3];
    for (int c = 0; c < 3; ++c) counted[c] = staged_.add(nullptr, counts_[c].data(), n * sizeof(std::uint32_t));
    staged_.run(s);
    const std::span<const std::uint32_t> visits = staged_.staged<std::uint32_t>(counted[0]),
                                         cells = staged_.staged<std::uint32_t>(counted[1]),
                                         pairs = staged_.staged<std::uint32_t>(counted[2]);
    const auto m = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static) if (m >= kParallelLoop)
    for (std::int64_t k = 0; k < m; ++k) counts[k] = {visits[k], cells[k], pairs[k]};
    lap(2, t);
  }

  bool places_particles() const override { return true; }

  bh::Octree<Real> build_run(const SourcesView<Real>& run, std::span<const std::uint64_t> keys,
                             const bh::TreeParams& params, const bh::Cube* cube) override {
    const auto s = stream_.get();
    const auto n = static_cast<std::size_t>(run.count);
    const Real* host[4] = {run.x, run.y, run.z, run.mass};
    // The run's particles on the device: where order_particles kept the
    // sorted particles and this run is a piece of them (its keys a piece of
    // the sorted keys it returned, still in the caller's vector), that
    // piece; else uploaded.
    const std::uint64_t* kept = kept_keys_;
    const bool in_kept = kept != nullptr && keys.size() == n && keys.data() >= kept &&
                         keys.data() + n <= kept + kept_count_;
    const std::size_t at = in_kept ? static_cast<std::size_t>(keys.data() - kept) : 0;
    for (int c = 0; c < 4; ++c) {
      if (in_kept) {
        run_on_device_[c] = sort_positions_.sorted(c) + at;
      } else {
        run_[c].fit(n);  // the block kept when it holds the run: the runs differ in size
        up_.add(run_[c].data(), host[c], n * sizeof(Real));
        run_on_device_[c] = run_[c].data();
      }
      run_host_[c] = host[c];
    }
    run_count_ = run.count;
    up_.run(s);
    build_.build(SourcesView<Real>{run.count, run_on_device_[0], run_on_device_[1], run_on_device_[2],
                                   run_on_device_[3]},
                 params, s, cube);
    // The sorted sources are the run itself (sorted by (key, index), which
    // the device's stable sort by key keeps in place): checked there, and
    // the order (4 bytes a particle) downloaded only where a particle moved,
    // for the rank's tree to refuse it by name.
    return build_.download_nodes(build_.first_moved() >= 0);
  }

  // Only the nodes asked for cross the bus: at 16M particles on one rank
  // every node's moments were 0.3 GB, of which the subtrees' roots are read.
  // The build's moments live in its scratch: read before the next build.
  std::vector<bh::NodeMoments> run_moments(std::span<const std::int32_t> nodes) override {
    return build_.download_moments(nodes);
  }

  // One device build a domain: a build's fixed cost (its launches, the
  // nodes' download in pieces) paid once; the device holds a domain's build
  // as it holds the walk's tree of the same particles and more.
  std::int32_t build_run_particles() const override { return std::numeric_limits<std::int32_t>::max(); }

  // The order on the device: the keys and indices up, the order down (4
  // bytes a particle), the sorted keys gathered here from the keys by it.
  // At 16M on one rank of the H100 host the order piece took 0.11-0.12 s on
  // the host's 16 threads and 0.035 s this way (docs/performance/mpi.md,
  // "The decomposition's sort on the device").
  bool sort_particle_keys(std::vector<std::uint64_t>&& keys, std::span<const std::uint64_t> index,
                          std::vector<std::uint64_t>& sorted_keys, std::vector<std::int32_t>& order) override {
    if (take_if_in_order(keys, index, sorted_keys, order)) return true;
    const auto s = stream_.get();
    const std::size_t n = keys.size();
    up_.add(ensure(sort_key_, n).data(), keys.data(), n * sizeof(std::uint64_t));
    up_.add(ensure(sort_index_, n).data(), index.data(), n * sizeof(std::uint64_t));
    up_.run(s);
    // Every bit of the indices: a pass over them on the host for their
    // width would cost more than the device's extra digit passes save.
    const std::int32_t* by = sort_.sort(sort_key_.data(), sort_index_.data(), static_cast<std::int32_t>(n),
                                        3 * bh::kMaxLevel, 64, s);
    const auto m = static_cast<std::int64_t>(n);
    resize_for_overwrite(order, n);
    staged_.add(order.data(), by, n * sizeof(std::int32_t));
    staged_.run(s);
    resize_for_overwrite(sorted_keys, n);
#pragma omp parallel for schedule(static) if (m >= kParallelLoop)
    for (std::int64_t k = 0; k < m; ++k) sorted_keys[k] = keys[order[k]];
    return false;
  }

  // With keep_positions: the particles up once (x, y, z, m and the indices,
  // 24 bytes a particle in float), their keys made and sorted there and
  // their positions and masses gathered into the order for the build; the
  // order and the sorted keys down. Without: the host's keys and
  // sort_particle_keys.
  bool order_particles(const SourcesView<Real>& p, std::span<const std::uint64_t> index, const bh::Cube& cube,
                       std::vector<std::uint64_t>& sorted_keys, std::vector<std::int32_t>& order,
                       const std::function<void(const char*)>& lap, bool keep_positions) override {
    kept_keys_ = nullptr;
    if (!keep_positions) return LetWalk<Real>::order_particles(p, index, cube, sorted_keys, order, lap, false);
    const auto s = stream_.get();
    const auto n = static_cast<std::size_t>(p.count);
    const Real* host[4] = {p.x, p.y, p.z, p.mass};
    std::array<const Real*, 4> on_device{};
    for (int c = 0; c < 4; ++c) {
      unsorted_[c].fit(n);
      up_.add(unsorted_[c].data(), host[c], n * sizeof(Real));
      on_device[c] = unsorted_[c].data();
    }
    up_.add(ensure(sort_index_, n).data(), index.data(), n * sizeof(std::uint64_t));
    up_.run(s);
    if (lap) lap("keys");  // made with the order on the device: the upload is this piece
    sort_positions_.sort(on_device, sort_index_.data(), static_cast<std::int32_t>(n), cube, s);
    resize_for_overwrite(order, n);
    resize_for_overwrite(sorted_keys, n);
    staged_.add(order.data(), sort_positions_.order(), n * sizeof(std::int32_t));
    staged_.add(sorted_keys.data(), sort_positions_.sorted_keys(), n * sizeof(std::uint64_t));
    staged_.run(s);
    kept_keys_ = sorted_keys.data();
    kept_count_ = n;
    // The identity, where the particles were in order already (the caller
    // then leaves them as they are).
    const auto m = static_cast<std::int64_t>(n);
    int moved = 0;
#pragma omp parallel for schedule(static) reduction(max : moved) if (m >= kParallelLoop)
    for (std::int64_t k = 0; k < m; ++k)
      if (order[k] != k) moved = 1;
    return moved == 0;
  }

  void particles_changed() override { kept_keys_ = nullptr; }

  std::vector<std::pair<std::string, double>> step_seconds() const override {
    return {{"upload", seconds_[0]}, {"kernel", seconds_[1]}, {"download", seconds_[2]}};
  }

 private:
  using Clock = std::chrono::steady_clock;

  /// The walk's tree on the device with its particles placed there
  /// (docs/adr/0021 phase 1): the nodes uploaded, each received piece
  /// uploaded into its place, and the own piece copied on the device from
  /// the last build_run's copy where that run was the whole piece (one
  /// build a domain, build_run_particles()): its host arrays, same address
  /// and count, unchanged within the solve that built and walks them. The
  /// bytes are the host's placement's (mpi::place_held), so the walk's
  /// tree is the same. The uploads run with the targets' (walk()).
  void place(const bh::Octree<Real>& tree, const HeldParticles<Real>& h, cuda::StreamHandle s) {
    copy_.upload_nodes(tree, h.held + 1, s);
    const std::array<Real*, 4> to = copy_.particles();
    for (const HeldPiece& p : h.pieces) {
      const std::byte* from[4] = {p.x, p.y, p.z, p.m};
      bool built = p.own && p.n == run_count_;
      for (int c = 0; c < 4; ++c) built = built && from[c] == reinterpret_cast<const std::byte*>(run_host_[c]);
      const auto bytes = static_cast<std::size_t>(p.n) * sizeof(Real);
      for (int c = 0; c < 4; ++c)
        if (built)
          cuda::copy_device_to_device(to[c] + p.at, run_on_device_[c], bytes, s);
        else
          up_.add(to[c] + p.at, from[c], bytes);
    }
    for (int c = 0; c < 4; ++c) up_.add(to[c] + h.held, &h.sentinel[c], sizeof(Real));
  }

  /// Adds the time since `t` to step `k` and restarts `t`.
  void lap(int k, Clock::time_point& t) {
    const auto now = Clock::now();
    seconds_[k] += std::chrono::duration<double>(now - t).count();
    t = now;
  }

  /// `b` of n elements, in its block when that holds them: a rank's target
  /// count changes from step to step, and a reallocation's cudaFree
  /// synchronises the device that the ranks may share.
  template <class T>
  static cuda::DeviceBuffer<T>& ensure(cuda::DeviceBuffer<T>& b, std::size_t n) {
    b.fit(n);
    return b;
  }

  gravity::GpuTreeSolverConfig config_;
  cuda::Stream stream_;
  bh::DeviceTreeCopy<Real> copy_;
  bh::DeviceOctree<Real> build_;          // the builds of the rank's subtrees (build_run)
  cuda::DeviceBuffer<Real> run_[4];       // a run's x, y, z, m
  const Real* run_host_[4] = {};          // where the last run's came from (place())
  const Real* run_on_device_[4] = {};     // and where it was built from: run_ or sort_positions_
  std::int64_t run_count_ = 0;
  cuda::DeviceBuffer<Real> unsorted_[4];  // order_particles' upload of x, y, z, m
  bh::DeviceParticleSort<Real> sort_positions_;
  const std::uint64_t* kept_keys_ = nullptr;  // the sorted keys order_particles kept positions for
  std::size_t kept_count_ = 0;
  cuda::DeviceBuffer<std::int32_t> targets_;
  cuda::DeviceBuffer<Real> result_[4], scale_;
  cuda::DeviceBuffer<std::uint32_t> counts_[3];
  cuda::DeviceBuffer<std::uint64_t> sort_key_, sort_index_;  // sort_particle_keys' input
  bh::DevicePairSort sort_;
  cuda::StagedDownload staged_;  // the results' and counters' download
  cuda::StagedUpload up_;        // the targets' and scales', and each run's sources'
  double seconds_[3] = {0, 0, 0};  // upload, kernel, download (step_seconds)
};

}  // namespace

template <class Real>
std::unique_ptr<LetWalk<Real>> gpu_let_walk(const gravity::GpuTreeSolverConfig& config) {
  return std::make_unique<GpuLetWalk<Real>>(config);
}

template std::unique_ptr<LetWalk<float>> gpu_let_walk<float>(const gravity::GpuTreeSolverConfig&);
template std::unique_ptr<LetWalk<double>> gpu_let_walk<double>(const gravity::GpuTreeSolverConfig&);

}  // namespace orrery::mpi
