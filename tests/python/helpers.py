"""Inputs and oracles the gxsort Python tests share: numpy is the oracle throughout."""

import os

import numpy as np

# Sizes every array function is checked at: empty, one, odd, around powers of two, a few thousand.
SIZES = (0, 1, 2, 3, 7, 31, 64, 127, 1001, 4099)

INT_DTYPES = ("i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8")
FLOAT_DTYPES = ("f2", "f4", "f8")
COMPLEX_DTYPES = ("c8", "c16")
BIG_ENDIAN_DTYPES = (">i2", ">u4", ">i8", ">f4", ">f8", ">c16", ">M8[s]", ">U3")
OTHER_DTYPES = ("?", "S5", "U4", "M8[s]", "M8[ns]", "m8[ms]")
ALL_PLAIN_DTYPES = INT_DTYPES + FLOAT_DTYPES + COMPLEX_DTYPES + OTHER_DTYPES + BIG_ENDIAN_DTYPES

# Input shapes: uniform random, few distinct values, already sorted, reverse sorted.
KINDS = ("random", "dups", "sorted", "reversed")

# Structured dtypes: flat with bytes and bool fields, nested, with padding (packed offsets).
STRUCT_FLAT = np.dtype([("x", "<i4"), ("y", "<f8"), ("s", "S3"), ("b", "?")])
STRUCT_NESTED = np.dtype([("a", [("p", "u1"), ("q", ">i2")]), ("c", "U2"), ("d", "M8[D]"), ("w", "<f4")])
# Apart, so that a failure names its cause: a subarray field (numpy orders it by its raw
# bytes, memcmp, not element by element), and a complex field.
STRUCT_SUBARRAY = np.dtype([("k", "u1"), ("v", "<i2", (2,))])
STRUCT_COMPLEX = np.dtype([("k", "u1"), ("z", "<c8")])
STRUCT_PACKED = np.dtype({"names": ["k", "w"], "formats": ["<u2", "<i8"], "offsets": [8, 0], "itemsize": 16})


def float_specials(dtype) -> np.ndarray:
    """NaNs of both signs and several payloads (quiet and signalling), +-0.0, +-inf, the
    smallest and largest denormals of both signs, the extremes, and 1.0: as raw bits, so
    that every payload survives."""
    dt = np.dtype(dtype)
    bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]
    width = 8 * dt.itemsize
    mant = {16: 10, 32: 23, 64: 52}[width]
    sign = 1 << (width - 1)
    exp_all = ((1 << (width - 1 - mant)) - 1) << mant
    quiet = 1 << (mant - 1)
    raw = [exp_all | quiet, sign | exp_all | quiet, exp_all | quiet | 5, sign | exp_all | quiet | 3,
           exp_all | 1, sign | exp_all | 7,  # signalling NaNs
           0, sign, exp_all, sign | exp_all, 1, sign | 1, (1 << mant) - 1, sign | ((1 << mant) - 1)]
    out = np.array(raw, dtype=bits).view(dt.newbyteorder("="))
    fin = np.finfo(dt)
    extra = np.array([fin.max, -fin.max, fin.tiny, -fin.tiny, 1.0, -1.0], dtype=dt.newbyteorder("="))
    return np.concatenate([out, extra]).astype(dt)


def _random_floats(dt, n, rng, kind):
    specials = float_specials(dt)
    if kind == "dups":
        pool = np.concatenate([specials, np.array([0.5, -2.0, 3.0], dt)]).astype(dt)
        return pool[rng.integers(0, pool.shape[0], n)]
    vals = (rng.standard_normal(n) * 1e3).astype(dt)
    take = rng.random(n) < 0.25  # a quarter special values, anywhere
    vals[take] = specials[rng.integers(0, specials.shape[0], int(take.sum()))]
    return vals


def _random_plain(dt, n, rng, kind):
    k = dt.kind
    if k == "b":
        return rng.integers(0, 2, n).astype(dt)
    if k in "iu":
        info = np.iinfo(dt)
        if kind == "dups":
            pool = np.array([info.min, info.max, 0, 1, info.max // 2], dtype=dt)
            return pool[rng.integers(0, pool.shape[0], n)]
        return rng.integers(info.min, info.max, n, dtype=dt.newbyteorder("="), endpoint=True).astype(dt)
    if k == "f":
        return _random_floats(dt, n, rng, kind)
    if k == "c":
        part = np.dtype(f"f{dt.itemsize // 2}")
        out = np.empty(n, dt.newbyteorder("="))
        out.real = _random_floats(part, n, rng, kind)
        out.imag = _random_floats(part, n, rng, kind)
        if kind == "dups":
            out.imag[rng.random(n) < 0.5] = 0.0  # more ties on the real part
        return out.astype(dt)
    if k == "S":
        alphabet = np.array([0, ord("a"), ord("b"), 0xFF], np.uint8)  # NUL inside, a high byte
        return np.frombuffer(alphabet[rng.integers(0, 2 if kind == "dups" else 4, n * dt.itemsize)]
                             .tobytes(), dtype=dt).copy() if n else np.zeros(0, dt)
    if k == "U":
        points = np.array([0, ord("a"), ord("b"), 0xE9, 0x1F600], np.uint32)
        chars = dt.itemsize // 4
        high = 2 if kind == "dups" else 5
        codes = points[rng.integers(0, high, n * chars)].astype(np.dtype("u4").newbyteorder(dt.byteorder))
        return codes.view(dt).copy() if n else np.zeros(0, dt)
    if k in "mM":
        ints = rng.integers(-10**9, 10**9, n) if kind != "dups" else rng.integers(-2, 3, n)
        out = ints.astype(np.int64).view(np.dtype(dt.str[1:]).newbyteorder("=")).copy()
        out[rng.random(n) < 0.1] = np.datetime64("NaT") if k == "M" else np.timedelta64("NaT")
        return out.astype(dt)
    raise AssertionError(f"no generator for {dt}")


def _random_struct(dt, n, rng, kind):
    out = np.zeros(n, dt)
    for name in dt.names:
        sub = dt.fields[name][0]
        if sub.names:
            out[name] = _random_struct(sub, n, rng, kind)
        elif sub.shape:
            flat = _random_plain(sub.base, n * int(np.prod(sub.shape)), rng, kind)
            out[name] = flat.reshape((n,) + sub.shape)
        else:
            out[name] = _random_plain(sub, n, rng, kind)
    return out


def make_array(dtype, n, seed=0, kind="random"):
    """A deterministic 1-D array of n elements of dtype, shaped by kind (KINDS)."""
    dt = np.dtype(dtype)
    rng = np.random.default_rng([seed, n, sum(dt.str.encode()), KINDS.index(kind)])
    a = _random_struct(dt, n, rng, "dups" if kind == "dups" else "random") if dt.names else \
        _random_plain(dt, n, rng, "dups" if kind == "dups" else "random")
    if kind in ("sorted", "reversed"):
        a = a[np.argsort(a, kind="stable")]
        if kind == "reversed":
            a = a[::-1].copy()
    return np.ascontiguousarray(a)


def raw(a) -> bytes:
    """The bytes of an array's elements, in order (what "bytes equal" compares)."""
    return np.ascontiguousarray(a).tobytes()


def assert_same(got, want, what=""):
    """got is an ndarray of want's dtype and shape with the same bytes."""
    assert isinstance(got, np.ndarray), f"{what}: got {type(got)}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    if raw(got) != raw(want):
        diff = np.flatnonzero(np.ascontiguousarray(got).reshape(-1).view(np.uint8)
                              != np.ascontiguousarray(want).reshape(-1).view(np.uint8))
        i = int(diff[0]) // max(want.dtype.itemsize, 1)
        raise AssertionError(f"{what}: first difference at element {i}: got {got.reshape(-1)[i]!r}, "
                             f"want {want.reshape(-1)[i]!r}")


def assert_same_values(got, want, what=""):
    """Equal values (NaN equal to NaN where the dtype has NaNs), dtype and shape."""
    assert got.dtype == want.dtype and got.shape == want.shape, f"{what}: {got.dtype}{got.shape} != {want.dtype}{want.shape}"
    nan = want.dtype.kind in "fcmM"
    assert np.array_equal(got, want, equal_nan=nan), f"{what}: values differ"


def assert_equal_ints(got, want, what=""):
    """An index array equal to numpy's (int64, exactly)."""
    got = np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    assert got.dtype == np.int64, f"{what}: dtype {got.dtype}"
    if not np.array_equal(got, want):
        i = int(np.flatnonzero(got.reshape(-1) != want.reshape(-1))[0])
        raise AssertionError(f"{what}: first difference at {i}: got {got.reshape(-1)[i]}, want {want.reshape(-1)[i]}")


def desc_argsort(a) -> np.ndarray:
    """numpy's stable argsort of the reverse order: keys from largest to smallest, equal
    keys in input order (the stable sort of the reversed array, read backwards)."""
    n = a.shape[0]
    if n == 0:
        return np.zeros(0, np.int64)
    return (n - 1) - np.argsort(a[::-1], kind="stable")[::-1]


def desc_lexsort(keys) -> np.ndarray:
    """np.lexsort with every key descending, ties in input order."""
    n = keys[0].shape[0]
    if n == 0:
        return np.zeros(0, np.int64)
    return (n - 1) - np.lexsort([k[::-1] for k in keys])[::-1]


def total_key(a) -> np.ndarray:
    """IEEE totalOrder as unsigned integers of a float array's raw bits: negative values
    (sign set) have every bit flipped, the others the sign bit set."""
    dt = a.dtype
    bits = np.dtype(f"u{dt.itemsize}").newbyteorder(dt.byteorder)
    u = a.view(bits).astype(f"u{dt.itemsize}")
    sign = np.array(1 << (8 * dt.itemsize - 1), u.dtype)
    return np.where(u & sign, ~u, u | sign)


def dense_rank(a) -> np.ndarray:
    """For ints, floats (NaNs equal, -0.0 == +0.0), complex and S/U: the rank of each
    element among the distinct values in numpy's order (equal elements share a rank)."""
    p = np.argsort(a, kind="stable")
    s = a[p]
    if a.dtype.kind == "f":
        same = (s[1:] == s[:-1]) | (np.isnan(s[1:]) & np.isnan(s[:-1]))
    elif a.dtype.kind == "c":
        re, im = s.real, s.imag
        same = (((re[1:] == re[:-1]) | (np.isnan(re[1:]) & np.isnan(re[:-1])))
                & ((im[1:] == im[:-1]) | (np.isnan(im[1:]) & np.isnan(im[:-1]))))
    else:
        same = s[1:] == s[:-1]
    rank = np.empty(a.shape[0], np.int64)
    rank[p] = np.concatenate([[0], np.cumsum(~same)]) if a.shape[0] else np.zeros(0, np.int64)
    return rank


def leftovers(directory) -> list:
    """The files and directories gxsort left in a directory (anything at all)."""
    return sorted(os.listdir(directory))
