"""Stage 5, what a metric is: the record, its kernels bound, the registry, eligibility."""
