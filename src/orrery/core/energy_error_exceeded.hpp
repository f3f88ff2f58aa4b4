#pragma once
// The error of a run that stopped because its relative energy error passed
// integration.max_energy_error (integrate/run_watch.hpp): the step is too
// large for the system, so an input error (exit status 2, the README's
// table), in a class of its own so that Python can raise
// orrery.EnergyErrorExceeded.
#include "orrery/core/error.hpp"

namespace orrery {

class EnergyErrorExceeded : public InputError {
 public:
  using InputError::InputError;
};

}  // namespace orrery
