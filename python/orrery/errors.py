"""What orrery raises and warns beyond ValueError and RuntimeError (a run that notices, docs/time_steps.md)."""

from . import _core

#: A run stopped because a diagnostics row's |dE/E| passed max_energy_error
#: (integration.max_energy_error for orrery.run): the step is too large for the
#: system. A ValueError; the message names the step, the time and the error.
EnergyErrorExceeded = _core.EnergyErrorExceeded


class TimeStepWarning(UserWarning):
    """The fixed step dt is larger than the step the time-step criterion gives
    the fastest particle (GADGET-4's sqrt(2 eta eps / |a|) with softening, the
    dynamical criterion of Zemp et al. 2007 without): the orbit is not resolved."""
