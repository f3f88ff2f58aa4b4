// The walks of octupole trees, both openings (walk_all_impl.hpp): a
// translation unit of their own, compiled in parallel with the others.
#include "orrery/bh/walk_all_impl.hpp"

namespace orrery::bh {

ORRERY_DEFINE_WALK_TARGETS_ENTRY(walk_targets_octupole, walk_targets_any_opening<Multipole::octupole>)

}  // namespace orrery::bh
