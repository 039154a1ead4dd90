"""The public functions: one signature and one docstring each."""
