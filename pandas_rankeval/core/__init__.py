"""Rules every engine (frame backend) shares, from a frame's columns to per-group numbers.

The subpackages are the stages of one evaluation, lowest first; a stage imports only the ones
below it (``tests/test_layers.py`` checks that no import comes back):

- ``inputs``: parameter and column checks, the options, the propensities, columns -> arrays;
- ``ranking``: the sorts of a score column, its tie blocks, global AUC;
- ``kernels``: per-group values as reductions over a ranking, the calibration row sums;
- ``metrics``: what a metric is (the record, its kernels bound, the registry, eligibility);
- ``skipping``: the groups that cannot count, counted first and left out of the sort;
- ``evaluation``: one evaluation's pipeline, its records, the reductions, the results.

``threads``, ``progress`` and ``numfmt`` are tools every stage may use. Nothing here imports an
engine, the summary layer or the tables built above it.
"""
