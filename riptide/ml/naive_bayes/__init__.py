"""Naive Bayes classifiers (``sklearn.naive_bayes``): per-class statistics on the device."""

from riptide.ml.naive_bayes._naive_bayes import BernoulliNB, GaussianNB, MultinomialNB

__all__ = ["BernoulliNB", "GaussianNB", "MultinomialNB"]
