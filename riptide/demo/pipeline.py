"""The demo's pipeline: named steps written once against the pandas API.

Each step is a plain function ``fn(pd, trips)`` where ``pd`` is the DataFrame
library to run with — the :mod:`pandas` module or :mod:`riptide` — and
``trips`` is the :class:`Trips` state the steps read and update. Steps run in
registration order; a later stage (I/O, groupby, join, ML, graph) joins the
demo by registering more steps with :func:`step`, in this module or in one it
imports.

Two steps run another library's API on the pandas side: "model" fits
scikit-learn's estimators (riptide.ml on the riptide side) and "graph" runs
NetworkX's algorithms (riptide.graph on the riptide side). Each is skipped,
with the reason recorded in ``Trips.skipped``, when that library is missing.

>>> [s.name for s in STEPS][:3]
['load', 'read csv', 'read parquet']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from riptide.demo.data import make_zones

__all__ = ["Step", "Trips", "STEPS", "step", "AIRPORT_ZONES", "DESCRIBED", "VENDOR_PATTERNS"]

AIRPORT_ZONES = [1, 132, 138]  # Newark, JFK, LaGuardia
DESCRIBED = ["trip_distance", "duration_min", "speed_mph", "fare_amount", "tip_pct"]
# Cleaned vendor text -> canonical name: a regex per vendor, tolerant of the abbreviations and hyphens seen.
VENDOR_PATTERNS = [
    (r"^creative mobile tech(?:nologies)?$", "Creative Mobile Technologies"),
    (r"^veri ?fone$", "VeriFone"),
    (r"^curb\s+mobility$", "Curb Mobility"),
]


@dataclass
class Trips:
    """The pipeline's state: host input columns in, a cleaned frame and its figures out."""

    source: dict[str, np.ndarray]
    df: Any = None
    summary: dict[str, Any] = field(default_factory=dict)
    describe: Any = None
    zones: dict[str, np.ndarray] = field(default_factory=make_zones)
    reports: dict[str, Any] = field(default_factory=dict)  # named result frames (groupby reports), checked too
    files: dict[str, str] = field(default_factory=dict)  # the source written as "csv" and "parquet" (read back)
    workdir: str = ""  # where the result is written
    graph: dict[str, Any] = field(default_factory=dict)  # the graph stage's results, checked with their own rules
    skipped: dict[str, str] = field(default_factory=dict)  # step name -> why it did nothing


StepFn = Callable[[ModuleType, Trips], None]


@dataclass(frozen=True)
class Step:
    """One named, timed step of the demo."""

    name: str
    stage: str
    run: StepFn

    @property
    def doc(self) -> str:
        """The first line of the step function's docstring."""
        doc = (self.run.__doc__ or "").strip()
        return doc.splitlines()[0] if doc else ""


STEPS: list[Step] = []


def step(name: str, *, stage: str) -> Callable[[StepFn], StepFn]:
    """Register ``fn(pd, trips)`` as the demo's next step, named ``name``; ``stage`` groups steps (load, clean, ...)."""

    def register(fn: StepFn) -> StepFn:
        if any(s.name == name for s in STEPS):
            msg = f"a demo step named {name!r} is already registered"
            raise ValueError(msg)
        STEPS.append(Step(name, stage, fn))
        return fn

    return register


# --- load ---------------------------------------------------------------------------------------------------


@step("load", stage="load")
def load(pd: ModuleType, t: Trips) -> None:
    """Build the frame from the host columns.

    For riptide on a GPU this is the host-to-device copy (strings included).
    """
    t.df = pd.DataFrame(t.source)


@step("read csv", stage="load")
def read_csv(pd: ModuleType, t: Trips) -> None:
    """read_csv of the same trips (parse_dates for the two timestamps).

    The frame read is checked by its row count and fare total; the pipeline goes on with the Parquet one.
    """
    frame = pd.read_csv(t.files["csv"], parse_dates=["pickup", "dropoff"])
    t.summary["rows read from csv"] = len(frame)
    t.summary["fare total from csv ($)"] = frame["fare_amount"].sum()


@step("read parquet", stage="load")
def read_parquet(pd: ModuleType, t: Trips) -> None:
    """read_parquet of the same trips; the pipeline continues with this frame."""
    t.df = pd.read_parquet(t.files["parquet"])


# --- clean ----------------------------------------------------------------------------------------------------


@step("nulls", stage="clean")
def handle_nulls(pd: ModuleType, t: Trips) -> None:
    """dropna payment type; fillna and clip passengers.

    Trips without a payment type are dropped; a missing passenger count becomes 1, counts are clipped to 1..6
    and stored as int64.
    """
    df = t.df.dropna(subset=["payment_type"])
    df["passenger_count"] = df["passenger_count"].fillna(1).clip(1, 6).astype("int64")
    t.df = df


@step("duration", stage="clean")
def add_duration(pd: ModuleType, t: Trips) -> None:
    """Duration in minutes from datetime subtraction.

    dropoff - pickup is timedelta64[ns]; as int64 nanoseconds over 60e9 it is minutes.
    """
    df = t.df
    df["duration_min"] = (df["dropoff"] - df["pickup"]).astype("int64") / 60e9


@step("filter", stage="clean")
def filter_valid(pd: ModuleType, t: Trips) -> None:
    """Filter: distance, fare, duration and zone bounds.

    Keeps plausible trips: distance > 0, fare in [2.5, 500], 0 < duration < 4 h, known zones (1..263).
    """
    df = t.df
    ok = (df["trip_distance"] > 0) & df["fare_amount"].between(2.5, 500)
    ok &= (df["duration_min"] > 0) & (df["duration_min"] < 240)
    ok &= df["PULocationID"].between(1, 263) & df["DOLocationID"].between(1, 263)
    t.df = df[ok]


@step("vendors", stage="clean")
def clean_vendors(pd: ModuleType, t: Trips) -> None:
    """Text cleaning: one canonical name per vendor from messy spellings (regex).

    Lower-case, turn every run of punctuation and spaces into one space, strip, drop a company suffix; then a
    regex names the vendor (missing stays missing) and the names become a categorical.
    """
    df = t.df
    text = df["vendor"].str.lower().str.replace(r"[^a-z]+", " ", regex=True).str.strip()
    text = text.str.replace(r" (?:llc|inc)$", "", regex=True)
    vendor = text
    for pattern, name in VENDOR_PATTERNS:
        vendor = vendor.mask(text.str.contains(pattern), name)
    df["vendor"] = vendor.astype("category")


# --- features -------------------------------------------------------------------------------------------------


@step("features", stage="features")
def add_features(pd: ModuleType, t: Trips) -> None:
    """Speed, tip %, airport flag, fare per mile, total.

    Arithmetic, abs, where/mask, clip, isin, round and assign.
    """
    df = t.df
    df["tip_amount"] = df["tip_amount"].abs()
    speed = df["trip_distance"] / (df["duration_min"] / 60)
    df["speed_mph"] = speed.where(speed < 100)  # faster than 100 mph: a bad clock, not a fast cab
    tip_pct = (100 * df["tip_amount"] / df["fare_amount"]).clip(0, 100)
    df["tip_pct"] = tip_pct.mask(df["payment_type"] != "card")  # tips are only recorded for cards
    df["airport"] = df["PULocationID"].isin(AIRPORT_ZONES) | df["DOLocationID"].isin(AIRPORT_ZONES)
    t.df = df.assign(
        fare_per_mile=(df["fare_amount"] / df["trip_distance"]).round(2),
        total_amount=df["fare_amount"] + df["tip_amount"],
    )


@step("time features", stage="features")
def add_time_features(pd: ModuleType, t: Trips) -> None:
    """Datetime features: pickup hour, weekday name, weekend flag, pickup day.

    The .dt accessor: hour, day_name(), day_of_week, floor("D").
    """
    pickup = t.df["pickup"].dt
    t.df = t.df.assign(
        pickup_hour=pickup.hour,
        weekday=pickup.day_name(),
        weekend=pickup.day_of_week >= 5,
        pickup_day=pickup.floor("D"),
    )


# --- join -----------------------------------------------------------------------------------------------------


@step("zones", stage="join")
def join_zones(pd: ModuleType, t: Trips) -> None:
    """Left join with the zones lookup table on the pickup zone.

    Adds each trip's pickup borough and zone name (merge how="left", then drop the lookup's key).
    """
    zones = pd.DataFrame(t.zones)
    joined = t.df.merge(zones, left_on="PULocationID", right_on="LocationID", how="left")
    t.df = joined.drop(columns=["LocationID"])


# --- groupby --------------------------------------------------------------------------------------------------


@step("by borough", stage="groupby")
def borough_report(pd: ModuleType, t: Trips) -> None:
    """groupby-aggregate: trips, fares, tips and miles per borough and payment type.

    Named aggregations (count, mean, median, std, sum, max) over two keys, as_index=False.
    """
    t.reports["by borough"] = t.df.groupby(["borough", "payment_type"], as_index=False).agg(
        trips=("trip_id", "count"),
        mean_fare=("fare_amount", "mean"),
        median_fare=("fare_amount", "median"),
        fare_std=("fare_amount", "std"),
        tip_pct=("tip_pct", "mean"),
        miles=("trip_distance", "sum"),
        longest_min=("duration_min", "max"),
    )


@step("busiest zones", stage="groupby")
def busiest_zones(pd: ModuleType, t: Trips) -> None:
    """value_counts of pickup zones: the ten busiest, and the distinct passenger counts per borough."""
    t.reports["busiest zones"] = t.df["zone"].value_counts().head(10).to_frame()
    t.reports["passengers per borough"] = t.df.groupby("borough")["passenger_count"].nunique().to_frame()


@step("by hour", stage="groupby")
def hourly_report(pd: ModuleType, t: Trips) -> None:
    """groupby the time features and the cleaned vendor: trips and speed per hour, weekend and vendor."""
    df = t.df
    t.reports["by hour"] = df.groupby(["weekend", "pickup_hour"], as_index=False).agg(
        trips=("trip_id", "count"), mean_speed=("speed_mph", "mean"), mean_fare=("fare_amount", "mean")
    )
    t.reports["by vendor"] = df.groupby("vendor", observed=True).agg(
        trips=("trip_id", "count"), days=("pickup_day", "nunique"), tip_pct=("tip_pct", "mean")
    )


# --- reduce ---------------------------------------------------------------------------------------------------


@step("summary", stage="reduce")
def summarize(pd: ModuleType, t: Trips) -> None:
    """Reductions: len, sum, mean, std, max, count.

    Also a mean of a boolean Series and a mean over a boolean-filtered Series.
    """
    df = t.df
    t.summary |= {
        "trips": len(df),
        "passengers": df["passenger_count"].sum(),
        "total distance (mi)": df["trip_distance"].sum(),
        "mean fare ($)": df["fare_amount"].mean(),
        "fare std ($)": df["fare_amount"].std(),
        "max fare ($)": df["fare_amount"].max(),
        "mean fare, > 10 mi ($)": df["fare_amount"][df["trip_distance"] > 10].mean(),
        "mean tip, card (%)": df["tip_pct"].mean(),
        "card share": (df["payment_type"] == "card").mean(),
        "airport trips": df["airport"].sum(),
        "trips with a speed": df["speed_mph"].count(),
    }


@step("describe", stage="reduce")
def describe(pd: ModuleType, t: Trips) -> None:
    """describe() of distance, duration, speed, fare, tip %."""
    t.describe = t.df[DESCRIBED].describe()


# --- model ----------------------------------------------------------------------------------------------------


def _ml(pd: ModuleType) -> ModuleType | None:
    """The modelling library that goes with ``pd``: riptide.ml for riptide, scikit-learn for pandas; None when
    scikit-learn is not installed (riptide.ml builds on it: ``pip install 'riptide[ml]'``)."""
    try:
        import sklearn
    except ImportError:
        return None
    if pd.__name__ == "riptide":
        import riptide.ml

        return riptide.ml
    return sklearn


FARE_FEATURES = ["trip_distance", "duration_min", "passenger_count", "airport"]
CLUSTERED = ["trip_distance", "duration_min", "fare_amount"]


@step("model", stage="model")
def model_fares(pd: ModuleType, t: Trips) -> None:
    """Fit a fare model (LinearRegression) and cluster the trips (KMeans, k=4).

    riptide.ml against scikit-learn on the same cleaned trips: R^2 of the fare model, KMeans inertia from a fixed
    start. Skipped when scikit-learn is not installed.
    """
    ml = _ml(pd)
    if ml is None:
        t.skipped["model"] = "scikit-learn is not installed (pip install 'riptide[ml]')"
        return
    import importlib

    linear_model, cluster = (importlib.import_module(f"{ml.__name__}.{m}") for m in ("linear_model", "cluster"))
    df = t.df
    X = df[FARE_FEATURES].astype("float64")
    fare = linear_model.LinearRegression().fit(X, df["fare_amount"])
    t.summary["fare model R^2"] = float(fare.score(X, df["fare_amount"]))
    start = np.array([[1.0, 8.0, 10.0], [3.0, 15.0, 18.0], [8.0, 25.0, 35.0], [18.0, 40.0, 60.0]])
    kmeans = cluster.KMeans(n_clusters=4, init=start, n_init=1, max_iter=30).fit(df[CLUSTERED].astype("float64"))
    t.summary["trip clusters inertia"] = float(kmeans.inertia_)


# --- graph ----------------------------------------------------------------------------------------------------


def _graphs(pd: ModuleType) -> ModuleType | None:
    """The graph library that goes with ``pd``: riptide.graph for riptide, NetworkX for pandas; None when NetworkX
    is not installed (riptide.graph follows its API and raises its exceptions)."""
    try:
        import networkx
    except ImportError:
        return None
    if pd.__name__ == "riptide":
        import riptide.graph
        import riptide.graph.community  # the ``community`` namespace, as networkx.community

        return riptide.graph
    return networkx


LOUVAIN_SEED = 42


@step("graph", stage="graph")
def zone_graph(pd: ModuleType, t: Trips) -> None:
    """Zone-to-zone trip graph: PageRank, Louvain communities, Dijkstra from the busiest zone.

    The edge lists come from groupby: pickup -> dropoff zone with the trip count and mean minutes (directed), and
    the trip count per unordered zone pair (undirected). riptide.graph against NetworkX: PageRank weighted by
    trips, Louvain communities (seed 42) weighted by trips, shortest paths in mean minutes from the zone with the
    most pickups. Skipped when NetworkX is not installed.
    """
    graphs = _graphs(pd)
    if graphs is None:
        t.skipped["graph"] = "NetworkX is not installed (pip install networkx)"
        return
    df = t.df
    edges = df.groupby(["PULocationID", "DOLocationID"], as_index=False).agg(
        trips=("trip_id", "count"), minutes=("duration_min", "mean")
    )
    pickup, dropoff = df["PULocationID"], df["DOLocationID"]
    first = pickup <= dropoff
    pairs = pd.DataFrame({"zone_a": pickup.where(first, dropoff), "zone_b": dropoff.where(first, pickup)})
    pairs = pairs.groupby(["zone_a", "zone_b"], as_index=False).size()
    t.summary["zone graph: edges"] = len(edges)
    t.summary["zone graph: zone pairs"] = len(pairs)
    if len(edges) == 0:  # nothing to rank: NetworkX raises on an empty graph's modularity
        t.skipped["graph"] = "no trips left to build the graph from"
        return
    directed = graphs.from_pandas_edgelist(edges, "PULocationID", "DOLocationID", edge_attr=["trips", "minutes"],
                                           create_using=graphs.DiGraph)  # fmt: skip
    undirected = graphs.from_pandas_edgelist(pairs, "zone_a", "zone_b", edge_attr="size")
    busiest = int(edges.groupby("PULocationID")["trips"].sum().idxmax())  # one scalar read: Dijkstra's source
    communities = graphs.community.louvain_communities(undirected, weight="size", seed=LOUVAIN_SEED)
    t.graph = {
        "pagerank": dict(graphs.pagerank(directed, weight="trips")),
        "communities": [set(c) for c in communities],
        "modularity": float(graphs.community.modularity(undirected, communities, weight="size")),
        "source": busiest,
        "minutes": dict(graphs.single_source_dijkstra_path_length(directed, busiest, weight="minutes")),
    }
    t.summary["busiest pickup zone"] = busiest


# --- write ----------------------------------------------------------------------------------------------------


@step("to parquet", stage="write")
def write_parquet(pd: ModuleType, t: Trips) -> None:
    """to_parquet of the cleaned trips (categorical vendors become an Arrow dictionary)."""
    import os

    t.df.to_parquet(os.path.join(t.workdir, f"clean_{pd.__name__}.parquet"), index=False)
