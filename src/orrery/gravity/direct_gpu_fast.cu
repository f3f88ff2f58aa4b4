// fast mode of the CUDA direct summation. This translation unit alone is
// compiled with -ftz=true (docs/adr/0001: allowed for fast-mode force kernels;
// it lets rsqrtf compile to one MUFU.RSQ without denormal handling).
#include "orrery/cuda/device.hpp"
#include "orrery/gravity/direct_gpu_kernel.cuh"
#include "orrery/gravity/direct_gpu_launch.hpp"
#include "orrery/gravity/direct_gpu_tuning.hpp"

namespace orrery::gravity::gpu {
namespace {

template <class Pair, bool Pot, class Targets>
void launch_plan(const DirectFastPlan& plan, const typename Pair::Packed* packed, std::int64_t n,
                 const Targets& targets, const Pair& pair, const AccelerationsView<typename Pair::RealType>& out,
                 cuda::DeviceBuffer<typename Pair::RealType>& partials, cuda::StreamHandle stream) {
  using Real = typename Pair::RealType;
  constexpr auto c = kFastConfigs<Real>;
  static_assert(c.size() == 3, "one case per compiled configuration");
  const auto args = [&](auto launch) { launch(packed, n, targets, pair, out, plan.per_slice, partials, stream); };
  if (plan.config == c[0]) {
    args(launch_direct_fast<Pair, c[0].targets_per_thread, c[0].tile, Pot, Targets>);
  } else if (plan.config == c[1]) {
    args(launch_direct_fast<Pair, c[1].targets_per_thread, c[1].tile, Pot, Targets>);
  } else {
    args(launch_direct_fast<Pair, c[2].targets_per_thread, c[2].tile, Pot, Targets>);
  }
}

/// The field at `targets` (every source: the sources' view; or gathered).
/// The plan is the one for every source, whatever the targets: its slices
/// fix each target's order of summation, so a gathered target gets the
/// bits of the all-targets solve.
template <class Real, class Softening, class Targets>
void fast_field(const SourcesView<Real>& sources, const Targets& targets, const AccelerationsView<Real>& out,
                const Softening& soft, bool potential, DirectScratch<Real>& scratch, cuda::StreamHandle stream) {
  using Pair = typename FastPairFor<Softening>::type;
  using Packed = typename Pair::Packed;
  if (sources.count == 0 || targets.count == 0) return;
  const Pair pair(soft);
  const std::size_t need = static_cast<std::size_t>(sources.count) * sizeof(Packed);
  if (scratch.packed.size() < need) scratch.packed.resize(need);
  auto* packed = reinterpret_cast<Packed*>(scratch.packed.data());
  pack_sources(sources, pair, packed, stream);
  const DirectFastPlan plan = choose_fast_plan<Real>(sources.count, cuda::current_multiprocessors());
  if (potential) {
    launch_plan<Pair, true>(plan, packed, sources.count, targets, pair, out, scratch.partials, stream);
  } else {
    launch_plan<Pair, false>(plan, packed, sources.count, targets, pair, out, scratch.partials, stream);
  }
}

}  // namespace

template <class Real, class Softening>
void direct_field(MathModeTag<MathMode::fast>, const SourcesView<Real>& sources, const AccelerationsView<Real>& out,
                  const Softening& soft, bool potential, DirectScratch<Real>& scratch, cuda::StreamHandle stream) {
  fast_field(sources, sources, out, soft, potential, scratch, stream);
}

template <class Real, class Softening>
void direct_field(MathModeTag<MathMode::fast>, const SourcesView<Real>& sources, const GatheredTargets<Real>& targets,
                  const AccelerationsView<Real>& out, const Softening& soft, bool potential,
                  DirectScratch<Real>& scratch, cuda::StreamHandle stream) {
  fast_field(sources, targets, out, soft, potential, scratch, stream);
}

#define ORRERY_INSTANTIATE(Real, Soft)                                                                     \
  template void direct_field<Real, Soft<Real>>(MathModeTag<MathMode::fast>, const SourcesView<Real>&,       \
                                              const AccelerationsView<Real>&, const Soft<Real>&, bool,     \
                                              DirectScratch<Real>&, cuda::StreamHandle);                   \
  template void direct_field<Real, Soft<Real>>(MathModeTag<MathMode::fast>, const SourcesView<Real>&,       \
                                              const GatheredTargets<Real>&, const AccelerationsView<Real>&, \
                                              const Soft<Real>&, bool, DirectScratch<Real>&, cuda::StreamHandle);
ORRERY_INSTANTIATE(float, PlummerSoftening)
ORRERY_INSTANTIATE(float, SplineSoftening)
ORRERY_INSTANTIATE(double, PlummerSoftening)
ORRERY_INSTANTIATE(double, SplineSoftening)
#undef ORRERY_INSTANTIATE

}  // namespace orrery::gravity::gpu
