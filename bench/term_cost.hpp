#pragma once
// What one cell term costs in particle terms on the GPU, measured (issue 21:
// the walk's interaction rate counts each cell term at its measured cost in
// particle terms). A micro-benchmark of the walk's two interactions alone,
// bh::add_particle and bh::add_cell_terms, in fast math mode with Plummer
// softening, compiled -ftz=true like the fast walk (term_cost.cu): no tree,
// no opening test, no leaf loads, no shuffles.
//
// Each launch fills the GPU with four full waves of 256-thread blocks (the
// walk's block). A block copies 64 sources (position, mass, 31 moments and
// the quadrupole trace) into shared memory; every thread then sums all of
// them, in order, 16 times into its own accumulator, at its own target. The
// sources are uniform over the warp (one shared-memory broadcast per load),
// as the walk's broadcast particles and nodes are; `keep` is a run-time
// value, as in the walk (never false here). Each thread stores its sums, and
// the first threads' sums are checked against the host's evaluation of the
// same terms, so the work is neither deleted nor wrong.
#include <cstdint>

#include "orrery/bh/tree_params.hpp"

namespace orrery::bench {

/// One kind of term, timed: terms per launch and the launch's seconds
/// (median of `trials` CUDA-event trials, device_timing.hpp).
struct TermTiming {
  double terms = 0;
  double seconds = 0;
  double spread = 0;  // (max - min) / median
  int trials = 0;
  double rate() const { return terms / seconds; }
};

/// The particle term (add_particle), with or without the potential.
template <class Real>
TermTiming time_particle_terms(bool potential);

/// The cell term of expansion m (add_cell_terms; the monopole's is add_particle).
template <class Real>
TermTiming time_cell_terms(bh::Multipole m, bool potential);

extern template TermTiming time_particle_terms<float>(bool);
extern template TermTiming time_particle_terms<double>(bool);
extern template TermTiming time_cell_terms<float>(bh::Multipole, bool);
extern template TermTiming time_cell_terms<double>(bh::Multipole, bool);

}  // namespace orrery::bench
