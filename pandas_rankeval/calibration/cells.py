"""calibration_by's one pass over the rows: per chunk of rows, the row sums of every (group, field
value) cell and the counts of the values pandas refuses; the chunks' results added up.

Every frame goes through the same function (:func:`chunk_sums`): a pandas frame is one chunk; a
frame read in partitions (a polars LazyFrame, a DuckDB relation, Dask, Spark) is
read chunk by chunk where it lies (:func:`pandas_rankeval.engines.chunks.map_chunks`) and only the
chunks' :class:`Chunk` results travel (one row per cell they hold and a few counts), added by
:func:`merge_chunks` where they lie or as they arrive. The whole
table's counts then raise pandas' errors, in its order (:func:`raise_problems`), before any
metric or interval is computed.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pandas_rankeval.core.inputs.validation import missing_mask, missing_values_error, numeric_values
from pandas_rankeval.core.kernels.calibration import (
    check_binary_labels, ece_bins, label_error, probability_error, row_loss,
)

__all__ = ["CellSpec", "Chunk", "cell_codes", "cells_from_bins", "check_dtypes", "chunk_sums", "merge_chunks",
           "raise_problems", "sum_by"]

#: The metrics named in the label and probability errors.
NAMES = ["pcoc", "logloss", "ne", "ece", "field_rce"]


@dataclass(frozen=True)
class CellSpec:
    """What a chunk reads: the key columns of a cell (field, then group), label, score, weights."""

    field: tuple[Hashable, ...]
    group: tuple[Hashable, ...]
    label: Hashable
    score: Hashable
    sample_weight: Hashable | None
    threshold: float | None
    bins: int
    func: str = "calibration_by"

    @property
    def keys(self) -> list[Hashable]:
        return list(dict.fromkeys([*self.field, *self.group]))

    @property
    def columns(self) -> list[Hashable]:
        """Every column read, each once: the keys, label, score, sample weight."""
        extra = [self.sample_weight] if self.sample_weight is not None else []
        return list(dict.fromkeys([*self.keys, self.label, self.score, *extra]))


@dataclass
class Chunk:
    """One chunk's (or the whole table's) counts and cell sums.

    ``sums`` has one row per cell of ``keys``: rows, then the sums of w, w y, w p, w loss, then per
    bin w (p - y), then per bin w (:mod:`.by_field`'s layout after the row count)."""

    n_rows: int = 0
    missing: dict[Hashable, int] = field(default_factory=dict)
    n_dropped: int = 0
    infinite_label: int = 0
    not_binary: int = 0
    label_examples: list[float] = field(default_factory=list)
    outside_unit: int = 0
    p_lo: float = np.inf
    p_hi: float = -np.inf
    bad_weight: int = 0
    keys: pd.DataFrame | None = None
    sums: np.ndarray | None = None


def chunk_sums(pdf: pd.DataFrame, spec: CellSpec) -> Chunk:
    """The counts and cell sums of one chunk of rows (a pandas frame of ``spec.columns``). Values
    pandas refuses are counted, never raised: their rows add nothing to the sums."""
    out = Chunk(n_rows=len(pdf))
    masks = {c: missing_mask(pdf[c]) for c in spec.columns}
    out.missing = {c: int(m.sum()) for c, m in masks.items() if m.any()}
    rows = pdf
    if out.missing:
        keep = ~np.logical_or.reduce(list(masks.values()))
        out.n_dropped = int((~keep).sum())
        rows = pdf.loc[keep]
    yv = numeric_values(rows[spec.label], spec.label, "label")
    ok = np.ones(len(rows), dtype=bool)
    if spec.threshold is not None:
        inf = ~np.isfinite(yv)
        out.infinite_label = int(inf.sum())
        ok &= ~inf
        y = yv >= spec.threshold
    else:
        bad = check_binary_labels(yv)
        if bad is not None:
            out.not_binary, out.label_examples = bad
            ok &= (yv == 0) | (yv == 1)
        y = yv == 1
    p = numeric_values(rows[spec.score], spec.score, "score")
    if len(p):  # the range seen is over every kept row (pandas' message), the count over the bad ones
        out.p_lo, out.p_hi = float(np.nanmin(p)), float(np.nanmax(p))
        outside = ~((p >= 0) & (p <= 1))
        out.outside_unit = int(outside.sum())
        ok &= ~outside
    w = np.ones(len(rows))
    if spec.sample_weight is not None:
        w = numeric_values(rows[spec.sample_weight], spec.sample_weight, "sample_weight")
        bad_w = ~np.isfinite(w) | (w < 0)
        out.bad_weight = int(bad_w.sum())
        ok &= ~bad_w
    if not ok.all():  # the table raises: these sums are never read
        return out
    out.keys, out.sums = _cells(rows, spec, y, p, w)
    return out


def _cells(rows: pd.DataFrame, spec: CellSpec, y: np.ndarray, p: np.ndarray,
           w: np.ndarray) -> tuple[pd.DataFrame, np.ndarray]:
    keys = spec.keys
    cell, first = cell_codes(rows, keys)
    n_cells = first.shape[0]
    bins = spec.bins
    sums = np.empty((n_cells, 5 + 2 * bins))
    sums[:, 0] = np.bincount(cell, minlength=n_cells)
    sums[:, 1] = np.bincount(cell, weights=w, minlength=n_cells)
    sums[:, 2] = np.bincount(cell, weights=w * y, minlength=n_cells)
    sums[:, 3] = np.bincount(cell, weights=w * p, minlength=n_cells)
    sums[:, 4] = np.bincount(cell, weights=w * row_loss(p, y), minlength=n_cells)
    at = cell * bins + ece_bins(p, bins)
    size = n_cells * bins
    sums[:, 5 : 5 + bins] = np.bincount(at, weights=w * (p - y), minlength=size).reshape(n_cells, bins)
    sums[:, 5 + bins :] = np.bincount(at, weights=w, minlength=size).reshape(n_cells, bins)
    return rows[keys].iloc[first].reset_index(drop=True), sums


def cell_codes(frame: pd.DataFrame, keys: list[Hashable]) -> tuple[np.ndarray, np.ndarray]:
    """Each row's cell (0..k-1: its distinct ``keys``, by value) and a row of each cell. One
    factorize per key column, the codes packed into one int64 (a groupby when they do not fit)."""
    packed = np.zeros(len(frame), dtype=np.int64)
    span = 1
    for k in keys:
        codes, uniques = pd.factorize(frame[k])
        span *= max(len(uniques), 1)
        if span >= 2**62:  # pragma: no cover - too many distinct keys to pack
            packed = frame.groupby(keys, sort=False, observed=True, dropna=False).ngroup().to_numpy()
            break
        packed = packed * max(len(uniques), 1) + codes
    cell = pd.factorize(packed)[0].astype(np.int64)  # codes in the order of first appearance:
    # a cell's first row is where its code exceeds every code before it
    new = np.ones(cell.shape[0], dtype=bool)
    new[1:] = cell[1:] > np.maximum.accumulate(cell)[:-1]
    return cell, np.flatnonzero(new)


def cells_from_bins(frame: pd.DataFrame, spec: CellSpec, prefix: str) -> tuple[pd.DataFrame, np.ndarray]:
    """The cells' keys and sums (:class:`Chunk`'s layout) from one row per (cell, ECE bin): the
    warehouse's GROUP BY (:func:`pandas_rankeval.engines.warehouse.cells.cell_bins`; the key
    columns under their names as text, then ``<prefix>bin``, ``<prefix>n`` and the sums of w, w y,
    w p, w loss and w (p - y)). A cell's rows and first four sums add its bins up."""
    keys = spec.keys
    named = frame[[str(k) for k in keys]].set_axis(keys, axis=1)
    cell, first = cell_codes(named, keys)
    n_cells, bins = first.shape[0], spec.bins
    P = prefix
    at = cell * bins + frame[f"{P}bin"].to_numpy(dtype=np.int64)
    size = n_cells * bins
    sums = np.empty((n_cells, 5 + 2 * bins))
    sums[:, 0] = np.bincount(cell, weights=frame[f"{P}n"].to_numpy(dtype=np.float64), minlength=n_cells)
    for j, c in enumerate(("w", "wy", "wp", "wl"), start=1):
        sums[:, j] = np.bincount(cell, weights=frame[f"{P}{c}"].to_numpy(dtype=np.float64), minlength=n_cells)
    for j, c in ((5, "wd"), (5 + bins, "w")):
        sums[:, j : j + bins] = np.bincount(at, weights=frame[f"{P}{c}"].to_numpy(dtype=np.float64),
                                            minlength=size).reshape(n_cells, bins)
    return named.iloc[first].reset_index(drop=True), sums


def sum_by(codes: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """The rows of ``values`` (2-d) summed per code in [0, n): one bincount per column."""
    out = np.empty((n, values.shape[1]))
    for j in range(values.shape[1]):
        out[:, j] = np.bincount(codes, weights=values[:, j], minlength=n)
    return out


def merge_chunks(chunks: Sequence[Chunk], spec: CellSpec) -> Chunk:
    """The whole table's counts and cell sums from its chunks' (cells met in several chunks added)."""
    out = Chunk()
    parts: list[Chunk] = []
    for c in chunks:
        out.n_rows += c.n_rows
        for col, n in c.missing.items():
            out.missing[col] = out.missing.get(col, 0) + n
        out.n_dropped += c.n_dropped
        out.infinite_label += c.infinite_label
        out.not_binary += c.not_binary
        out.label_examples = sorted(set(out.label_examples) | set(c.label_examples))[:3]
        out.outside_unit += c.outside_unit
        out.p_lo, out.p_hi = min(out.p_lo, c.p_lo), max(out.p_hi, c.p_hi)
        out.bad_weight += c.bad_weight
        if c.keys is not None and c.sums is not None and len(c.keys):
            parts.append(c)
    out.missing = {col: out.missing[col] for col in spec.columns if out.missing.get(col)}
    if len(parts) == 1:
        out.keys, out.sums = parts[0].keys, parts[0].sums
    elif parts:
        keys = pd.concat([c.keys for c in parts], ignore_index=True)  # type: ignore[misc]
        cell, first = cell_codes(keys, spec.keys)
        n_cells = first.shape[0]
        sums = sum_by(cell, np.concatenate([c.sums for c in parts]), n_cells)  # type: ignore[misc]
        out.keys = keys.iloc[first].reset_index(drop=True)
        out.sums = sums
    return out


def raise_problems(found: Chunk, spec: CellSpec, nan_policy: str) -> None:
    """pandas' errors from the whole table's counts, in its order: missing values (or no row left
    after dropping them), labels, probabilities, weights."""
    if found.missing:
        if nan_policy == "raise":
            raise missing_values_error(found.missing)
        if found.n_dropped >= found.n_rows:
            raise ValueError(f"{spec.func}: every row has a missing value in {list(found.missing)!r}; "
                             "nothing is left to evaluate.")
    if found.infinite_label:
        raise ValueError(f"Column {spec.label!r} (label) has {found.infinite_label:,} infinite values.")
    if found.not_binary:
        raise label_error(spec.label, found.not_binary, found.label_examples, NAMES)
    if found.outside_unit:
        raise probability_error(spec.score, found.outside_unit, found.p_lo, found.p_hi, NAMES)
    if found.bad_weight:
        raise ValueError(
            f"Column {spec.sample_weight!r} (sample_weight) has {found.bad_weight:,} values that are negative or "
            "not finite; sample weights must be finite and >= 0."
        )


def check_dtypes(schema: pd.DataFrame, spec: CellSpec) -> None:
    """The dtype errors pandas raises, from an empty frame of the table's columns (no data read)."""
    numeric_values(schema[spec.label], spec.label, "label")
    numeric_values(schema[spec.score], spec.score, "score")
    if spec.sample_weight is not None:
        numeric_values(schema[spec.sample_weight], spec.sample_weight, "sample_weight")
