"""pandas_rankeval.mlflow: report and compare tables into MLflow runs, and the rankeval
evaluator of mlflow.models.evaluate.

Local stores only (a file store and a SQLite store under tmp_path), no server, no network.
Every read-back is compared with keys written out by hand here and values taken from the
table itself (not with the module's own key builder). MLflow is imported once per module.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import tempfile
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pandas_rankeval as pre

mlflow = pytest.importorskip("mlflow")

from mlflow.models.evaluation.base import ModelEvaluator  # noqa: E402
from mlflow.models.evaluation.evaluator_registry import ModelEvaluatorRegistry, _model_evaluation_registry  # noqa: E402
from mlflow.tracking import MlflowClient  # noqa: E402

from pandas_rankeval.mlflow import RankevalEvaluator, log_report, metric_dict, register_evaluator  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def env():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MLFLOW_DISABLE_TELEMETRY", "true")
        mp.setenv("DO_NOT_TRACK", "true")
        mp.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # MLflow 3.17 refuses file stores without it
        yield


@pytest.fixture(scope="module")
def sqlite_uri(env):
    # one database per module: creating its tables (MLflow's migrations) is the slow part,
    # 6 s on tmpfs and twice that on disk on the project's machine
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as tmp:
        path = Path(tmp)
        yield f"sqlite:///{path / 'mlflow.db'}", path / "artifacts"


def _store(kind, tmp_path, request):
    before = mlflow.get_tracking_uri()
    if kind == "file":
        mlflow.set_tracking_uri((tmp_path / "mlruns").as_uri())
        experiment = mlflow.set_experiment("rankeval")
    else:
        uri, artifacts = request.getfixturevalue("sqlite_uri")
        mlflow.set_tracking_uri(uri)
        name = f"rankeval-{tmp_path.name}"
        experiment_id = MlflowClient().create_experiment(name, artifact_location=(artifacts / tmp_path.name).as_uri())
        experiment = mlflow.set_experiment(experiment_id=experiment_id)
    return experiment, before


@pytest.fixture(params=["file", "sqlite"])
def stores(request, tmp_path, env):
    """A file store, then the SQLite store, set for the test's length (the read-back tests)."""
    experiment, before = _store(request.param, tmp_path, request)
    yield experiment
    mlflow.set_tracking_uri(before)


@pytest.fixture
def store(request, tmp_path, env):
    """A file store under tmp_path (every other test)."""
    experiment, before = _store("file", tmp_path, request)
    yield experiment
    mlflow.set_tracking_uri(before)


@pytest.fixture(scope="module")
def df():
    frame = pre.datasets.make_impressions(n_users=120, seed=3)
    return frame.assign(model_c=frame["model_a"] * 0.5 + frame["model_b"] * 0.5)


@pytest.fixture(scope="module")
def rep(df):
    return pre.report(df, group="user_id", label="click", scores=["model_a", "model_b"],
                      metrics=["gauc", "ndcg@10"], ci=0.9, n_boot=200, seed=3)  # fmt: skip


@pytest.fixture(scope="module")
def cmp(df):
    return pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b", "model_c"],
                       baseline="model_a", metrics=["gauc", "mrr"], n_boot=200, seed=5, adjust="bh")  # fmt: skip


def _expected_report(rep: pd.DataFrame, prefix: str = "") -> dict[str, float]:
    """The report's keys, spelled out by hand."""
    out = {}
    for model in ("model_a", "model_b"):
        for col, key in [("gauc", "gauc"), ("gauc_low", "gauc_low"), ("gauc_high", "gauc_high"),
                         ("ndcg@10", "ndcg_at_10"), ("ndcg@10_low", "ndcg_at_10_low"),
                         ("ndcg@10_high", "ndcg_at_10_high"), ("n_groups", "n_groups"), ("n_rows", "n_rows"),
                         ("gauc_groups_used", "gauc_groups_used"), ("gauc_rows_skipped", "gauc_rows_skipped"),
                         ("groups_no_relevant", "groups_no_relevant")]:  # fmt: skip
            out[f"{prefix}{model}/{key}"] = float(rep.loc[model, col])
    return out


def _download(run_id: str, path: str, dst: Path) -> Path:
    return Path(MlflowClient().download_artifacts(run_id, path, str(dst)))


# ----------------------------------------------------------------------------- log_report


def test_report_read_back_equals_the_table(stores, rep, df, tmp_path):
    pg = pre.per_group(df, group="user_id", label="click", scores=["model_a", "model_b"], metrics=["gauc", "ndcg@10"])
    before = rep.copy(), dict(rep.attrs)
    with mlflow.start_run() as run:
        logged = log_report(rep, prefix="val/", per_group=pg)
    data = MlflowClient().get_run(run.info.run_id).data
    expected = _expected_report(rep, "val/")
    assert data.metrics == expected  # every number, exactly (float64 both ways)
    assert logged.metrics == expected and logged.run_id == run.info.run_id
    # the evaluation's choices
    for key, value in {"val/gauc/ties": "expected", "val/gauc/weight": "count", "val/ndcg_at_10/ties": "expected",
                       "val/ndcg_at_10/weight": "uniform", "val/ndcg_at_10/empty": "zero",
                       "val/ndcg_at_10/gain": "exp2", "val/ci/level": "0.9", "val/ci/n_boot": "200",
                       "val/ci/seed": "3", "val/table": "report"}.items():  # fmt: skip
        assert data.params[key] == value, key
    assert data.params == logged.params
    # the artifacts: printed table with every footer line, the table, the per-group table
    names = sorted(f.path for f in MlflowClient().list_artifacts(run.info.run_id, "rankeval/val"))
    assert names == ["rankeval/val/per_group.parquet", "rankeval/val/report.json", "rankeval/val/report.txt"]
    text = _download(run.info.run_id, "rankeval/val/report.txt", tmp_path).read_text(encoding="utf-8")
    assert text == rep.to_text(footer="full", width=0) + "\n"
    assert all(line in text for line in rep.footer("full"))
    records = json.loads(_download(run.info.run_id, "rankeval/val/report.json", tmp_path).read_text())
    assert records["footer"] == list(rep.footer("full"))
    back = pd.read_parquet(_download(run.info.run_id, "rankeval/val/per_group.parquet", tmp_path))
    assert back.shape[0] == len(pg)
    np.testing.assert_array_equal(back["model_b_ndcg@10"].to_numpy(), pg[("model_b", "ndcg@10")].to_numpy()
                                  if isinstance(pg.columns, pd.MultiIndex) else pg["model_b_ndcg@10"].to_numpy())  # fmt: skip
    # the table is not modified
    pd.testing.assert_frame_equal(pd.DataFrame(rep), pd.DataFrame(before[0]))
    assert rep.attrs == before[1]


def test_compare_read_back(stores, cmp, tmp_path):
    with mlflow.start_run() as run:
        log_report(cmp, table_format="csv")
    data = MlflowClient().get_run(run.info.run_id).data
    assert len(data.metrics) == 4 * 10  # 2 pairs x 2 metrics x 10 columns (all but the index)
    for model in ("model_b", "model_c"):
        for metric, key in [("gauc", "gauc"), ("mrr", "mrr")]:
            row = cmp.loc[(model, metric)]
            for col in ("baseline_value", "value", "diff", "lift", "ci_low", "ci_high", "p_value", "p_bh", "groups_used"):
                assert data.metrics[f"{model}_vs_model_a/{key}_{col}"] == float(row[col]), (model, metric, col)
            assert data.metrics[f"{model}_vs_model_a/{key}_significant"] == (1.0 if row["significant"] else 0.0)
    for key, value in {"adjust": "bh", "p_adjusted": "p_bh", "alpha": "0.05", "seed": "5", "n_boot": "200",
                       "ci": "0.95", "baseline": "model_a", "table": "compare", "mrr/empty": "zero"}.items():  # fmt: skip
        assert data.params[key] == value, key
    assert data.params["test/gauc"] == cmp.attrs["test"]["gauc"]
    csv = _download(run.info.run_id, "rankeval/compare.csv", tmp_path)
    back = pd.read_csv(csv, comment="#")
    np.testing.assert_array_equal(back["p_value"].to_numpy(), cmp["p_value"].to_numpy())


def test_segments_and_step(store, df, tmp_path):
    rep = pre.report(df, group="user_id", label="click", scores=["model_a"], metrics=["gauc"], by="country", overall=True)
    with mlflow.start_run() as run:
        log_report(rep, step=3)
    client = MlflowClient()
    data = client.get_run(run.info.run_id).data
    assert data.metrics["country.FR/model_a/gauc"] == float(rep.loc[("FR", "model_a"), "gauc"])
    assert data.metrics["country._all_/model_a/gauc"] == float(rep.loc[("(all)", "model_a"), "gauc"])
    assert len(data.metrics) == len(rep) * 5
    (point,) = client.get_metric_history(run.info.run_id, "country.US/model_a/gauc")
    assert point.step == 3
    assert [f.path for f in client.list_artifacts(run.info.run_id, "rankeval")] == ["rankeval/step_3"]


def test_run_id_without_an_active_run(store, rep):
    run = MlflowClient().create_run(store.experiment_id)
    assert mlflow.active_run() is None
    log_report(rep, run_id=run.info.run_id)
    assert MlflowClient().get_run(run.info.run_id).data.metrics == _expected_report(rep)


# ----------------------------------------------------------------------------- bad input


def test_bad_tables(rep, df):
    with pytest.raises(TypeError, match="report or pandas_rankeval.compare.*Got a DataFrame without attrs"):
        log_report(pd.DataFrame({"gauc": [0.5]}), run_id="x")
    pg = pre.per_group(df, group="user_id", label="click", scores=["model_a"], metrics=["gauc"])
    with pytest.raises(TypeError, match="Got a per_group table"):
        log_report(pg, run_id="x")
    with pytest.raises(TypeError, match="plain DataFrame"):
        log_report(rep[["gauc"]], run_id="x")  # a derived frame keeps attrs but not the footer
    with pytest.raises(TypeError, match="takes the table itself"):
        log_report(rep, per_group=True, run_id="x")
    with pytest.raises(ValueError, match="'prefix'.*bad characters: \\['@'\\]"):
        log_report(rep, prefix="val@", run_id="x")
    with pytest.raises(ValueError, match="'step'"):
        log_report(rep, step=-1, run_id="x")


def test_key_collision_after_cutting(df):
    # "model a" and "model_a" read the same once the space is cut
    frame = df.assign(**{"model a": df["model_b"]})
    rep = pre.report(frame, group="user_id", label="click", scores=["model_a", "model a"], metrics=["gauc"])
    with pytest.raises(ValueError, match="two cells .* 'model_a/gauc'"):
        metric_dict(rep)


def test_no_active_run(store, rep):
    assert mlflow.active_run() is None
    with pytest.raises(RuntimeError, match="no active MLflow run"):
        log_report(rep)


def test_conflicts_write_nothing(store, rep, df):
    other = pre.report(df, group="user_id", label="click", scores=["model_a", "model_b"],
                       metrics=["gauc", "ndcg@10"], ci=0.9, n_boot=200, seed=4)  # fmt: skip
    with mlflow.start_run() as run:
        log_report(rep)
        with pytest.raises(ValueError, match="'ci/seed': '3' -> '4'.*another prefix="):
            log_report(other)
        with pytest.raises(FileExistsError, match="report.txt"):
            log_report(rep)  # same params: the artifacts would be overwritten
    client = MlflowClient()
    assert client.get_run(run.info.run_id).data.metrics == _expected_report(rep)
    assert len(client.get_metric_history(run.info.run_id, "model_a/gauc")) == 1


# ----------------------------------------------------------------------------- the evaluator


@pytest.fixture
def registered():
    """The evaluator in MLflow's registry, as the entry point puts it there once installed."""
    had = _model_evaluation_registry._registry.get("rankeval")
    assert register_evaluator() is (had is not RankevalEvaluator)
    assert register_evaluator() is False  # once is enough
    assert _model_evaluation_registry.get_evaluator("rankeval").__class__ is RankevalEvaluator
    yield
    if had is None:
        _model_evaluation_registry._registry.pop("rankeval", None)
    else:
        _model_evaluation_registry.register("rankeval", had)


def _entry_point_value() -> str:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project["entry-points"]["mlflow.model_evaluator"]["rankeval"]


def test_pyproject_declares_the_entry_point():
    value = _entry_point_value()
    module, _, attr = value.partition(":")
    obj = getattr(importlib.import_module(module), attr)
    assert obj is RankevalEvaluator and issubclass(obj, ModelEvaluator) and obj.name == "rankeval"
    # once installed (pip install), the distribution's metadata carries the same entry point
    found = [ep for ep in importlib.metadata.entry_points(group="mlflow.model_evaluator") if ep.name == "rankeval"]
    for ep in found:
        assert ep.value == value and ep.load() is RankevalEvaluator


def test_mlflow_registry_loads_the_entry_point(monkeypatch):
    # MLflow's own discovery (register_entrypoints), fed the entry point pyproject.toml declares
    from mlflow.models.evaluation import evaluator_registry

    entry = importlib.metadata.EntryPoint(name="rankeval", value=_entry_point_value(), group="mlflow.model_evaluator")
    monkeypatch.setattr(evaluator_registry, "get_entry_points", lambda group: [entry] if group == "mlflow.model_evaluator" else [])
    registry = ModelEvaluatorRegistry()
    registry.register_entrypoints()
    assert isinstance(registry.get_evaluator("rankeval"), RankevalEvaluator)


def _expected_plugin(table: pd.DataFrame, model: str) -> dict[str, float]:
    return {key: float(table.loc[model, col]) for key, col in [
        ("gauc", "gauc"), ("gauc_low", "gauc_low"), ("gauc_high", "gauc_high"), ("mrr", "mrr"),
        ("mrr_low", "mrr_low"), ("mrr_high", "mrr_high"), ("n_groups", "n_groups"), ("n_rows", "n_rows"),
        ("gauc_groups_used", "gauc_groups_used"), ("gauc_rows_skipped", "gauc_rows_skipped"),
        ("groups_no_relevant", "groups_no_relevant")]}  # fmt: skip


def test_evaluate_predictions_column(stores, registered, df, tmp_path):
    data = df[["user_id", "position", "click", "model_b"]]
    config = {"group": "user_id", "metrics": ["gauc", "mrr"], "ci": 0.9, "n_boot": 100, "seed": 1, "per_group": True}
    with mlflow.start_run() as run:
        result = mlflow.models.evaluate(data=data, predictions="model_b", targets="click", model_type="ranker",
                                        evaluators="rankeval", evaluator_config=config)  # fmt: skip
    table = pre.report(df, group="user_id", label="click", scores=["model_b"], metrics=["gauc", "mrr"],
                       ci=0.9, n_boot=100, seed=1)  # fmt: skip
    expected = _expected_plugin(table, "model_b")
    assert result.metrics == expected
    assert MlflowClient().get_run(run.info.run_id).data.metrics == expected
    assert set(result.artifacts) == {"rankeval_report", "rankeval_report_text", "rankeval_per_group"}
    pg = pd.read_parquet(_download(run.info.run_id, "rankeval/per_group.parquet", tmp_path))
    oracle = pre.per_group(df, group="user_id", label="click", scores=["model_b"], metrics=["gauc", "mrr"])
    assert len(pg) == len(oracle) == df["user_id"].nunique()


def test_evaluate_a_model_nested_config(store, registered, df):
    seen = {}

    def model(frame: pd.DataFrame) -> np.ndarray:  # a pyfunc model built from a function
        seen["columns"] = list(frame.columns)
        return -frame["position"].to_numpy(dtype=float) + 1e-4 * frame["item_id"].to_numpy(dtype=float)

    data = df[["user_id", "position", "item_id", "click"]]
    with mlflow.start_run():
        result = mlflow.models.evaluate(model, data=data, targets="click", model_type="ranker", evaluators=["rankeval"],
                                        evaluator_config={"rankeval": {"group": "user_id", "metrics": ["gauc", "mrr"], "ci": 0.9, "n_boot": 100}})  # fmt: skip
    assert seen["columns"] == ["position", "item_id"]  # neither the group nor the label reaches the model
    frame = df.assign(prediction=model(data))
    table = pre.report(frame, group="user_id", label="click", scores=["prediction"], metrics=["gauc", "mrr"], ci=0.9, n_boot=100)
    assert result.metrics == _expected_plugin(table, "prediction")


def test_evaluator_chosen_by_model_type_only(registered):
    # mlflow.models.evaluate(evaluators=None) asks every registered evaluator: a classifier
    # evaluation without a group column must not pick this one up
    assert RankevalEvaluator.can_evaluate(model_type="ranker", evaluator_config={})
    assert RankevalEvaluator.can_evaluate(model_type="classifier", evaluator_config={"group": "q"})
    assert not RankevalEvaluator.can_evaluate(model_type="classifier", evaluator_config={})
    assert not RankevalEvaluator.can_evaluate(model_type="regressor", evaluator_config=None)


def test_evaluator_config_errors(store, registered, df):
    data = df[["user_id", "click", "model_b"]]
    with mlflow.start_run():
        with pytest.raises(ValueError, match="needs the query/user column"):
            mlflow.models.evaluate(data=data, predictions="model_b", targets="click", model_type="ranker",
                                   evaluators="rankeval", evaluator_config={"metrics": ["gauc"]})  # fmt: skip
        with pytest.raises(ValueError, match="unknown evaluator_config keys \\['grup'\\]"):
            mlflow.models.evaluate(data=data, predictions="model_b", targets="click", model_type="ranker",
                                   evaluators="rankeval", evaluator_config={"group": "user_id", "grup": 1})  # fmt: skip
        with pytest.raises(ValueError, match="group column\\(s\\) \\['uid'\\]"):
            mlflow.models.evaluate(data=data, predictions="model_b", targets="click", model_type="ranker",
                                   evaluators="rankeval", evaluator_config={"group": "uid"})  # fmt: skip


def test_keys_of_a_segmented_comparison(df):
    cmp = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b"], metrics=["ndcg@5"],
                      by=["device"], baseline="model_a", n_boot=100)  # fmt: skip
    keys = metric_dict(cmp, prefix="t-")
    for device in df["device"].unique():
        row = cmp.loc[(device, "model_b", "ndcg@5")]
        assert keys[f"t-device.{device}/model_b_vs_model_a/ndcg_at_5_diff"] == float(row["diff"])
        assert keys[f"t-device.{device}/model_b_vs_model_a/ndcg_at_5_p_holm"] == float(row["p_holm"])
    assert len(keys) == len(cmp) * 10


class _PositionModel(mlflow.pyfunc.PythonModel):
    """A logged pyfunc model: the higher the position, the lower the score."""

    def predict(self, context, model_input, params=None):  # noqa: ANN001, ANN201
        return pd.DataFrame({"score": -model_input["position"].to_numpy(dtype=float)})


def test_evaluate_a_logged_pyfunc_model(store, registered, df):
    data = df[["user_id", "position", "click"]]
    with mlflow.start_run():
        # pip_requirements given: inferring them runs the model in a subprocess (seconds)
        info = mlflow.pyfunc.log_model(name="ranker", python_model=_PositionModel(), pip_requirements=["pandas"])
        result = mlflow.models.evaluate(info.model_uri, data=data, targets="click", model_type="ranker",
                                        evaluators="rankeval", evaluator_config={"group": "user_id", "metrics": ["mrr", "ndcg@5"]})  # fmt: skip
    oracle = pre.report(df.assign(score=-df["position"].astype(float)), group="user_id", label="click",
                        scores=["score"], metrics=["mrr", "ndcg@5"])  # fmt: skip
    assert result.metrics["mrr"] == float(oracle.loc["score", "mrr"])
    assert result.metrics["ndcg_at_5"] == float(oracle.loc["score", "ndcg@5"])


# ----------------------------------------------------------------------------- the evaluator's baseline


_COMPARE_COLUMNS = ("baseline_value", "value", "diff", "lift", "ci_low", "ci_high", "p_value", "groups_used")


def _expected_compare(cmp: pd.DataFrame, pair: str, prefix: str = "") -> dict[str, float]:
    """The compare table's keys, spelled out by hand: <model>_vs_<baseline>/<metric>_<column>."""
    out = {}
    for metric, key in (("gauc", "gauc"), ("ndcg@5", "ndcg_at_5")):
        row = cmp.loc[(cmp.index.get_level_values("model")[0], metric)]
        for col in (*_COMPARE_COLUMNS, cmp.attrs["p_adjusted"]):  # p_holm, or p_bh with adjust="bh"
            out[f"{prefix}{pair}/{key}_{col}"] = float(row[col])
        out[f"{prefix}{pair}/{key}_significant"] = 1.0 if row["significant"] else 0.0
    return out


def test_evaluate_with_a_baseline_column(stores, registered, df, tmp_path):
    """evaluator_config['baseline'] names a column of the data: compare's table logged with
    log_report's keys, its params under compare/, its artifacts; read back with MlflowClient."""
    data = df[["user_id", "click", "model_a", "model_b"]]
    config = {"group": "user_id", "metrics": ["gauc", "ndcg@5"], "baseline": "model_a", "n_boot": 200, "seed": 4,
              "adjust": "bh", "prefix": "val/"}
    with mlflow.start_run() as run:
        result = mlflow.models.evaluate(data=data, predictions="model_b", targets="click", model_type="ranker",
                                        evaluators="rankeval", evaluator_config=config)  # fmt: skip
    cmp = pre.compare(df, group="user_id", label="click", scores=["model_a", "model_b"], baseline="model_a",
                      metrics=["gauc", "ndcg@5"], n_boot=200, seed=4, adjust="bh")
    table = pre.report(df, group="user_id", label="click", scores=["model_b"], metrics=["gauc", "ndcg@5"])
    expected = _expected_compare(cmp, "model_b_vs_model_a", "val/")
    expected |= {f"val/{key}": float(table.loc["model_b", col]) for key, col in (
        ("gauc", "gauc"), ("ndcg_at_5", "ndcg@5"), ("n_groups", "n_groups"), ("n_rows", "n_rows"),
        ("gauc_groups_used", "gauc_groups_used"), ("gauc_rows_skipped", "gauc_rows_skipped"),
        ("groups_no_relevant", "groups_no_relevant"))}  # fmt: skip
    client = MlflowClient()
    logged = client.get_run(run.info.run_id).data
    assert logged.metrics == expected  # the report's and the comparison's numbers, exactly
    assert result.metrics == expected
    # the comparison's choices under compare/, the report's own keep their keys
    for key, value in {"val/compare/table": "compare", "val/compare/adjust": "bh", "val/compare/baseline": "model_a",
                       "val/compare/seed": "4", "val/compare/n_boot": "200", "val/table": "report"}.items():  # fmt: skip
        assert logged.params[key] == value, key
    names = sorted(f.path for f in client.list_artifacts(run.info.run_id, "rankeval/val"))
    assert names == ["rankeval/val/compare.json", "rankeval/val/compare.txt", "rankeval/val/report.json",
                     "rankeval/val/report.txt"]
    text = _download(run.info.run_id, "rankeval/val/compare.txt", tmp_path).read_text(encoding="utf-8")
    assert text == cmp.to_text(footer="full", width=0) + "\n"
    assert {"rankeval_compare", "rankeval_compare_text", "rankeval_report"} <= set(result.artifacts)


def test_evaluate_a_model_against_a_baseline_model(store, registered, df):
    """A model and a baseline model (a function of the same input): compare(model, baseline)."""
    def model(frame: pd.DataFrame) -> np.ndarray:
        return -frame["position"].to_numpy(dtype=float) + 1e-4 * frame["item_id"].to_numpy(dtype=float)

    def baseline(frame: pd.DataFrame) -> np.ndarray:
        assert list(frame.columns) == ["position", "item_id"]  # the model's input, not the group or label
        return frame["item_id"].to_numpy(dtype=float)

    data = df[["user_id", "position", "item_id", "click"]]
    config = {"group": "user_id", "metrics": ["gauc", "ndcg@5"], "baseline": baseline, "baseline_name": "by_item",
              "n_boot": 100, "seed": 1}
    with mlflow.start_run() as run:
        result = mlflow.models.evaluate(model, data=data, targets="click", model_type="ranker", evaluators="rankeval",
                                        evaluator_config=config)  # fmt: skip
    frame = df.assign(prediction=model(data), by_item=baseline(data[["position", "item_id"]]))
    cmp = pre.compare(frame, group="user_id", label="click", scores=["by_item", "prediction"], baseline="by_item",
                      metrics=["gauc", "ndcg@5"], n_boot=100, seed=1)
    expected = _expected_compare(cmp, "prediction_vs_by_item")
    logged = MlflowClient().get_run(run.info.run_id).data.metrics
    assert {k: logged[k] for k in expected} == expected
    assert {k: result.metrics[k] for k in expected} == expected


def test_evaluate_baseline_errors(store, registered, df):
    data = df[["user_id", "click", "model_a", "model_b"]]
    kw = dict(data=data, predictions="model_b", targets="click", model_type="ranker", evaluators="rankeval")
    with mlflow.start_run():
        with pytest.raises(ValueError, match=r"\['adjust'\] apply to a comparison: add evaluator_config\['baseline'\]"):
            mlflow.models.evaluate(**kw, evaluator_config={"group": "user_id", "adjust": "bh"})
        with pytest.raises(ValueError, match="neither a column of the data"):
            mlflow.models.evaluate(**kw, evaluator_config={"group": "user_id", "baseline": "model_z"})
        with pytest.raises(ValueError, match="a baseline model needs the model's input"):
            mlflow.models.evaluate(**kw, evaluator_config={"group": "user_id", "baseline": lambda x: x})
        assert MlflowClient().get_run(mlflow.active_run().info.run_id).data.metrics == {}
