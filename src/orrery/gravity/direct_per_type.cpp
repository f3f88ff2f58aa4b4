#include "orrery/gravity/direct_per_type.hpp"

#include "orrery/core/pair_softening.hpp"
#include "orrery/gravity/direct_loops.hpp"

namespace orrery::gravity {

template <class Real, class Softening>
void direct_field_per_type(const SourcesView<Real>& s, const TargetSet<Real>& t, const AccelerationsView<Real>& out,
                           bool potential, const PairSoftenings<Softening>& pairs, const std::uint8_t* cls) {
  direct_loops::field(s, t, out, potential, [&](std::int64_t k) {
    const int own = t.all() ? int{cls[k]} : t.index != nullptr ? int{cls[t.index[k]]} : PairSoftenings<Softening>::kPointRow;
    return TargetSoftenings<Softening, Real>{pairs.row(own), cls};
  });
}

#define ORRERY_DIRECT_PER_TYPE(Real, Policy)                                                                  \
  template void direct_field_per_type(const SourcesView<Real>&, const TargetSet<Real>&,                     \
                                      const AccelerationsView<Real>&, bool, const PairSoftenings<Policy<Real>>&, \
                                      const std::uint8_t*);
ORRERY_DIRECT_PER_TYPE(float, PlummerSoftening)
ORRERY_DIRECT_PER_TYPE(float, SplineSoftening)
ORRERY_DIRECT_PER_TYPE(double, PlummerSoftening)
ORRERY_DIRECT_PER_TYPE(double, SplineSoftening)
#undef ORRERY_DIRECT_PER_TYPE

}  // namespace orrery::gravity
