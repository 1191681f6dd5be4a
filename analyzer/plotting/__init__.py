"""Every fairalloc figure, drawn one way: one style, one resolution
(:data:`~analyzer.plotting.style.DEFAULT_DPI`), one palette per user.

* :mod:`~analyzer.plotting.allocations`: shares per policy (Ghodsi et al.,
  NSDI 2011, Figures 3 and 4), continuous and discrete;
* :mod:`~analyzer.plotting.timeline`: shares over time from any sampled
  series (Figure 8 layout);
* :mod:`~analyzer.plotting.simulation`: simulations (Figures 8, 13, 14);
* :mod:`~analyzer.plotting.style`: file formats, colours, keys, head room.

matplotlib is imported inside the functions, without pyplot.
"""

from .allocations import plot_allocations
from .simulation import plot_simulations, simulation_figure
from .style import DEFAULT_DPI, PLOT_FORMATS, plot_format
from .timeline import plot_shares_over_time

__all__ = ["DEFAULT_DPI", "PLOT_FORMATS", "plot_allocations", "plot_format", "plot_shares_over_time",
           "plot_simulations", "simulation_figure"]
