"""Presentation: charts, tables and views for the book; no computation of results."""
