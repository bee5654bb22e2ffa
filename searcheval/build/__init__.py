"""What produces qrels and runs: baseline searchers, pools, labels, judgments, votes."""
