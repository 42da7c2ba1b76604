"""Benchmarks: `make bench` (python -m bench) runs them and writes bench/results/."""
