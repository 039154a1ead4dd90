"""The one footer rule: two or three lines that matter, then the details.

Under every table: first what the numbers cover (rows, groups, segments, and the groups a
metric leaves out), then what the view's marks mean (significance, with its adjustment and
direction), then the ``empty`` choice where it changes a number. The details follow: the
interval and test methods in the words of the view's own columns (``ci_low, ci_high`` in the
raw table, ``diff [95% CI]`` in ``compact()``), each metric's full coverage and the choices.

Everything is read from the table's ``attrs`` with defaults, so a table from an older or newer
``compare`` (other adjustment names, all pairs) still gets a true footer.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .formatting import DOWN, UP, is_missing

__all__ = ["Footer", "FooterLines", "adjusted_p", "ci_head", "coverage_sentence", "describe_params", "footer_for"]

#: How many segment sizes the coverage line lists before it only counts them.
_MAX_SEGMENTS = 6
_ADJUST_NAMES = {"holm": "Holm", "bh": "Benjamini-Hochberg", "by": "Benjamini-Yekutieli", "bonferroni": "Bonferroni"}


class FooterLines(list):  # type: ignore[type-arg]
    """The footer lines: a list of strings that prints as the lines themselves.

    >>> lines = FooterLines(["coverage: 10 rows", "ties=expected"])
    >>> print(lines)
    coverage: 10 rows
    ties=expected
    >>> lines[0], len(lines)
    ('coverage: 10 rows', 2)
    """

    def __str__(self) -> str:
        return "\n".join(map(str, self))


class Footer:
    """The short lines (shown by default) and the details (behind an option)."""

    def __init__(self, short: Sequence[str] = (), details: Sequence[str] = ()) -> None:
        self.short = [s for s in short if s]
        self.details = [d for d in details if d]

    @property
    def lines(self) -> list[str]:
        return [*self.short, *self.details]


def _count(n: Any, noun: str, plural: str | None = None) -> str:
    n = int(n)
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def coverage_sentence(cov: dict[str, Any]) -> str:
    """One sentence from a report's coverage columns (a row of the report).

    >>> coverage_sentence({"n_rows": 26228, "n_groups": 2000, "gauc_groups_used": 366,
    ...                    "gauc_rows_skipped": 0.163, "groups_no_relevant": 1500})
    '26,228 rows, 2,000 groups, gauc uses 366 (the others hold 16.3% of rows), 1,500 with no relevant row'

    A count the row does not hold (NaN) is left out: the overall row of ``report(metrics=["auc"],
    by=..., overall=True)`` pools its rows and counts no groups.

    >>> coverage_sentence({"n_rows": 258, "n_groups": float("nan")})
    '258 rows'
    """
    def has(name: str) -> bool:  # a count the row holds (the overall row of a by= table may not)
        return name in cov and not is_missing(cov[name])

    bits = []
    if has("n_rows"):
        bits.append(_count(cov["n_rows"], "row"))
    if has("n_groups"):
        bits.append(_count(cov["n_groups"], "group"))
    if has("gauc_groups_used"):
        text = f"gauc uses {int(cov['gauc_groups_used']):,}"
        if has("gauc_rows_skipped"):
            text += f" (the others hold {float(cov['gauc_rows_skipped']):.1%} of rows)"
        bits.append(text)
    if has("groups_no_relevant"):
        bits.append(f"{int(cov['groups_no_relevant']):,} with no relevant row")
    if has("rows_dropped") and int(cov["rows_dropped"]):
        bits.append(f"{_count(cov['rows_dropped'], 'row')} with missing values dropped")
    return ", ".join(bits)


def describe_params(params: dict[str, dict[str, Any]]) -> str:
    """The choices behind a table (``attrs["params"]``) as one line: shared ones first.

    >>> describe_params({"auc": {"ties": "expected"},
    ...                  "gauc": {"ties": "expected", "weight": "count"},
    ...                  "mrr": {"ties": "expected", "weight": "uniform", "empty": "zero"}})
    'ties=expected; gauc: weight=count; mrr: weight=uniform, empty=zero'
    """
    dicts = [d for d in params.values() if isinstance(d, dict)]
    if not dicts:
        return ""
    common = {k: v for k, v in dicts[0].items() if all(k in d and d[k] == v for d in dicts)}
    out = [", ".join(f"{k}={v}" for k, v in common.items())] if common else []
    groups: dict[tuple[tuple[str, str], ...], list[str]] = {}
    for name, d in params.items():
        if not isinstance(d, dict):
            continue
        own = tuple((k, str(v)) for k, v in d.items() if k not in common)
        if own:
            groups.setdefault(own, []).append(str(name))
    for own, names in groups.items():
        out.append(f"{', '.join(names)}: " + ", ".join(f"{k}={v}" for k, v in own))
    return "; ".join(out)


# ---------------------------------------------------------------------------------------------
# facts read from attrs


def _coverages(df: pd.DataFrame) -> dict[str, dict[str, Any]]:
    cov = df.attrs.get("coverage")
    return {str(k): v for k, v in cov.items() if isinstance(v, dict)} if isinstance(cov, dict) else {}


def _params(df: pd.DataFrame) -> dict[str, dict[str, Any]]:
    params = df.attrs.get("params")
    return {str(k): v for k, v in params.items() if isinstance(v, dict)} if isinstance(params, dict) else {}


def _coverage_text(fields: dict[str, Any]) -> str:
    from ..core.evaluation.result import Coverage

    try:
        return str(Coverage(**fields))
    except TypeError:  # fields of another version
        return ", ".join(f"{k}={v}" for k, v in fields.items())


def _segment_levels(df: pd.DataFrame, last: Sequence[str]) -> list[Hashable]:
    if not isinstance(df.index, pd.MultiIndex):
        return []
    return [n for n in df.index.names if n not in last]


def _positions(df: pd.DataFrame, segs: list[Hashable]) -> list[int]:
    """The index levels of ``segs`` by position (a tuple name would read as several levels)."""
    names = list(df.index.names)
    return [names.index(s) for s in segs]


def _segment_sizes(df: pd.DataFrame, segs: list[Hashable]) -> str:
    """``(device: desktop 894, mobile 1,825)`` from a report's ``n_groups`` per segment."""
    if not segs or "n_groups" not in df.columns:
        return ""
    firsts = df["n_groups"].groupby(level=_positions(df, segs), sort=False).first()
    if len(firsts) > _MAX_SEGMENTS:
        return f" in {len(firsts):,} segments"
    keys = [" ".join(map(str, k)) if isinstance(k, tuple) else str(k) for k in firsts.index]
    sizes = ", ".join(f"{k} {int(v):,}" for k, v in zip(keys, firsts.to_numpy()))
    return f" ({', '.join(map(str, segs))}: {sizes})"


def _coverage_line(df: pd.DataFrame, segs: list[Hashable], per_group: bool = False) -> str:
    """Rows and groups, the segment sizes, and what the AUC-type metrics leave out."""
    covs = _coverages(df)
    rows = _rows_bit(df, covs, segs)
    bits = [rows] if rows else []
    for name, c in covs.items():
        if not c.get("grouped", True) or c.get("n_empty") or int(c.get("n_used", 0)) == int(c.get("n_groups", 0)):
            continue
        bits.append(_skipped_bit(name, c, per_group))
        if float(c.get("rows_filtered_share", 0)) > 0.1 or float(c.get("positives_filtered_share", 0)) > 0.1:
            bits.append(
                f"the filters drop {float(c['rows_filtered_share']):.1%} of rows for {name} "
                "(more than 10%: check the data before raising a threshold)"
            )
    dropped = max([int(c.get("n_dropped", 0)) for c in covs.values()] or [0])
    if dropped:
        bits.append(f"{_count(dropped, 'row')} with missing values dropped{_dropped_where(df)}")
    return ("coverage: " + "; ".join(bits)) if bits else ""


def _dropped_where(df: pd.DataFrame) -> str:
    """Where a ``by=`` table's dropped rows were, beyond each segment's own count: the rows with
    no segment value (in no segment) and the segments with no row left (not in the table).

    >>> t = pd.DataFrame(); t.attrs["dropped"] = {"by": ["device"], "total": 80, "no_segment": 65,
    ...                                           "gone": [[["tv"], 12]]}
    >>> _dropped_where(t)
    ' (65 with no device; 12 were every row of device tv, which is not in the table)'
    """
    info = df.attrs.get("dropped")
    if not isinstance(info, dict):
        return ""
    by = [str(b) for b in info.get("by", [])]
    bits = []
    if int(info.get("no_segment", 0)):
        bits.append(f"{int(info['no_segment']):,} with no {' or '.join(by)}")
    gone = info.get("gone") or []
    if gone:
        n = sum(int(g[1]) for g in gone)
        if len(gone) <= _MAX_SEGMENTS:
            names = ", ".join(" ".join(map(str, g[0])) for g in gone)
            where = f"of {'/'.join(by)} {names}, which {'is' if len(gone) == 1 else 'are'} not in the table"
        else:
            where = f"of {len(gone):,} segments, which are not in the table"
        bits.append(f"{n:,} {'was' if n == 1 else 'were'} every row {where}")
    return f" ({'; '.join(bits)})" if bits else ""


def _rows_bit(df: pd.DataFrame, covs: dict[str, dict[str, Any]], segs: list[Hashable]) -> str:
    """Rows and groups (with the segment sizes), or rows pooled without groups ("" when none)."""
    grouped = [c for c in covs.values() if c.get("grouped", True)]
    pooled = [c for c in covs.values() if not c.get("grouped", True)]
    n_rows = max([int(c.get("n_rows", 0)) for c in covs.values()] or [0])
    if not covs and "n_rows" in df.columns and len(df):
        n_rows = int(df["n_rows"].iloc[0])
    if grouped:
        n_groups = int(grouped[0].get("n_groups", 0))
        return f"{_count(n_rows, 'row')} in {_count(n_groups, 'group')}{_segment_sizes(df, segs)}"
    if n_rows:
        return f"{_count(n_rows, 'row')}, pooled (no groups)" if pooled else _count(n_rows, "row")
    return ""


def _skipped_bit(name: str, c: dict[str, Any], per_group: bool) -> str:
    """The groups a metric leaves out, and why (one class only, filtered out, zero sample weight)."""
    one_class = int(c.get("n_only_pos", 0)) + int(c.get("n_only_neg", 0))
    reasons = [
        (n, what)
        for n, what in (
            (one_class, "with one class only"),
            (int(c.get("n_filtered", 0) or 0), "filtered out"),
            (int(c.get("n_zero_weight", 0) or 0), "with zero sample weight"),
        )
        if n
    ]
    share = c.get("rows_skipped_share")
    held = f" ({float(share):.1%} of rows)" if share is not None and not is_missing(share) else ""
    if per_group:
        why = ", ".join(f"{_count(n, 'group')} {what}" for n, what in reasons)
        return f"{name} is NaN for the {why}{held}"
    if reasons:
        why = " and ".join(f"{n:,} {what}" for n, what in reasons)
        verb = "is" if len(reasons) == 1 and reasons[0][0] == 1 else "are"
        return f"{name} uses {_count(c['n_used'], 'group')}; {why} {verb} skipped{held}"
    return f"{name} uses {int(c['n_used']):,} of {_count(c.get('n_groups', 0), 'group')}{held}"


def _empty_line(df: pd.DataFrame, per_group: bool = False) -> str:
    """Where ``empty`` changes a number: how many groups have no relevant row, what they
    count for here, and what the other tools do."""
    covs, params = _coverages(df), _params(df)
    by_rule: dict[tuple[str, int, int, bool], list[str]] = {}
    for name, p in params.items():
        c = covs.get(name, {})
        n_empty = int(c.get("n_empty", 0) or 0)
        if "empty" not in p or not n_empty:
            continue
        by_rule.setdefault((str(p["empty"]), n_empty, int(c.get("n_groups", 0)), "clip" in p), []).append(name)
    lines = []
    for (rule, n_empty, n_groups, ips), names in by_rule.items():
        share = f" ({n_empty / n_groups:.0%})" if n_groups else ""
        head = f"{', '.join(names)}: {n_empty:,} of {n_groups:,} groups{share} have no relevant row"
        if ips:  # the counterfactual metrics: the estimate needs the groups without a click
            lines.append(f"{head} and score 0 (empty='zero', which the IPS estimate needs)" if rule != "skip" else
                         f"{head} and are left out (empty='skip': conditioned on a click, which the IPS weights "
                         "do not correct)")
        elif rule == "skip":
            what = "NaN here" if per_group else "left out"
            lines.append(f"{head} and are {what} (empty='skip', as ranx; trec_eval scores them 0: empty='zero')")
        else:
            lines.append(f"{head} and score 0 (empty='zero', as trec_eval; ranx skips them: empty='skip')")
    return "; ".join(lines)


def _gain_line(df: pd.DataFrame) -> str:
    """With graded labels (a label neither 0 nor 1), the gain NDCG used, where the other tools
    differ: exp2 (2^label - 1, this library's default) against the label itself."""
    if not int(df.attrs.get("graded_rows", 0) or 0):
        return ""
    names = [n for n, p in _params(df).items() if p.get("gain") == "exp2"]
    if not names:
        return ""
    return (f"{', '.join(names)}: graded labels gain 2^label - 1 (gain='exp2'); sklearn, ranx and "
            "trec_eval gain the label itself: gain='linear'")


def adjusted_p(df: pd.DataFrame) -> tuple[str | None, str]:
    """The column that decides significance, and how it was adjusted (``"Holm"``, ...).

    Works with ``p_holm`` / ``p_bh`` (compare's ``adjust=``, named in ``attrs["p_adjusted"]``)
    and with ``p_adj`` + ``attrs["adjust"]``."""
    adjust = df.attrs.get("adjust")
    named = df.attrs.get("p_adjusted")
    first = (named,) if isinstance(named, str) else ()
    for col in (*first, "p_adj", "p_adjusted", "p_holm", "p_bh"):
        if col in df.columns:
            name = str(adjust) if isinstance(adjust, str) else {"p_holm": "holm", "p_bh": "bh"}.get(col, "adjusted")
            if name == "none":
                return col, "unadjusted"
            return col, _ADJUST_NAMES.get(name.lower(), name)
    return ("p_value" if "p_value" in df.columns else None), "unadjusted"


def _family(df: pd.DataFrame) -> str:
    family = df.attrs.get("family")
    n = df.attrs.get("n_rows_table", len(df))  # a selection of rows: the family is the whole table's
    if family == "metric":  # compare(family="metric"): each metric's rows are one family
        return "each metric's comparisons"
    if isinstance(family, str) and family and family != "table":
        return family
    return f"the {_count(n, 'comparison')}"


def _against(df: pd.DataFrame) -> str:
    base = df.attrs.get("baseline")
    return "the row's baseline" if base is None else str(base)


def _interval_line(df: pd.DataFrame) -> str:
    """Which intervals a comparison shows, when the marks are adjusted: Bonferroni-adjusted over
    the marks' family, or each at its own level (then an interval can exclude 0 without a mark)."""
    if not _ci_level(df) or not {"ci_low", "ci_high"} <= set(df.columns):
        return ""
    _, how = adjusted_p(df)
    n = df.attrs.get("n_rows_table", len(df))
    if df.attrs.get("ci_adjust") == "bonferroni":
        return f"intervals: {_ci_level(df)} simultaneous (Bonferroni over {_family(df)})"
    if how == "unadjusted" or n <= 1:
        return ""
    return f"intervals: {_ci_level(df)} each, not adjusted (ci_adjust='bonferroni': simultaneous)"


def _significance_line(df: pd.DataFrame, view: str) -> str:
    if "significant" not in df.columns:
        return ""
    col, how = adjusted_p(df)
    alpha = df.attrs.get("alpha", 0.05)
    adjusted = how != "unadjusted"
    over = f" over {_family(df)}" if adjusted else ""
    name = f"{how}-adjusted p" if adjusted else "p"
    sides = _sides(df)
    if view == "compare":
        return f"significant: {col} < {alpha} ({how}{over}): {UP} better / {DOWN} worse than {_against(df)}{sides}"
    return f"{UP} / {DOWN}: significantly better / worse than {_against(df)}: {name} < {alpha}{over}{sides}"


def _sides(df: pd.DataFrame) -> str:
    """``; lower is better: logloss; closer to 1: pcoc`` for the metrics where higher is not better."""
    by_side: dict[str, list[str]] = {}
    for name, side in (df.attrs.get("direction") or {}).items():
        if side != "higher":
            by_side.setdefault(side, []).append(str(name))
    words = {"lower": "lower is better", "closer to 1": "closer to 1 is better"}
    return "".join(f"; {words.get(side, side)}: {', '.join(names)}" for side, names in by_side.items())


def _ci_level(df: pd.DataFrame) -> str:
    ci = df.attrs.get("ci")
    level = ci.get("level", ci.get("ci")) if isinstance(ci, dict) else ci
    return f"{float(level):.0%}" if isinstance(level, (int, float)) and not isinstance(level, bool) else ""


def ci_head(df: pd.DataFrame) -> str:
    """The compact view's label of a difference with its interval: ``diff [95% CI]``."""
    level = _ci_level(df)
    return f"diff [{level} CI]" if level else "diff [CI]"


def _seed(attrs: dict[str, Any], ci: dict[str, Any] | None = None) -> str:
    src = ci if ci is not None else attrs
    bits = [f"{k}={src[k]}" for k in ("n_boot", "seed") if k in src]
    return ", ".join(bits)


def _report_ci_line(df: pd.DataFrame) -> str:
    ci = df.attrs.get("ci")
    if not isinstance(ci, dict):
        return ""
    method = ci.get("method", "bootstrap interval")
    extra = [f"{k}={v}" for k, v in ci.items() if k not in ("level", "ci", "method")]
    return f"[low, high]: {_ci_level(df)} interval, {method}" + (f"; {', '.join(extra)}" if extra else "")


def _report_level_line(df: pd.DataFrame) -> str:
    """The short line that says which intervals the cells show, when they show any (and which
    metrics have none, and why)."""
    level = _ci_level(df)
    shown = any(str(c).endswith(("_low", "_high")) for c in df.columns)
    if not (level and shown):
        return ""
    from ..core.metrics.registry import parse_metric

    none: dict[str, list[str]] = {}
    for name in _params(df):
        try:
            why = parse_metric(name).info.reading.no_interval
        except (KeyError, ValueError):  # a table whose metric names are not the registry's
            continue
        if why:
            none.setdefault(why, []).append(name)
    extra = "".join(f"; {', '.join(names)}: none ({why})" for why, names in none.items())
    return f"[low, high]: {level} confidence intervals{extra}"


def _compare_columns_line(df: pd.DataFrame, view: str) -> str:
    method = df.attrs.get("ci_method", "")
    seed = _seed(df.attrs)  # type: ignore[arg-type]  # stubs narrower than runtime
    level = _ci_level(df)
    base = _against(df)
    relative = "" if df.attrs.get("lift") else f"; lift: diff / {base}'s value"
    if view == "compact":
        text = f"{ci_head(df)}: value - {base}'s value, {level} interval: {method}{relative}"
    elif view == "summary":
        return ""
    else:
        lift = "lift = diff / baseline_value; " if not df.attrs.get("lift") else ""
        text = (
            f"diff = value - baseline_value; {lift}ci_low, ci_high: {level} interval of diff, "
            f"{method}; groups_used: groups that both models' metric uses (auc: every group, rows pooled)"
        )
    return text + (f"; {seed}" if seed else "")


def lift_line(df: pd.DataFrame, view: str) -> str:
    """``lift="relaimpr"``: what the lift of each metric is, where its interval comes from, and
    where RelaImpr is undefined (a baseline at most 0.5)."""
    kinds = df.attrs.get("lift")
    if not isinstance(kinds, dict) or not kinds:
        return ""
    base = _against(df)
    rel = [m for m, k in kinds.items() if k == "relaimpr"]
    plain = [m for m, k in kinds.items() if k != "relaimpr"]
    parts = []
    if rel:
        parts.append(f"RelaImpr = (value - 0.5) / ({base}'s value - 0.5) - 1 ({', '.join(rel)})")
    if plain:
        parts.append(f"diff / {base}'s value ({', '.join(plain)})")
    head = "(%)" if view == "summary" else "lift"
    text = f"{head}: " + "; ".join(parts)
    if view != "summary":
        text += f"; its {_ci_level(df)} interval: the lift of each paired bootstrap replicate"
        tests = df.attrs.get("test", {})
        if isinstance(tests, dict) and any("DeLong" in str(tests.get(m, "")) for m in rel):
            text += " (clustered DeLong: the delta method)"
    undefined, no_interval = _undefined_relaimpr(df, rel)
    if undefined:
        text += f"; RelaImpr is undefined (NaN) where the baseline's value is at most 0.5: {undefined}"
    if no_interval and view != "summary":
        text += f"; no interval where a replicate's baseline is at most 0.5: {no_interval}"
    return text


def _undefined_relaimpr(df: pd.DataFrame, rel: list[str]) -> tuple[str, str]:
    """The rows whose RelaImpr is undefined, and those whose interval is (a replicate's baseline
    at most 0.5), each as one string."""
    if "baseline_value" not in df.columns or "metric" not in df.index.names:
        return "", ""
    metric = df.index.get_level_values("metric").astype(str)
    mine = np.isin(metric, rel)
    base = pd.to_numeric(df["baseline_value"], errors="coerce").to_numpy()
    bad = mine & ~(base > 0.5)
    lost = mine & (base > 0.5) & np.isfinite(pd.to_numeric(df["lift"], errors="coerce").to_numpy())
    if "lift_low" in df.columns:
        lost &= np.isnan(pd.to_numeric(df["lift_low"], errors="coerce").to_numpy())
    else:
        lost &= False

    def names(rows: np.ndarray) -> str:
        return ", ".join(dict.fromkeys(" ".join(map(str, k)) if isinstance(k, tuple) else str(k) for k in df.index[rows]))

    return names(bad), names(lost)


def _tests_line(df: pd.DataFrame) -> str:
    tests = df.attrs.get("test")
    if isinstance(tests, dict) and tests:
        by_test: dict[str, list[str]] = {}
        for metric, test in tests.items():
            by_test.setdefault(str(test), []).append(str(metric))
        return "tests: " + "; ".join(f"{', '.join(m)}: {t}" for t, m in by_test.items())
    if isinstance(tests, str) and tests:
        return f"tests: {tests}"
    return ""


def _metric_coverage_lines(df: pd.DataFrame) -> list[str]:
    """Each distinct coverage of the metrics, in full (why groups were skipped, their share)."""
    by_text: dict[str, list[str]] = {}
    for name, fields in _coverages(df).items():
        by_text.setdefault(_coverage_text(fields), []).append(name)
    return [f"coverage of {', '.join(names)}: {text}" for text, names in by_text.items()]


def _segments_line(df: pd.DataFrame, segs: list[Hashable]) -> str:
    """A report's coverage columns per segment, once per segment (not on every model row)."""
    cols = [c for c in ("n_rows", "n_groups", "gauc_groups_used", "gauc_rows_skipped", "groups_no_relevant",
                        "rows_dropped") if c in df.columns]
    if not segs or not cols:
        return ""
    firsts = df[cols].groupby(level=_positions(df, segs), sort=False).first()
    parts = []
    for key, row in firsts.iterrows():
        label = " ".join(map(str, key)) if isinstance(key, tuple) else str(key)
        parts.append(f"{label}: {coverage_sentence(row.to_dict())}")
    return f"by {', '.join(map(str, segs))}: " + "; ".join(parts)


#: Why a pooled number over a segment's rows is NaN, for the metrics whose registry entry gives no
#: reason of its own (global AUC: one class only).
_POOLED_NAN = {"auc": "one class only: no (relevant, non-relevant) pair"}


def _segment_nan_line(df: pd.DataFrame, segs: list[Hashable]) -> str:
    """The segments where a metric is NaN, and why (a segment of one class: AUC, NE, PCOC), for a
    report by segment: the whole table's NaN warns, a segment's is named here."""
    from ..core.metrics.registry import nan_reason

    if not segs or not isinstance(df.index, pd.MultiIndex):
        return ""
    keys = list(zip(*(df.index.get_level_values(i) for i in _positions(df, segs))))
    parts = []
    for metric in _params(df):
        if metric not in df.columns:
            continue
        nan = np.isnan(df[metric].to_numpy(dtype=float))
        where = list(dict.fromkeys(" ".join(map(str, k)) for k, n in zip(keys, nan) if n))
        why = _POOLED_NAN.get(metric) or nan_reason(metric)
        if where and why:
            shown = ", ".join(where[:3]) + (f" and {len(where) - 3:,} more" if len(where) > 3 else "")
            parts.append(f"{metric} in {shown}: {why}")
    return ("NaN: " + "; ".join(parts)) if parts else ""


def _choices_line(df: pd.DataFrame) -> str:
    params = _params(df)
    return ("choices: " + describe_params(params)) if params else ""


def _disagree_line(df: pd.DataFrame) -> str:
    """Rows of a comparison whose interval (at level 1 - alpha, unadjusted) and unadjusted p-value
    tell different stories: few groups, where the percentile interval is the less reliable of
    the two (the marks follow the test)."""
    need = {"ci_low", "ci_high", "p_value"}
    level, alpha = _ci_level(df), df.attrs.get("alpha", 0.05)
    if not need <= set(df.columns) or df.attrs.get("ci_adjust", "none") != "none":
        return ""
    if not level or abs(float(level.rstrip("%")) / 100 - (1 - float(alpha))) > 1e-9:
        return ""
    lo, hi = df["ci_low"].to_numpy(dtype=float), df["ci_high"].to_numpy(dtype=float)
    p = df["p_value"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        apart = (lo > 0) | (hi < 0)
        n = int(np.sum(np.isfinite(p) & np.isfinite(lo) & (apart != (p < alpha))))
    if not n:
        return ""
    return (f"on {_count(n, 'row')} the {level} interval and p < {alpha} disagree: few groups differ there, where "
            "the bootstrap interval is the less reliable of the two (the marks follow the test)")


def _few_groups_line(df: pd.DataFrame, kind: str) -> str:
    """Why values of a metric that uses fewer than 2 groups have no interval (nor, in a
    comparison, a bootstrap p-value): the bootstrap resamples groups, one is no sample."""
    n = int(df.attrs.get("few_groups", 0) or 0)
    if not n:
        return ""
    if kind == "compare":
        return (f"{_count(n, 'row')} with fewer than 2 groups used: no interval or bootstrap p-value "
                "(the bootstrap resamples groups)")
    return f"{_count(n, 'value')} from fewer than 2 groups: no interval (the bootstrap resamples groups)"


def footer_for(df: pd.DataFrame, view: str) -> Footer:
    """The footer of ``df`` shown as ``view``: ``"report"``, ``"compare"``, ``"per_group"``,
    ``"compact"`` (of a report or a comparison), ``"summary"`` or ``"plain"``."""
    kind = df.attrs.get("table")
    if kind == "view" or (kind not in ("report", "compare", "per_group") and "footer" in df.attrs):
        # a view, or another table that wrote its own footer lines (propensities, launch agreement)
        short = [str(s) for s in df.attrs.get("footer_short", df.attrs.get("footer", []))]
        every = [str(s) for s in df.attrs.get("footer", [])]
        return Footer(short, every[len(short):] if every[: len(short)] == short else every)
    if kind not in ("report", "compare", "per_group"):
        return Footer()
    if kind == "per_group":
        return Footer(
            [_coverage_line(df, [], per_group=True), _empty_line(df, per_group=True)],
            [*_metric_coverage_lines(df), _choices_line(df)],
        )
    if kind == "report":
        segs = _segment_levels(df, ("model",))
        short = [_report_level_line(df), _few_groups_line(df, "report"), _coverage_line(df, segs), _empty_line(df),
                 _gain_line(df)]
        details = [_segments_line(df, segs), _segment_nan_line(df, segs), _report_ci_line(df),
                   *_metric_coverage_lines(df), _choices_line(df)]
        if view == "compact" and df.attrs.get("_vs"):
            details.insert(0, str(df.attrs["_vs"]))
        return Footer(short, details)
    # compare: what significant means first, then coverage, then the empty rule
    segs = _segment_levels(df, ("model", "metric", "baseline"))
    sig, intervals = _significance_line(df, view), (_interval_line(df) if view != "summary" else "")
    head = f"{sig}; {intervals}" if sig and intervals else (sig or intervals)  # one item: what a mark and a bar mean
    short = [head, lift_line(df, view), _few_groups_line(df, "compare"), _coverage_line(df, segs), _empty_line(df),
             _gain_line(df)]
    details = [_disagree_line(df) if view == "compare" else "", _compare_columns_line(df, view), _tests_line(df),
               *_metric_coverage_lines(df), _choices_line(df)]
    return Footer(short, details)
