"""Tables and data sets: reading, preparing and the seeds' benchmarks."""
