"""Intervals and tests: hashed resampling, the group bootstrap, clustered DeLong, studentized intervals."""
