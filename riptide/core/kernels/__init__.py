"""Array kernels that columns and ops need: each an ``xp`` (NumPy/CuPy-generic) function,
with a hand-written CUDA kernel beside it where a hot path needs one."""
