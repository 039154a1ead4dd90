"""The warehouse engine: every public function on an ``ibis.Table``, computed where the table lies.

An Ibis table on any backend (BigQuery, Snowflake, ClickHouse, Trino, Postgres, Databricks,
DuckDB, ...) answers the questions of the engine protocol (:mod:`pandas_rankeval.engines.base`)
with SQL that the backend runs; the client receives one row per group, never the rows:

1. **checks** (:mod:`.checks`, one aggregate query, one row back): whole-table counts of missing
   and refused values, from which pandas' own errors are raised before any metric query;
2. **groups** (:mod:`.stats`, one query per score column): every group's sufficient statistics
   for the requested metrics, exact under ties; the per-group values, weights and coverage are
   made from them on the client (:mod:`.groups`), vectorized;
3. **global AUC** (one query per score column, when ``auc`` is asked for): relevant and
   non-relevant rows per distinct score, chained exactly on the client.

The summary layer, the hashed group bootstrap, the sign-flip tests, Holm/BH and the displays then
run on the per-group values as they do for pandas. Client memory is proportional to the number of
groups (and, for global AUC, of distinct scores).

Options that need every row in one place are refused by name before any query: ``max_fpr``, a
DeLong interval or test of global AUC (the placements of every row), ``resample="multinomial"``;
and ``err`` (a tied block's expected ERR is a product of one polynomial per label level in the block:
no SQL query of fixed size computes it, see the docs' page "Warehouses").
"""

from __future__ import annotations

from ._run import per_group, run
from .queries import NAME, OPTIONS, QUERIES, SUPPORTED, check_options, distinct, execute, partitioned, schema, with_row_number

__all__ = ["NAME", "OPTIONS", "QUERIES", "SUPPORTED", "check_options", "distinct", "execute", "partitioned", "per_group",
           "run", "schema", "with_row_number"]
