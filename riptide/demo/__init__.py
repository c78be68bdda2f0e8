"""``riptide demo``: a trips-cleaning pipeline run with riptide and with pandas, side by side.

* :mod:`riptide.demo.data` generates the trips table with NumPy on the host;
* :mod:`riptide.demo.pipeline` holds the steps, written once against the pandas API and registered in order;
* :mod:`riptide.demo.runner` runs them with each library, times them, checks the results agree and prints a report;
* :mod:`riptide.demo.progress` draws a progress bar on stderr for steps longer than a second;
* :mod:`riptide.demo.distributed` runs the clean, join and groupby stages on a Dask cluster of riptide workers
  (``riptide demo --distributed``), checked and timed against pandas.

>>> from riptide.demo import run_demo
>>> run_demo(2_000)  # doctest: +SKIP
"""

from riptide.demo.data import make_trips
from riptide.demo.pipeline import STEPS, Step, Trips, step
from riptide.demo.runner import compare, run_demo, run_pipeline

__all__ = ["make_trips", "STEPS", "Step", "Trips", "step", "run_demo", "run_pipeline", "compare"]
