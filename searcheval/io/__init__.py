"""Every format in and out: TREC and its variants, tables, JSON, labeled sheets,
ir_datasets; recognition; the atomic file writer; the inputs the API accepts."""
