"""Column-level algorithms as plain functions: binary operators, reductions, scans, casts, missing values.

The frame layer (Series, DataFrame) handles labels, alignment and names and calls these.
"""
