"""gxsort.sort, argsort and is_sorted on plain dtypes, against numpy's stable sort."""

import numpy as np
import pytest

import gxsort
from helpers import (ALL_PLAIN_DTYPES, FLOAT_DTYPES, KINDS, SIZES, assert_equal_ints, assert_same,
                     assert_same_values, desc_argsort, float_specials, make_array, total_key)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL_PLAIN_DTYPES)
def test_sort_and_argsort_match_numpy(dtype, n):
    for kind in KINDS:
        a = make_array(dtype, n, kind=kind)
        before = a.copy()
        perm = np.argsort(a, kind="stable")
        got = gxsort.sort(a)
        assert_same_values(got, np.sort(a, kind="stable"), f"sort {dtype} n={n} {kind}")
        assert_same(got, a[perm], f"sort bytes {dtype} n={n} {kind}")
        assert_equal_ints(gxsort.argsort(a), perm, f"argsort {dtype} n={n} {kind}")
        assert_same(a, before, f"input untouched {dtype} n={n} {kind}")
        assert gxsort.is_sorted(got), f"is_sorted(sort(a)) {dtype} n={n} {kind}"


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ALL_PLAIN_DTYPES)
def test_descending_is_stable_reverse(dtype, n):
    for kind in ("random", "dups"):
        a = make_array(dtype, n, seed=1, kind=kind)
        want = desc_argsort(a)
        assert_equal_ints(gxsort.argsort(a, descending=True), want, f"argsort desc {dtype} n={n} {kind}")
        got = gxsort.sort(a, descending=True)
        assert_same(got, a[want], f"sort desc {dtype} n={n} {kind}")
        assert gxsort.is_sorted(got, descending=True), f"is_sorted desc {dtype} n={n} {kind}"


def test_descending_puts_nans_first():
    a = np.array([1.0, np.nan, -np.inf, -np.nan, 2.0], "f8")
    got = gxsort.sort(a, descending=True)
    assert np.isnan(got[:2]).all() and list(got[2:]) == [2.0, 1.0, -np.inf]
    assert got.view("u8")[0] == a.view("u8")[1]  # the NaNs in input order


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + (">f4", ">f8"))
def test_float_order_total(dtype):
    for n in SIZES:
        a = make_array(dtype, n, seed=2, kind="dups")
        want = np.argsort(total_key(a), kind="stable")
        assert_equal_ints(gxsort.argsort(a, float_order="total"), want, f"argsort total {dtype} n={n}")
        assert_same(gxsort.sort(a, float_order="total"), a[want], f"sort total {dtype} n={n}")
        want_desc = desc_argsort(total_key(a))
        assert_equal_ints(gxsort.argsort(a, float_order="total", descending=True), want_desc,
                          f"argsort total desc {dtype} n={n}")


def test_float_order_total_known_sequence():
    a = float_specials("f8")
    got = gxsort.sort(a, float_order="total")
    bits = got.view("u8")
    # -NaNs first, the largest payload first (bits flipped); a signalling one is nearest -inf
    assert list(bits[:3]) == [0xFFF8000000000003, 0xFFF8000000000000, 0xFFF0000000000007]
    assert got[3] == -np.inf and got[-4] == np.inf and np.isnan(got[-3:]).all()
    zeros = np.flatnonzero(got == 0.0)
    assert np.signbit(got[zeros[0]]) and not np.signbit(got[zeros[1]])  # -0.0 before +0.0


def test_signed_zeros_and_nans_keep_input_order_and_bits():
    a = float_specials("f4")
    a = np.concatenate([a, a[::-1]])
    got = gxsort.sort(a)
    assert_same(got, a[np.argsort(a, kind="stable")], "specials f4")


@pytest.mark.parametrize("dtype", ("i4", "f8", "S5", "U4", "M8[s]", ">f4"))
def test_is_sorted_detects_one_swap(dtype):
    a = np.sort(make_array(dtype, 1001, seed=3), kind="stable")
    assert gxsort.is_sorted(a)
    assert not gxsort.is_sorted(a[::-1].copy()) or np.array_equal(a, a[::-1], equal_nan=True)
    assert a[0] != a[-1]
    b = a.copy()
    b[0], b[-1] = a[-1], a[0]
    assert not gxsort.is_sorted(b), f"{dtype}: the smallest and largest swapped"
    assert gxsort.is_sorted(a[:0]) and gxsort.is_sorted(a[:1])


def test_is_sorted_nans_last():
    assert gxsort.is_sorted(np.array([-np.inf, -0.0, 0.0, -0.0, 1.0, np.nan, -np.nan]))
    assert not gxsort.is_sorted(np.array([np.nan, 1.0]))
    assert gxsort.is_sorted(np.array([np.nan, 1.0]), descending=True)
    assert not gxsort.is_sorted(np.array([0.0, -0.0]), float_order="total")
    assert gxsort.is_sorted(np.array([-np.nan, -np.inf, -0.0, 0.0, np.nan]), float_order="total")


@pytest.mark.parametrize("dtype", ("i8", "f4", "S5", "c16"))
def test_axis_none_flattens(dtype):
    a = make_array(dtype, 6 * 35, seed=4, kind="dups").reshape(6, 35)
    assert_same(gxsort.sort(a, axis=None), np.sort(a, axis=None, kind="stable"), f"sort axis=None {dtype}")
    assert_equal_ints(gxsort.argsort(a, axis=None), np.argsort(a, axis=None, kind="stable"), "argsort axis=None")


def test_axis_zero_of_1d():
    a = make_array("i4", 101, seed=5)
    assert_same(gxsort.sort(a, axis=0), np.sort(a, kind="stable"), "axis=0")
    assert_equal_ints(gxsort.argsort(a, axis=0), np.argsort(a, kind="stable"), "argsort axis=0")


@pytest.mark.parametrize("dtype", ("u8", "f8", "S5"))
def test_out_and_in_place(dtype):
    a = make_array(dtype, 1001, seed=6, kind="dups")
    want = a[np.argsort(a, kind="stable")]
    out = np.empty_like(a)
    res = gxsort.sort(a, out=out)
    assert res is out
    assert_same(out, want, "out=")
    b = a.copy()
    res = gxsort.sort(b, out=b)
    assert res is b
    assert_same(b, want, "in place")


def test_list_input_sorts_like_numpy():
    assert_same(gxsort.sort(np.asarray([3, 1, 2])), np.array([1, 2, 3]), "small")


def test_resources_accepted():
    a = make_array("i8", 4099, seed=7)
    want = np.sort(a, kind="stable")
    for kw in ({"threads": 1}, {"threads": 2}, {"memory": "64M"}, {"memory": 1 << 26}, {"memory": "50%"},
               {"device": "cpu"}, {"device": "auto"}, {"tmp_dir": None}):
        assert_same(gxsort.sort(a, **kw), want, f"sort with {kw}")
        assert_equal_ints(gxsort.argsort(a, **kw), np.argsort(a, kind="stable"), f"argsort with {kw}")


def test_progress_callback_gets_phases():
    calls = []
    a = make_array("u8", 1 << 18, seed=8)
    got = gxsort.sort(a, progress=lambda phase, done, total: calls.append((phase, done, total)))
    assert_same(got, np.sort(a, kind="stable"), "with progress")
    for phase, done, total in calls:
        assert isinstance(phase, str) and 0 <= done and (total == 0 or done <= total)


def test_progress_true_without_or_with_tqdm():
    a = make_array("i4", 1001, seed=9)
    assert_same(gxsort.sort(a, progress=True), np.sort(a, kind="stable"), "progress=True")


def test_info():
    d = gxsort.info()
    for key in ("version", "cuda_built", "threads", "memory_limit", "memory_budget", "gpus", "backend"):
        assert key in d, key
    assert d["backend"] in ("cuda", "cpu") and isinstance(d["gpus"], list)
    assert d["threads"] >= 1 and d["memory_budget"] > 0
    assert (d["backend"] == "cuda") == bool(d["gpus"])
