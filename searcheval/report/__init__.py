"""Every renderer and plot: pure functions, Results or Comparison in, text or bytes out."""
