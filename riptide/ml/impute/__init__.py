"""Imputation of missing values (``sklearn.impute``)."""

from riptide.ml.impute._base import SimpleImputer

__all__ = ["SimpleImputer"]
