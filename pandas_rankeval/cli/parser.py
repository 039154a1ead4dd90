"""Command line, stage 0: the argument parser (the options of ``eval``, ``metrics`` and ``demo``).

A usage error is one line (a :class:`~pandas_rankeval.cli.common.CLIError`, exit status 2); the
argparse types here give one-line errors for integers and levels.
"""

from __future__ import annotations

import argparse
import shutil
from collections.abc import Callable
from typing import Any

from .commands import _demo, _eval, _metrics_command
from pandas_rankeval.core.metrics.registry import DEFAULT_METRICS, METRICS

from .common import (
    DEFAULT_K,
    FORMATS,
    LINE_WIDTH,
    PROG,
    VIEWS,
    CLIError,
    command_lines,
    metric_pattern,
    wrap,
)


class _Help(argparse.HelpFormatter):
    """argparse's help, in lines of at most 80 characters however wide the terminal."""

    def __init__(self, prog: str, **kwargs: Any) -> None:
        kwargs.setdefault("width", min(shutil.get_terminal_size().columns, LINE_WIDTH) - 2)
        super().__init__(prog, **kwargs)


class _RawHelp(_Help, argparse.RawDescriptionHelpFormatter):
    """:class:`_Help` that keeps the description's and examples' own lines."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (raised, so that ``main`` returns 2), and the
    help is at most 80 characters wide."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Help)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> Any:  # type: ignore[override]
        raise CLIError(f"{message} (see '{self.prog} --help')")


def _int_at_least(low: int, wording: str) -> Callable[[str], int]:
    """An argparse type: an int >= ``low``, with a one-line error otherwise."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low:
            raise argparse.ArgumentTypeError(f"expected {wording}, got {text!r}")
        return value

    return parse


_positive_int = _int_at_least(1, "a positive integer")
_non_negative_int = _int_at_least(0, "an integer >= 0")


def _level(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a level in (0, 1) such as 0.95, got {text!r}") from None
    if 50 <= value < 100:  # --ci 95 means 0.95
        value /= 100
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a level in (0, 1) such as 0.95, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = _Parser(
        prog=PROG,
        description="Ranking metrics for pandas DataFrames: AUC, GAUC, MRR, NDCG, MAP, "
        "precision/recall/hit rate at k, exact under ties.",
        epilog=f"'{PROG} FILE ...' is short for '{PROG} eval FILE ...'.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="{eval,metrics,demo}", parser_class=_Parser)

    ev = commands.add_parser(
        "eval",
        help="evaluate score columns of a CSV or Parquet file",
        description=wrap(
            "Evaluate score columns of a CSV, TSV or Parquet file (one row per shown item), or TREC "
            "run files against their qrels (--trec-run ... --qrels ...). "
            "Give FILE first: --group, --score, --metrics and --by take several values.",
            hang="",
        ),
        epilog="Examples:\n"
        + "\n".join(
            command_lines(example)
            for example in (
                f"{PROG} eval data.csv --group user_id --label click --score model_a model_b",
                f"{PROG} eval data.parquet --group query --label rel --score bm25 --metrics ndcg@10 map precision --k 5",
                f"{PROG} eval data.csv --group user_id --label click --score new --baseline old --metrics gauc ndcg@10",
                f"{PROG} eval --trec-run bm25.run dense.run --qrels qrels.txt --metrics map ndcg@10 rprec --gain linear",
            )
        ),
        formatter_class=_RawHelp,
    )
    ev.add_argument("file", metavar="FILE", nargs="?", help="CSV (also .tsv, compressed), Parquet (.parquet, .pq; needs pyarrow), or - for CSV on stdin; none with --trec-run")
    # required unless --trec-run reads TREC files (checked by the eval command, as argparse words it)
    ev.add_argument("--group", "-g", nargs="+", metavar="COL", help="group column(s): user, query or session (required, except when every metric is logloss, ne, pcoc, ece, auc or xauc: every row is then its own group)")
    ev.add_argument("--label", "-l", metavar="COL", help="label column: click (0/1, bool) or graded relevance (required)")
    ev.add_argument("--score", "--scores", "-s", nargs="+", metavar="COL", help="score column(s), one per model; higher ranks first (required; with --trec-run: the runs to evaluate, default all)")
    ev.add_argument("--retrieved", metavar="COL", help="list metrics: a column of booleans (or 0/1); rows where it is false (judged documents a system did not retrieve) are never ranked but count in the group's relevant rows (recall, AP, rprec) and in NDCG's ideal DCG")
    ev.add_argument(
        "--metrics", "-m", nargs="+", default=list(DEFAULT_METRICS), metavar="NAME",
        help="metric names (space or comma separated): "
        + " ".join(metric_pattern(m) for m in METRICS.values()) + "; default: %(default)s",
    )
    ev.add_argument(
        "--k", "-k", type=_positive_int, default=None, metavar="K",
        help=f"cutoff of the metrics named without @K: precision/recall/hit_rate always (default {DEFAULT_K}); "
        "mrr/ndcg/map only when --k is given (else the whole list)",
    )
    ev.add_argument("--weight", "-w", metavar="W", help="group weight: count, clicks, log1p, uniform or a column (summed per group); default: count for gauc, uniform for list metrics")
    ev.add_argument("--by", nargs="+", metavar="COL", help="segment column(s), constant within a group: one row per segment and model")
    ev.add_argument("--overall", action="store_true", help="with --by: the whole table's rows too, as the segment (all)")
    ev.add_argument("--ci", type=_level, metavar="LEVEL", help="add bootstrap confidence intervals at this level (e.g. 0.95); with --baseline the default is 0.95")
    ev.add_argument("--n-boot", type=_positive_int, default=1000, metavar="N", help="bootstrap replicates (default %(default)s)")
    ev.add_argument("--seed", type=int, default=0, help="bootstrap seed (default %(default)s)")
    ev.add_argument("--baseline", metavar="COL", help="compare every other --score column with this one: differences, CIs, p-values")
    ev.add_argument("--all-pairs", action="store_true", help="compare every pair of --score columns (each later one against each earlier one), one family of tests")
    ev.add_argument("--method", choices=("auto", "randomization", "bootstrap"), help="with --baseline: the paired test (default auto: exact / analytic sign-flip p-values; randomization: Monte Carlo sign flips)")
    ev.add_argument("--adjust", choices=("holm", "bh", "none"), help="with --baseline: multiple-testing adjustment (default holm; bh: false discovery rate)")
    ev.add_argument("--family", choices=("table", "metric"), help="with --baseline: the family of the adjustment, the whole table (default) or each metric")
    ev.add_argument("--ci-adjust", dest="ci_adjust", choices=("none", "bonferroni"), help="with --baseline: bonferroni makes the intervals simultaneous over the family (default none: each at --ci)")
    ev.add_argument("--lift", choices=("relative", "relaimpr"), help="with --baseline: the lift column, diff / baseline (default relative) or RelaImpr on auc, gauc, uauc, wuauc, xauc, gxauc ((value - 0.5) / (baseline - 0.5) - 1, with its interval)")
    ev.add_argument("--auc-method", choices=("delong", "bootstrap"), help="interval and test of global auc: clustered DeLong (default) or the group bootstrap")
    ev.add_argument("--ci-method", choices=("percentile", "studentized"), help="bootstrap interval of the group metrics (default percentile)")
    ev.add_argument("--alpha", type=_level, metavar="A", help="with --baseline: level of the 'significant' column (default 0.05)")
    ev.add_argument("--ties", choices=("expected", "pessimistic", "optimistic"), help="how tied scores count (default expected)")
    ev.add_argument("--tiebreak", metavar="COL", help="column ordering rows with equal scores (ascending)")
    ev.add_argument("--threshold", type=float, help="a row is relevant when label >= THRESHOLD (default: label > 0)")
    ev.add_argument("--empty", choices=("zero", "skip", "error"), help="list metrics: groups with no relevant row (default zero)")
    ev.add_argument("--gain", choices=("exp2", "linear"), help="NDCG gain (default exp2)")
    ev.add_argument("--min-size", type=_non_negative_int, metavar="N", help="gauc: skip groups with fewer rows")
    ev.add_argument("--min-pos", type=_non_negative_int, metavar="N", help="gauc: skip groups with fewer positives")
    ev.add_argument("--min-neg", type=_non_negative_int, metavar="N", help="gauc: skip groups with fewer negatives")
    ev.add_argument("--nan-policy", choices=("raise", "omit"), help="missing values: raise (default) or omit their rows")
    ev.add_argument("--position", metavar="COL", help="ips_* metrics: column of each row's logged display position")
    ev.add_argument("--propensity", metavar="COL|FILE", help="ips_* metrics: a column of per-row propensities, or a CSV file of pre.propensities(...) (columns position, propensity)")
    ev.add_argument("--clip", type=float, metavar="P", help="ips_* metrics: a click weighs 1 / max(propensity, P) (default 0.01)")
    ev.add_argument("--snips", action="store_true", default=None, help="ips_* metrics: self-normalized (a mean per relevant row)")
    ev.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None,
        help="a progress bar on stderr for reading --trec-run files and for the bootstrap and the tests "
        "of --ci / --baseline (default: when stderr is a terminal and tqdm is installed)",
    )
    ev.add_argument(
        "--view", choices=VIEWS, default="full",
        help="full: the table (one row per model, or per model and metric with --baseline); compact: metrics "
        "as rows, models side by side; summary (with --baseline): models x metrics, ▲/▼ where significantly "
        "better/worse; groups: one row per group with each model's metrics, to join with your data "
        "(default %(default)s). compact and summary lay out text (terminal, .txt, .md, .html); csv, json "
        "and parquet always hold the table's numbers",
    )
    ev.add_argument(
        "--format", "-f", choices=FORMATS,
        help="output format (default table, or from the --output suffix); every format keeps the footer "
        "(coverage, significance, choices); csv writes it as '# ' lines: pd.read_csv(path, comment='#')",
    )
    ev.add_argument(
        "--footer", choices=("short", "full"), default="short",
        help="table format: the footer lines that matter (short, default) or every line (full); "
        "files always get every line",
    )
    ev.add_argument(
        "--width", type=_non_negative_int, metavar="N",
        help="table format: wrap at N columns, between models, never inside one "
        "(default: the terminal's width, COLUMNS, or 80; 0: no wrapping; files: no wrapping)",
    )
    ev.add_argument(
        "--output", "-o", metavar="PATH",
        help="write the result to PATH instead of stdout, in the format of its suffix: .txt, .csv, .json, "
        ".md, .html or .parquet (needs pyarrow); one line on stderr says what was written (rows x columns)",
    )
    ev.add_argument("--sep", metavar="CHAR", help="CSV field separator (default ',', a tab for .tsv; '\\t' or tab for a tab)")
    ev.add_argument("--input-format", choices=("auto", "csv", "tsv", "parquet"), default="auto", help="input format (default: from the file name)")
    trec = ev.add_argument_group(
        "TREC runs and qrels",
        wrap(  # the eval parser keeps descriptions as written: wrapped here, inside its indent
            "Instead of FILE: run files ('qid Q0 docno rank score tag' per line) and their qrels "
            "('qid iter docno rel'), read by pandas_rankeval.read_trec into one table (groups qid, label "
            "relevance, one score per run named by its tag, else its file name); the judged relevant "
            "documents a run missed count in recall, AP, rprec and NDCG's ideal DCG. --threshold is "
            "trec_eval's -l; --gain linear gives trec_eval's ndcg.",
            hang="", width=LINE_WIDTH - 4,
        ),
    )
    trec.add_argument("--trec-run", nargs="+", metavar="RUN", help="TREC run file(s), one model each")
    trec.add_argument("--qrels", metavar="QRELS", help="the TREC qrels file of --trec-run")
    trec.add_argument("--depth", type=_positive_int, metavar="M", help="trec_eval's -M: the first M documents of each query of each run")
    trec.add_argument("--complete", action="store_true", help="trec_eval's -c: every query of the qrels counts, 0 for a run that lacks it")
    trec.add_argument("--judged-only", action="store_true", help="trec_eval's -J: only the judged retrieved documents")
    trec.add_argument("--trec-ties", choices=("expected", "docno"), default="expected", help="expected (default): tied scores get the exact expected value; docno: trec_eval's tie-break (score, then docno descending), for its published numbers")
    ev.set_defaults(handler=_eval)

    mt = commands.add_parser("metrics", help="list the metric names", description="List the metric names.")
    mt.set_defaults(handler=_metrics_command)

    dm = commands.add_parser(
        "demo",
        help="global AUC vs GAUC on a synthetic impressions table",
        description="Global AUC vs GAUC of two models on make_impressions(): the better AUC is the worse GAUC.",
    )
    dm.add_argument("--save", metavar="PATH", help="also write the table (CSV, or Parquet for .parquet)")
    dm.add_argument("--n-users", type=_positive_int, default=2000, metavar="N", help="users (default %(default)s)")
    dm.add_argument("--seed", type=int, default=0, help="data seed (default %(default)s)")
    dm.set_defaults(handler=_demo)
    return parser
