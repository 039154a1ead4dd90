"""pandas_rankeval.wandb: report and compare tables into Weights & Biases runs.

Offline runs only (WANDB_MODE=offline, every W&B folder under tmp_path): the summary, the
config, the tables and the artifacts are read back from the offline run directory: its
transaction log (``run-<id>.wandb``, LevelDB log records of W&B's protobuf ``Record``) and its
``files/media/table/*.table.json``. Keys are written out by hand, values come from the table.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre

wandb = pytest.importorskip("wandb")

from wandb.proto import wandb_internal_pb2  # noqa: E402

from pandas_rankeval.integrations import wandb as wandb_impl  # noqa: E402
from pandas_rankeval.wandb import TABLE_ROW_LIMIT, log_report  # noqa: E402

_BLOCK, _HEADER = 32768, 7  # the LevelDB log layout of W&B's transaction log


def _records(path: Path) -> list:
    """Every record of an offline run's transaction log, in order."""
    data = path.read_bytes()
    if data[:4] != b":W&B":
        raise AssertionError(f"not a W&B transaction log: {data[:7]!r}")
    out, pending, i = [], b"", _HEADER
    while i + _HEADER <= len(data):
        left = _BLOCK - i % _BLOCK
        if left < _HEADER:  # a block's tail too short for a header is padding
            i += left
            continue
        _crc, length, kind = struct.unpack("<IHB", data[i : i + _HEADER])
        if length == 0 and kind == 0:
            i += left
            continue
        chunk = data[i + _HEADER : i + _HEADER + length]
        i += _HEADER + length
        if kind in (1, 2):  # full, first
            pending = chunk
        else:  # middle, last
            pending += chunk
        if kind in (1, 4):
            record = wandb_internal_pb2.Record()
            record.ParseFromString(pending)
            out.append(record)
    return out


def _read_run(run_dir: Path) -> dict:
    """The offline run as W&B would sync it: summary, config, history rows, artifacts."""
    (log,) = run_dir.glob("run-*.wandb")
    summary, config, history, artifacts = {}, {}, [], []
    for rec in _records(log):
        kind = rec.WhichOneof("record_type")
        if kind == "summary":
            for item in rec.summary.update:
                summary[item.key or "/".join(item.nested_key)] = json.loads(item.value_json)
        elif kind == "config":
            for item in rec.config.update:
                config[item.key or "/".join(item.nested_key)] = json.loads(item.value_json)
        elif kind == "history":
            history.append({(i.key or "/".join(i.nested_key)): json.loads(i.value_json) for i in rec.history.item})
        elif kind == "artifact":
            artifacts.append(rec.artifact)
    return {"summary": summary, "config": config, "history": history, "artifacts": artifacts}


@pytest.fixture
def offline(tmp_path, monkeypatch):
    for name, sub in [("WANDB_DIR", ""), ("WANDB_CACHE_DIR", "cache"), ("WANDB_DATA_DIR", "data"),
                      ("WANDB_CONFIG_DIR", "config"), ("WANDB_ARTIFACT_DIR", "artifacts")]:  # fmt: skip
        (tmp_path / sub).mkdir(exist_ok=True)
        monkeypatch.setenv(name, str(tmp_path / sub))
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.setenv("WANDB_DISABLE_GIT", "true")
    monkeypatch.setenv("WANDB_DISABLE_CODE", "true")
    run = wandb.init(project="rankeval-tests", mode="offline", dir=str(tmp_path))
    yield run, tmp_path
    if wandb.run is not None:
        wandb.finish()


def _finish(run) -> None:
    """Finish the run and stop W&B's service process: only then is the transaction log whole."""
    run.finish()
    wandb.teardown()


def _run_dir(tmp_path: Path, run) -> Path:
    (found,) = (tmp_path / "wandb").glob(f"offline-run-*-{run.id}")
    return found


@pytest.fixture(scope="module")
def df():
    return pre.datasets.make_impressions(n_users=120, seed=3)


@pytest.fixture(scope="module")
def rep(df):
    return pre.report(df, group="user_id", label="click", scores=["model_a", "model_b"],
                      metrics=["gauc", "ndcg@10"], ci=0.9, n_boot=200, seed=3)  # fmt: skip


@pytest.fixture(scope="module")
def pg(df):
    return pre.per_group(df, group="user_id", label="click", scores=["model_a", "model_b"], metrics=["gauc", "ndcg@10"])


def _expected_report(rep: pd.DataFrame, prefix: str = "") -> dict[str, float]:
    out = {}
    for model in ("model_a", "model_b"):
        for col, key in [("gauc", "gauc"), ("gauc_low", "gauc_low"), ("gauc_high", "gauc_high"),
                         ("ndcg@10", "ndcg_at_10"), ("ndcg@10_low", "ndcg_at_10_low"),
                         ("ndcg@10_high", "ndcg_at_10_high"), ("n_groups", "n_groups"), ("n_rows", "n_rows"),
                         ("gauc_groups_used", "gauc_groups_used"), ("gauc_rows_skipped", "gauc_rows_skipped"),
                         ("groups_no_relevant", "groups_no_relevant")]:  # fmt: skip
            out[f"{prefix}{model}/{key}"] = float(rep.loc[model, col])
    return out


def test_summary_config_and_tables_read_back(offline, rep, pg):
    run, tmp_path = offline
    logged = log_report(rep, run, prefix="val/", per_group=pg)
    assert logged.artifacts == ["table:val/report", "table:val/per_group"]
    _finish(run)
    back = _read_run(_run_dir(tmp_path, run))
    expected = _expected_report(rep, "val/")
    assert {k: back["summary"][k] for k in expected} == expected
    assert back["summary"]["val/report_footer"] == "\n".join(rep.footer("full"))
    for key, value in {"val/gauc/weight": "count", "val/ndcg_at_10/empty": "zero", "val/ci/level": "0.9",
                       "val/ci/seed": "3", "val/table": "report"}.items():  # fmt: skip
        assert back["config"][key] == value, key
    # the report as a wandb.Table: index levels first, every number unrounded
    (table_file,) = (_run_dir(tmp_path, run) / "files" / "media" / "table" / "val").glob("report_*.table.json")
    table = json.loads(table_file.read_text())
    assert table["columns"][:2] == ["model", "gauc"]
    frame = pd.DataFrame(table["data"], columns=table["columns"]).set_index("model")
    np.testing.assert_array_equal(frame.loc[["model_a", "model_b"], "ndcg@10_low"].to_numpy(), rep["ndcg@10_low"].to_numpy())
    (pg_file,) = (_run_dir(tmp_path, run) / "files" / "media" / "table" / "val").glob("per_group_*.table.json")
    assert len(json.loads(pg_file.read_text())["data"]) == len(pg) == 120


def test_compare_at_a_step(offline, df):
    run, tmp_path = offline
    cmp = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b"], metrics=["mrr"], n_boot=100)
    log_report(cmp, run, step=7, config=False)
    _finish(run)
    back = _read_run(_run_dir(tmp_path, run))
    row = cmp.loc[("model_b", "model_a", "mrr")]
    (logged,) = [h for h in back["history"] if "model_b_vs_model_a/mrr_p_holm" in h]
    assert logged["_step"] == 7
    for col in ("diff", "ci_low", "ci_high", "p_value", "p_holm"):
        assert logged[f"model_b_vs_model_a/mrr_{col}"] == float(row[col])
        assert back["summary"][f"model_b_vs_model_a/mrr_{col}"] == float(row[col])
    assert not any(k.startswith("mrr/") or k == "adjust" for k in back["config"])


@pytest.mark.parametrize("how", ["asked", "over the limit"])
def test_per_group_as_parquet_artifact(offline, rep, pg, monkeypatch, how):
    run, tmp_path = offline
    if how == "asked":
        logged = log_report(rep, run, per_group=pg, per_group_artifact=True)
    else:  # the limit, lowered so that the 120-row table is over it
        monkeypatch.setattr(wandb_impl, "TABLE_ROW_LIMIT", 100)
        logged = log_report(rep, run, per_group=pg)
    assert logged.artifacts == ["table:report", "artifact:per_group"]
    _finish(run)
    back = _read_run(_run_dir(tmp_path, run))
    (art,) = [a for a in back["artifacts"] if a.type == "per_group"]
    assert art.name == "per_group"
    (entry,) = art.manifest.contents
    assert entry.path == "per_group.parquet"
    parquet = pd.read_parquet(entry.local_path)
    assert len(parquet) == len(pg)
    np.testing.assert_array_equal(parquet["model_b_auc"].to_numpy(), pg["model_b_auc"].to_numpy())
    assert not list((_run_dir(tmp_path, run) / "files" / "media" / "table").glob("per_group_*"))


def test_table_limit_is_wandbs():
    assert TABLE_ROW_LIMIT == 200_000


def test_errors(rep, pg, monkeypatch):
    monkeypatch.setattr(wandb, "run", None)
    with pytest.raises(RuntimeError, match="no W&B run: call wandb.init"):
        log_report(rep)
    with pytest.raises(TypeError, match="Got a per_group table"):
        log_report(pg)
    with pytest.raises(ValueError, match="'per_group_artifact'"):
        log_report(rep, per_group=pg, per_group_artifact="yes")
    monkeypatch.setattr(wandb_impl, "TABLE_ROW_LIMIT", 100)
    with pytest.raises(ValueError, match="120 rows, more than a wandb.Table holds"):
        log_report(rep, per_group=pg, per_group_artifact=False)


def test_config_conflict_writes_nothing(offline, rep, df):
    run, tmp_path = offline
    other = pre.report(df, group="user_id", label="click", scores=["model_a", "model_b"],
                       metrics=["gauc", "ndcg@10"], ci=0.9, n_boot=200, seed=4)  # fmt: skip
    log_report(rep, run)
    with pytest.raises(ValueError, match="'ci/seed': '3' -> '4'.*another prefix="):
        log_report(other, run)
    _finish(run)
    back = _read_run(_run_dir(tmp_path, run))
    assert back["summary"]["model_a/gauc"] == float(rep.loc["model_a", "gauc"])
    assert back["config"]["ci/seed"] == "3"
    assert sum(any(k.startswith("report/") for k in h) for h in back["history"]) == 1  # one table logged


def test_model_named_like_the_table(offline, df):
    run, _ = offline
    rep = pre.report(df.rename(columns={"model_a": "report"}), group="user_id", label="click", scores=["report"], metrics=["gauc"])
    with pytest.raises(ValueError, match="fall under the key of a logged table"):
        log_report(rep, run)


def test_missing_extras_are_named(rep, monkeypatch):
    from pandas_rankeval import mlflow as pre_mlflow

    monkeypatch.setitem(sys.modules, "wandb", None)
    monkeypatch.setitem(sys.modules, "mlflow", None)
    with pytest.raises(ImportError, match=r"pip install 'pandas_rankeval\[wandb\]'"):
        log_report(rep)
    with pytest.raises(ImportError, match=r"pip install 'pandas_rankeval\[mlflow\]'"):
        pre_mlflow.log_report(rep)


def test_import_imports_no_tracker():
    code = (
        "import sys, pandas_rankeval, pandas_rankeval.mlflow, pandas_rankeval.wandb; "
        "print(sorted(m for m in ('mlflow', 'wandb') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
