#pragma once
// What a restart may change and what it may not. A checkpoint continues
// bit-identically only with the same physics: the solver and its
// parameters, the precision and the time step. It continues the
// checkpoint's particles, so the initial conditions and the units (which
// scaled them, and label every output) cannot change either: a change there
// would be silently ignored, so it is refused. The end time, the outputs and
// the wall-clock settings may change (README, "Restarting a run").
#include <filesystem>

#include "orrery/integrate/run_config.hpp"
#include "orrery/io/config.hpp"

namespace orrery::driver {

/// Throws InputError naming the first key whose value differs between the
/// checkpoint's configuration (`saved`) and this run's (`now`), both values,
/// and what a restart may change.
void require_same_physics(const integrate::RunConfig& saved, const integrate::RunConfig& now,
                          const std::filesystem::path& checkpoint);

/// Throws InputError naming the first initial_conditions.* or units.* key
/// whose value differs between the checkpoint's configuration and this run's,
/// both values, and what a restart may change.
void require_same_start(const io::Config& saved, const io::Config& now, const std::filesystem::path& checkpoint);

}  // namespace orrery::driver
