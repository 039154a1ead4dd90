"""Session-wide engines for the tests: one Dask LocalCluster and one SparkSession (which also
serves Spark Connect clients).

Started lazily, the first time a test asks for them, and shut down at the end of the run.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_CONNECT_PORT = _free_port()


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """One classic local[2] session (quiet, no UI, 3 shuffle partitions) that also serves
    Spark Connect clients on a free port (the Connect plugin, same JVM)."""
    import pandas_rankeval.spark as prs
    session = prs.local_session(
        "local[2]",
        **{
            "spark.sql.shuffle.partitions": "3",
            "spark.plugins": "org.apache.spark.sql.connect.SparkConnectPlugin",
            "spark.connect.grpc.binding.port": str(_CONNECT_PORT),
        },
    )
    yield session
    session.stop()


@pytest.fixture(scope="session")
def connect(spark: Any) -> Iterator[Any]:
    """A Spark Connect session on the classic session's JVM."""
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    session = ConnectSession.builder.remote(f"sc://localhost:{_CONNECT_PORT}").getOrCreate()
    yield session
    session.stop()


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
