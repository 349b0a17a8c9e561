"""Device arrays (CuPy, torch CUDA tensors): sorted on their device, returned as the same
type, equal to cupy.sort / np.sort. Skipped, with the reason shown, without a GPU or
without the library."""

import numpy as np
import pytest

import gxsort
from helpers import assert_equal_ints, assert_same, desc_argsort, make_array

SIZES = (0, 1, 7, 1001, 1 << 16)
DTYPES = ("i1", "u2", "i4", "u8", "f2", "f4", "f8", "?")


def need_gpu():
    if not gxsort.info()["gpus"]:
        pytest.skip("no usable GPU on this machine (gxsort.info()['gpus'] is empty)")


@pytest.fixture(scope="module")
def cp():
    try:
        import cupy
    except ImportError:
        pytest.skip("cupy is not installed")
    need_gpu()
    if cupy.cuda.runtime.getDeviceCount() == 0:
        pytest.skip("cupy sees no CUDA device")
    return cupy


@pytest.fixture(scope="module")
def torch():
    try:
        import torch
    except ImportError:
        pytest.skip("torch is not installed")
    need_gpu()
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    return torch


def has_nan(a) -> bool:
    return a.dtype.kind in "fc" and bool(np.isnan(a).any())


@pytest.mark.parametrize("dtype", DTYPES)
def test_cupy_sort_argsort(cp, dtype):
    for n in SIZES:
        a = make_array(dtype, n, seed=200, kind="dups")
        d = cp.asarray(a)
        got = gxsort.sort(d)
        assert isinstance(got, cp.ndarray) and got.device == d.device
        assert_same(cp.asnumpy(got), a[np.argsort(a, kind="stable")], f"cupy sort {dtype} n={n}")
        if not has_nan(a):  # cupy.sort puts NaNs with the sign bit first; numpy (and gxsort) last
            assert cp.array_equal(got, cp.sort(d), equal_nan=True), f"cupy.sort {dtype} n={n}"
        perm = gxsort.argsort(d)
        assert isinstance(perm, cp.ndarray)
        assert_equal_ints(cp.asnumpy(perm), np.argsort(a, kind="stable"), f"cupy argsort {dtype} n={n}")
        assert_equal_ints(cp.asnumpy(gxsort.argsort(d, descending=True)), desc_argsort(a), f"cupy desc {dtype}")
        assert_same(cp.asnumpy(d), a, "the device input is untouched")


def test_cupy_unique_and_lexsort(cp):
    a = make_array("f4", 5001, seed=201, kind="dups")
    b = make_array("i2", 5001, seed=202, kind="dups")
    vals, idx, inv, cnt = gxsort.unique(cp.asarray(a), return_index=True, return_inverse=True, return_counts=True)
    w = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    assert isinstance(vals, cp.ndarray)
    assert np.array_equal(cp.asnumpy(vals), w[0], equal_nan=True)
    for g, want in zip((idx, inv, cnt), w[1:]):
        assert_equal_ints(cp.asnumpy(g), want, "cupy unique outputs")
    got = gxsort.lexsort([cp.asarray(b), cp.asarray(a)])
    assert isinstance(got, cp.ndarray)
    assert_equal_ints(cp.asnumpy(got), np.lexsort([b, a]), "cupy lexsort")


MERGE_SHAPES = ((0,), (1,), (1001, 517), (3, 1 << 16, 0), (7, 7, 7))


@pytest.mark.parametrize("dtype", ("u8", "i4", "f8", "f4", "u2"))
def test_cupy_merge_and_is_sorted(cp, dtype):
    # Merged on the device: the host merge's bytes (its ties by array order: -0.0 and +0.0,
    # NaN payloads), as the stable sort of the arrays laid end to end.
    for sizes in MERGE_SHAPES:
        parts = [np.sort(make_array(dtype, n, seed=300 + 7 * i + n, kind="dups"), kind="stable")
                 for i, n in enumerate(sizes)]
        got = gxsort.merge([cp.asarray(p) for p in parts])
        assert isinstance(got, cp.ndarray)
        want = gxsort.merge(parts)
        assert_same(cp.asnumpy(got), want, f"cupy merge {dtype} {sizes}")
        cat = np.concatenate(parts)
        assert_same(want, cat[np.argsort(cat, kind="stable")], f"host merge {dtype} {sizes}")
        assert gxsort.is_sorted(got)
    a = make_array(dtype, 1001, seed=310, kind="random")
    bad = np.sort(a, kind="stable")[::-1].copy()
    assert not gxsort.is_sorted(cp.asarray(bad)) and not gxsort.is_sorted(bad)
    assert gxsort.is_sorted(cp.asarray(bad), descending=True) and gxsort.is_sorted(bad, descending=True)
    with pytest.raises(gxsort.InputError) as e:
        gxsort.merge([cp.asarray(np.sort(a)), cp.asarray(bad)])
    with pytest.raises(gxsort.InputError) as host:
        gxsort.merge([np.sort(a), bad])
    assert str(e.value) == str(host.value)


def test_torch_merge(torch):
    a = np.sort(make_array("i8", 5001, seed=311, kind="dups"))
    b = np.sort(make_array("i8", 333, seed=312, kind="dups"))
    got = gxsort.merge([torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()])
    assert isinstance(got, torch.Tensor)
    assert_same(got.cpu().numpy(), np.sort(np.concatenate([a, b]), kind="stable"), "torch merge")


def test_cupy_on_a_stream(cp):
    a = make_array("u8", 1 << 20, seed=203)
    with cp.cuda.Stream(non_blocking=True) as s:
        d = cp.asarray(a)
        got = gxsort.sort(d)
        s.synchronize()
    assert_same(cp.asnumpy(got), np.sort(a), "sorted on the caller's stream")


@pytest.mark.parametrize("dtype", ("int32", "int64", "float32", "float64", "uint8"))
def test_torch_sort_argsort(torch, dtype):
    for n in SIZES:
        a = make_array(np.dtype(dtype), n, seed=204, kind="dups")
        t = torch.from_numpy(a.copy()).cuda()
        got = gxsort.sort(t)
        assert isinstance(got, torch.Tensor) and got.device == t.device
        assert_same(got.cpu().numpy(), a[np.argsort(a, kind="stable")], f"torch sort {dtype} n={n}")
        if not has_nan(a):  # torch.sort may put NaNs with the sign bit first; numpy (and gxsort) last
            ref = torch.sort(t, stable=True).values.cpu().numpy()
            assert np.array_equal(got.cpu().numpy(), ref, equal_nan=True), f"torch.sort {dtype} n={n}"
        perm = gxsort.argsort(t)
        assert isinstance(perm, torch.Tensor)
        assert_equal_ints(perm.cpu().numpy(), np.argsort(a, kind="stable"), f"torch argsort {dtype} n={n}")


def test_device_cuda_host_array_matches_cpu():
    need_gpu()
    a = make_array("f8", 100_003, seed=205, kind="dups")
    assert_same(gxsort.sort(a, device="cuda"), gxsort.sort(a, device="cpu"), "host array on cuda vs cpu")
    assert_same(gxsort.sort(a, device="cuda"), a[np.argsort(a, kind="stable")], "host array on cuda")


def test_device_cuda_host_arrays_past_a_staging_slice():
    """Host arrays past one 64 MiB copy slice go to the GPU and back through pinned staging
    (cuda/host_staging.cu): a sorted copy, an in-place sort, and argsort's indexed records."""
    need_gpu()
    a = make_array("i8", (2 << 26) // 8 + 5, seed=206, kind="dups")
    want = np.sort(a, kind="stable")
    before = a.copy()
    assert_same(gxsort.sort(a, device="cuda"), want, "sorted copy past a slice")
    assert_same(a, before, "the input is untouched")
    b = a.copy()
    assert gxsort.sort(b, out=b, device="cuda") is b
    assert_same(b, want, "in place past a slice")
    f = make_array("f4", (3 << 25) // 4 + 3, seed=207, kind="dups")
    assert_equal_ints(gxsort.argsort(f, device="cuda"), np.argsort(f, kind="stable"), "argsort past a slice")


def test_cupy_sort_into_out(cp):
    """out=: another array (the sort's first pass is the copy), the input itself, and an
    array overlapping the input (copied first)."""
    n = 1001
    a = make_array("f8", n, seed=208, kind="dups")
    want = a[np.argsort(a, kind="stable")]
    d = cp.asarray(a)
    o = cp.empty_like(d)
    assert gxsort.sort(d, out=o) is o
    assert_same(cp.asnumpy(o), want, "out= another array")
    assert_same(cp.asnumpy(d), a, "the input is untouched")
    big = cp.empty(2 * n, d.dtype)
    big[:n] = d
    shifted = big[n // 2:n // 2 + n]
    gxsort.sort(big[:n], out=shifted)
    assert_same(cp.asnumpy(shifted), want, "out= overlapping the input")
    assert gxsort.sort(d, out=d) is d
    assert_same(cp.asnumpy(d), want, "in place")
    empty = cp.empty(0, d.dtype)
    out = cp.empty(0, d.dtype)
    assert gxsort.sort(empty, out=out) is out


def test_release_device_memory_without_a_gpu_call():
    gxsort.release_device_memory()  # nothing held: a no-op on any machine
    gxsort.release_device_memory()


def test_cupy_kept_memory_released_and_made_again(cp):
    a = make_array("u8", 1 << 18, seed=205, kind="dups")
    for n in (1 << 18, 1000, 1 << 18):  # the kept arena grown, kept, then the same size
        assert_same(cp.asnumpy(gxsort.sort(cp.asarray(a[:n]))), np.sort(a[:n]), f"sort n={n}")
    gxsort.release_device_memory()
    assert_same(cp.asnumpy(gxsort.sort(cp.asarray(a))), np.sort(a), "after release")


def test_cupy_past_the_device_budget_goes_through_the_host(cp):
    # device_memory= too small for one device sort: copied out, sorted by the engine, copied back
    a = make_array("f8", 1 << 20, seed=206, kind="dups")
    d = cp.asarray(a)
    got = gxsort.sort(d, device_memory="4M")
    assert_same(cp.asnumpy(got), a[np.argsort(a, kind="stable")], "sorted through the host")
    assert_equal_ints(cp.asnumpy(gxsort.argsort(d, device_memory="4M")), np.argsort(a, kind="stable"), "argsort")
