#!/usr/bin/env python3
"""gxsort's Python package against what a numpy, CuPy or torch user runs instead, array to
array, in one run (issue 37). The jobs (--only takes their names, comma-separated):
  sort         a 1-D u64 host array (--size, 4 GiB): gxsort.sort against
               np.sort(kind="stable") and np.sort's default (quicksort)
  records      16-byte records of two u64 keys (--records-size, 1 GiB): gxsort.sort(order=)
               against np.sort(order=) and np.lexsort (its permutation applied: the records)
  unique       a u64 host array with about 8 copies of each value (--size): gxsort.unique
               against np.unique
  cupy         a CuPy u64 array (--size): gxsort.sort against cupy.sort
  torch        a torch CUDA int64 tensor (--size): gxsort.sort against torch.sort(stable=True)
  cupy-unique  a CuPy u64 array with duplicates (--size): gxsort.unique against cupy.unique
  big-device   with --big-device [FRACTION=0.6]: a CuPy u64 array of that fraction of the
               GPU's memory, gxsort.sort(x, out=x) against cupy.sort (which needs several
               times the array: "failed: out of memory" is its expected result)
  calls        per-call times of small u64 host arrays (2^10 to 2^20 elements, the best of
               many calls): gxsort.sort against np.sort (quicksort)
  cupy-calls   the same on CuPy arrays: gxsort.sort against cupy.sort, and gxsort in place
  memmap       an np.memmap in --tmp (--memmap-size, 32 GiB; twice that there for a sorted
               copy, the input and the output) with memory and device budgets of a quarter
               of it, the sort's temp files in --runs-dir (about the array's size: its runs,
               dropped as the merge reads them): gxsort.sort(mm, out=mm_out), or
               out=mm with --in-place (runs merged into a temp file, read back into the
               array once the merge succeeded; the output's pages are not flushed); the
               peers sort in memory only
Each time is the best of --rounds calls (time.perf_counter), after a warm-up call of the
same function on a small array, the device synchronized before and after device calls;
each row prints the peer's seconds and peer / gxsort. Every gxsort result is compared with
each peer's (np.array_equal, cupy.array_equal, torch.equal); where no peer can run (memmap,
big-device) it must be sorted and hold the input's values (sum and hash sum). A difference,
a gxsort error or temp files left exit 1. Device jobs are skipped, with a row saying why,
where cupy, torch or a GPU is missing. --tiny (CI): sizes of a few MiB, seconds; SMOKE=1 in
the environment is --tiny, and without numpy or the package prints "...; skipped" (exit 0).
  PYTHONPATH=build-py/python python3 tools/bench/python_peers.py [--tiny] [--only sort,memmap]
      [--size 4G] [--records-size 1G] [--memmap-size 32G] [--tmp DIR] [--runs-dir DIR] [--in-place]
      [--big-device [FRACTION]] [--rounds N] [--json FILE]
"""
import argparse
import datetime
import gc
import json
import os
import shutil
import sys
import tempfile
import time

try:
    import numpy as np

    import gxsort
except ImportError as e:  # SMOKE=1 (CI, a build without the package): skipped, and said so
    if os.environ.get("SMOKE") != "1":
        raise
    print(f"python_peers: needs numpy and the gxsort package ({e}); skipped")
    sys.exit(0)

MIB, GIB = 1 << 20, 1 << 30
JOBS = ("sort", "records", "unique", "cupy", "torch", "cupy-unique", "big-device", "calls", "cupy-calls", "memmap")
WARM = 4096  # elements of the warm-up arrays
CHUNK = 1 << 24  # elements per step of the generators and checks (128 MiB of u64)
TINY_MEMMAP_MAX = 64 * MIB
CALL_SIZES = (1 << 10, 1 << 14, 1 << 17, 1 << 20)  # elements of the per-call jobs
RECORD = np.dtype([("key", "<u8"), ("key2", "<u8")])


def parse_size(text):
    """Bytes of "4G", "512M", "64K", "4GiB" or a plain number (binary units)."""
    t = text.strip().upper().removesuffix("IB").removesuffix("B")
    mult = {"K": 1 << 10, "M": MIB, "G": GIB, "T": 1 << 40}.get(t[-1:], 1)
    try:
        n = float(t[:-1] if mult > 1 else t) * mult
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (give e.g. 4G, 512M)") from None
    if n < 8:
        raise argparse.ArgumentTypeError(f"size {text!r}: give at least 8 bytes")
    return int(n) // 8 * 8


def show_size(n):
    return f"{n / GIB:.4g} GiB" if n >= GIB else f"{n / MIB:.4g} MiB" if n >= MIB else f"{n / 1024:.4g} KiB"


# ---- inputs: splitmix64 of the indices, the same for numpy, CuPy and np.memmap ----

def fill_random(out, xp, seed, modulo=0):
    """Fills the u64 array `out` (numpy, CuPy or memmap) with splitmix64 of seed + index,
    reduced modulo `modulo` when given (duplicates), a chunk at a time (little scratch)."""
    u = xp.uint64
    for b in range(0, out.shape[0], CHUNK):
        z = xp.arange(b, min(b + CHUNK, out.shape[0]), dtype=u)
        z += u(seed)
        z *= u(0x9E3779B97F4A7C15)
        z ^= z >> u(30)
        z *= u(0xBF58476D1CE4E5B9)
        z ^= z >> u(27)
        z *= u(0x94D049BB133111EB)
        z ^= z >> u(31)
        if modulo:
            z %= u(modulo)
        out[b : b + z.shape[0]] = z
    return out


def fingerprint(a, xp):
    """(sum, sum of a mix of each value) modulo 2^64: equal for any order of the same values."""
    u, s, h = xp.uint64, 0, 0
    for b in range(0, a.shape[0], CHUNK):
        c = xp.asarray(a[b : b + CHUNK])
        s = (s + int(c.sum(dtype=u))) % (1 << 64)
        m = c * u(0xD6E8FEB86659FD93)
        m ^= m >> u(32)
        h = (h + int(m.sum(dtype=u))) % (1 << 64)
    return s, h


def is_sorted(a, xp):
    """Whether the 1-D array is in ascending order, checked a chunk at a time."""
    for b in range(0, a.shape[0], CHUNK):
        c = xp.asarray(a[b : b + CHUNK + 1])
        if c.shape[0] > 1 and not bool((c[1:] >= c[:-1]).all()):
            return False
    return True


# ---- the device modules, and why a device job cannot run ----

def load_cupy():
    """(cupy, None) where cupy imports and sees a GPU that gxsort can use; else (None, why)."""
    try:
        import cupy
    except Exception as e:  # ImportError, or a cupy that cannot load its CUDA libraries
        return None, f"cupy does not import ({type(e).__name__}: {e})"
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            return None, "cupy sees no GPU"
    except Exception as e:  # no driver
        return None, f"cupy sees no GPU ({type(e).__name__}: {e})"
    info = gxsort.info()
    if not info.get("cuda_built") or not info.get("gpus"):
        return None, "this gxsort has no usable GPU (gxsort.info(): cuda_built or gpus empty)"
    return cupy, None


def load_torch(cupy, why_not_cupy):
    if cupy is None:
        return None, f"gxsort takes torch tensors through cupy: {why_not_cupy}"
    try:
        import torch
    except Exception as e:
        return None, f"torch does not import ({type(e).__name__}: {e})"
    if not torch.cuda.is_available():
        return None, "torch sees no GPU"
    return torch, None


def out_of_memory(e):
    """Whether the exception is an allocation failure (numpy, CuPy or torch)."""
    return isinstance(e, MemoryError) or type(e).__name__ in ("OutOfMemoryError", "OutOfMemory") or \
        "out of memory" in str(e).lower()


def seconds(s):
    """A time cell: milliseconds' digits for calls under 10 ms (the per-call jobs)."""
    return "" if s is None else f"{s:.6f}" if s < 0.01 else f"{s:.3f}"


def call_rounds(n, args):
    """Calls timed of an array of n elements in the per-call jobs: many for the small ones."""
    return max(args.rounds, 10 if n >= 1 << 17 else 100)


class Bench:
    """Times the calls, compares the results, prints the table's rows and keeps them for --json."""

    def __init__(self, rounds):
        self.rounds, self.rows, self.failures = rounds, [], []
        self.sync = lambda: None  # the device synchronization around timed calls

    def best_time(self, call, rounds=None):
        """(seconds of the best of the rounds, the last result)."""
        best, result = float("inf"), None
        for _ in range(rounds or self.rounds):
            result = None  # the previous round's result is freed before the next call
            self.sync()
            t = time.perf_counter()
            result = call()
            self.sync()
            best = min(best, time.perf_counter() - t)
        return best, result

    def row(self, job, nbytes, gx_s, peer, peer_s, result):
        ratio = peer_s / max(gx_s, 1e-9) if gx_s is not None and peer_s is not None else None
        cells = [job, show_size(nbytes) if nbytes else "", seconds(gx_s), peer, seconds(peer_s),
                 "" if ratio is None else f"{ratio:.2f}", result]
        print("| " + " | ".join(cells) + " |", flush=True)
        self.rows.append({"job": job, "bytes": nbytes, "gxsort_s": gx_s, "peer": peer, "peer_s": peer_s,
                          "peer_over_gxsort": ratio, "result": result})

    def fail(self, job, what):
        self.failures.append(f"{job}: {what}")

    def skip(self, job, why):
        self.row(job, 0, None, "", None, f"skipped: {why}")

    def compare(self, job, nbytes, gx_call, peers, equal, rounds=None):
        """Times gxsort's call, then each peer's; a row per peer, its result compared with gxsort's."""
        try:
            gx_s, got = self.best_time(gx_call, rounds)
        except Exception as e:
            self.row(job, nbytes, None, "", None, f"GXSORT FAILED: {type(e).__name__}: {e}")
            return self.fail(job, f"gxsort failed: {e}")
        for name, call in peers:
            try:
                peer_s, want = self.best_time(call, rounds)
            except Exception as e:
                why = "out of memory" if out_of_memory(e) else f"{type(e).__name__}: {e}"
                self.row(job, nbytes, gx_s, name, None, f"failed: {why}")
                continue
            same = equal(got, want)
            want = None  # freed before the next peer's call
            self.row(job, nbytes, gx_s, name, peer_s, "equal" if same else "DIFFERS")
            if not same:
                self.fail(job, f"gxsort's result differs from {name}'s")

    def timed_job(self, job, data, nbytes, gx, peers, equal):
        """gx(data) against each peer's function of data: a warm-up of each on the first
        elements of data (untimed), then compare()."""
        small = data[:WARM]
        small = small.clone() if hasattr(small, "clone") else small.copy()  # torch, or numpy and CuPy
        for f in [gx] + [f for _, f in peers]:
            try:
                f(small)
            except Exception:  # the timed call reports it
                pass
        # Device arrays: the first full-size call grows the caching allocators (CuPy's pool,
        # torch's) for whoever runs after it, so each side gets the best of 3 calls at least.
        rounds = None if isinstance(data, np.ndarray) else max(self.rounds, 3)
        self.compare(job, nbytes, lambda: gx(data), [(name, lambda f=f: f(data)) for name, f in peers], equal, rounds)


# ---- the host jobs ----

def job_sort(b, args, dev):
    a = fill_random(np.empty(args.size // 8, np.uint64), np, 1)
    peers = [('np.sort(kind="stable")', lambda x: np.sort(x, kind="stable")), ("np.sort (quicksort)", np.sort)]
    b.timed_job("u64 sort, numpy array", a, a.nbytes, gxsort.sort, peers, np.array_equal)


def job_records(b, args, dev):
    """Two keys: key with about 4 records per value, so that key2 decides often."""
    n = args.records_size // RECORD.itemsize
    rec = np.empty(n, RECORD)
    fill_random(rec["key"], np, 2, modulo=max(1, n // 4))
    fill_random(rec["key2"], np, 3)
    keys = ["key", "key2"]
    peers = [("np.sort(order=[key, key2])", lambda x: np.sort(x, order=keys)),
             ("np.lexsort((key2, key)), records taken", lambda x: x[np.lexsort((x["key2"], x["key"]))])]
    b.timed_job("16-byte records by 2 u64 keys", rec, rec.nbytes, lambda x: gxsort.sort(x, order=keys), peers,
                np.array_equal)


def job_unique(b, args, dev):
    n = args.size // 8
    a = fill_random(np.empty(n, np.uint64), np, 4, modulo=max(1, n // 8))
    b.timed_job("u64 unique (~8 copies each), numpy", a, a.nbytes, gxsort.unique, [("np.unique", np.unique)],
                np.array_equal)


# ---- the device jobs ----

def on_device(b, dev, job):
    """The cupy module for a device job, the device synchronized around its calls; None
    (and a row saying why) where it cannot run."""
    if dev["cupy"] is None:
        b.skip(job, dev["why_cupy"])
        return None
    release_device(dev)
    b.sync = lambda: dev["cupy"].cuda.Device().synchronize()
    return dev["cupy"]


def release_device(dev):
    """The memory the peers' pools keep goes back to the GPU, for the next job and gxsort."""
    gc.collect()
    if dev["cupy"] is not None:
        dev["cupy"].get_default_memory_pool().free_all_blocks()
    if dev["torch"] is not None:
        dev["torch"].cuda.empty_cache()


def job_cupy(b, args, dev):
    cp = on_device(b, dev, "u64 sort, CuPy array")
    if cp is None:
        return
    x = fill_random(cp.empty(args.size // 8, cp.uint64), cp, 1)
    b.timed_job("u64 sort, CuPy array", x, x.nbytes, gxsort.sort, [("cupy.sort", cp.sort)],
                lambda g, w: bool(cp.array_equal(g, w)))


def job_torch(b, args, dev):
    job = "int64 sort, torch CUDA tensor"
    torch = dev["torch"]
    if torch is None:
        return b.skip(job, dev["why_torch"])
    cp = on_device(b, dev, job)
    t = torch.empty(args.size // 8, dtype=torch.int64, device="cuda")
    fill_random(cp.from_dlpack(t).view(cp.uint64), cp, 5)
    b.sync = lambda: torch.cuda.synchronize()
    peers = [("torch.sort(stable=True)", lambda y: torch.sort(y, stable=True).values)]
    b.timed_job(job, t, t.numel() * 8, gxsort.sort, peers, torch.equal)


def job_cupy_unique(b, args, dev):
    cp = on_device(b, dev, "u64 unique (~8 copies each), CuPy")
    if cp is None:
        return
    n = args.size // 8
    x = fill_random(cp.empty(n, cp.uint64), cp, 4, modulo=max(1, n // 8))
    b.timed_job("u64 unique (~8 copies each), CuPy", x, x.nbytes, gxsort.unique, [("cupy.unique", cp.unique)],
                lambda g, w: bool(cp.array_equal(g, w)))


def job_big_device(b, args, dev):
    """An array of --big-device of the GPU's memory: cupy.sort first (it needs a copy and
    more: out of memory expected), then gxsort in place; one call each (the array is sorted
    after gxsort's)."""
    if args.big_device is None:
        return b.skip("u64 sort in place, CuPy array of most of the GPU", "not asked for (--big-device [FRACTION])")
    job = f"u64 sort in place, CuPy array of {args.big_device:g} of the GPU"
    cp = on_device(b, dev, job)
    if cp is None:
        return
    free, total = cp.cuda.runtime.memGetInfo()
    n = int(total * args.big_device) // 8
    if n * 8 > free - 256 * MIB:
        return b.skip(job, f"the GPU has {show_size(free)} free of {show_size(total)}: give a smaller FRACTION")
    x = fill_random(cp.empty(n, cp.uint64), cp, 6)
    before = fingerprint(x, cp)
    small = x[:WARM].copy()
    cp.sort(small), gxsort.sort(small, out=small)
    try:
        peer_s, _ = b.best_time(lambda: cp.sort(x) is None, rounds=1)  # its result is dropped at once
        peer_result = "ran"
    except Exception as e:
        peer_s, peer_result = None, "failed: " + ("out of memory" if out_of_memory(e) else f"{type(e).__name__}: {e}")
    release_device(dev)
    try:
        gx_s, got = b.best_time(lambda: gxsort.sort(x, out=x), rounds=1)
    except Exception as e:
        b.row(job, n * 8, None, "cupy.sort", peer_s, f"cupy.sort {peer_result}; GXSORT FAILED: {type(e).__name__}: {e}")
        return b.fail(job, f"gxsort failed: {e}")
    in_order, same = is_sorted(got, cp), fingerprint(got, cp) == before
    copied = "" if got.data.ptr == x.data.ptr else " (a new array: out= was not used)"
    b.row(job, n * 8, gx_s, "cupy.sort", peer_s,
          f"cupy.sort {peer_result}; gxsort's output{copied} {checked(in_order, same)}")
    if not (in_order and same):
        b.fail(job, f"gxsort's output is {checked(in_order, same)}")


def job_calls(b, args, dev):
    for n in CALL_SIZES:
        a = fill_random(np.empty(n, np.uint64), np, 8)
        gxsort.sort(a), np.sort(a)  # warm-up
        b.compare("u64 sort, numpy array, per call", n * 8, lambda: gxsort.sort(a),
                  [("np.sort (quicksort)", lambda: np.sort(a))], np.array_equal, call_rounds(n, args))


def job_cupy_calls(b, args, dev):
    cp = on_device(b, dev, "u64 sort, CuPy array, per call")
    if cp is None:
        return
    equal = lambda g, w: bool(cp.array_equal(g, w))
    for n in CALL_SIZES:
        x = fill_random(cp.empty(n, cp.uint64), cp, 8)
        y = x.copy()
        gxsort.sort(x), cp.sort(x), gxsort.sort(y, out=y)  # warm-up: CuPy's pool, gxsort's arena
        rounds = call_rounds(n, args)
        b.compare("u64 sort, CuPy array, per call", n * 8, lambda: gxsort.sort(x), [("cupy.sort", lambda: cp.sort(x))],
                  equal, rounds)
        b.compare("u64 sort in place (out=x), CuPy array, per call", n * 8, lambda: gxsort.sort(y, out=y),
                  [("cupy.sort", lambda: cp.sort(x))], equal, rounds)


def checked(in_order, same_values):
    return ("sorted" if in_order else "NOT SORTED") + ", " + ("the input's values" if same_values else "VALUES DIFFER")


# ---- the memmap: larger than the memory budget ----

def job_memmap(b, args, dev):
    size, n = args.memmap_size, args.memmap_size // 8
    job = f"u64 memmap sort{' in place' if args.in_place else ''}, budgets {show_size(size // 4)}"
    runs_dir = args.runs_dir or args.tmp
    for d in (args.tmp, runs_dir):
        if not os.path.isdir(d):
            return b.skip(job, f"{d} is not a directory")
    needs = {}  # bytes per filesystem (see the job's description above)
    for d, need in ((args.tmp, size * (1 if args.in_place else 2)), (runs_dir, size + size // 8)):
        dev = os.stat(d).st_dev
        needs[dev] = (d, needs.get(dev, (d, 0))[1] + need)
    for where, need in needs.values():
        free = shutil.disk_usage(where).free
        if free < need + need // 50:
            return b.skip(job, f"{where} has {show_size(free)} free, the job needs {show_size(need)} there")
    with tempfile.TemporaryDirectory(prefix="gxsort-pypeers.", dir=args.tmp) as work, \
            tempfile.TemporaryDirectory(prefix="gxsort-pypeers-runs.", dir=runs_dir) as runs:
        try:
            sort_memmap(b, args, job, work, runs, n)
        finally:
            gc.collect()  # the memmaps are closed before their files go


def sort_memmap(b, args, job, work, runs, n):
    mm = np.memmap(os.path.join(work, "in.u64"), np.uint64, "w+", shape=(n,))
    fill_random(mm, np, 7)
    mm.flush()
    before = fingerprint(mm, np)
    out = mm if args.in_place else np.memmap(os.path.join(work, "out.u64"), np.uint64, "w+", shape=(n,))
    budget = n * 8 // 4
    gxsort.sort(mm[:WARM].copy())  # warm-up
    b.sync = lambda: None
    phases = []  # the engine's phases, in order: how it went (through temp files or not)
    seen = lambda phase, done, total: phases.append(phase) if phase not in phases else None
    try:
        t = time.perf_counter()
        got = gxsort.sort(mm, out=out, memory=budget, device_memory=budget, tmp_dir=runs, progress=seen)
        gx_s = time.perf_counter() - t
    except Exception as e:
        b.row(job, n * 8, None, "", None, f"GXSORT FAILED: {type(e).__name__}: {e}")
        return b.fail(job, f"gxsort failed: {e}")
    left = os.listdir(runs)
    in_order, same = is_sorted(got, np), fingerprint(got, np) == before
    peers = "np.sort, cupy.sort, torch.sort"
    b.row(job, n * 8, gx_s, peers, None, f"peers cannot (they sort in RAM or GPU memory, 2x the array there); "
          f"gxsort ({', '.join(phases)}): output {checked(in_order, same)}" +
          (f"; TEMP FILES LEFT: {left}" if left else ""))
    if not (in_order and same) or left:
        b.fail(job, f"gxsort's output is {checked(in_order, same)}, temp files left: {left}")


JOB_FUNCTIONS = {"sort": job_sort, "records": job_records, "unique": job_unique, "cupy": job_cupy, "torch": job_torch,
                 "cupy-unique": job_cupy_unique, "big-device": job_big_device, "calls": job_calls,
                 "cupy-calls": job_cupy_calls, "memmap": job_memmap}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tiny", action="store_true", help="CI: 4 MiB arrays, a 64 MiB memmap")
    p.add_argument("--size", type=parse_size, help="bytes of the u64 arrays (4G; --tiny 4M)")
    p.add_argument("--records-size", type=parse_size, help="bytes of the 16-byte records (1G; --tiny 4M)")
    p.add_argument("--memmap-size", type=parse_size, help="bytes of the memmap (32G; --tiny 64M at most)")
    p.add_argument("--tmp", default=os.environ.get("TMPDIR") or "/tmp", help="where the memmap's files go")
    p.add_argument("--runs-dir", help="where the sort's temp files go (default: --tmp)")
    p.add_argument("--in-place", action="store_true", help="the memmap sorted into itself")
    p.add_argument("--big-device", type=float, nargs="?", const=0.6, metavar="FRACTION",
                   help="the big-device job: an array of FRACTION (0.6) of the GPU's memory")
    p.add_argument("--rounds", type=int, default=1, help="calls timed per job, the best kept (1)")
    p.add_argument("--only", help="comma-separated jobs: " + ",".join(JOBS))
    p.add_argument("--json", help="also write the rows to this JSON file")
    args = p.parse_args()
    tiny = args.tiny = args.tiny or os.environ.get("SMOKE") == "1"
    args.size = args.size or (4 * MIB if tiny else 4 * GIB)
    args.records_size = args.records_size or (4 * MIB if tiny else GIB)
    args.memmap_size = args.memmap_size or (TINY_MEMMAP_MAX if tiny else 32 * GIB)
    if tiny and args.memmap_size > TINY_MEMMAP_MAX:
        p.error(f"--tiny: a memmap of {show_size(TINY_MEMMAP_MAX)} at most")
    if args.rounds < 1:
        p.error("--rounds: give 1 or more")
    if args.big_device is not None and not 0 < args.big_device < 1:
        p.error("--big-device: give a fraction of the GPU's memory between 0 and 1")
    args.jobs = args.only.split(",") if args.only else list(JOBS)
    unknown = [j for j in args.jobs if j not in JOBS]
    if unknown:
        p.error(f"--only: no job {unknown[0]!r} (jobs: {', '.join(JOBS)})")
    return args


def devices(jobs):
    """cupy and torch (None where missing) and why, for the device jobs asked for."""
    if not {"cupy", "torch", "cupy-unique", "big-device", "cupy-calls"} & set(jobs):
        return {"cupy": None, "torch": None, "why_cupy": "", "why_torch": ""}
    cupy, why_cupy = load_cupy()
    torch, why_torch = load_torch(cupy, why_cupy) if "torch" in jobs else (None, "")
    return {"cupy": cupy, "torch": torch, "why_cupy": why_cupy, "why_torch": why_torch}


def header(dev):
    info = gxsort.info()
    gpu = ", ".join(g["name"] for g in info["gpus"]) or "no GPU"
    versions = f"numpy {np.__version__}" + "".join(
        f", {m} {dev[m].__version__}" for m in ("cupy", "torch") if dev[m] is not None)
    print(f"### gxsort {gxsort.__version__} ({info['backend']} backend) from Python against its peers, array to array "
          f"({datetime.date.today()}, {gpu}, {os.cpu_count()} cores, {versions})")
    print("| job | size | gxsort s | peer | peer s | peer / gxsort | result |")
    print("|---|---|---|---|---|---|---|", flush=True)
    return {"date": str(datetime.date.today()), "gpu": gpu, "cores": os.cpu_count(), "versions": versions,
            "gxsort_info": info}


def main():
    args = parse_args()
    dev = devices(args.jobs)
    about = header(dev)
    b = Bench(args.rounds)
    for job in args.jobs:
        JOB_FUNCTIONS[job](b, args, dev)
        b.sync = lambda: None
        release_device(dev)
    skipped = sum(r["result"].startswith("skipped") for r in b.rows)
    print(f"{len(b.rows)} rows ({skipped} skipped), {len(b.failures)} failed")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({**about, "rows": b.rows, "failures": b.failures}, f, indent=1)
    for failure in b.failures:
        print(f"python_peers.py: {failure}", file=sys.stderr)
    return 1 if b.failures else 0


if __name__ == "__main__":
    sys.exit(main())
