"""Stage 4, per-group values as reductions over a ranking, and the calibration sums."""
