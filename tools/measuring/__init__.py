"""What measures on a GPU: the GPU session's bookkeeping (ladder) and the shape suite."""
