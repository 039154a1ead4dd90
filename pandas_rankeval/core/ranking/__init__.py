"""Stage 2, the rows of a score column in order: the sorts, tie blocks, global AUC."""
