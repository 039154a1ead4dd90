"""Stage 6, one evaluation: the pipeline, its records, per-metric reductions, results."""
