"""The Ibis backends the warehouse tests run on, all on this machine without a network.

- DuckDB, SQLite and Postgres through their Ibis backends (Postgres: a real server on loopback,
  started by ``.ci/start-postgres.sh`` when ``RANKEVAL_PG_URL`` is not set);
- DataFusion and ClickHouse (chdb) by the SQL that ``ibis.to_sql`` compiles for their dialect,
  executed by the engine itself (ibis 12.0's DataFusion backend does not load with datafusion 55,
  and chdb has no Ibis backend).

Tables are made from pandas frames without ``create_table(..., obj=frame)``, which ibis 12.0 with
sqlglot 30 compiles to a ``DROP ... IF EXISTS`` without a name on DuckDB, SQLite and Postgres.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pandas as pd

BACKENDS = ("duckdb", "sqlite", "postgres", "datafusion", "clickhouse")
_COUNTER = itertools.count()
_STATE: dict[str, Any] = {}


def sent(fn: Any) -> tuple[int, object]:
    """The queries ``fn()`` sends (the warehouse engine's counter), and its result or the error it
    raised."""
    from pandas_rankeval.engines import warehouse

    before = next(warehouse.QUERIES)
    try:
        out: object = fn()
    except (ValueError, TypeError, KeyError) as exc:
        out = exc
    return next(warehouse.QUERIES) - before - 1, out


def pg_url() -> str:
    """The loopback Postgres of the tests: ``RANKEVAL_PG_URL``, or the server that
    ``.ci/start-postgres.sh`` starts (and installs, as root, when missing)."""
    url = os.environ.get("RANKEVAL_PG_URL")
    if not url:
        script = Path(__file__).resolve().parents[1] / ".ci" / "start-postgres.sh"
        out = subprocess.run(["bash", str(script)], check=True, capture_output=True, text=True).stdout
        url = out.strip().rsplit("=", 1)[-1]
        os.environ["RANKEVAL_PG_URL"] = url
    return url


def _ibis_schema(df: pd.DataFrame) -> Any:
    import ibis

    kinds = {"f": "float64", "i": "int64", "u": "int64", "b": "boolean"}
    return ibis.schema({str(c): kinds.get(df[c].dtype.kind, "string") for c in df.columns})


class Runner:
    """Puts a pandas frame in a backend as a table and executes Ibis expressions over it."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.con: Any = None
        if name == "duckdb":
            import ibis

            self.con = ibis.duckdb.connect()
        elif name == "sqlite":
            import ibis

            self.con = ibis.sqlite.connect()
        elif name == "postgres":
            import ibis
            from urllib.parse import urlparse

            u = urlparse(pg_url())
            self.con = ibis.postgres.connect(host=u.hostname, port=u.port, user=u.username,
                                             database=u.path.lstrip("/") or "postgres")
        elif name == "datafusion":
            import datafusion

            self.ctx = datafusion.SessionContext()
        elif name == "clickhouse":
            from chdb import session

            self.session = session.Session()
            self.session.query("CREATE DATABASE IF NOT EXISTS rk")
            self.session.query("USE rk")

    def table(self, df: pd.DataFrame) -> Any:
        """An ``ibis.Table`` of ``df`` bound to the backend (DuckDB, SQLite, Postgres) or unbound and
        named after a table the engine holds (DataFusion, ClickHouse)."""
        import ibis

        name = f"rk_t{os.getpid()}_{uuid.uuid4().hex[:8]}_{next(_COUNTER)}"
        schema = _ibis_schema(df)
        if self.name == "duckdb":
            return ibis.memtable(df)
        if self.name in ("sqlite", "postgres"):
            self.con.create_table(name, schema=schema, temp=self.name == "postgres")
            self.con.insert(name, df)
            return self.con.table(name)
        if self.name == "datafusion":
            import pyarrow as pa

            self.ctx.register_record_batches(name, [pa.Table.from_pandas(df, preserve_index=False).to_batches()])
            return ibis.table(schema, name=name)
        rk_frame = df  # noqa: F841 - read by chdb's Python() table function from this frame's locals
        self.session.query(f"CREATE TABLE rk.{name} ENGINE = Memory AS SELECT * FROM Python(rk_frame)")
        return ibis.table(schema, name=name)

    def sql(self, sql: str) -> pd.DataFrame:
        """One SQL string run by DataFusion or chdb (the ``execute`` engine option)."""
        if self.name == "datafusion":
            return self.ctx.sql(sql).to_pandas()
        return self.session.query(sql, "DataFrame")

    def engine_options(self) -> dict[str, Any] | None:
        """The engine options that run the compiled SQL where no Ibis backend holds the table."""
        if self.name in ("datafusion", "clickhouse"):
            return {"execute": self.sql, "dialect": self.name}
        return None

    def execute(self, expr: Any) -> pd.DataFrame:
        import ibis

        if self.name in ("duckdb", "sqlite", "postgres"):
            return self.con.execute(expr)  # type: ignore[no-any-return]
        if self.name == "datafusion":
            return self.ctx.sql(str(ibis.to_sql(expr, dialect="datafusion"))).to_pandas()
        return self.session.query(str(ibis.to_sql(expr, dialect="clickhouse")), "DataFrame")


def runner(name: str) -> Runner:
    """One runner per backend for the whole session."""
    if name not in _STATE:
        _STATE[name] = Runner(name)
    return _STATE[name]  # type: ignore[no-any-return]
