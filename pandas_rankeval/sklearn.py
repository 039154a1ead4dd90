"""The library's metrics as scikit-learn scorers (see :func:`make_scorer`)."""

from pandas_rankeval.integrations.sklearn import GroupScorer, make_scorer

__all__ = ["make_scorer", "GroupScorer"]
