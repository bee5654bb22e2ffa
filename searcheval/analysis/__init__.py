"""What is learned from Results: compare (Comparison) and its statistics, the checks
of input files, the documents a run misses."""
