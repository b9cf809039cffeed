"""Renderers of a Report: plain text, colour table, JSON."""
