"""The counterfactual (IPS) metrics on a warehouse table: the propensity of a row in SQL, and its
checks, which ride in the checks' one aggregate query.

pandas refuses, among the kept rows, a propensity column's infinite, zero or negative values
(``bad_propensity``), or a position column's (``bad_position``) and then the positions that the
propensity lookup lacks (``unknown_position``, with the three smallest as examples: one small
query, on that error only). Here they are whole-table counts of the same rows, raised by the
summary layer in pandas' order with pandas' messages.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ...core.inputs.propensity import PropensityLookup, is_column

__all__ = ["ips_checks", "ips_problems", "propensity_of", "unknown_examples"]


def propensity_of(options: Any) -> tuple[Any, ...] | None:
    """The SQL builder's description of the propensity (:func:`.stats.group_stats`), or None
    without an IPS metric. A callable was applied to the distinct positions before (a lookup)."""
    prop = options.propensity
    if prop is None:
        return None
    if is_column(prop):
        return ("column", prop)
    if isinstance(prop, PropensityLookup):
        return ("lookup", options.position, tuple(float(p) for p in prop.positions),
                tuple(float(v) for v in prop.values))
    raise TypeError(f"propensity {prop!r}: a column, a table, a Series or a callable")  # pragma: no cover


def _bad(c: Any) -> Any:
    """Not a finite number > 0 (NULL is a missing value, counted apart)."""
    import ibis

    inf = ibis.literal(float("inf"), "float64")
    return (c <= 0) | (c == inf) | c.isnan()


def _found(pos: Any, lookup: PropensityLookup) -> Any:
    import ibis

    out = ibis.literal(False)
    for p in lookup.positions:
        out = out | (pos == ibis.literal(float(p), "float64"))
    return out


def ips_checks(t: Any, options: Any, kept: Any, nan: bool) -> dict[str, Any]:
    """The IPS checks' aggregates over the kept rows (empty without an IPS metric): how many bad
    propensities, or bad positions and unknown ones."""
    import ibis

    prop = options.propensity
    if prop is None:
        return {}

    def count_if(cond: Any) -> Any:
        return ibis.ifelse(kept & cond, 1, 0).sum().cast("int64")

    def bad(column: Any) -> Any:
        c = t[str(column)].cast("float64")
        if not nan:  # SQLite has no NaN and no isnan: compared instead
            inf = ibis.literal(float("inf"), "float64")
            return (c <= 0) | (c == inf)
        return _bad(c)

    if is_column(prop):
        return {"ips_bad_propensity": count_if(bad(prop))}
    out = {"ips_bad_position": count_if(bad(options.position))}
    if isinstance(prop, PropensityLookup):
        pos = t[str(options.position)].cast("float64")
        out["ips_unknown"] = count_if(~bad(options.position) & ~_found(pos, prop))
    return out


def unknown_examples(t: Any, options: Any, kept: Any) -> Any:
    """The three smallest kept positions that the lookup lacks (pandas' examples; a GROUP BY, as
    :func:`.checks.label_examples`, for Postgres)."""
    pos = t[str(options.position)].cast("float64")
    rows = t.filter(kept & ~_found(pos, options.propensity)).mutate(v=pos)
    return rows.group_by("v").aggregate(n=rows.count()).select("v").order_by("v").limit(3)


def ips_problems(row: pd.Series, options: Any, examples: list[float] | None = None) -> dict[tuple, int]:
    """The problems (as ``Scan.problems``) of the checks' row: pandas' kinds and counts."""
    out: dict[tuple, int] = {}
    if int(row.get("ips_bad_propensity", 0) or 0):
        out[("bad_propensity", options.propensity)] = int(row["ips_bad_propensity"])
    if int(row.get("ips_bad_position", 0) or 0):
        out[("bad_position", options.position)] = int(row["ips_bad_position"])
    elif int(row.get("ips_unknown", 0) or 0):  # pandas looks positions up only when none is bad
        out[("unknown_position", options.position)] = int(row["ips_unknown"])
        for v in examples or []:
            out[("unknown_position:example", int(v) if float(v).is_integer() else float(v))] = 1
    return out
