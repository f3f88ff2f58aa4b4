// fast mode of the CUDA direct summation. This translation unit alone is
// compiled with -ftz=true (docs/adr/0001: allowed for fast-mode force kernels;
// it lets rsqrtf compile to one MUFU.RSQ without denormal handling).
#include <iterator>

#include "orrery/gravity/direct_gpu_kernel.cuh"
#include "orrery/gravity/direct_gpu_launch.hpp"
#include "orrery/gravity/direct_gpu_tuning.hpp"

namespace orrery::gravity::gpu {
namespace {

int multiprocessors() {
  int device = 0, sms = 0;
  ORRERY_CUDA_CHECK(cudaGetDevice(&device));
  ORRERY_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

template <class Pair, bool Pot>
void launch_config(DirectFastConfig c, const typename Pair::Packed* packed,
                   const SourcesView<typename Pair::RealType>& targets, const Pair& pair,
                   const AccelerationsView<typename Pair::RealType>& out, cuda::StreamHandle stream) {
  static_assert(std::size(kDirectFastConfigs) == 3, "one case per compiled configuration");
  constexpr int real_bytes = sizeof(typename Pair::RealType);
  if constexpr (config_allowed(kDirectFastConfigs[0], real_bytes)) {
    if (c == kDirectFastConfigs[0]) return launch_direct_fast<Pair, 4, 256, Pot>(packed, targets, pair, out, stream);
  }
  if (c == kDirectFastConfigs[1]) {
    launch_direct_fast<Pair, 2, 256, Pot>(packed, targets, pair, out, stream);
  } else {
    launch_direct_fast<Pair, 1, 128, Pot>(packed, targets, pair, out, stream);
  }
}

}  // namespace

template <class Real, class Softening>
void direct_field_fast(const SourcesView<Real>& sources, const AccelerationsView<Real>& out, const Softening& soft,
                       bool potential, cuda::DeviceBuffer<std::byte>& scratch, cuda::StreamHandle stream) {
  using Pair = typename FastPairFor<Softening>::type;
  using Packed = typename Pair::Packed;
  if (sources.count == 0) return;
  const Pair pair(soft);
  const std::size_t need = static_cast<std::size_t>(sources.count) * sizeof(Packed);
  if (scratch.size() < need) scratch.resize(need);
  auto* packed = reinterpret_cast<Packed*>(scratch.data());
  pack_sources(sources, pair, packed, stream);
  const DirectFastConfig c = choose_fast_config(sources.count, multiprocessors(), sizeof(Real));
  if (potential) {
    launch_config<Pair, true>(c, packed, sources, pair, out, stream);
  } else {
    launch_config<Pair, false>(c, packed, sources, pair, out, stream);
  }
}

#define ORRERY_INSTANTIATE(Real, Soft)                                                                     \
  template void direct_field_fast<Real, Soft<Real>>(const SourcesView<Real>&, const AccelerationsView<Real>&, \
                                                    const Soft<Real>&, bool, cuda::DeviceBuffer<std::byte>&,  \
                                                    cuda::StreamHandle);
ORRERY_INSTANTIATE(float, PlummerSoftening)
ORRERY_INSTANTIATE(float, SplineSoftening)
ORRERY_INSTANTIATE(double, PlummerSoftening)
ORRERY_INSTANTIATE(double, SplineSoftening)
#undef ORRERY_INSTANTIATE

}  // namespace orrery::gravity::gpu
