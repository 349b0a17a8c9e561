#!/usr/bin/env python3
"""Writes N little-endian u32 keys uniform in [0, R) (PBBS randomSeq-like: randomSeq -r R).

Usage: gen_u32_range.py OUT N R [SEED]   (R up to 2^32; needs numpy)
`gxsort gen` draws from the whole key range; the dedupe strategy benchmark needs a bounded one.
"""
import sys

import numpy as np

out, n, r = sys.argv[1], int(float(sys.argv[2])), int(float(sys.argv[3]))
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
assert 1 <= r <= 1 << 32, "R must be in [1, 2^32]"
rng = np.random.default_rng(seed)
step = 1 << 26
with open(out, "wb") as f:
    for i in range(0, n, step):
        rng.integers(0, r, min(step, n - i), dtype=np.uint64).astype("<u4").tofile(f)
