#!/usr/bin/env python
"""How close the SQL of ``calibration_by`` on an Ibis table is to numpy, per backend.

    python benchmarks/calibration_sql_accuracy.py            # DuckDB, SQLite, Postgres, DataFusion, chdb

Postgres: the loopback server of the tests (``RANKEVAL_PG_URL``, or ``.ci/start-postgres.sh``).
For probabilities p (0, 1e-15, 1 - 1e-15, 1, tiny, near one half and near 1, 20,000 random,
20,000 log-uniform down to 1e-15), printed per backend, the largest relative difference of:

- ``ln(q)`` in SQL against ``np.log(q)`` (q: p clipped to [1e-15, 1 - 1e-15]);
- the log loss of a row without a click as the engine writes it (``ln(u) q / (1 - u)``, u = 1 - q)
  and as ``ln(1 - q)``, against ``-np.log1p(-q)``;

and the ECE bins (10) of p on and beside the edges and of the random p: mismatches of the
engine's bin and of ``FLOOR(p * 10)`` against numpy's.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _warehouse import BACKENDS, runner  # noqa: E402

from pandas_rankeval.core.kernels.calibration import EPS, ece_bins  # noqa: E402
from pandas_rankeval.engines.warehouse.cells import _terms  # noqa: E402
from pandas_rankeval.engines.warehouse.queries import schema  # noqa: E402


def _probabilities() -> np.ndarray:
    rng = np.random.default_rng(0)
    edges = np.linspace(0.0, 1.0, 11)
    special = [0.0, EPS, 2 * EPS, 1e-12, 1e-6, 0.5, np.nextafter(0.5, 0), np.nextafter(0.5, 1), 1 - 1e-6, 1 - EPS, 1.0]
    return np.concatenate([special, edges, np.nextafter(edges, -1), np.nextafter(edges, 2), rng.random(20_000),
                           10.0 ** -rng.uniform(0, 15, 20_000)]).clip(0.0, 1.0)


def main() -> None:
    import ibis

    p = _probabilities()
    q = np.clip(p, EPS, 1 - EPS)
    df = pd.DataFrame({"i": np.arange(p.shape[0]), "click": np.zeros(p.shape[0], dtype=np.int64), "p": p})
    for name in BACKENDS:
        r = runner(name)
        t = r.table(df)
        _, _, _, loss, at = _terms(t, schema(t), "click", "p", None, None, 10)
        lit = ibis.literal
        qq = ibis.greatest(ibis.least(t.p.cast("float64"), lit(1.0 - EPS, "float64")), lit(EPS, "float64"))
        expr = t.select("i", ln_q=qq.ln(), naive=-(lit(1.0, "float64") - qq).ln(), loss=loss, bin=at,
                        floor=(t.p.cast("float64") * 10).floor().cast("int64"))
        out = r.execute(expr).sort_values("i")
        want_ln, want_loss = np.log(q), -np.log1p(-q)

        def rel(got: pd.Series, want: np.ndarray) -> float:
            return float(np.max(np.abs(got.to_numpy(np.float64) - want) / np.abs(want)))

        b = ece_bins(p, 10)
        floor_bin = np.minimum(out["floor"].to_numpy(np.int64), 9)
        print(f"{name:>10}: ln(q) {rel(out['ln_q'], want_ln):.2e}  loss {rel(out['loss'], want_loss):.2e}  "
              f"ln(1-q) {rel(out['naive'], want_loss):.2e}  bin mismatches {int((out['bin'].to_numpy() != b).sum())}"
              f"  FLOOR(p*10) mismatches {int((floor_bin != b).sum())} of {p.shape[0]}")


if __name__ == "__main__":
    main()
