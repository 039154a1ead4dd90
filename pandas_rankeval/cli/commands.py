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
from pathlib import Path
from typing import Any

import pandas as pd

from .. import display as _display
from .common import DEFAULT_K, PROG, CLIError, _one_line, command_lines, metric_pattern, wrap
from .output import _output_format, _warnings_to_stderr, as_flags
from .reading import _input_format, _require_pyarrow, check_values, read_table


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


def _eval(args: argparse.Namespace) -> int:
    import pandas_rankeval as pre

    metrics = resolve_metrics(args.metrics, args.k)
    group = list(args.group)
    scores = list(dict.fromkeys(args.score))
    by = list(args.by or [])
    if getattr(args, "overall", False) and not by:
        raise CLIError("--overall adds the whole table to a table by segment: give --by COL too")
    weight = args.weight
    from pandas_rankeval.core.inputs.options import WEIGHT_NAMES

    if args.baseline is not None and args.all_pairs:
        raise CLIError("--baseline and --all-pairs exclude each other: pick one baseline, or compare every pair")
    if args.baseline is not None:
        if args.baseline not in scores:
            scores = [args.baseline, *scores]
        if len(scores) < 2:
            raise CLIError("--baseline needs at least one other --score column to compare with it")
    if args.all_pairs and len(scores) < 2:
        raise CLIError(f"--all-pairs needs at least two --score columns; got {len(scores)}")
    comparing = args.baseline is not None or args.all_pairs
    columns: list[Hashable] = [*group, args.label, *scores, *by]
    if weight is not None and weight not in WEIGHT_NAMES:
        columns.append(weight)  # a column of per-row amounts summed per group
    if args.tiebreak is not None:
        columns.append(args.tiebreak)
    propensity = _propensity(args.propensity)
    ips_columns = [c for c in (args.position, propensity) if isinstance(c, str)]
    columns += [c for c in ips_columns if c not in columns]
    fmt = _output_format(args)
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
    # keys are read as text ("007" and "7" are two users) unless a column also plays a numeric
    # role (--label click --by click): then it is read as numbers, as that role needs
    numeric_roles = {args.label, *scores, *([weight] if weight is not None and weight not in WEIGHT_NAMES else []),
                     *ips_columns}
    text_columns = [c for c in [*group, *by] if c not in numeric_roles]
    started = time.perf_counter()
    sep = {"\\t": "\t", "tab": "\t"}.get(args.sep, args.sep) if args.sep else None
    flags: dict[Hashable, str] = {}
    for flag, names in (("--group", group), ("--label", [args.label]), ("--score", scores), ("--by", by),
                        ("--tiebreak", [args.tiebreak] if args.tiebreak is not None else []),
                        ("--position", [args.position] if args.position is not None else []),
                        ("--propensity", [propensity] if isinstance(propensity, str) else [])):
        for name in names:  # a column named by two options: both, as given
            flags[name] = f"{flags[name]}/{flag}" if name in flags and flag not in flags[name] else flags.get(name, flag)
    if args.baseline is not None:
        flags[args.baseline] = "--baseline" if args.baseline not in args.score else flags[args.baseline]
    df = read_table(
        args.file, columns, fmt=args.input_format, text_columns=text_columns, weight=weight, sep=sep, flags=flags
    )
    roles: dict[Hashable, str] = {args.label: "--label", **{s: "--score" for s in scores}}
    if weight is not None and weight not in WEIGHT_NAMES:
        roles[weight] = "--weight"
    df = check_values(df, roles, args.file, _input_format(args.file, args.input_format), args.nan_policy)
    common: dict[str, Any] = dict(group=group if len(group) > 1 else group[0], label=args.label, metrics=metrics)
    options: dict[str, Any] = {}
    if weight is not None:
        options["weight"] = weight
    for name in ("ties", "tiebreak", "threshold", "nan_policy", "empty", "gain", "min_size", "min_pos", "min_neg",
                 "auc_method", "ci_method", "position", "clip", "snips"):
        value = getattr(args, name)
        if value is not None:
            options[name] = value
    if propensity is not None:
        options["propensity"] = propensity

    progress = _want_progress(args.progress)
    if progress:  # long inputs: say what happened so far before the bar starts
        print(
            f"{PROG}: read {len(df):,} rows from {args.file} in {time.perf_counter() - started:.1f} s; evaluating",
            file=sys.stderr,
        )
    with _warnings_to_stderr():
        if args.view == "groups":
            grouped = {k: v for k, v in options.items() if k not in ("auc_method", "ci_method")}
            result = pre.per_group(df, **common, scores=scores, **grouped)
        elif comparing:
            kwargs: dict[str, Any] = dict(
                common, scores=scores, baseline=args.baseline, n_boot=args.n_boot, seed=args.seed, progress=progress
            )
            if args.ci is not None:
                kwargs["ci"] = args.ci
            for name in ("method", "alpha", "adjust", "family", "ci_adjust"):
                if getattr(args, name) is not None:
                    options[name] = getattr(args, name)
            if by:
                options["by"] = by if len(by) > 1 else by[0]
                options["overall"] = bool(args.overall)
            kwargs.update(_supported(pre.compare, options, "--baseline"))
            result = pre.compare(df, **kwargs)
        else:
            for name in ("method", "alpha", "adjust", "family", "ci_adjust"):
                if getattr(args, name) is not None:
                    raise CLIError(f"--{name} applies to --baseline / --all-pairs comparisons only")
            kwargs = dict(common, scores=scores, **options)
            if by:
                kwargs["by"] = by if len(by) > 1 else by[0]
                kwargs["overall"] = bool(args.overall)
            if args.ci is not None:
                kwargs.update(ci=args.ci, n_boot=args.n_boot, seed=args.seed, progress=progress)
            result = pre.report(df, **kwargs)

    if args.view == "compact":
        result = result.compact()
    elif args.view == "summary":
        result = result.summary()
    try:
        if fmt == "parquet":
            _display.write_parquet(result, args.output, spell=as_flags)
            return 0
        width = args.width if args.width is not None else (0 if args.output else _display.terminal_width())
        # the terminal gets the lines that matter (--footer full: all); a file gets every line
        footer = ("full" if args.output else args.footer) if fmt == "table" else None
        text = as_flags(_display.render(result, fmt, footer=footer, width=width, hint="(details: --footer full)",
                                        file=args.file))  # the footers' advice as flags
        if args.output:
            if fmt == "html":
                text = _display.html_document(text, title=f"{PROG}: {args.file}")
            Path(args.output).write_text(text, encoding="utf-8")
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
