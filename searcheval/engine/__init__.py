"""Who computes the numbers: the native numpy engine and the pytrec_eval reference."""
