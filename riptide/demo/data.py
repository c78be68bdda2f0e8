"""A synthetic trips table, generated with NumPy on the host.

The columns follow the shape of public taxi-trip records, including their
warts: missing passenger counts and payment types, missing, zero and negative
distances, refunds (negative fares and tips), trips that end before they
start, and absurd outliers. The pipeline in :mod:`riptide.demo.pipeline` cleans
them up.

>>> cols = make_trips(1_000, seed=0)
>>> sorted(cols)[:3]
['DOLocationID', 'PULocationID', 'dropoff']
>>> len(cols["trip_id"])
1000
"""

from __future__ import annotations

import numpy as np

__all__ = ["make_trips", "make_zones", "write_trip_files", "PAYMENT_TYPES", "N_ZONES", "BOROUGHS", "VENDOR_SPELLINGS"]

PAYMENT_TYPES = ("card", "cash", "no charge", "dispute")
_PAYMENT_WEIGHTS = (0.72, 0.24, 0.02, 0.02)
N_ZONES = 265  # zone ids are 1..265; 264 and 265 mean "unknown"
BOROUGHS = ("EWR", "Queens", "Bronx", "Manhattan", "Staten Island", "Brooklyn")
# How the three meter vendors' names arrive when each depot types its own: case, punctuation, suffixes, spaces.
VENDOR_SPELLINGS = (
    "Creative Mobile Technologies, LLC", "CREATIVE MOBILE TECH", "  creative mobile technologies llc",
    "Creative-Mobile Tech.", "VeriFone Inc.", "VERIFONE, INC", "verifone inc ", "Veri-Fone",
    "Curb Mobility, LLC", "CURB MOBILITY", " curb mobility llc", "Curb  Mobility LLC.",
)  # fmt: skip
_START = np.datetime64("2026-01-01T00:00:00", "ns")
_NS_PER_S = 1_000_000_000


def make_trips(rows: int, *, seed: int = 0) -> dict[str, np.ndarray]:
    """Return the columns of ``rows`` random trips as host NumPy arrays (insertion order is column order).

    ``passenger_count`` is float64 with NaN for missing (as in the public files);
    ``payment_type`` is an object array of str with ``None`` for missing; ``vendor`` is an object array of
    inconsistent spellings of three vendor names (:data:`VENDOR_SPELLINGS`), with ``None`` for missing.
    """
    if rows < 0:
        raise ValueError(f"`rows` must be >= 0, got {rows}")
    rng = np.random.default_rng(seed)

    def share(p: float) -> np.ndarray:
        return rng.random(rows) < p

    # when and how long (whole seconds): ~12 minute median, a few trips that end before they start or never move
    pickup_s = rng.integers(0, 31 * 86_400, rows, dtype=np.int64)
    duration_s = np.round(rng.lognormal(np.log(12 * 60), 0.6, rows))
    duration_s[share(0.003)] *= -1.0
    duration_s[share(0.001)] = 0.0
    pickup = _START + (pickup_s * _NS_PER_S).astype("timedelta64[ns]")
    dropoff = pickup + (duration_s.astype(np.int64) * _NS_PER_S).astype("timedelta64[ns]")

    # how far: ~11 mph in town, rounded to the odometer's 0.01 mile
    speed_mph = rng.lognormal(np.log(11.0), 0.35, rows)
    trip_distance = np.round(speed_mph * np.abs(duration_s) / 3600.0, 2)
    trip_distance[share(0.0005)] *= 100.0  # odometer glitches
    trip_distance[share(0.01)] = 0.0
    trip_distance[share(0.002)] *= -1.0
    trip_distance[share(0.01)] = np.nan

    # what it cost: a metered fare, refunds and a few fat-fingered amounts
    fare_amount = 3.0 + 2.5 * np.nan_to_num(np.abs(trip_distance)) + 0.5 * np.abs(duration_s) / 60.0
    fare_amount = np.round(fare_amount + rng.normal(0.0, 1.0, rows), 2)
    fare_amount[share(0.005)] *= -1.0
    fare_amount[share(0.0005)] *= 50.0

    codes = rng.choice(len(PAYMENT_TYPES), size=rows, p=_PAYMENT_WEIGHTS)
    tip_amount = np.where(codes == 0, np.round(np.abs(fare_amount) * rng.uniform(0.0, 0.3, rows), 2), 0.0)
    tip_amount[share(0.001)] *= -1.0
    payment_type = np.array(PAYMENT_TYPES, dtype=object)[codes]
    payment_type[share(0.02)] = None

    passenger_count = rng.choice(np.arange(1, 7, dtype=np.float64), size=rows, p=(0.7, 0.15, 0.06, 0.04, 0.03, 0.02))
    passenger_count[share(0.03)] = np.nan

    vendor = np.array(VENDOR_SPELLINGS, dtype=object)[rng.integers(0, len(VENDOR_SPELLINGS), rows)]
    vendor[share(0.01)] = None

    return {
        "trip_id": np.arange(1, rows + 1, dtype=np.int64),
        "pickup": pickup,
        "dropoff": dropoff,
        "passenger_count": passenger_count,
        "trip_distance": trip_distance,
        "fare_amount": fare_amount,
        "tip_amount": tip_amount,
        "payment_type": payment_type,
        **_zone_pairs(rng, rows),
        "vendor": vendor,
    }


LOCAL_SHARE = 0.7  # trips that end in the borough they start in


def _zone_pairs(rng: np.random.Generator, rows: int) -> dict[str, np.ndarray]:
    """Pickup and dropoff zones with the structure of a city: some zones are much busier than others (lognormal
    popularity), and most trips (:data:`LOCAL_SHARE`) stay in their pickup borough (:func:`make_zones`), the rest
    go anywhere. The zone-to-zone trip graph (the demo's graph stage) then has hubs for PageRank and boroughs for
    community detection to find.
    """
    popularity = rng.lognormal(0.0, 1.0, N_ZONES)
    pickup = rng.choice(N_ZONES, size=rows, p=popularity / popularity.sum())
    anywhere = rng.choice(N_ZONES, size=rows, p=popularity / popularity.sum())
    # a dropoff in the pickup's borough, by popularity: zones sorted by borough, popularity summed along them, and
    # a uniform draw within the pickup borough's stretch of the running sum
    borough = make_zones()["borough"]
    by_borough = np.argsort(borough, kind="stable")
    running = np.cumsum(popularity[by_borough])
    ends = np.searchsorted(borough[by_borough], borough[pickup], side="right") - 1
    starts = np.searchsorted(borough[by_borough], borough[pickup], side="left")
    low = np.where(starts > 0, running[np.maximum(starts - 1, 0)], 0.0)
    draw = low + rng.random(rows) * (running[ends] - low)
    local = by_borough[np.minimum(np.searchsorted(running, draw, side="right"), ends)]
    dropoff = np.where(rng.random(rows) < LOCAL_SHARE, local, anywhere)
    return {"PULocationID": pickup.astype(np.int64) + 1, "DOLocationID": dropoff.astype(np.int64) + 1}


def make_zones(*, seed: int = 0) -> dict[str, np.ndarray]:
    """The zones lookup table: ``LocationID`` 1..N_ZONES, its ``borough`` and ``zone`` name (host NumPy arrays).

    >>> z = make_zones()
    >>> len(z["LocationID"]), z["borough"][-1]
    (265, 'Unknown')
    """
    rng = np.random.default_rng(seed + 1)
    ids = np.arange(1, N_ZONES + 1, dtype=np.int64)
    borough = np.array(BOROUGHS, dtype=object)[rng.integers(0, len(BOROUGHS), N_ZONES)]
    borough[0] = "EWR"
    borough[-2:] = "Unknown"
    zone = np.array([f"Zone {i:03d}" for i in ids], dtype=object)
    return {"LocationID": ids, "borough": borough, "zone": zone}


def write_trip_files(source: dict[str, np.ndarray], directory: str) -> dict[str, str]:
    """Write the generated columns to ``trips.csv`` and ``trips.parquet`` in ``directory`` (pyarrow, on the host,
    untimed: the demo times reading them back); return their paths by format.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     sorted(os.path.basename(p) for p in write_trip_files(make_trips(10), d).values())
    ['trips.csv', 'trips.parquet']
    """
    import os

    import pyarrow as pa
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    table = pa.table({name: pa.array(values, from_pandas=True) for name, values in source.items()})
    paths = {"csv": os.path.join(directory, "trips.csv"), "parquet": os.path.join(directory, "trips.parquet")}
    pa_csv.write_csv(table, paths["csv"])
    pq.write_table(table, paths["parquet"])
    return paths
