"""Command line: ``pandas-rankeval demo`` (also ``python -m pandas_rankeval demo``)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence


def _demo() -> int:
    """Print global AUC and GAUC of the two models of :func:`make_impressions`."""
    import warnings

    import pandas as pd

    import pandas_rankeval
    from pandas_rankeval.datasets import make_impressions

    df = make_impressions()
    print(
        f"make_impressions(): {len(df):,} impressions of {df['user_id'].nunique():,} users, "
        f"click rate {df['click'].mean():.1%}"
    )
    rows = {}
    for model in ("model_a", "model_b"):
        auc = pandas_rankeval.auc(df, label="click", score=model)
        with warnings.catch_warnings():
            # The coverage is printed below; no need to warn about it as well.
            warnings.simplefilter("ignore", pandas_rankeval.CoverageWarning)
            gauc = pandas_rankeval.gauc(df, group="user_id", label="click", score=model)
        rows[model] = {"AUC": float(auc), "GAUC": float(gauc)}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "model"
    print()
    print(table.round(4).to_string())
    print()
    # Which groups GAUC can use depends on the labels only, so it is the same for both models.
    print(f"GAUC coverage: {gauc.coverage}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pandas-rankeval`` console script."""
    parser = argparse.ArgumentParser(
        prog="pandas-rankeval", description="Ranking metrics for pandas DataFrames."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("demo", help="global AUC vs GAUC on a synthetic impressions table")
    args = parser.parse_args(argv)
    if args.command == "demo":
        return _demo()
    parser.error(f"unknown command {args.command!r}")  # unreachable: argparse checks choices
    return 2
