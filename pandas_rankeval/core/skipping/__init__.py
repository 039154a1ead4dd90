"""Stage 3, the groups that cannot count: counted first, left out of the sort."""
