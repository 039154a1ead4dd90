"""Command line, stage 2: the commands ``eval``, ``metrics`` and ``demo``.

``eval`` turns the parsed options into one call of the library (:func:`~pandas_rankeval.report`,
:func:`~pandas_rankeval.compare` or :func:`~pandas_rankeval.per_group`) on the table that
:mod:`.reading` read, and writes the result through :mod:`.output`. The metric names of
``--metrics`` and ``--k`` are resolved here (:func:`resolve_metrics`).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from .. import display as _display
from .common import DEFAULT_K, PROG, CLIError, _one_line, command_lines, metric_pattern, wrap
from .output import _output_format, _warnings_to_stderr, as_flags
from .reading import _input_format, _require_pyarrow, check_values, read_table, read_trec_files


def resolve_metrics(names: Sequence[str], k: int | None) -> list[str]:
    """Split comma-separated names and give a cutoff to the names written without ``@K``.

    ``precision``, ``recall`` and ``hit_rate`` need a cutoff: they get ``k`` (default 10).
    ``mrr``, ``ndcg`` and ``map`` take the whole list unless ``k`` is given explicitly.
    """
    from pandas_rankeval.core.metrics.registry import METRICS, parse_metric

    out: list[str] = []
    for item in names:
        for raw in item.split(","):
            name = raw.strip()
            if not name:
                continue
            base = name.lower()
            info = METRICS.get(base)
            if info is not None and "@" not in base and info.param.kind == "cutoff":
                if info.param.presence == "required":
                    name = f"{base}@{DEFAULT_K if k is None else k}"
                elif info.param.presence == "optional" and k is not None:
                    name = f"{base}@{k}"
            try:
                out.append(parse_metric(name).name)
            except ValueError as exc:
                raise CLIError(str(exc)) from None
    if not out:
        raise CLIError("give at least one metric, such as --metrics auc gauc ndcg@10")
    return list(dict.fromkeys(out))


def _want_progress(flag: bool | None) -> bool:
    """--progress / --no-progress, else a bar only when stderr is a terminal (and tqdm is there)."""
    if flag is False:
        return False
    try:
        import tqdm  # noqa: F401
    except ImportError:
        if flag:
            raise CLIError(
                "--progress needs the tqdm package: pip install tqdm (or pip install 'pandas_rankeval[progress]')"
            ) from None
        return False
    return True if flag else bool(getattr(sys.stderr, "isatty", lambda: False)())


_COMPARE_ONLY = ("method", "alpha", "adjust", "family", "ci_adjust", "lift")
_LIBRARY_OPTIONS = ("ties", "tiebreak", "threshold", "nan_policy", "empty", "gain", "min_size", "min_pos", "min_neg",
                    "auc_method", "ci_method", "position", "clip", "snips")


@dataclass
class _EvalCall:
    """What ``eval``'s checks decided: the columns to read, how to read them, what to call."""

    metrics: list[str]
    group: list[Hashable]
    scores: list[Hashable]
    by: list[Hashable]
    comparing: bool
    propensity: Any
    columns: list[Hashable]
    text_columns: list[Hashable]
    flags: dict[Hashable, str]
    fmt: str
    sep: str | None
    label: Hashable = None
    #: TREC run files read with their qrels (--trec-run): the scores are the runs, known once read
    trec: bool = False
    #: retrieved= of the library call: --retrieved, or each run's column (--trec-run)
    retrieved: Any = None
    #: the input as the output names it (the file, or the runs and qrels)
    source: str = ""


def _eval(args: argparse.Namespace) -> int:
    """``eval``: check the options, read the table, call the library, write the result."""
    call = _check_eval(args)
    started = time.perf_counter()
    df = _read_eval_table(args, call)
    table = _call_library(args, call, df, started)
    return _write_result(args, call.fmt, table, call.source)


def _check_scores(args: argparse.Namespace, scores: list[Hashable]) -> list[Hashable]:
    """--baseline / --all-pairs against the --score columns; the baseline leads the list."""
    if args.baseline is not None and args.all_pairs:
        raise CLIError("--baseline and --all-pairs exclude each other: pick one baseline, or compare every pair")
    if args.baseline is not None:
        if args.baseline not in scores:
            scores = [args.baseline, *scores]
        if len(scores) < 2:
            raise CLIError("--baseline needs at least one other --score column to compare with it")
    if args.all_pairs and len(scores) < 2:
        raise CLIError(f"--all-pairs needs at least two --score columns; got {len(scores)}")
    return scores


def _check_view(args: argparse.Namespace, comparing: bool) -> None:
    """--view against the other options, and --output's directory."""
    if args.view == "summary" and not comparing:
        raise CLIError(
            "--view summary needs --baseline or --all-pairs (a comparison); for a report use --view compact or full"
        )
    if args.view == "groups":
        used = [opt for opt, value in (("--baseline", args.baseline), ("--all-pairs", args.all_pairs), ("--by", args.by),
                                       ("--ci", args.ci)) if value]
        if used:
            raise CLIError(f"--view groups shows one row per group; {', '.join(used)} do not apply to it")
    if args.output:
        parent = Path(args.output).resolve().parent
        if not parent.is_dir():
            raise CLIError(f"cannot write {args.output}: the directory {parent} does not exist")
    if not comparing and args.view != "groups":
        for name in _COMPARE_ONLY:
            if getattr(args, name) is not None:
                raise CLIError(f"--{name} applies to --baseline / --all-pairs comparisons only")


def _column_flags(args: argparse.Namespace, group: list[Hashable], scores: list[Hashable], by: list[Hashable],
                  propensity: Any) -> dict[Hashable, str]:
    """Each column read -> the option(s) that named it, for the reader's messages."""
    flags: dict[Hashable, str] = {}
    for flag, names in (("--group", group), ("--label", [args.label]), ("--score", scores), ("--by", by),
                        ("--tiebreak", [args.tiebreak] if args.tiebreak is not None else []),
                        ("--retrieved", [args.retrieved] if args.retrieved is not None else []),
                        ("--position", [args.position] if args.position is not None else []),
                        ("--propensity", [propensity] if isinstance(propensity, str) else [])):
        for name in names:  # a column named by two options: both, as given
            flags[name] = f"{flags[name]}/{flag}" if name in flags and flag not in flags[name] else flags.get(name, flag)
    if args.baseline is not None:
        flags[args.baseline] = "--baseline" if args.baseline not in args.score else flags[args.baseline]
    return flags


def _weight_column(weight: Any) -> list[Hashable]:
    """--weight as a column to read: none when it names a weighting (``uniform``...)."""
    from pandas_rankeval.core.inputs.options import WEIGHT_NAMES

    return [weight] if weight is not None and weight not in WEIGHT_NAMES else []


_TREC_ONLY = (("--qrels", "qrels"), ("--depth", "depth"), ("--complete", "complete"), ("--judged-only", "judged_only"))
#: Options that name the table's columns or how to read it: the TREC reader decides them.
_NOT_WITH_TREC = (("FILE", "file"), ("--group", "group"), ("--label", "label"), ("--retrieved", "retrieved"),
                  ("--sep", "sep"))


def _check_input(args: argparse.Namespace) -> None:
    """A table file with its columns, or TREC runs with their qrels: the options of one, not of
    both (argparse cannot require --group only without --trec-run: the same words as its own)."""
    if args.trec_run:
        used = [flag for flag, name in _NOT_WITH_TREC if getattr(args, name)]
        if used:
            raise CLIError(
                f"{', '.join(used)} do not apply to --trec-run: the TREC table's groups are qid, its label "
                "relevance and its scores the runs (give --score RUN ... to pick runs)"
            )
        if args.input_format != "auto":
            raise CLIError("--input-format does not apply to --trec-run: run and qrels files are TREC text")
        if args.tiebreak is not None:
            raise CLIError("--tiebreak does not apply to --trec-run: pass --trec-ties docno for trec_eval's tie-break")
        if not args.qrels:
            raise CLIError(f"--trec-run needs --qrels QRELS, the judgments of the runs (see '{PROG} eval --help')")
        return
    trec_only = [flag for flag, name in _TREC_ONLY if getattr(args, name)]
    if args.trec_ties != "expected":
        trec_only.append("--trec-ties")
    if trec_only:
        raise CLIError(f"{', '.join(trec_only)} appl{'ies' if len(trec_only) == 1 else 'y'} to --trec-run only")
    group = args.group or (_pooled_only(args) and getattr(args, "view", None) != "groups")
    missing = [flag for flag, value in (("FILE", args.file), ("--group/-g", group), ("--label/-l", args.label),
                                        ("--score/--scores/-s", args.score)) if not value]
    if missing:
        raise CLIError(
            f"the following arguments are required: {', '.join(missing)} (or --trec-run RUN ... --qrels QRELS) "
            f"(see '{PROG} eval --help')"
        )


def _pooled_only(args: argparse.Namespace) -> bool:
    """Every metric of the call pools rows or is global (logloss, ne, pcoc, ece with auc, xauc),
    one of them pooled: --group may be left out (every row its own group)."""
    from pandas_rankeval.core.metrics.registry import parse_metric

    try:
        infos = [parse_metric(n).info for n in resolve_metrics(args.metrics, args.k)]
    except (CLIError, ValueError, TypeError):
        return False  # _check_eval says what is wrong with the names
    return any(i.eligibility == "pooled" for i in infos) and not any(i.needs_group for i in infos)


def _check_eval(args: argparse.Namespace) -> _EvalCall:
    """Stage 1 of ``eval``: every option checked before the table is read."""
    _check_input(args)
    metrics = resolve_metrics(args.metrics, args.k)
    if args.trec_run:
        return _check_trec(args, metrics)
    group = list(args.group or [])
    by = list(args.by or [])
    if getattr(args, "overall", False) and not by:
        raise CLIError("--overall adds the whole table to a table by segment: give --by COL too")
    scores = _check_scores(args, list(dict.fromkeys(args.score)))
    comparing = args.baseline is not None or args.all_pairs
    weight_column = _weight_column(args.weight)
    columns: list[Hashable] = [*group, args.label, *scores, *by, *weight_column]
    for extra in (args.tiebreak, args.retrieved):
        if extra is not None and extra not in columns:
            columns.append(extra)
    propensity = _propensity(args.propensity)
    ips_columns = [c for c in (args.position, propensity) if isinstance(c, str)]
    columns += [c for c in ips_columns if c not in columns]
    fmt = _output_format(args)
    _check_view(args, comparing)
    # keys are read as text ("007" and "7" are two users) unless a column also plays a numeric
    # role (--label click --by click): then it is read as numbers, as that role needs
    numeric_roles = {args.label, *scores, *weight_column, *ips_columns}
    return _EvalCall(
        metrics=metrics, group=group, scores=scores, by=by, comparing=comparing, propensity=propensity,
        columns=columns, text_columns=[c for c in [*group, *by] if c not in numeric_roles],
        flags=_column_flags(args, group, scores, by, propensity), fmt=fmt,
        sep={"\\t": "\t", "tab": "\t"}.get(args.sep, args.sep) if args.sep else None,
        label=args.label, retrieved=args.retrieved, source=args.file,
    )


def _check_trec(args: argparse.Namespace, metrics: list[str]) -> _EvalCall:
    """``eval --trec-run``: the options of the TREC table (its columns are the reader's)."""
    if getattr(args, "overall", False) and not args.by:
        raise CLIError("--overall adds the whole table to a table by segment: give --by COL too")
    if args.by or args.weight not in (None, *_weight_names()) or args.position or args.propensity:
        raise CLIError(
            "--trec-run's table has the columns qid, docno, relevance, judged and one score and retrieved "
            "column per run: --by, a --weight column, --position and --propensity name other columns"
        )
    if args.baseline is not None and args.all_pairs:
        raise CLIError("--baseline and --all-pairs exclude each other: pick one baseline, or compare every pair")
    comparing = args.baseline is not None or args.all_pairs
    fmt = _output_format(args)
    _check_view(args, comparing)
    source = f"{' '.join(args.trec_run)} (qrels {args.qrels})"
    return _EvalCall(metrics=metrics, group=["qid"], scores=list(dict.fromkeys(args.score or [])), by=[],
                     comparing=comparing, propensity=None, columns=[], text_columns=[], flags={}, fmt=fmt, sep=None,
                     label="relevance", trec=True, source=source)


def _weight_names() -> tuple[str, ...]:
    from pandas_rankeval.core.inputs.options import WEIGHT_NAMES

    return tuple(WEIGHT_NAMES)


def _read_eval_table(args: argparse.Namespace, call: _EvalCall) -> pd.DataFrame:
    """Stage 2 of ``eval``: the table's columns, read and checked (labels, scores, weights)."""
    if call.trec:
        return _read_trec_table(args, call)
    df = read_table(
        args.file, call.columns, fmt=args.input_format, text_columns=call.text_columns, weight=args.weight,
        sep=call.sep, flags=call.flags,
    )
    roles: dict[Hashable, str] = {args.label: "--label", **{s: "--score" for s in call.scores}}
    for weight in _weight_column(args.weight):
        roles[weight] = "--weight"
    return check_values(df, roles, args.file, _input_format(args.file, args.input_format), args.nan_policy)


def _read_trec_table(args: argparse.Namespace, call: _EvalCall) -> pd.DataFrame:
    """``--trec-run``: the runs and their qrels as one table (pandas_rankeval.read_trec); the
    scores are the runs (--score picks some), each with its own retrieved column."""
    with _warnings_to_stderr():  # the reader's counts of unjudged queries, one line each
        table = read_trec_files(args.trec_run, args.qrels, depth=args.depth, complete=args.complete,
                                judged_only=args.judged_only, tiebreak="docno" if args.trec_ties == "docno" else None,
                                progress=_want_progress(args.progress))
    runs = list(table.attrs["runs"])
    for flag, names in (("--score", call.scores), ("--baseline", [args.baseline] if args.baseline else [])):
        unknown = [name for name in names if name not in runs]
        if unknown:
            raise CLIError(
                f"{flag} {unknown[0]!r} is not a run of --trec-run; the runs are {runs!r} "
                "(a run is named by its tag, else by its file name)"
            )
    call.scores = _check_scores(args, call.scores or runs)
    call.retrieved = {name: table.attrs["retrieved"][name] for name in call.scores}
    return table


def _library_options(args: argparse.Namespace, call: _EvalCall) -> dict[str, Any]:
    """The options every call of ``eval`` passes on as given (the ones the user set)."""
    options: dict[str, Any] = {}
    if args.weight is not None:
        options["weight"] = args.weight
    for name in _LIBRARY_OPTIONS:
        value = getattr(args, name)
        if value is not None:
            options[name] = value
    if call.propensity is not None:
        options["propensity"] = call.propensity
    if call.retrieved is not None:
        options["retrieved"] = call.retrieved
    return options


def _segments(args: argparse.Namespace, by: list[Hashable]) -> dict[str, Any]:
    """``by=`` and ``overall=`` when --by is given."""
    return {"by": by if len(by) > 1 else by[0], "overall": bool(args.overall)} if by else {}


def _call_library(args: argparse.Namespace, call: _EvalCall, df: pd.DataFrame, started: float) -> Any:
    """Stage 3 of ``eval``: one call of per_group, compare or report; its table (the view is the
    output's: :func:`_write_result`)."""
    import pandas_rankeval as pre

    group = (call.group if len(call.group) > 1 else call.group[0]) if call.group else None
    common: dict[str, Any] = dict(group=group, label=call.label,
                                  metrics=call.metrics, scores=call.scores)
    options = _library_options(args, call)
    progress = _want_progress(args.progress)
    if progress:  # long inputs: say what happened so far before the bar starts
        print(
            f"{PROG}: read {len(df):,} rows from {call.source} in {time.perf_counter() - started:.1f} s; evaluating",
            file=sys.stderr,
        )
    with _warnings_to_stderr():
        if args.view == "groups":
            grouped = {k: v for k, v in options.items() if k not in ("auc_method", "ci_method")}
            result = pre.per_group(df, **common, **grouped)
        elif call.comparing:
            kwargs: dict[str, Any] = dict(
                common, baseline=args.baseline, n_boot=args.n_boot, seed=args.seed, progress=progress
            )
            if args.ci is not None:
                kwargs["ci"] = args.ci
            options.update({name: getattr(args, name) for name in _COMPARE_ONLY if getattr(args, name) is not None})
            options.update(_segments(args, call.by))
            kwargs.update(_supported(pre.compare, options, "--baseline"))
            result = pre.compare(df, **kwargs)
        else:
            kwargs = dict(common, **options, **_segments(args, call.by))
            if args.ci is not None:
                kwargs.update(ci=args.ci, n_boot=args.n_boot, seed=args.seed, progress=progress)
            result = pre.report(df, **kwargs)
    return result


#: The formats that carry data (numbers, read back by a program): the table itself whatever
#: ``--view``, whose views (``compact``, ``summary``) are strings laid out for reading.
DATA_FORMATS = ("csv", "json", "parquet")
#: Where each format keeps the footer, for the line that confirms a written file.
_FOOTER_IN = {"csv": "footer as # lines", "json": 'footer in "footer"', "parquet": "footer in the metadata"}


def _view(args: argparse.Namespace, fmt: str, table: Any) -> Any:
    """What the output shows: ``--view compact`` / ``summary`` for the text formats (terminal,
    .txt, .md, .html); the table's numbers for the data formats."""
    if fmt in DATA_FORMATS or args.view not in ("compact", "summary"):
        return table
    return table.compact() if args.view == "compact" else table.summary()


def _written(args: argparse.Namespace, fmt: str, shown: Any) -> str:
    """The one stderr line that confirms --output: the path, its rows and columns, what they are."""
    rows, cols = _display.export_frame(shown).shape
    if fmt in DATA_FORMATS:
        what = f"numbers, {_FOOTER_IN[fmt]}"
        if args.view in ("compact", "summary"):
            what += f"; --view {args.view} applies to the text outputs: terminal, .txt, .md, .html"
    else:
        what = {"table": "text", "markdown": "Markdown", "html": "HTML"}.get(fmt, fmt)
        what += f", the {args.view} view" if args.view in ("compact", "summary") else ""
    return f"{PROG}: wrote {args.output}: {rows:,} rows x {cols:,} columns ({what})"


def _write_result(args: argparse.Namespace, fmt: str, table: Any, source: str) -> int:
    """Stage 4 of ``eval``: the result to stdout or to --output, in the chosen format; a file is
    confirmed on stderr in one line (:func:`_written`)."""
    shown = _view(args, fmt, table)
    try:
        if fmt == "parquet":
            _display.write_parquet(shown, args.output, spell=as_flags)
            print(_written(args, fmt, shown), file=sys.stderr)
            return 0
        width = args.width if args.width is not None else (0 if args.output else _display.terminal_width())
        # the terminal gets the lines that matter (--footer full: all); a file gets every line
        footer = ("full" if args.output else args.footer) if fmt == "table" else None
        text = as_flags(_display.render(shown, fmt, footer=footer, width=width, hint="(details: --footer full)",
                                        file=source))  # the footers' advice as flags
        if args.output:
            if fmt == "html":
                text = _display.html_document(text, title=f"{PROG}: {source}")
            Path(args.output).write_text(text, encoding="utf-8")
            print(_written(args, fmt, shown), file=sys.stderr)
        else:
            sys.stdout.write(text)
    except OSError as exc:
        raise CLIError(f"cannot write {args.output}: {exc.strerror or _one_line(exc)}") from None
    return 0


def _supported(func: Callable[..., Any], options: dict[str, Any], context: str) -> dict[str, Any]:
    """The options ``func`` accepts; an error naming the first option it does not."""
    import inspect

    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return options
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return options
    for name in options:
        if name not in params:
            raise CLIError(f"--{name.replace('_', '-')} is not supported with {context}")
    return options


def _metrics_command(args: argparse.Namespace) -> int:
    from pandas_rankeval.core.metrics.registry import METRICS

    width = max(len(f"{name}@K") for name in METRICS)
    for name, info in METRICS.items():
        shown = metric_pattern(info)
        if info.eligibility == "pooled":
            how = "probabilities, pooled over rows"
        else:
            how = f"default weight: {info.default_weight}" if info.grouped else "pooled over all rows, no group weight"
        # the name column, then the description wrapped under itself
        print(wrap(f"{info.summary} ({how})", indent=f"{shown:<{width + 2}} ", hang=" " * (width + 3)))
    print()
    required = "/".join(m.name for m in METRICS.values() if m.param.kind == "cutoff" and m.param.presence == "required")
    optional = ", ".join(m.name for m in METRICS.values() if m.param.kind == "cutoff" and m.param.presence == "optional")
    print(
        wrap(
            f"With --k K, {required} written without @K get K (default {DEFAULT_K}); "
            f"{optional} get K only when --k is given, else the whole list.",
            hang="",
        )
    )
    return 0


def _demo(args: argparse.Namespace | None = None) -> int:
    """Global AUC and GAUC of the two models of :func:`make_impressions`: the better AUC is
    the worse GAUC."""
    import pandas_rankeval
    from pandas_rankeval.datasets import make_impressions

    n_users = getattr(args, "n_users", 2000) or 2000
    seed = getattr(args, "seed", 0)
    df = make_impressions(n_users, seed=seed)
    save = getattr(args, "save", None)
    if save:
        try:
            if _input_format(save, "auto") == "parquet":
                _require_pyarrow()
                df.to_parquet(save, index=False)
            else:
                df.to_csv(save, index=False, sep="\t" if _input_format(save, "auto") == "tsv" else ",")
        except OSError as exc:
            raise CLIError(f"cannot write {save}: {exc.strerror or _one_line(exc)}") from None
    print(
        f"make_impressions(): {len(df):,} impressions of {df['user_id'].nunique():,} users, "
        f"click rate {df['click'].mean():.1%}"
    )
    rows = {}
    with warnings.catch_warnings():
        # The coverage is printed below; no need to warn about it as well.
        warnings.simplefilter("ignore", pandas_rankeval.CoverageWarning)
        for model in ("model_a", "model_b"):
            auc = pandas_rankeval.auc(df, label="click", score=model)
            gauc = pandas_rankeval.gauc(df, group="user_id", label="click", score=model)
            uniform = pandas_rankeval.gauc(df, group="user_id", label="click", score=model, weight="uniform")
            rows[model] = {"AUC": float(auc), "GAUC": float(gauc), "GAUC (uniform)": float(uniform)}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "model"
    print()
    print(table.round(4).to_string())
    print()
    # Which groups GAUC can use depends on the labels only, so it is the same for both models.
    print(wrap(f"GAUC coverage: {gauc.coverage}"))
    print()
    a, b = rows["model_a"], rows["model_b"]
    if a["AUC"] > b["AUC"] and a["GAUC"] < b["GAUC"]:
        print(
            wrap(
                f"AUC up, GAUC not: model_a has the higher global AUC ({a['AUC']:.3f} vs {b['AUC']:.3f}) "
                f"but the lower GAUC ({a['GAUC']:.3f} vs {b['GAUC']:.3f}).",
                hang="",
            )
        )
        print(
            wrap(
                "Global AUC pools every user's rows, so ranking heavy clickers above light ones counts; "
                "model_a learned which users click, model_b which items each user clicks. GAUC compares "
                "items within a user only, which is what a ranking shown to that user needs.",
                hang="",
            )
        )
    else:
        better = "model_a" if a["GAUC"] > b["GAUC"] else "model_b"
        print(f"Here global AUC and GAUC agree: {better} has the higher GAUC.")
    print()
    if save:
        print(f"Saved the table to {save}. Evaluate it with:")
        target = save
    else:
        print("Save the table with 'pandas-rankeval demo --save impressions.csv', then:")
        target = "impressions.csv"
    print(
        command_lines(
            f"{PROG} eval {target} --group user_id --label click --score model_a model_b "
            "--metrics auc gauc ndcg@10 --by activity"
        )
    )
    return 0


def _propensity(value: str | None) -> Any:
    """--propensity: a CSV file of propensities by position (as pre.propensities(...).to_csv()
    writes it), or a column of per-row propensities."""
    if value is None or not value.lower().endswith((".csv", ".tsv")) or not Path(value).is_file():
        return value
    import pandas as pd

    table = pd.read_csv(value, sep="\t" if value.lower().endswith(".tsv") else ",")
    if "propensity" not in table.columns:
        raise CLIError(f"--propensity {value}: the file needs a 'propensity' column; it has {list(table.columns)!r}")
    key = "position" if "position" in table.columns else table.columns[0]
    return table.set_index(key)["propensity"]
