#pragma once
// The CPU direct solver's field with a softening per type
// (core/softening_classes.hpp): each pair takes the policy of the larger of
// its two softenings, looked up per source (core/pair_softening.hpp).
#include <cstdint>

#include "orrery/core/particles.hpp"
#include "orrery/core/softening.hpp"
#include "orrery/core/softening_classes.hpp"
#include "orrery/gravity/targets.hpp"

namespace orrery::gravity {

/// The field of `s` at `t` (every source when t.all()) with the pair
/// policies `pairs`; cls: [s.count] each source's class. A point target has
/// no softening of its own (PairSoftenings::kPointRow).
template <class Real, class Softening>
void direct_field_per_type(const SourcesView<Real>& s, const TargetSet<Real>& t, const AccelerationsView<Real>& out,
                           bool potential, const PairSoftenings<Softening>& pairs, const std::uint8_t* cls);

}  // namespace orrery::gravity
