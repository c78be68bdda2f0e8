"""The columnar core: dtypes, column layouts, kernels and column-level operations."""
