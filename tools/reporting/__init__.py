"""Results and kernels into pictures and tables: plot, figures, timeline, compare."""
