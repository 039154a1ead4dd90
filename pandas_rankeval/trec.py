"""TREC runs and qrels as one impressions table (:func:`read_trec`).

A run file has a line ``qid Q0 docno rank score tag`` per retrieved document; a qrels file a line
``qid iter docno rel`` per judged document. :func:`read_trec` lines them up, one row per document
of a query (retrieved by some run, or judged relevant), with trec_eval's choices as options.
"""

from __future__ import annotations

import io
import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any, Union

import numpy as np
import pandas as pd

from pandas_rankeval.api.docs import fill_doc
from pandas_rankeval.core.inputs.validation import check_k, invalid_parameter
from pandas_rankeval.core.progress import Progress

__all__ = ["read_trec"]

#: What :func:`read_trec` takes as a run or as qrels.
TrecSource = Union[str, "os.PathLike[str]", IO[str], IO[bytes], pd.DataFrame]

_RUN_COLUMNS = ("qid", "q0", "docno", "rank", "score", "tag")
_QRELS_COLUMNS = ("qid", "iter", "docno", "rel")
_ALIASES = {"query_id": "qid", "query": "qid", "doc_id": "docno", "docid": "docno", "relevance": "rel",
            "label": "rel", "run": "tag"}


def _read_text(source: Any, columns: Sequence[str], what: str) -> pd.DataFrame:
    """A whitespace-separated TREC file (path or file object) with ``columns``."""
    if hasattr(source, "read"):
        text = source.read()
        source = io.StringIO(text.decode() if isinstance(text, bytes) else text)
    frame = pd.read_csv(source, sep=r"\s+", header=None, dtype=str, comment=None, engine="c")
    if frame.shape[1] != len(columns):
        raise ValueError(
            f"read_trec: the {what} has {frame.shape[1]} fields per line; a {what} line is "
            f"{' '.join(columns)} ({len(columns)} fields)."
        )
    frame.columns = list(columns)
    return frame


def _as_frame(source: Any, columns: Sequence[str], need: Sequence[str], what: str) -> pd.DataFrame:
    if isinstance(source, pd.DataFrame):
        frame = source.rename(columns={c: _ALIASES.get(str(c).lower(), str(c).lower()) for c in source.columns})
    elif isinstance(source, (str, os.PathLike)) or hasattr(source, "read"):
        frame = _read_text(source, columns, what)
    else:
        raise TypeError(
            f"read_trec: a {what} must be a path, a file object or a DataFrame; got {type(source).__name__}."
        )
    missing = [c for c in need if c not in frame.columns]
    if missing:
        raise ValueError(
            f"read_trec: the {what} has no column {missing!r} (columns: {list(frame.columns)!r}); "
            f"a {what} frame needs {list(need)!r} (query_id, doc_id and relevance are read as qid, docno, rel)."
        )
    out = frame[list(dict.fromkeys([*need, *(["tag"] if "tag" in frame.columns else [])]))].copy()
    out["qid"] = out["qid"].astype(str)
    out["docno"] = out["docno"].astype(str)
    return out


def _numbers(values: pd.Series, column: str, what: str) -> pd.Series:
    out = pd.to_numeric(values, errors="coerce")
    bad = out.isna() & values.notna()
    if bad.any() or values.isna().any():
        count = int(bad.sum() + values.isna().sum())
        raise ValueError(
            f"read_trec: the {what} has {count:,} {column} value{'s' if count != 1 else ''} that are not "
            f"numbers, for example {values[bad | values.isna()].head(3).tolist()!r}."
        )
    return out


def _duplicates(frame: pd.DataFrame, what: str) -> None:
    dup = frame.duplicated(["qid", "docno"])
    if dup.any():
        first = frame.loc[dup, ["qid", "docno"]].head(3).to_records(index=False).tolist()
        raise ValueError(
            f"read_trec: the {what} lists {int(dup.sum()):,} (qid, docno) pair{'s' if int(dup.sum()) != 1 else ''} "
            f"more than once, for example {first!r}; keep one line per document of a query."
        )


def _run_name(source: Any, frame: pd.DataFrame, index: int) -> str:
    if "tag" in frame.columns:
        tags = frame["tag"].dropna().unique()
        if len(tags) == 1:
            return str(tags[0])
    name = source if isinstance(source, (str, os.PathLike)) else getattr(source, "name", None)
    if isinstance(name, (str, os.PathLike)):
        return Path(name).name
    return f"run{index}"


def _runs(runs: Any) -> list[tuple[Any, Any]]:
    """(name or None, source) of every run."""
    if isinstance(runs, Mapping):
        return [(str(k), v) for k, v in runs.items()]
    if isinstance(runs, (str, os.PathLike, pd.DataFrame)) or hasattr(runs, "read"):
        return [(None, runs)]
    if isinstance(runs, Sequence):
        return [(None, r) for r in runs]
    raise TypeError(
        f"read_trec: 'runs' must be a run (path, file object or DataFrame), a list of runs or a dict of "
        f"name -> run; got {type(runs).__name__}."
    )


def _trec_order(frame: pd.DataFrame) -> pd.DataFrame:
    """trec_eval's order of a run: by query, score descending, docno descending."""
    return frame.sort_values(["qid", "score", "docno"], ascending=[True, False, False], kind="mergesort")


def read_trec(
    runs: TrecSource | Sequence[TrecSource] | Mapping[str, TrecSource],
    qrels: TrecSource,
    *,
    depth: int | None = None,
    complete: bool = False,
    judged_only: bool = False,
    tiebreak: str | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """One impressions table from TREC runs and qrels, ready for every list metric.

    Parameters
    ----------
    runs : path, file object, DataFrame, or a list or dict of them
        Run files (``qid Q0 docno rank score tag`` per line, whitespace-separated) or frames with
        columns ``qid``, ``docno``, ``score`` (``query_id`` and ``doc_id`` work too). A run is named
        by the dict key, else by its tag when it has one, else by its file name. The ``rank``
        field is ignored, as by trec_eval: the order is the score's.
    qrels : path, file object or DataFrame
        Judgments: ``qid iter docno rel`` per line, or a frame with ``qid``, ``docno``, ``rel``
        (or ``relevance``). Graded relevance is kept; judgments below 0 are read as 0 (trec_eval
        counts them non-relevant).
    depth : int, optional
        trec_eval's ``-M``: keep the first ``depth`` documents of each query of each run, in
        trec_eval's order (score descending, then docno descending).
    complete : bool, default=False
        trec_eval's ``-c``: every query of the qrels counts; a query a run did not answer scores 0
        for it. By default the queries are those of the runs (trec_eval's default), and a query
        of a run that the qrels lack is left out, with a warning that counts them.
    judged_only : bool, default=False
        trec_eval's ``-J``: keep only the retrieved documents that the qrels judge.
    tiebreak : "docno" or None, default=None
        None keeps the runs' scores: a metric's value is then its exact expectation over the
        orderings of tied documents (the library's ``ties="expected"``). ``"docno"`` is trec_eval's
        tie-break: each run's scores are replaced by its order (score descending, then docno
        descending; the score column holds minus the rank), so that every metric gives trec_eval's
        published number.
{progress}

    Returns
    -------
    pandas.DataFrame
        One row per (query, document): ``qid``, ``docno``, ``relevance`` (unjudged: 0),
        ``judged``, one score column per run (named by the run), and one boolean column per run,
        ``retrieved`` for one run or ``retrieved_<run>`` for several, False on the rows the run
        did not retrieve: the judged relevant documents it missed, and the documents only other
        runs retrieved. Their score is ``-inf``; pass ``retrieved=`` to every metric call so they
        are never ranked but count in recall, AP's denominator and NDCG's ideal DCG.
        ``frame.attrs["retrieved"]`` maps each run to its retrieved column and
        ``frame.attrs["runs"]`` lists the runs: ``retrieved=frame.attrs["retrieved"]``.

    Notes
    -----
    With several runs the table holds the union of their queries (paired tests need the same
    queries): a query that one run lacks scores 0 for that run, as with ``complete=True``, and a
    warning says how many. trec_eval's relevance level ``-l`` is the metrics' ``threshold=``
    (binary metrics only: trec_eval's NDCG keeps every grade's gain), and its NDCG gains the
    label itself: ``gain="linear"``. ``progress=True`` counts one step for the qrels and two per run
    (read, then joined to the table).

    Examples
    --------
    >>> import io
    >>> import pandas_rankeval as pre
    >>> run = io.StringIO(
    ...     "q1 Q0 d1 1 2.0 bm25\\nq1 Q0 d2 2 1.0 bm25\\nq2 Q0 d3 1 1.0 bm25\\n"
    ... )
    >>> qrels = io.StringIO("q1 0 d2 1\\nq1 0 d9 1\\nq2 0 d3 2\\n")
    >>> t = pre.read_trec(run, qrels)
    >>> t
      qid docno  relevance  judged  bm25  retrieved
    0  q1    d1          0   False   2.0       True
    1  q1    d2          1    True   1.0       True
    2  q1    d9          1    True  -inf      False
    3  q2    d3          2    True   1.0       True
    >>> round(pre.average_precision(t, group="qid", label="relevance", score="bm25",
    ...                             retrieved="retrieved"), 4)
    0.625
    """
    if tiebreak not in (None, "docno"):
        raise invalid_parameter("tiebreak", "read_trec", "'docno' (trec_eval's tie-break) or None (the scores as "
                                "they are; ties get their expected value)", tiebreak)
    depth = check_k(depth, "read_trec", param="depth")
    sources = _runs(runs)
    bar = Progress(bool(progress), total=1 + 2 * len(sources), desc="read_trec", unit="step")
    try:
        return _read_all(sources, qrels, depth, complete, judged_only, tiebreak, bar)
    finally:
        bar.close()


fill_doc(read_trec)


def _read_all(sources: list[tuple[Any, Any]], qrels: Any, depth: int | None, complete: bool, judged_only: bool,
              tiebreak: str | None, bar: Progress) -> pd.DataFrame:
    """read_trec's work, once its options are checked: the qrels, each run, then the table."""
    judged = _as_frame(qrels, _QRELS_COLUMNS, ("qid", "docno", "rel"), "qrels")
    judged["rel"] = _numbers(judged["rel"], "rel", "qrels").clip(lower=0)
    if (judged["rel"] % 1 == 0).all():
        judged["rel"] = judged["rel"].astype(np.int64)
    _duplicates(judged, "qrels")
    qrel_queries = pd.Index(judged["qid"].unique())
    bar.update()

    frames: dict[str, pd.DataFrame] = {}
    unjudged_queries: set[str] = set()
    for i, (name, source) in enumerate(sources):
        run = _as_frame(source, _RUN_COLUMNS, ("qid", "docno", "score"), "run")
        run["score"] = _numbers(run["score"], "score", "run")
        name = name if name is not None else _run_name(source, run, i)
        if name in frames:
            raise ValueError(f"read_trec: two runs are named {name!r}; pass a dict of name -> run.")
        _duplicates(run, f"run {name!r}")
        outside = ~run["qid"].isin(qrel_queries)
        unjudged_queries.update(run.loc[outside, "qid"].unique())
        run = run.loc[~outside, ["qid", "docno", "score"]]
        if judged_only:
            keys = pd.MultiIndex.from_frame(judged[["qid", "docno"]])
            run = run[pd.MultiIndex.from_frame(run[["qid", "docno"]]).isin(keys)]
        if depth is not None or tiebreak == "docno":
            run = _trec_order(run)
            pos = run.groupby("qid", sort=False).cumcount()
            if depth is not None:
                keep = (pos < depth).to_numpy()
                run, pos = run[keep], pos[keep]
            if tiebreak == "docno":
                run = run.assign(score=-(pos.to_numpy(dtype=np.int64) + 1))
        frames[name] = run
        bar.update()
    if not frames:
        raise ValueError("read_trec: no run given.")
    if unjudged_queries:
        warnings.warn(
            f"read_trec: {len(unjudged_queries):,} quer{'ies' if len(unjudged_queries) != 1 else 'y'} of the "
            f"runs have no judgment in the qrels (for example {sorted(unjudged_queries)[:3]!r}) and are left "
            "out, as trec_eval leaves them out.",
            UserWarning,
            stacklevel=3,
        )
    return _table(frames, judged, qrel_queries, complete, bar)


def _table(frames: dict[str, pd.DataFrame], judged: pd.DataFrame, qrel_queries: pd.Index, complete: bool,
           bar: Progress) -> pd.DataFrame:
    """The union of the runs' documents and the judged relevant ones, one column pair per run."""
    names = list(frames)
    one = len(names) == 1
    flag = {n: "retrieved" if one else f"retrieved_{n}" for n in names}
    clash = {"qid", "docno", "relevance", "judged"} & ({*names} | set(flag.values()))
    if clash:
        raise ValueError(f"read_trec: a run may not be named {sorted(clash)!r} (a column of the table).")
    run_queries = [set(f["qid"].unique()) for f in frames.values()]
    union = set().union(*run_queries)
    queries = pd.Index(qrel_queries) if complete else pd.Index(sorted(union))
    if not complete and len(names) > 1:
        partial = sum(len(union - q) for q in run_queries)
        if partial:
            warnings.warn(
                f"read_trec: the runs answer different queries; {partial:,} (run, query) pair"
                f"{'s' if partial != 1 else ''} of the {len(union):,} queries score 0 for the run that lacks "
                "the query (paired comparisons need the same queries).",
                UserWarning,
                stacklevel=4,
            )
    table: pd.DataFrame | None = None
    for name, run in frames.items():
        part = run.rename(columns={"score": name}).assign(**{flag[name]: True})
        table = part if table is None else table.merge(part, on=["qid", "docno"], how="outer")
        bar.update()
    assert table is not None
    relevant = judged[(judged["rel"] > 0) & judged["qid"].isin(queries)][["qid", "docno"]]
    table = table.merge(relevant, on=["qid", "docno"], how="outer")
    if complete:  # a query of the qrels with no row yet (nothing relevant, no run answered it): its
        # judged documents, which no run retrieved, so that it counts (0, as with trec_eval's -c)
        empty = pd.Index(queries).difference(pd.Index(table["qid"].unique()))
        if len(empty):
            table = pd.concat([table, judged.loc[judged["qid"].isin(empty), ["qid", "docno"]]], ignore_index=True)
    table = table.merge(judged[["qid", "docno", "rel"]], on=["qid", "docno"], how="left")
    table["judged"] = table["rel"].notna()
    table["relevance"] = table.pop("rel").fillna(0).astype(judged["rel"].dtype)
    for name in names:
        table[flag[name]] = table[flag[name]].fillna(False).astype(bool)
        col = table[name]
        table[name] = col.where(table[flag[name]], -np.inf) if col.dtype.kind == "f" else col.astype(np.float64).where(
            table[flag[name]], -np.inf)
    table = table.sort_values(["qid", "docno"], kind="mergesort", ignore_index=True)
    table = table[["qid", "docno", "relevance", "judged", *[c for n in names for c in (n, flag[n])]]]
    if one:
        table = table[["qid", "docno", "relevance", "judged", names[0], "retrieved"]]
    table.attrs["retrieved"] = dict(flag)
    table.attrs["runs"] = list(names)
    return table
