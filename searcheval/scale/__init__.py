"""Evaluation beyond one run in memory: batches, blocks, streaming, Dask."""
