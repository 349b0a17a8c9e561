"""gxsort.merge, lexsort and sort_rows against numpy."""

import numpy as np
import pytest

import gxsort
from helpers import (ALL_PLAIN_DTYPES, STRUCT_FLAT, assert_equal_ints, assert_same, desc_argsort, desc_lexsort,
                     make_array, total_key)

PART_SIZES = ((0,), (1,), (0, 0), (5, 0, 3), (1, 1, 1, 1), (31, 64, 7), (1001, 999), (4099, 1, 2000))


def stable_sorted(a):
    return a[np.argsort(a, kind="stable")]


@pytest.mark.parametrize("sizes", PART_SIZES, ids=str)
@pytest.mark.parametrize("dtype", ALL_PLAIN_DTYPES)
def test_merge_matches_stable_sort_of_concatenation(dtype, sizes):
    for kind in ("random", "dups"):
        parts = [stable_sorted(make_array(dtype, n, seed=20 + k, kind=kind)) for k, n in enumerate(sizes)]
        # gxsort.merge keeps the inputs' dtype (np.concatenate makes a big-endian one native).
        cat = np.concatenate(parts).astype(parts[0].dtype)
        want = cat[np.argsort(cat, kind="stable")]
        assert_same(gxsort.merge(parts), want, f"merge {dtype} {sizes} {kind}")
        assert_same(gxsort.merge(tuple(parts)), want, f"merge of a tuple {dtype} {sizes}")


@pytest.mark.parametrize("sizes", PART_SIZES, ids=str)
@pytest.mark.parametrize("dtype", ("i8", "f4", "f8", "S5", "U4", "M8[s]", ">i2"))
def test_merge_descending(dtype, sizes):
    parts = []
    for k, n in enumerate(sizes):
        a = make_array(dtype, n, seed=30 + k, kind="dups")
        parts.append(a[desc_argsort(a)])
    cat = np.concatenate(parts).astype(parts[0].dtype)
    assert_same(gxsort.merge(parts, descending=True), cat[desc_argsort(cat)], f"merge desc {dtype} {sizes}")


def test_merge_structured_order():
    parts = [make_array(STRUCT_FLAT, n, seed=40 + n, kind="dups") for n in (100, 57, 0, 301)]
    parts = [p[np.argsort(p, order="x", kind="stable")] for p in parts]
    cat = np.concatenate(parts)
    assert_same(gxsort.merge(parts, order="x"), cat[np.argsort(cat, order="x", kind="stable")], "merge order=x")


def test_merge_float_order_total():
    parts = [make_array("f8", n, seed=50 + n, kind="dups") for n in (64, 127, 3)]
    parts = [p[np.argsort(total_key(p), kind="stable")] for p in parts]
    cat = np.concatenate(parts)
    assert_same(gxsort.merge(parts, float_order="total"), cat[np.argsort(total_key(cat), kind="stable")],
                "merge total")


def test_merge_ties_keep_argument_order():
    a = np.array([0.0, 1.0, np.nan], "f8")
    b = np.array([-0.0, 1.0, -np.nan], "f8")
    got = gxsort.merge([a, b])
    assert list(np.signbit(got)) == [False, True, False, False, False, True]


def test_merge_big_under_budget(tmp_path):
    parts = [np.sort(make_array("u8", 300_000, seed=60 + k)) for k in range(3)]
    want = np.sort(np.concatenate(parts), kind="stable")
    assert_same(gxsort.merge(parts, memory="1M", tmp_dir=str(tmp_path)), want, "merge under 1 MiB")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("n", (0, 1, 2, 7, 64, 1001, 4099))
@pytest.mark.parametrize("dtype", ("i1", "i8", "u2", "f2", "f8", "S5", "U4", "M8[s]", ">f8", "c8", "?"))
def test_lexsort_matches_numpy(dtype, n):
    k1 = make_array(dtype, n, seed=70, kind="dups")
    k2 = make_array("i2", n, seed=71, kind="dups")
    k3 = make_array(dtype, n, seed=72, kind="dups")
    for keys in ([k1], [k1, k2], [k2, k1], [k1, k2, k3]):
        want = np.lexsort(keys)
        assert_equal_ints(gxsort.lexsort(keys), want, f"lexsort {dtype} n={n} {len(keys)} keys")
        assert_equal_ints(gxsort.lexsort(tuple(keys)), want, f"lexsort tuple {dtype} n={n}")
        assert_equal_ints(gxsort.lexsort(keys, descending=True), desc_lexsort(keys),
                          f"lexsort desc {dtype} n={n} {len(keys)} keys")


def test_lexsort_2d_array_of_keys():
    keys = make_array("i4", 3 * 500, seed=73, kind="dups").reshape(3, 500)
    assert_equal_ints(gxsort.lexsort(keys), np.lexsort(keys), "lexsort of a 2-D array")


def test_lexsort_descending_per_key():
    n = 2000
    a = make_array("i4", n, seed=74, kind="dups")
    b = make_array("f8", n, seed=75, kind="dups")
    # b primary descending, a secondary ascending: np.lexsort of (a, -rank of b)
    rank_b = np.unique(b, return_inverse=True, equal_nan=True)[1]
    want = np.lexsort([a, -rank_b])
    assert_equal_ints(gxsort.lexsort([a, b], descending=[False, True]), want, "lexsort per-key descending")


@pytest.mark.parametrize("rows,cols", ((0, 3), (1, 4), (7, 1), (300, 3), (1001, 2)))
@pytest.mark.parametrize("dtype", ("u1", "i4", "i8", "f4", "f8", "S3", ">u2"))
def test_sort_rows(dtype, rows, cols):
    a = make_array(dtype, rows * cols, seed=80, kind="dups").reshape(rows, cols)
    perm = np.lexsort(a.T[::-1]) if rows else np.zeros(0, np.int64)
    got = gxsort.sort_rows(a)
    assert_same(got, a[perm], f"sort_rows {dtype} {rows}x{cols}")
    perm_desc = desc_lexsort(list(a.T[::-1])) if rows else perm
    assert_same(gxsort.sort_rows(a, descending=True), a[perm_desc], f"sort_rows desc {dtype} {rows}x{cols}")


def test_sort_rows_order_is_unique_rows_order():
    a = make_array("i2", 500 * 2, seed=81, kind="dups").reshape(500, 2)
    got = gxsort.sort_rows(a)
    u = np.unique(a, axis=0)
    keep = np.concatenate([[True], np.any(got[1:] != got[:-1], axis=1)])
    assert_same(got[keep], u, "distinct sorted rows == np.unique(axis=0)")
