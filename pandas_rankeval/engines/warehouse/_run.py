"""The passes of a warehouse call: refusals (no query), the checks (one query), the per-group
statistics (one query per score column), global AUC (one query per score column)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ...core.inputs.prepare import relevance_rule
from ...summary.driver import Scan, dropped_by_segment, raise_checked
from ...summary.ranges import RangeColumns
from ...summary.plan import Plan
from ..base import internal_prefix
from .queries import NAME, SUPPORTED, check_options, execute, schema
from .checks import has_nan, keep_expr, label_examples, scan_expr, scan_from_row
from .groups import Groups, label_pairs, metric_values, read_groups, stat_of
from .ips import ips_checks, ips_problems, propensity_of, unknown_examples
from .stats import group_stats, score_counts

__all__ = ["Call", "per_group", "prepare_call", "refuse", "run"]


def refuse(plan: Plan) -> None:
    """What the warehouse does not compute, refused by name before any query."""
    f = f"{plan.func} on an {NAME} table"
    other = [s.name for s in plan.specs if s.kind not in SUPPORTED]
    if other:
        raise ValueError(
            f"{f}: {', '.join(map(repr, other))} {'is' if len(other) == 1 else 'are'} not computed in SQL "
            f"(the warehouse computes {', '.join(SUPPORTED)}). Evaluate {'it' if len(other) == 1 else 'them'} on a "
            "pandas sample (ibis: table.filter(...).to_pandas()) or on a DuckDB, polars, Dask or Spark frame."
        )
    if plan.has_auc and plan.auc_placements:
        what = "compare" if plan.kind == "compare" else "ci (an interval)"
        raise ValueError(
            f"{f}: the clustered DeLong {what} of global 'auc' needs every row's placement among the "
            "other class, which the warehouse does not send back. Leave 'auc' out of metrics (GAUC and the "
            "list metrics get their intervals from the group bootstrap), or evaluate global AUC's interval "
            "on a DuckDB, Dask or Spark frame."
        )
    if plan.options.retrieved is not None:
        raise ValueError(
            f"{f}: retrieved= (rows outside the ranking that count in the denominators and the ideal "
            "DCG) is not computed in SQL. Evaluate it on a pandas sample (ibis: "
            "table.filter(...).to_pandas()) or on a DuckDB, polars, Dask or Spark frame."
        )
    if plan.has_auc and plan.options.implementation == "sklearn":
        raise ValueError(f"{f}: implementation='sklearn' calls scikit-learn on the rows; use the default "
                         "implementation='numpy'.")


def _relevant(t: Any, plan: Plan, dtype: Any) -> tuple[Any, tuple[str, Any]]:
    """The relevance rule of the label as an Ibis boolean, and as ``(op, bound)`` for the SQL builder."""
    import ibis

    label = t[str(plan.label)]
    if pd.api.types.is_bool_dtype(dtype):  # 0 or 1: relevant when >= the threshold, as in pandas
        threshold = plan.options.threshold
        if threshold is not None and threshold > 1:
            return ibis.literal(False), ("never", None)
        if threshold is not None and threshold <= 0:
            return ibis.literal(True), ("always", None)
        return label, ("bool", None)
    op, bound = relevance_rule(dtype, plan.options.threshold)
    if op == "never":
        return ibis.literal(False), (op, bound)
    if isinstance(bound, bool) or not isinstance(bound, (int, np.integer)):
        col, b = label.cast("float64"), ibis.literal(float(bound), "float64")
    else:
        col, b = label, bound
    return (col > b if op == ">" else col >= b), (op, bound)


class _Tables:
    """The two small aggregates the early checks may ask for (a segment that varies in a group)."""

    def __init__(self, t: Any, keep: Any, options: dict[str, Any]) -> None:
        self.t, self.keep, self.options = t, keep, options

    def _rows(self, keep: bool) -> Any:
        return self.t.filter(self.keep) if keep else self.t

    def _keys(self, t: Any, columns: list[Hashable]) -> dict[str, Any]:
        """Key columns as pandas groups them (a float's -0.0 with 0.0)."""
        return {str(c): t[str(c)] + 0.0 if t[str(c)].type().is_floating() else t[str(c)] for c in columns}

    def distinct_rows(self, columns: list[Hashable], keep: bool) -> pd.DataFrame:
        t = self._rows(keep)
        out = execute(t.select(**self._keys(t, columns)).distinct().order_by([str(c) for c in columns]), self.options)
        return out.set_axis(columns, axis=1)

    def count_rows(self, keys: list[Hashable], keep: bool, count: str) -> pd.DataFrame:
        t = self._rows(keep)
        return execute(t.group_by(**self._keys(t, keys)).aggregate(**{count: t.count()}), self.options)

    def free(self, name: str) -> str:
        while name in self.t.columns:
            name += "_"
        return name


@dataclass
class Call:
    """One checked call: the table of the kept rows and how its SQL reads the plan."""

    plan: Plan
    table: Any  # the kept rows
    found: Scan
    prefix: str
    relevance: tuple[str, Any]
    weight_column: Hashable | None
    options: dict[str, Any]
    dropped_by: dict[tuple, int]  # rows dropped per segment (Summary.dropped_by)


def prepare_call(t: Any, plan: Plan, options: dict[str, Any] | None) -> Call:
    """Refusals (no query), then the checks' one aggregate query and every error it answers."""
    opts = check_options(dict(options or {}), plan.func)
    refuse(plan)
    pschema = schema(t)
    nan = has_nan(t) if opts["execute"] is None else opts["dialect"] != "sqlite"
    rel, relevance = _relevant(t, plan, pschema[str(plan.label)].dtype)
    empty = plan.options.empty == "error" and any(s.info.eligibility == "relevant" for s in plan.specs)
    keep = keep_expr(t, plan, pschema, nan)
    ips = ips_checks(t, plan.options, keep, nan)
    expr, how = scan_expr(t, plan, pschema, nan=nan, relevant=rel if empty else None, extra=ips)
    row = execute(expr, opts).iloc[0]
    examples = None
    if "binary_bad" in row and int(row["binary_bad"]):  # the error names a few such labels: one small query
        examples = execute(label_examples(t, plan, pschema, nan), opts)["v"].tolist()
    found = scan_from_row(row, how, plan, examples)
    if ips:  # the IPS checks: positions the lookup lacks are named (one small query, on that error only)
        unknown = int(row.get("ips_unknown", 0) or 0) and not int(row.get("ips_bad_position", 0) or 0)
        named = execute(unknown_examples(t, plan.options, keep), opts)["v"].tolist() if unknown else None
        found.problems.update(ips_problems(row, plan.options, named))
    # a by= that varies in a group, pandas' errors from the whole-table counts, empty='error', a weight
    # Series or callable checked on the whole table's group statistics (one small query)
    tables = _Tables(t, keep, opts)
    plan = raise_checked(tables, plan, found)
    w = plan.options.weight
    weight_column = w if isinstance(w, str) and w in pschema.columns else None
    kept = t.filter(keep) if found.n_dropped else t
    # rows dropped per segment: two small queries, only with by= and dropped rows
    dropped_by = dropped_by_segment(tables, plan, found.n_dropped, pschema.dtypes.to_dict())
    return Call(plan, kept, found, internal_prefix(t.columns), relevance, weight_column, opts, dropped_by)


def group_tables(call: Call) -> tuple[Groups, dict[Hashable, pd.DataFrame]]:
    """One query per score column: every group's statistics, in key order."""
    plan, o = call.plan, call.plan.options
    keys = list(dict.fromkeys([*plan.group, *plan.by]))
    stats = [stat_of(s) for s in plan.specs]
    sums = [call.weight_column] if call.weight_column is not None else []
    graded = any(s.info.graded for s in plan.specs)
    groups: Groups | None = None
    tables: dict[Hashable, pd.DataFrame] = {}
    for score in plan.scores:
        expr = group_stats(call.table, group=keys, label=plan.label, score=score, stats=stats,
                           sample_weight=o.sample_weight, relevance=call.relevance, gain=o.gain,
                           graded_gain=o.threshold is None, ties=o.ties, tiebreak=o.tiebreak, sums=sums,
                           graded_rows=graded, propensity=propensity_of(o), clip=o.clip, prefix=call.prefix)
        g, table = read_groups(execute(expr, call.options), keys, call.prefix, sums=sums,
                               n_dropped=call.found.n_dropped)
        groups = groups if groups is not None else g
        tables[score] = table
    if groups is None:  # pragma: no cover - a plan has at least one score column
        raise RuntimeError("no score column")
    return groups, tables


class _Source(_Tables):
    """The primitives of the driver's global-AUC pass (:class:`pandas_rankeval.summary.ranges.Ranges`):
    one query per score column counts the rows per distinct (segment, score, tie-break, label); the
    table of each score column is one range."""

    def __init__(self, call: Call) -> None:
        super().__init__(call.table, None, call.options)
        self.call = call

    def score_ranges(self, plan: Plan, keep: bool, n_rows: int, placements: bool) -> tuple[RangeColumns, Any]:
        p = self.call.prefix
        o = plan.options
        by = tuple(str(c) for c in plan.by)
        tb = str(o.tiebreak) if o.tiebreak is not None else None
        label = str(plan.label)
        cols = RangeColumns(f"{p}sid", f"{p}range", by, f"{p}key", tb, label, f"{p}n",
                            f"{p}w" if o.sample_weight is not None else None)
        tables = []
        for i, score in enumerate(plan.scores):
            col = self.t[str(score)]
            # the score as pandas ties it: a float's -0.0 with 0.0
            t = self.t.mutate(**{cols.key: col + 0.0 if col.type().is_floating() else col})
            keys = list(dict.fromkeys([*by, cols.key, *([tb] if tb is not None else []), label]))
            expr = score_counts(t, keys=keys, sample_weight=o.sample_weight, n=cols.n, w=cols.w or f"{p}w")
            frame = execute(expr, self.options)
            frame[cols.sid] = i
            frame[cols.range] = 0
            tables.append(frame)
        return cols, tables

    def map_ranges(self, ranges: Any, fn: Callable[[pd.DataFrame], Any]) -> list[Any]:
        return [fn(frame) for frame in ranges]

    def place_ranges(self, ranges: Any, fn: Any, names: dict[int, str]) -> dict[int, Any]:  # pragma: no cover
        raise RuntimeError("DeLong placements are refused before any query")


def values_by_score(call: Call, groups: Groups, tables: dict[Hashable, pd.DataFrame]) -> dict[Hashable, dict[str, Any]]:
    """Per score column, per summary item name: its GroupValues."""
    memo: dict[Any, np.ndarray] = {}
    out: dict[Hashable, dict[str, Any]] = {}
    for score, table in tables.items():
        metrics: dict[str, Any] = {}
        for spec in call.plan.specs:
            for name, gv in zip(spec.item_names, metric_values(groups, table, spec, call.plan.options, call.prefix, memo)):
                metrics[name] = gv
        out[score] = metrics
    return out


def per_group(frame: Any, plan: Plan, options: dict[str, Any] | None = None) -> Any:
    """Every group's metrics, as the pandas engine's table (indexed by the group key): ``n``,
    ``positives``, one column per metric and ``weight``."""
    from ...tables.per_group import per_group_of_values

    call = prepare_call(frame, plan, options)
    groups, tables = group_tables(call)
    values = values_by_score(call, groups, tables)
    row_weights = None
    if not any(spec.info.needs_ranking for spec in plan.specs):  # calibration only: each group's rows (weights)
        row_weights = tables[plan.scores[0]][f"{call.prefix}s_cal_w"].to_numpy(dtype=np.float64)
    return per_group_of_values(groups.keys, groups.n, groups.npos, values, plan, row_weights=row_weights)


def run(frame: Any, plan: Plan, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
    """The summary of the table (from every group's values) and the global-AUC counts."""
    from ...summary.partition import summary_of_auc
    from ...summary.ranges import auc_ranges

    call = prepare_call(frame, plan, options)
    extras: dict[str, Any] = {}
    if plan.has_auc:
        counted = auc_ranges(_Source(call), plan, False, call.found.n_rows - call.found.n_dropped, False, call.prefix)
        extras["auc"] = counted.auc
        if not plan.group:  # global AUC alone: the rows and their classes, from the same counts
            return summary_of_auc(plan, counted.auc, n_rows=counted.n_rows, n_pos=counted.n_pos,
                                  missing=call.found.missing, n_dropped=call.found.n_dropped), extras
    from ...summary.partition import GroupInputs, summarize_groups

    groups, tables = group_tables(call)
    values = values_by_score(call, groups, tables)
    seg_index, seg_keys = _segments(groups, plan)
    keys = _group_keys(groups, plan)
    class_w = (groups.wpos, groups.wneg) if groups.wpos is not None and groups.wneg is not None else None
    ordered = None
    if any(s.info.eligibility == "ordered" for s in plan.specs):  # grouped XAUC: labels only, any score's table
        first = tables[plan.scores[0]]
        s_ = call.prefix + "s_"
        ordered = label_pairs(first.rename(columns=lambda c: str(c)[len(s_):] if str(c).startswith(s_) else c))
    inputs = GroupInputs(n=groups.n, npos=groups.npos, seg_index=seg_index, seg_keys=seg_keys, metrics=values,
                         keys=lambda: keys, n_rows=groups.n_rows, n_dropped=call.found.n_dropped,
                         dropped_by=call.dropped_by, class_w=class_w, graded=groups.graded, ordered=ordered)
    return summarize_groups(inputs, plan, missing=call.found.missing), extras


def _group_keys(groups: Groups, plan: Plan) -> pd.Index:
    """The group keys alone (the table's rows are keyed by group and segment)."""
    keys = groups.keys
    extra = [c for c in plan.by if c not in plan.group]
    if not extra:
        return keys
    keys = keys.droplevel(extra)  # type: ignore[attr-defined]
    return keys


def _segments(groups: Groups, plan: Plan) -> tuple[np.ndarray, list[tuple]]:
    """Each group's segment (its ``by`` values, constant within the group: checked by the scan)."""
    if not plan.by:
        return np.zeros(groups.n_groups, dtype=np.int64), [()]
    frame = groups.keys.to_frame(index=False)[list(plan.by)]
    seg = pd.MultiIndex.from_frame(frame)
    codes, levels = pd.factorize(seg, sort=True)
    # plain Python values, as the summary keys segments (numpy scalars unwrapped)
    keys = [tuple(v.item() if isinstance(v, np.generic) else v for v in (k if isinstance(k, tuple) else (k,)))
            for k in levels]
    return np.asarray(codes, dtype=np.int64), keys
