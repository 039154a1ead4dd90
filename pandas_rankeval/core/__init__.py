"""Rules every engine shares: options, checks, input to arrays, the one sort per score, per-group metrics.

Nothing here imports an engine, the summary layer or the tables built above it.
"""
