"""Counterfactual evaluation: position bias of a click log, and whether offline lifts predicted
online results.

- :func:`propensities`: examination propensity per position (position-based model), by EM or
  intervention harvesting, with bootstrap intervals over groups;
- :func:`launch_agreement`: over past launches, how often each offline metric's lift had the
  sign of the online lift, Kendall's tau and the slope between them, with intervals.
"""

from .launches import launch_agreement
from .propensity import PropensityWarning, propensities
from ..plotting.counterfactual import plot_launch_agreement, plot_propensities
from .tables import AgreementTable, PropensityTable

__all__ = ["propensities", "launch_agreement", "PropensityTable", "AgreementTable", "PropensityWarning",
           "plot_propensities", "plot_launch_agreement"]
