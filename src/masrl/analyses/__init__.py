"""Analyses of the survey's data: pure functions over validated frames."""
