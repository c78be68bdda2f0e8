"""Side-by-side benchmarks: riptide against pandas and polars, run by ``riptide bench``.

Benchmarks are not tests: they report figures and never decide pass or fail.
``python -m riptide.benchmarks --help`` (same as ``riptide bench --help``) lists the options;
``riptide bench --list`` lists the cases.

* :mod:`riptide.benchmarks.harness`: timing (warm-up, device sync, median of repeats), the device copy rate,
  the case registry, the table and the JSON report;
* ``cases_*.py``: the cases, one module per issue or area (:mod:`riptide.benchmarks.cases_core` for issue 2).

Adding a case: in a new or existing ``cases_<area>.py`` module of this package, write a :class:`Case`
subclass and decorate it with :func:`register`; the harness imports every ``cases_*`` module it finds::

    from riptide.benchmarks.harness import Case, Reference, register

    @register
    class Mean(Case):
        name = "mean"
        title = "a.mean()"

        def data(self, ctx):
            return ctx.rng().random(ctx.rows)

        def bytes_moved(self, a):
            return a.nbytes

        def riptide(self, a):
            import riptide as rt
            s = rt.Series(a)
            return lambda: s.mean()

        def pandas(self, a):
            import pandas as pd
            s = pd.Series(a)
            return lambda: s.mean()
"""

from riptide.benchmarks.harness import CASES, Case, Context, Reference, load_cases, register, run_bench, self_timed

__all__ = ["CASES", "Case", "Context", "Reference", "load_cases", "register", "run_bench", "self_timed"]
