"""Results: the metric value, the report and the compare tables, built from summed summaries."""

from .build import finalize

__all__ = ["finalize"]
