"""Stage 1, the inputs: parameter and column checks, the options, columns -> arrays."""
