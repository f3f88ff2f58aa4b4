#pragma once
// Initial conditions chosen by name ([initial_conditions] in the config).
// Every generator works in double (so float and double runs start from the
// same state, rounded once) and is reproducible from its seed.
#include <cstdint>
#include <string>
#include <vector>

#include "orrery/core/particles.hpp"
#include "orrery/ic/collision.hpp"
#include "orrery/ic/hernquist.hpp"
#include "orrery/ic/kepler.hpp"

namespace orrery::ic {

struct InitialConditionsConfig {
  std::string kind = "plummer";  // the generators this build has: initial_condition_kinds(), or "file"
  std::string path;              // kind = "file": an HDF5 snapshot (read by the run driver, not here)
  std::int64_t count = 4096;     // >= 1
  std::uint64_t seed = 1;
  // Every model is built in Henon units (G = M = 1), then stretched to total
  // mass `mass` and length unit `length` in code units (ic/scaling.hpp).
  double mass = 1.0;    // > 0
  double length = 1.0;  // > 0
  HernquistParameters hernquist;
  KeplerParameters kepler;    // kind = "kepler" ignores count and seed
  CollisionParameters collision;
};

/// The kinds make_initial_conditions accepts (for errors and docs).
std::vector<std::string> initial_condition_kinds();

/// Throws InputError naming initial_conditions.kind / .count, the value and what is accepted.
Particles<double> make_initial_conditions(const InitialConditionsConfig& config);

/// The number of particles make_initial_conditions makes (count; 2 for
/// kepler), its checks made, nothing generated.
std::int64_t initial_conditions_count(const InitialConditionsConfig& config);

/// Rows [begin, end) of make_initial_conditions(config), the same bits, in
/// O(end - begin) memory (the generator still runs over every particle:
/// particle_sink.hpp). 0 <= begin <= end <= initial_conditions_count(config).
Particles<double> make_initial_conditions_rows(const InitialConditionsConfig& config, std::int64_t begin,
                                               std::int64_t end);

/// The same particles rounded to Real (each value rounded once).
template <class Real>
Particles<Real> to_precision(const Particles<double>& p);

}  // namespace orrery::ic
