"""Engines: adapters that get whole groups into partitions and add the summaries up (pandas, Dask, Spark)."""
