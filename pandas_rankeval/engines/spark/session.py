"""Spark plumbing: a quiet local session whose Python workers run this interpreter, the functions
module of a classic or Connect session, and a ``collect`` that names the fix when workers lack the
package."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from pyspark.sql import SparkSession
else:
    SparkSession = Any

__all__ = ["LAST_CALL", "functions_of", "local_session"]

#: What the last call did (buckets, bytes collected to the driver): for benchmarks and tests.
LAST_CALL: dict[str, int] = {}
_PANDAS3_WARNING = "PySpark does not yet fully support pandas"


def _require_spark() -> Any:
    try:
        from pyspark.sql import functions as F
    except ImportError as exc:  # pragma: no cover - exercised only without pyspark
        raise ImportError(
            "pandas_rankeval.spark needs pyspark: pip install 'pandas_rankeval[spark]'"
        ) from exc
    return F


def local_session(master: str = "local[2]", **conf: Any) -> SparkSession:
    """A quiet local SparkSession whose Python workers run this interpreter.

    Spark starts Python workers with ``python3`` from the PATH unless told
    otherwise; outside an activated virtualenv that interpreter lacks
    pandas_rankeval. This sets ``spark.pyspark.python`` (and ``PYSPARK_PYTHON``)
    to :data:`sys.executable`, turns the UI off, keeps the log at ERROR and uses a
    small ``spark.sql.shuffle.partitions``. An active session is returned as it is.

    Parameters
    ----------
    master : str, default="local[2]"
        The Spark master.
    **conf :
        Extra settings, with dots written as double underscores or passed as a
        dict: ``local_session(**{"spark.sql.shuffle.partitions": "8"})``.

    Returns
    -------
    spark : SparkSession

    Examples
    --------
    >>> import pandas_rankeval.spark as prs
    >>> spark = prs.local_session()
    >>> spark.sparkContext.pythonExec == __import__("sys").executable
    True
    """
    import os

    _require_spark()
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    settings = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "4",
        "spark.pyspark.python": sys.executable,
        "spark.pyspark.driver.python": sys.executable,
        "spark.sql.execution.arrow.pyspark.enabled": "true",
    }
    settings.update({k.replace("__", "."): str(v) for k, v in conf.items()})
    builder = SparkSession.builder.master(master).appName("pandas_rankeval")
    for k, v in settings.items():
        builder = builder.config(k, v)
    with _quiet():
        spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


@contextmanager
def _quiet() -> Iterator[None]:
    """Silence pyspark's pandas >= 3 FutureWarning (tested on pandas 3.1), nothing else."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_PANDAS3_WARNING, category=FutureWarning)
        yield


def functions_of(sdf: Any) -> Any:
    """``pyspark.sql.functions`` for the kind of session the frame belongs to (a process may
    hold a classic session and a Spark Connect one; their Column types do not mix)."""
    _require_spark()
    if type(sdf).__module__.startswith("pyspark.sql.connect"):
        from pyspark.sql.connect import functions as CF

        return CF
    from pyspark.sql import functions as F

    return F


def _parallelism(spark: Any) -> int:
    """Task slots of the session (classic), else the shuffle partitions (Spark Connect)."""
    try:
        return max(1, int(spark.sparkContext.defaultParallelism))
    except Exception:  # Spark Connect has no SparkContext
        try:
            return max(1, min(int(spark.conf.get("spark.sql.shuffle.partitions")), 64))
        except Exception:  # pragma: no cover - a session without the setting
            return 2


def _collect(df: Any) -> list[Any]:
    """``df.collect()``, with the fix spelled out when Python workers cannot run our code."""
    try:
        with _quiet():
            return df.collect()
    except Exception as exc:
        text = str(exc)
        if "No module named 'pandas_rankeval'" in text or "different version" in text:
            raise RuntimeError(
                "Spark's Python workers cannot run pandas_rankeval: they start with another "
                f"interpreter than this one ({sys.executable}, Python "
                f"{sys.version_info.major}.{sys.version_info.minor}). Set PYSPARK_PYTHON (or "
                "spark.pyspark.python) to an interpreter that has pandas_rankeval installed, "
                "before the session starts, or build the session with "
                "pandas_rankeval.spark.local_session()."
            ) from exc
        raise


