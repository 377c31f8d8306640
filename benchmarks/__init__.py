"""Throughput benchmarks of the suite's worlds (``python -m benchmarks``)."""
