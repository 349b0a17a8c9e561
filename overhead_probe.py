# One-off diagnostic (not committed): the fixed cost of a gxsort device call against cupy.
import time, numpy as np, cupy as cp, gxsort
def t(f, reps=5):
    best = 1e9
    for _ in range(reps):
        cp.cuda.Device().synchronize(); s = time.perf_counter(); f(); cp.cuda.Device().synchronize()
        best = min(best, time.perf_counter() - s)
    return best
for n in (1 << 10, 1 << 20, 1 << 24, 1 << 27):
    x = cp.random.randint(0, 1 << 62, n, dtype=cp.int64).view(cp.uint64)
    g = t(lambda: gxsort.sort(x)); c = t(lambda: cp.sort(x)); cp_copy = t(lambda: x.copy())
    gi = t(lambda: gxsort.sort(x, out=x))
    ga = t(lambda: gxsort.argsort(x)); ca = t(lambda: cp.argsort(x))
    print(f"n=2^{n.bit_length()-1}: gxsort.sort {g*1e3:.2f} ms (in place {gi*1e3:.2f}), cupy.sort {c*1e3:.2f} ms, copy {cp_copy*1e3:.2f} ms; argsort {ga*1e3:.2f} vs {ca*1e3:.2f} ms")
import cProfile, pstats
x = cp.random.randint(0, 1 << 62, 1 << 10, dtype=cp.int64)
pr = cProfile.Profile(); pr.enable()
for _ in range(20): gxsort.sort(x)
pr.disable(); pstats.Stats(pr).sort_stats("cumulative").print_stats(8)
