"""Running benchmarks: in-process timing, executors, the sampling plan, environment capture."""
