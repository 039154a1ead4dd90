"""Hypothesis profiles, the session-wide engines of the tests (one Dask LocalCluster and one
SparkSession, which also serves Spark Connect clients), and their grouping for parallel runs.

The hypothesis profile is ``"ci"`` (derandomized: the same draws on every run) unless
``HYPOTHESIS_PROFILE`` or ``--hypothesis-profile`` names another (``"explore"``: random seeds,
many more examples); see tests/_profiles.py.

The engines are started lazily, the first time a test asks for them, and shut down at the end of
the run.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from typing import Any

import pytest

try:
    import _profiles
except ImportError:  # tests/ imported as a package
    from tests import _profiles

_profiles.load()


@pytest.fixture(scope="session")
def dask_cluster_client() -> Iterator[Any]:
    """A ``distributed.Client`` on a LocalCluster of 2 worker processes with 1 thread each and a
    small memory limit. It is not made the default scheduler: tests that want it use
    :func:`on_dask_cluster`, every other Dask test runs on the synchronous scheduler."""
    import distributed

    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        memory_limit="700MB",
        dashboard_address=":0",
    ) as cluster, distributed.Client(cluster, set_as_default=False) as client:
        yield client


@pytest.fixture
def on_dask_cluster(dask_cluster_client: Any) -> Iterator[Any]:
    """Run the test's Dask computations (and shuffles, p2p) on the shared LocalCluster."""
    import dask

    with dask_cluster_client.as_current(), dask.config.set(
        {"scheduler": dask_cluster_client, "dataframe.shuffle.method": "p2p"}
    ):
        yield dask_cluster_client


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_CONNECT_PORT = _free_port()


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One classic local[2] session (quiet, no UI, 3 shuffle partitions) that also serves
    Spark Connect clients on a free port (the Connect plugin, same JVM). The Spark doctests run
    after the tests in the same process (and on the same worker in a parallel run, see below)
    and get this session from ``local_session()``.

    Tuned for many small jobs: the JVM compiles with C1 only and one compiler thread, and
    collects with the serial collector (halves the Spark tests' wall time on 2 cores), and
    adaptive query execution is off, so ``spark.sql.shuffle.partitions`` is the number of
    partitions a shuffle really has (with it on, a shuffle of test_spark.py's frame into 7
    partitions was coalesced into one, so test_report_every_metric_is_exact[7] ran on one).
    """
    from pandas_rankeval.engines.spark import local_session

    session = local_session(
        "local[2]",
        **{
            "spark.sql.shuffle.partitions": "3",
            "spark.sql.adaptive.enabled": "false",
            "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -XX:+UseSerialGC",
            "spark.plugins": "org.apache.spark.sql.connect.SparkConnectPlugin",
            "spark.connect.grpc.binding.port": str(_CONNECT_PORT),
        },
    )
    yield session
    session.stop()


@pytest.fixture(scope="session")
def connect(spark: Any) -> Iterator[Any]:
    """A Spark Connect client session of the ``spark`` fixture's server."""
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    # Fail at once, not after the client's retries (minutes), when the server is not there: the
    # session was started before this fixture without the Connect plugin (e.g. by a doctest).
    plugins = spark.conf.get("spark.plugins", "")
    assert "SparkConnectPlugin" in plugins, (
        "the SparkSession was started without the Connect plugin; a test that calls "
        "local_session() must request the 'spark' fixture first"
    )
    with socket.create_connection(("localhost", _CONNECT_PORT), timeout=10):
        pass
    session = ConnectSession.builder.remote(f"sc://localhost:{_CONNECT_PORT}").getOrCreate()
    yield session
    session.stop()


# ----------------------------------------------------------------------------------------------
# parallel runs (optional: ``python -m pytest -n 2 --dist loadgroup`` with pytest-xdist)
# ----------------------------------------------------------------------------------------------
def _page_text(page: Any) -> str:
    """The text of a docs page a test is parametrized with (test_docs.py), else ''."""
    return page.read_text(encoding="utf-8") if hasattr(page, "read_text") else ""


def _engine_group(item: pytest.Item) -> str | None:
    """"spark" for every test or doctest that starts or uses the SparkSession, "dask-cluster"
    for the tests on the shared LocalCluster, None for everything else."""
    names = set(getattr(item, "fixturenames", ()))
    callspec = getattr(item, "callspec", None)
    dtest = getattr(item, "dtest", None)  # a doctest
    if (
        names & {"spark", "connect"}
        or item.path.name == "test_spark.py"
        or (callspec is not None and callspec.params.get("engine") == "spark")
        or (dtest is not None and any("local_session(" in ex.source for ex in dtest.examples))
        or (callspec is not None and "local_session(" in _page_text(callspec.params.get("page")))
    ):
        return "spark"
    if "dask_cluster_client" in names:
        return "dask-cluster"
    return None


@pytest.hookimpl(tryfirst=True)  # before xdist's worker reads the xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker, each engine runs on one worker: everything that uses Spark (the
    session fixture, the engine-parity cases on Spark, the doctests, which then reuse the
    fixture's session) forms one xdist group, the LocalCluster tests another, so a run starts one
    JVM and one cluster whatever the number of workers (``--dist loadgroup`` hands out the largest
    groups first). A plain run keeps the collection order and is not touched."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return
    rank = {"spark": 0, "dask-cluster": 1}
    for item in items:
        group = _engine_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    # stable: the fixture-using tests stay ahead of the doctests that reuse their session
    items.sort(key=lambda item: rank.get(_engine_group(item), len(rank)))
