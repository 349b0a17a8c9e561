"""Structured dtypes: order= with numpy's tie-breaking by the remaining fields, nested
fields, subarrays, byte and unicode fields, descending per key."""

import numpy as np
import pytest

import gxsort
from helpers import (KINDS, SIZES, STRUCT_COMPLEX, STRUCT_FLAT, STRUCT_NESTED, STRUCT_PACKED, STRUCT_SUBARRAY, assert_equal_ints, assert_same,
                     dense_rank, make_array, total_key)

ORDERS = (
    (STRUCT_FLAT, None), (STRUCT_FLAT, "x"), (STRUCT_FLAT, "y"), (STRUCT_FLAT, ["s", "x"]), (STRUCT_FLAT, "b"),
    (STRUCT_FLAT, ["b", "y", "s"]),
    (STRUCT_NESTED, None), (STRUCT_NESTED, "c"), (STRUCT_NESTED, "d"), (STRUCT_NESTED, ["a", "c"]),
    (STRUCT_NESTED, "w"), (STRUCT_PACKED, None), (STRUCT_PACKED, "w"),
    (STRUCT_SUBARRAY, None), (STRUCT_SUBARRAY, "v"), (STRUCT_COMPLEX, None), (STRUCT_COMPLEX, "z"),
)


def numpy_argsort(a, order):
    return np.argsort(a, order=order, kind="stable")


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype,order", ORDERS, ids=[f"{''.join(d.names)}-{o}" for d, o in ORDERS])
def test_structured_sort_matches_numpy(dtype, order, n):
    for kind in KINDS:
        a = make_array(dtype, n, seed=90, kind=kind)
        want = numpy_argsort(a, order)
        tag = f"{dtype} order={order} n={n} {kind}"
        assert_equal_ints(gxsort.argsort(a, order=order), want, f"argsort {tag}")
        got = gxsort.sort(a, order=order)
        assert_same(got, a[want], f"sort {tag}")
        assert gxsort.is_sorted(got, order=order), f"is_sorted {tag}"


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype,order", ORDERS[:8], ids=[f"{d.names[0]}-{o}" for d, o in ORDERS[:8]])
def test_structured_descending_reverses_the_whole_order(dtype, order, n):
    a = make_array(dtype, n, seed=91, kind="dups")
    want = desc_argsort_structured(a, order)
    assert_equal_ints(gxsort.argsort(a, order=order, descending=True), want, f"desc {dtype} {order} n={n}")
    assert_same(gxsort.sort(a, order=order, descending=True), a[want], f"sort desc {dtype} {order} n={n}")


def desc_argsort_structured(a, order):
    """The stable reverse of np.argsort(a, order=order): the stable sort of the reversed
    array, read backwards."""
    n = a.shape[0]
    if n == 0:
        return np.zeros(0, np.int64)
    return (n - 1) - np.argsort(a[::-1], order=order, kind="stable")[::-1]


def test_order_ties_broken_by_remaining_fields():
    dt = np.dtype([("k", "i2"), ("v", "f4"), ("s", "S2")])
    a = np.array([(1, 2.0, b"b"), (0, 5.0, b"a"), (1, 1.0, b"z"), (1, 1.0, b"a"), (0, np.nan, b"a")], dt)
    assert_equal_ints(gxsort.argsort(a, order="k"), np.array([1, 4, 3, 2, 0]), "ties by v then s")
    assert_equal_ints(gxsort.argsort(a, order=["k", "s"]), np.array([1, 4, 3, 0, 2]), "ties by v after s")


def test_descending_per_key():
    n = 3000
    a = make_array(np.dtype([("p", "i1"), ("q", "f8"), ("r", "S2")]), n, seed=92, kind="dups")
    for desc in ([True, False, False], [False, True, True], [True, True, False]):
        keys = [-dense_rank(a[f]) if d else dense_rank(a[f]) for f, d in zip(("p", "q", "r"), desc)]
        want = np.lexsort(keys[::-1])
        got = gxsort.argsort(a, order=["p", "q", "r"], descending=desc)
        assert_equal_ints(got, want, f"descending={desc}")
        assert gxsort.is_sorted(a[got], order=["p", "q", "r"], descending=desc)


def test_structured_float_order_total():
    dt = np.dtype([("f", "<f8"), ("i", "<u2")])
    a = make_array(dt, 2000, seed=93, kind="dups")
    want = np.lexsort([a["i"], total_key(a["f"])])
    assert_equal_ints(gxsort.argsort(a, order=["f", "i"], float_order="total"), want, "structured total order")


def test_structured_big_endian_fields():
    dt = np.dtype([("a", ">i4"), ("b", ">f8"), ("c", ">U2"), ("d", ">u2")])
    for n in SIZES:
        a = make_array(dt, n, seed=94, kind="dups")
        for order in (None, "b", ["c", "d"]):
            assert_equal_ints(gxsort.argsort(a, order=order), numpy_argsort(a, order), f"big-endian {order} n={n}")


def test_structured_unique_and_merge():
    a = make_array(STRUCT_FLAT, 3000, seed=95, kind="dups")
    a["y"][np.isnan(a["y"])] = 0.5  # np.unique compares structured NaNs as unequal
    vals, idx, inv, cnt = gxsort.unique(a, return_index=True, return_inverse=True, return_counts=True)
    w_vals, w_idx, w_inv, w_cnt = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    assert vals.dtype == w_vals.dtype and vals.shape == w_vals.shape
    for name in a.dtype.names:
        assert np.array_equal(vals[name], w_vals[name]), name
    assert_equal_ints(idx, w_idx, "structured unique index")
    assert_equal_ints(inv, w_inv, "structured unique inverse")
    assert_equal_ints(cnt, w_cnt, "structured unique counts")


def test_structured_big_array_under_budget(tmp_path):
    a = make_array(STRUCT_FLAT, 200_000, seed=96, kind="dups")
    want = numpy_argsort(a, "x")
    got = gxsort.sort(a, order="x", memory="1M", tmp_dir=str(tmp_path))
    assert_same(got, a[want], "structured under a 1 MiB budget")
    assert list(tmp_path.iterdir()) == []
