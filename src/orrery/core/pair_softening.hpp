#pragma once
// The softening policy of one interaction, for the kernels that are written
// once for one softening and for a softening per type (softening_classes.hpp).
//
// A kernel takes its softening as `soft` and asks for the policy of each
// interaction: with one softening `soft` is the policy itself and both
// lookups return it (the kernel compiles to the code it had before per-type
// softening existed); with a softening per type `soft` is the target's
// TargetSoftenings and the lookups read the class of the source or node.
#include <cstdint>

#include "orrery/core/hd.hpp"

namespace orrery {

/// One target's softenings under a softening per type: `row` holds the
/// policy of the target's class with each class (PairSoftenings::row),
/// `source_class` the class of each source (a tree: in sorted order). Trees
/// only: `node_class` the class of each node's largest softening, and for
/// GADGET-4's opening of a cell whose particles' softenings differ (walk.hpp):
/// `mixed_eps2` each node's largest eps squared when its particles' eps
/// differ (else 0), `eps2` the target's own eps squared.
template <class Policy, class Real>
struct TargetSoftenings {
  const Policy* row = nullptr;
  const std::uint8_t* source_class = nullptr;
  const std::uint8_t* node_class = nullptr;
  const Real* mixed_eps2 = nullptr;
  Real eps2 = 0;
};

/// The policy of the interaction with source j.
template <class Softening>
ORRERY_HDI const Softening& source_softening(const Softening& soft, std::int64_t) {
  return soft;
}
template <class Policy, class Real>
ORRERY_HDI const Policy& source_softening(const TargetSoftenings<Policy, Real>& soft, std::int64_t j) {
  return soft.row[soft.source_class[j]];
}

/// The policy of the interaction with tree node n as a whole.
template <class Softening>
ORRERY_HDI const Softening& node_softening(const Softening& soft, std::int32_t) {
  return soft;
}
template <class Policy, class Real>
ORRERY_HDI const Policy& node_softening(const TargetSoftenings<Policy, Real>& soft, std::int32_t n) {
  return soft.row[soft.node_class[n]];
}

/// GADGET-4's extra opening of a cell (gravtree/gwalk.cc, NSOFTCLASSES > 1):
/// the cell's largest softening exceeds the target's, the target is within
/// it (d2: the squared distance to the cell's centre of mass) and the cell's
/// particles' softenings differ.
template <class Policy, class Real>
ORRERY_HDI bool softening_opens(const TargetSoftenings<Policy, Real>& soft, std::int32_t n, Real d2) {
  const Real h2 = soft.mixed_eps2[n];
  return (h2 > soft.eps2) & (d2 < h2);
}

}  // namespace orrery
