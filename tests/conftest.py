"""Hypothesis profiles, the session-wide engines of the tests (one Dask LocalCluster and one
SparkSession, which also serves Spark Connect clients), and their grouping for parallel runs.

The hypothesis profile is ``"ci"`` (derandomized: the same draws on every run) unless
``HYPOTHESIS_PROFILE`` or ``--hypothesis-profile`` names another (``"explore"``: random seeds,
many more examples); see tests/_profiles.py.

The engines are started lazily, the first time a test asks for them. The SparkSession is stopped
at the end of the run; the LocalCluster as soon as its last test has run.
"""

from __future__ import annotations

import json
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


_DASK: dict[str, Any] = {}  # the open LocalCluster's exit stack and client, made on first use
_DASK_UNIT: set[str] = set()  # this process's LocalCluster tests that have not run yet


@pytest.fixture
def dask_cluster_client() -> Any:
    """A ``distributed.Client`` on a LocalCluster of 2 worker processes with 1 thread each and a
    small memory limit. It is not made the default scheduler: tests that want it use
    :func:`on_dask_cluster`, every other Dask test runs on the synchronous scheduler.

    Made for the first test that asks for it and closed after the last one (the tests form one
    work unit, see :func:`_engine_group`), not at the end of the run: an idle cluster's scheduler
    thread, nannies and workers take ~0.13 s of CPU a second (measured: 2.7 s in 20 s idle), which
    the tests that run after the unit would pay."""
    if "client" not in _DASK:
        import contextlib

        import distributed

        stack = contextlib.ExitStack()
        cluster = stack.enter_context(distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            memory_limit="700MB",
            dashboard_address=":0",
        ))
        _DASK["client"] = stack.enter_context(distributed.Client(cluster, set_as_default=False))
        _DASK["stack"] = stack
    return _DASK["client"]


def _close_dask_cluster() -> None:
    stack = _DASK.pop("stack", None)
    _DASK.pop("client", None)
    if stack is not None:
        stack.close()


def pytest_collection_finish(session: pytest.Session) -> None:
    """The LocalCluster tests this process may run (all of them: they are one work unit)."""
    _DASK_UNIT.update(item.nodeid for item in session.items if _engine_group(item) == "dask-cluster")


@pytest.hookimpl(trylast=True)  # after the test's own fixtures are torn down
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Close the LocalCluster once the last test of its unit has run. In a run that splits the
    unit (``--dist load``) a process never sees them all, and the cluster closes at the end."""
    if item.nodeid in _DASK_UNIT:
        _DASK_UNIT.discard(item.nodeid)
        if not _DASK_UNIT:
            _close_dask_cluster()


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
            "spark.sql.codegen.wholeStage": "false",
            "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:CICompilerCount=1 -XX:+UseSerialGC",
            "spark.plugins": "org.apache.spark.sql.connect.SparkConnectPlugin",
            "spark.connect.grpc.binding.port": str(_CONNECT_PORT),
            "spark.python.sql.dataFrameDebugging.enabled": "false",
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
    """The work unit an item must share with others in a parallel run: "spark" for every test or
    doctest that starts or uses the SparkSession, "dask-cluster" for the tests on the shared
    LocalCluster, the module's path for a test that uses a module-scoped fixture (made once, on
    one worker, not once per worker), None for everything else."""
    names = set(getattr(item, "fixturenames", ()))
    if names >= {"spark", "dask_cluster_client"}:
        # it would start a second LocalCluster on the Spark worker, idle until the end of the run
        raise pytest.UsageError(f"{item.nodeid} uses both the SparkSession and the LocalCluster: "
                                "split it into one test per engine")
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
    info = getattr(item, "_fixtureinfo", None)
    if info is not None and any(
        defs and defs[-1].scope in ("module", "class") for defs in info.name2fixturedefs.values()
    ):
        return str(item.path)
    return None


@pytest.hookimpl(tryfirst=True)  # before ``-m 'not slow'`` deselects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test and doctest on the SparkSession (:func:`_engine_group` "spark") is marked
    ``slow``: they run one after another on one worker (one JVM), which made them the longest
    path of README's run (224-265 s of its 240 s budget on a fresh clone); ``.ci/run`` runs them
    right after it, with the simulations (``python -m pytest -q -m slow``). Then, on an xdist
    worker: write each engine test's group where the controller's scheduler reads it (see
    :func:`pytest_xdist_make_scheduler`), and put the Spark tests first. A plain run keeps the
    collection order."""
    for item in items:
        if _engine_group(item) == "spark":
            item.add_marker(pytest.mark.slow)
    _write_groups(config, items)


def _write_groups(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On an xdist worker: write each engine test's group where the controller's scheduler reads
    it (see :func:`pytest_xdist_make_scheduler`), and put the Spark tests first. A plain run keeps
    the collection order and is not touched."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        return
    groups = {item.nodeid: g for item in items if (g := _engine_group(item)) is not None}
    folder = workerinput.get(_GROUPS_KEY)
    if folder is not None:
        path = os.path.join(folder, f"{workerinput['workerid']}.json")
        with open(path + ".part", "w", encoding="utf-8") as f:
            json.dump(groups, f)
        os.replace(path + ".part", path)
    rank = {"spark": 0, "dask-cluster": 1}
    # stable: the fixture-using tests stay ahead of the doctests that reuse their session
    items.sort(key=lambda item: rank.get(groups.get(item.nodeid, ""), len(rank)))


# Why not ``xdist_group`` marks: xdist (3.8) tells its controller an item's group by appending
# "@group" to ``item._nodeid``, which pytest 9.2 no longer reads (pytest-xdist issue #1386), so the
# marks were silently ignored: a run started two JVMs and two LocalClusters. The workers write
# their groups to files instead, and the scheduler below reads them by node id.
_GROUPS_KEY = "pandas_rankeval_engine_groups"


def _groups_folder(config: pytest.Config) -> str:
    """Controller: the folder the workers write their groups to (made once, removed at exit)."""
    folder = getattr(config, "_pandas_rankeval_groups", None)
    if folder is None:
        import shutil
        import tempfile

        folder = tempfile.mkdtemp(prefix="prs-xdist-groups-")
        config._pandas_rankeval_groups = folder  # type: ignore[attr-defined]
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))
    return folder


def _read_groups(folder: str) -> dict[str, str]:
    """Controller: node id -> work unit, as the workers wrote them."""
    groups: dict[str, str] = {}
    for name in os.listdir(folder):
        if name.endswith(".json"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                groups.update(json.load(f))
    return groups


@pytest.hookimpl(optionalhook=True)  # xdist's hooks: a run with -p no:xdist still loads
def pytest_configure_node(node: Any) -> None:
    """Controller: give each worker the folder where it writes its engine groups."""
    node.workerinput[_GROUPS_KEY] = _groups_folder(node.config)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Controller, ``--dist loadgroup``: one work unit per engine group (every Spark test on one
    worker, every LocalCluster test on one), largest first; every other test is a unit of its
    own, as with xdist's loadgroup."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    folder = _groups_folder(config)

    class EngineGroupScheduling(LoadScopeScheduling):  # type: ignore[misc]
        _groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self._groups is None:  # every worker has collected when scheduling starts
                self._groups = _read_groups(folder)
            return self._groups.get(nodeid, nodeid)

    return EngineGroupScheduling(config, log)


_RAN_ON: dict[str, str] = {}  # controller: node id -> the worker that ran it


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    node = getattr(report, "node", None)  # set by xdist's controller on a worker's report
    if node is not None and report.when == "setup":
        _RAN_ON[report.nodeid] = str(node.gateway.id)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Close the LocalCluster if it is still open. Controller: fail the run if a work unit was
    split over workers (a second JVM or cluster would start unnoticed, as it did when pytest 9.2
    stopped reading xdist's group marks)."""
    _close_dask_cluster()
    folder = getattr(session.config, "_pandas_rankeval_groups", None)
    if session.config.getvalue("dist") != "loadgroup" or folder is None or not _RAN_ON or not os.path.isdir(folder):
        return
    workers: dict[str, set[str]] = {}
    for nodeid, group in _read_groups(folder).items():
        if nodeid in _RAN_ON:
            workers.setdefault(group, set()).add(_RAN_ON[nodeid])
    split = {g: sorted(w) for g, w in workers.items() if len(w) > 1}
    if split:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"\nwork units split over workers (each must run on one): {split}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
