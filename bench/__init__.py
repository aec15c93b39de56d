"""Benchmarks: one folder per benchmark, each run by its ``run.py``; shared code in `common`."""
