#pragma once
// A softening per particle type: GADGET-4's softening classes with one class
// per type (SofteningComovingClassN = the softening of PartTypeN,
// SofteningClassOfPartTypeN = N), and its rule for a pair: the larger of the
// two softenings; a tree cell takes the largest softening among its particles
// (docs/softening.md). The solvers turn these into one softening policy
// (softening.hpp) per pair of classes, built exactly as the scalar solvers
// build theirs, so that equal softenings give the scalar bits.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "orrery/core/error.hpp"
#include "orrery/core/softening.hpp"

namespace orrery {

inline constexpr int kSofteningClasses = 6;  // GADGET's particle types PartType0..5

/// The softening of each type and the types of the particles, which are
/// contiguous in the particle arrays (PartType0 first, as io/particle_types.hpp keeps them).
struct SofteningClasses {
  std::array<double, kSofteningClasses> eps{};             // per type, >= 0 (code units)
  std::array<std::uint64_t, kSofteningClasses> count{};    // particles per type; all 0: every particle is PartType1

  /// One softening for every pair: all six equal.
  bool uniform() const {
    for (const double e : eps)
      if (e != eps[0]) return false;
    return true;
  }
  /// The class of each of n sources, in the particles' order. InputError
  /// naming `who` when the type counts are set and do not add up to n.
  std::vector<std::uint8_t> of_sources(std::int64_t n, const std::string& who) const {
    std::uint64_t total = 0;
    for (const auto c : count) total += c;
    if (total == 0) return std::vector<std::uint8_t>(static_cast<std::size_t>(n), std::uint8_t{1});
    if (total != static_cast<std::uint64_t>(n))
      throw InputError(who + ": the softening per type was given for " + std::to_string(total) +
                       " particles (the type counts), not for the " + std::to_string(n) +
                       " sources; accepted: type counts that add up to the number of sources");
    std::vector<std::uint8_t> cls;
    cls.reserve(static_cast<std::size_t>(n));
    for (int t = 0; t < kSofteningClasses; ++t) cls.insert(cls.end(), count[t], static_cast<std::uint8_t>(t));
    return cls;
  }
  /// Of classes a and b, the one with the larger softening (a when equal):
  /// the class a tree cell takes from its particles.
  int larger(int a, int b) const { return eps[b] > eps[a] ? b : a; }
};

/// The classes with every eps checked (validated_softening, naming
/// gravity.softening_per_type.PartTypeN in its message).
inline SofteningClasses validated_softening_classes(const SofteningClasses& c) {
  for (int t = 0; t < kSofteningClasses; ++t) {
    try {
      validated_softening(c.eps[t]);
    } catch (const InputError& e) {
      const std::string m = e.what();
      throw InputError("gravity.softening_per_type.PartType" + std::to_string(t) + m.substr(m.find(" = ")));
    }
  }
  return c;
}

/// Rows of softening policies for the per-type solvers: row a (a target of
/// class a), column b (a source or cell of class b) holds the policy of
/// max(eps[a], eps[b]); the last row, a point that is no particle, holds
/// eps[b] (a point has no softening of its own). Each policy is built from
/// Real(eps) as the scalar solvers build theirs.
template <class Policy>
struct PairSoftenings {
  static constexpr int kPointRow = kSofteningClasses;
  std::vector<Policy> policy;  // [(kSofteningClasses + 1) * kSofteningClasses]

  template <class Real>
  static PairSoftenings of(const SofteningClasses& c) {
    PairSoftenings p;
    p.policy.reserve((kSofteningClasses + 1) * kSofteningClasses);
    for (int a = 0; a <= kSofteningClasses; ++a)
      for (int b = 0; b < kSofteningClasses; ++b)
        p.policy.emplace_back(Real(a == kPointRow ? c.eps[b] : std::max(c.eps[a], c.eps[b])));
    return p;
  }
  /// The row of a target of class a (kPointRow for a point).
  const Policy* row(int a) const { return policy.data() + a * kSofteningClasses; }
};

}  // namespace orrery
