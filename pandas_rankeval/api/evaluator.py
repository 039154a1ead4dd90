"""The evaluation summary as a public, mergeable object: update it chunk by chunk, merge, ship.

An :class:`Evaluator` holds what a partition of whole groups reduces to (sums over groups, exact
counters, hashed bootstrap and sign-flip sums: never a per-group row) and the stable hashes of
the groups it has seen. Chunks may be evaluated in any order, in any process, and merged; the
result is the table of :func:`pandas_rankeval.report` (or :func:`pandas_rankeval.compare`) on
all the rows at once.
"""

from __future__ import annotations

import pickle
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..core.threads import one_blas_thread
from ..engines import engine_for, frame_kind
from ..engines.base import check_engine_options
from ..core.inputs.options import WeightLike
from ..core.inputs.validation import check_option, internal_error
from ..core.metrics.registry import DEFAULT_METRICS
from ..summary.auc_counts import ScoreCounts, score_counts
from ..summary.checks import check_partitioned, check_schema
from ..summary.plan import make_plan
from ..summary.summary import Summary
from ..tables import finalize
from .docs import fill_doc

__all__ = ["Evaluator"]

_FORMAT = 2  # 2: global AUC's per-distinct-score counts


def _chunk_columns(frame: Any, columns: list[Hashable]) -> pd.DataFrame:
    """The plan's columns of a frame of any supported kind, as a pandas frame (global AUC's counts)."""
    kind = frame_kind(frame)
    if kind == "pandas":
        return frame[columns]
    cols = [str(c) for c in columns]
    if kind == "pyspark":
        return frame.select(*cols).toPandas()
    if kind == "dask":
        return frame[cols].compute()
    if kind == "ibis":  # an Ibis table: the columns pulled from the warehouse
        return frame.select(*cols).execute().set_axis(columns, axis=1)  # type: ignore[no-any-return]
    import polars as pl

    from ..engines.polars.convert import to_pandas

    if kind == "polars":
        sel = frame.select(cols)
        return to_pandas(sel.collect() if isinstance(sel, pl.LazyFrame) else sel, cols)
    names = ", ".join('"' + c.replace('"', '""') + '"' for c in cols)  # a DuckDB relation
    table = pl.from_arrow(frame.query("__rk_src", f"SELECT {names} FROM __rk_src").to_arrow_table())
    return to_pandas(table, cols)  # type: ignore[arg-type]


def _distinct_keys(frame: Any, group: list[Hashable]) -> pd.DataFrame:
    """The distinct group keys of a frame of any supported kind, as a pandas frame (one query)."""
    kind = frame_kind(frame)
    if kind == "pandas":
        return frame[group].drop_duplicates()
    cols = [str(c) for c in group]
    if kind == "pyspark":
        return frame.select(*cols).distinct().toPandas()
    if kind == "dask":
        return frame[cols].drop_duplicates().compute()
    if kind == "ibis":  # an Ibis table: the warehouse answers
        return frame.select(*cols).distinct().execute().set_axis(group, axis=1)  # type: ignore[no-any-return]
    import polars as pl

    from ..engines.polars.convert import to_pandas

    if kind == "polars":
        keys = frame.select(cols).unique()
        return to_pandas(keys.collect() if isinstance(keys, pl.LazyFrame) else keys, cols)
    names = ", ".join('"' + c.replace('"', '""') + '"' for c in cols)  # a DuckDB relation
    table = pl.from_arrow(frame.query("__rk_src", f"SELECT DISTINCT {names} FROM __rk_src").to_arrow_table())
    return to_pandas(table, cols)  # type: ignore[arg-type]


def _key_hashes(keys: pd.DataFrame) -> np.ndarray:
    from ..inference.hashing import key_hash

    keys = keys.dropna()
    return np.unique(key_hash(keys.iloc[:, 0] if keys.shape[1] == 1 else keys))


class Evaluator:
    """Evaluate a ranking log chunk by chunk: ``update`` with frames of whole groups, ``merge``
    evaluators made anywhere, ``result`` for the one-call table.

    Every parameter is :func:`report`'s (``kind="compare"``: :func:`compare`'s), with the same
    default, checked when the evaluator is made, before any data.

    Parameters
    ----------
{group}
{label_click}
    scores : column or list of columns
        The models, one score column each (``kind="compare"``: at least two).
    metrics : str or list of str, default={default_metrics}
        Metric names, as in :func:`report` (the same default). Global AUC (``"auc"``) is kept
        as the relevant and non-relevant rows (or summed sample weights) at every distinct
        score of each score column, which add up exactly over chunks: its value equals the
        one-call value exactly, under every tie rule. Its interval or test (``ci=`` with
        ``"auc"``, or ``kind="compare"``) is not available: clustered DeLong needs every row's
        placement among all rows (a second pass); leave ``"auc"`` out, or use the one-call
        function for it.
    by : column or list of columns, optional
        Segment columns, constant within a group: one row per (segment, model).
    kind : {{"report", "compare"}}, default="report"
        The table :meth:`result` gives: :func:`report`'s or :func:`compare`'s.
    baseline : column, optional
        ``kind="compare"``: the score column every other one is compared with (None: every
        pair), as in :func:`compare`.
    weight : weight option, optional
        Group weights, as in :func:`report`.
    ci : float in (0, 1), optional
        An interval for every metric, as in :func:`report`. With ``kind="compare"``, the level
        of the intervals of the differences; None is compare's default, 0.95.
    auc_method, ci_method, n_boot, seed :
        The intervals, as in :func:`report`.
    resample : {{"poisson"}}, optional
        How the bootstrap draws groups: the hashed Poisson bootstrap (None is it), whose draws
        come from each group's key, so that the chunks add up to the one-call interval.
        ``"multinomial"`` needs every group in one place and is refused.
    method, alpha, adjust, family, ci_adjust, lift :
        ``kind="compare"``: the test, its adjustment and the lift, as in :func:`compare`.
{metric_options}
{progress}
    position, propensity, clip, snips :
        The options of the counterfactual metrics (``ips_dcg@K``, ``ips_precision@K``,
        ``ips_hit_rate@K``), as in :func:`report`.

    Notes
    -----
    Every group must be whole in one update: a group seen in two updates (or in both of two
    merged evaluators) raises a ``ValueError`` that names it. The bootstrap is the hashed Poisson
    one (each group's draws come from its key), so the interval equals the one-call interval for
    the same seed however the groups were split. ``progress=True`` draws a bar per update.

    With ``"auc"``, each update also reads the chunk's label, score, weight and ``by`` columns
    into memory (a Dask or Spark chunk: to the client) to count the rows at each distinct score;
    the evaluator then holds about 24 bytes per distinct score per score column and segment (one
    per row for continuous scores: round them to bound it). ``to_bytes`` carries the counts.

    Examples
    --------
    >>> import pandas as pd
    >>> import pandas_rankeval as pre
    >>> df = pd.DataFrame({{"u": [1, 1, 2, 2, 3, 3], "y": [1, 0, 0, 1, 1, 0],
    ...                    "s": [0.9, 0.2, 0.4, 0.3, 0.8, 0.1]}})
    >>> ev = pre.Evaluator(
    ...     group="u", label="y", scores="s", metrics=["gauc", "mrr"]
    ... )
    >>> a = ev.update(df[df.u < 3])
    >>> b = pre.Evaluator(
    ...     group="u", label="y", scores="s", metrics=["gauc", "mrr"]
    ... ).update(df[df.u == 3])
    >>> merged = pre.Evaluator.from_bytes((a | b).to_bytes())
    >>> merged.result()[["gauc", "mrr"]].round(4).to_dict("records")
    [{{'gauc': 0.6667, 'mrr': 0.8333}}]
    >>> a.update(df[df.u == 1])
    Traceback (most recent call last):
    ...
    ValueError: Evaluator.update: group u=1 is in this chunk and in an earlier one
    (1 group in all); every group must be whole in one update. Split the rows by
    group key (for example by hash of the key, or by files that each hold whole
    groups), or concatenate the chunks of a group before updating.

    Without ``metrics``, the metrics of :func:`report`:

    >>> whole = pre.Evaluator(group="u", label="y", scores="s").update(df).result()
    >>> list(whole.columns[:4])
    ['auc', 'gauc', 'mrr', 'ndcg@10']
    """

    def __init__(
        self,
        *,
        group: Hashable | Sequence[Hashable],
        label: Hashable,
        scores: Hashable | Sequence[Hashable],
        metrics: str | Sequence[str] = DEFAULT_METRICS,
        by: Hashable | Sequence[Hashable] | None = None,
        kind: Literal["report", "compare"] = "report",
        baseline: Hashable | None = None,
        weight: WeightLike = None,
        ci: float | None = None,
        auc_method: Literal["delong", "bootstrap"] = "delong",
        ci_method: Literal["percentile", "studentized"] = "percentile",
        n_boot: int = 1000,
        seed: int | None = 0,
        resample: Literal["poisson", "multinomial"] | None = None,
        method: Literal["auto", "randomization", "bootstrap"] = "auto",
        alpha: float = 0.05,
        adjust: Literal["holm", "bh", "none"] = "holm",
        family: Literal["table", "metric"] = "table",
        ci_adjust: Literal["none", "bonferroni"] = "none",
        lift: Literal["relative", "relaimpr"] = "relative",
        min_size: int | None = None,
        min_pos: int | None = None,
        min_neg: int | None = None,
        ties: Literal["expected", "pessimistic", "optimistic"] = "expected",
        tiebreak: Hashable | None = None,
        threshold: float | None = None,
        sample_weight: Hashable | None = None,
        gain: Literal["exp2", "linear"] = "exp2",
        denominator: Literal["relevant", "min_k"] = "relevant",
        empty: Literal["zero", "skip", "error"] = "zero",
        retrieved: Hashable | Mapping[Hashable, Hashable] | None = None,
        nan_policy: Literal["raise", "omit"] = "raise",
        progress: bool = False,
        position: Hashable | None = None,
        propensity: Any = None,
        clip: float = 0.01,
        snips: bool = False,
    ) -> None:
        check_option(kind, "kind", "Evaluator", ("report", "compare"))
        if kind == "compare" and ci is None:
            ci = 0.95
        self._kind = kind
        self._kwargs: dict[str, Any] = dict(
            group=group, label=label, scores=scores, metrics=metrics, by=by, baseline=baseline, weight=weight,
            ci=ci, auc_method=auc_method, ci_method=ci_method, n_boot=n_boot, seed=seed,
            resample="poisson" if resample is None else resample,  # None is the hashed bootstrap, as in report
            method=method, alpha=alpha, adjust=adjust, family=family, ci_adjust=ci_adjust, lift=lift,
            min_size=min_size, min_pos=min_pos, min_neg=min_neg, ties=ties, tiebreak=tiebreak, threshold=threshold,
            sample_weight=sample_weight, gain=gain, denominator=denominator, empty=empty, retrieved=retrieved,
            nan_policy=nan_policy, progress=progress, position=position, propensity=propensity, clip=clip,
            snips=snips,
        )
        self._schema: pd.DataFrame | None = None
        self._summary: Summary | None = None
        self._hashes = np.empty(0, dtype=np.uint64)
        self._counts = ScoreCounts()
        self._plan = self._make_plan(None)  # every parameter checked now, before any data

    # ------------------------------------------------------------------ #
    def _make_plan(self, schema: pd.DataFrame | None) -> Any:
        plan = make_plan(self._kind, kind=self._kind, df=schema, **self._kwargs)
        if plan.has_auc and plan.interval:
            what = "kind='compare' (a test)" if self._kind == "compare" else f"ci={plan.ci!r} (an interval)"
            raise ValueError(
                f"Evaluator: global AUC ('auc' in metrics) with {what} is not available chunk by chunk: "
                "its clustered-DeLong variance needs every row's placement among all rows, a second "
                "pass over every chunk. Leave 'auc' out (or ask for 'gauc', the per-group AUC), ask for "
                f"'auc' with ci=None (its value is exact), or call pandas_rankeval.{self._kind} on a frame "
                "of every row (a DuckDB relation over all the files, for example)."
            )
        if plan.has_auc and plan.options.tiebreak is not None:
            raise ValueError(
                f"Evaluator: global AUC ('auc' in metrics) with tiebreak={plan.options.tiebreak!r} is not "
                "available chunk by chunk (its counts are kept per distinct score). Leave tiebreak out, "
                "or call the one-call function on a frame of every row."
            )
        check_partitioned(plan, "chunked")
        return plan

    def _seen(self, new: np.ndarray, keys: pd.DataFrame | None, where: str) -> None:
        both = np.intersect1d(self._hashes, new, assume_unique=True)
        if not both.shape[0]:
            return
        names = [str(g) for g in self._plan.group]
        who = f"a group (key hash {int(both[0])})"
        if keys is not None:
            from ..inference.hashing import key_hash

            k = keys.dropna()
            h = key_hash(k.iloc[:, 0] if k.shape[1] == 1 else k)
            row = k.iloc[int(np.flatnonzero(np.isin(h, both[:1]))[0])]
            who = "group " + ", ".join(f"{n}={v!r}" for n, v in zip(names, row.tolist()))
        n = both.shape[0]
        raise ValueError(
            f"Evaluator.{where}: {who} is in this chunk and in an earlier one ({n} group{'s' * (n != 1)} in all); "
            "every group must be whole in one update. Split the rows by group key (for example by hash "
            "of the key, or by files that each hold whole groups), or concatenate the chunks of a group "
            "before updating."
        )

    def update(self, frame: Any, engine_options: dict[str, Any] | None = None) -> Evaluator:
        """Add a chunk of whole groups (any supported frame); returns ``self``."""
        engine = engine_for(frame, "Evaluator.update")
        options = check_engine_options(engine, engine_options, "Evaluator.update")
        schema = engine.schema(frame)
        plan = self._make_plan(schema)
        check_schema(schema, plan)
        keys = _distinct_keys(frame, list(plan.group))
        new = _key_hashes(keys)
        self._seen(new, keys, "update")
        with one_blas_thread():  # as every call: BLAS on one thread, held beside other calls
            summary, _ = engine.run(frame, plan, options)
        if plan.has_auc:  # after the run: its checks (weights, values, missing) came first
            self._counts = self._counts + score_counts(_chunk_columns(frame, list(plan.columns)), plan)
        self._plan = plan
        self._schema = schema.iloc[:0]
        self._summary = summary if self._summary is None else self._summary + summary
        self._hashes = np.union1d(self._hashes, new)
        return self

    def merge(self, other: Evaluator) -> Evaluator:
        """A new evaluator holding both (the same parameters; no group in both)."""
        if not isinstance(other, Evaluator):
            raise TypeError(f"Evaluator.merge expects an Evaluator; got {type(other).__name__}.")
        if (self._kind, _canon(self._kwargs)) != (other._kind, _canon(other._kwargs)):
            raise ValueError("Evaluator.merge: the two evaluators were made with different parameters; "
                             "make every part with the same Evaluator(...) call.")
        self._seen(other._hashes, None, "merge")
        out = Evaluator.__new__(Evaluator)
        out.__dict__.update(self.__dict__)
        out._hashes = np.union1d(self._hashes, other._hashes)
        out._schema = self._schema if self._schema is not None else other._schema
        out._counts = self._counts + other._counts
        if self._summary is None or other._summary is None:
            out._summary = self._summary if other._summary is None else other._summary
            out._plan = self._plan if self._summary is not None else other._plan
        else:
            out._summary = self._summary + other._summary
        return out

    __or__ = merge

    def result(self) -> Any:
        """The table of :func:`pandas_rankeval.report` (or ``compare``) on every row seen."""
        if self._summary is None:
            raise ValueError("Evaluator.result: no chunk was added; call update(frame) first.")
        auc = None
        if self._plan.has_auc:
            auc = self._counts.auc()
            for key in self._summary.keys:  # a segment without counts would be a silent NaN
                for s in self._plan.scores:
                    if (key, s) not in auc:
                        raise internal_error(f"Evaluator.result: no global-AUC counts for segment {key!r}, score {s!r}")
        with one_blas_thread():
            return finalize(self._summary, self._plan, auc=auc)

    def to_bytes(self) -> bytes:
        """The evaluator as bytes (:meth:`from_bytes` reads them back), to ship between processes."""
        return pickle.dumps({
            "format": _FORMAT, "kind": self._kind, "kwargs": self._kwargs, "schema": self._schema,
            "summary": None if self._summary is None else self._summary.to_bytes(), "hashes": self._hashes,
            "auc_counts": self._counts.tables,
        })

    @classmethod
    def from_bytes(cls, data: bytes) -> Evaluator:
        """The evaluator that :meth:`to_bytes` wrote."""
        d = pickle.loads(data)
        if not isinstance(d, dict) or d.get("format") != _FORMAT:
            raise ValueError("Evaluator.from_bytes: these bytes were not written by Evaluator.to_bytes of this version.")
        ev = cls(kind=d["kind"], **d["kwargs"])
        ev._schema = d["schema"]
        if d["summary"] is not None:
            ev._summary = Summary.from_bytes(d["summary"])
            ev._plan = ev._make_plan(ev._schema)
        ev._hashes = d["hashes"]
        ev._counts = ScoreCounts(d["auc_counts"])
        return ev

    def __repr__(self) -> str:
        return f"Evaluator(kind={self._kind!r}, groups={self._hashes.shape[0]})"


fill_doc(Evaluator)


def _canon(kwargs: dict[str, Any]) -> str:
    return repr(sorted((k, repr(v)) for k, v in kwargs.items()))
