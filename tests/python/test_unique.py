"""gxsort.unique against np.unique: every return_* flag, equal_nan, axis=None and axis=0."""

import itertools

import numpy as np
import pytest

import gxsort
from helpers import (ALL_PLAIN_DTYPES, SIZES, assert_equal_ints, assert_same, assert_same_values, float_specials,
                     make_array, total_key)

FLAGS = list(itertools.product((False, True), repeat=3))


def check_unique(a, what, **kw):
    """gxsort.unique(a, ...) against np.unique(a, ...) for every combination of flags:
    values by value (and, per the API, the bytes of each group's first element),
    index/inverse/counts exactly."""
    # numpy's oracle always with return_index=True: numpy then sorts stably (mergesort);
    # without it, its quicksort orders NaN groups (equal_nan=False) arbitrarily in the inverse,
    # and numpy >= 2.3 may take a hash path that merges NaTs whatever equal_nan says.
    full = np.unique(a, return_index=True, return_inverse=True, return_counts=True, **kw)
    for ri, rv, rc in FLAGS:
        got = gxsort.unique(a, return_index=ri, return_inverse=rv, return_counts=rc, **kw)
        want = tuple(x for x, asked in zip(full, (True, ri, rv, rc)) if asked)
        tag = f"{what} index={ri} inverse={rv} counts={rc} {kw}"
        if not (ri or rv or rc):
            got = (got,)
        assert isinstance(got, tuple) and len(got) == len(want), tag
        assert_same_values(got[0], want[0], f"values {tag}")
        for k, (g, w) in enumerate(zip(got[1:], want[1:])):
            assert_equal_ints(g, w, f"output {k + 1} of {tag}")
        if ri and kw.get("axis") is None:
            flat = a.reshape(-1)
            assert_same(got[0], flat[got[1]], f"values are the first elements of their groups: {tag}")


@pytest.mark.parametrize("n", SIZES[:-1])
@pytest.mark.parametrize("dtype", ALL_PLAIN_DTYPES)
def test_unique_matches_numpy(dtype, n):
    for kind in ("random", "dups"):
        a = make_array(dtype, n, seed=10, kind=kind)
        for equal_nan in (True, False):
            check_unique(a, f"{dtype} n={n} {kind}", equal_nan=equal_nan)


@pytest.mark.parametrize("dtype", ("f2", "f4", "f8", "c16", "M8[s]", "m8[ms]"))
def test_unique_special_values(dtype):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        base = float_specials(dt)
    elif dt.kind == "c":
        f = float_specials("f8")
        base = (f[:, None] + 1j * f[None, ::3]).reshape(-1)
    else:
        base = np.array([5, -1, 0], "i8").view(dt.str).astype(dt)
        base = np.concatenate([base, np.array(["NaT"], dt)])
    a = np.concatenate([base, base[::-1], base[::2]])
    for equal_nan in (True, False):
        check_unique(a, f"specials {dtype}", equal_nan=equal_nan)


def test_unique_2d_axis_none_flattens_and_inverse_shape():
    a = make_array("i2", 7 * 13, seed=11, kind="dups").reshape(7, 13)
    check_unique(a, "2-D axis=None")
    f = make_array("f4", 5 * 9, seed=12, kind="dups").reshape(5, 9)
    check_unique(f, "2-D f4 axis=None")


@pytest.mark.parametrize("dtype", ("i1", "u8", "f8", "S2"))
def test_unique_rows(dtype):
    for rows in (0, 1, 5, 300):
        a = make_array(dtype, rows * 3, seed=13, kind="dups").reshape(rows, 3)
        if dtype == "f8":
            a[np.isnan(a)] = 1.5  # numpy never merges rows with NaNs (axis=0 ignores equal_nan)
        check_unique(a, f"rows {dtype} {rows}x3", axis=0)


def test_unique_rows_signed_zero_merged():
    a = np.array([[0.0, 1.0], [-0.0, 1.0], [2.0, -0.0], [2.0, 0.0]])
    check_unique(a, "rows +-0.0", axis=0)


def test_unique_float_order_total_distinguishes_bits():
    a = np.concatenate([float_specials("f8")] * 3)
    vals, index, counts = gxsort.unique(a, return_index=True, return_counts=True, float_order="total")
    keys = total_key(a)
    want_keys, want_index, want_counts = np.unique(keys, return_index=True, return_counts=True)
    assert_same(vals, a[want_index], "total order values: each bit pattern once")
    assert_equal_ints(index, want_index, "total order index")
    assert_equal_ints(counts, want_counts, "total order counts")


def test_unique_resources_and_budget(tmp_path):
    a = make_array("u4", 1 << 20, seed=14, kind="dups")
    want = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    got = gxsort.unique(a, return_index=True, return_inverse=True, return_counts=True, memory="1M",
                        tmp_dir=str(tmp_path), threads=2)
    assert_same_values(got[0], want[0], "values under a 1 MiB budget")
    for g, w in zip(got[1:], want[1:]):
        assert_equal_ints(g, w, "index/inverse/counts under a 1 MiB budget")
    assert list(tmp_path.iterdir()) == []
