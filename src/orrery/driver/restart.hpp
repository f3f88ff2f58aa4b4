#pragma once
// What a restart may change and what it may not. A checkpoint continues
// bit-identically only with the same physics: the solver and its
// parameters, the precision and the time step. The end time, the outputs,
// the wall-clock settings and the units' physical scale may change.
#include <filesystem>

#include "orrery/integrate/run_config.hpp"

namespace orrery::driver {

/// Throws InputError naming the first key whose value differs between the
/// checkpoint's configuration (`saved`) and this run's (`now`), both values,
/// and what a restart may change.
void require_same_physics(const integrate::RunConfig& saved, const integrate::RunConfig& now,
                          const std::filesystem::path& checkpoint);

}  // namespace orrery::driver
