"""sort_file, merge_files, dedupe_file and check_file on .npy and raw .bin files, against
numpy; their reports; outputs naming inputs; errors."""

import numpy as np
import pytest

import gxsort
from helpers import STRUCT_FLAT, assert_equal_ints, assert_same, desc_argsort, leftovers, make_array, total_key


def save(tmp_path, name, a):
    """a as tmp_path/name: .npy through np.save, anything else raw bytes."""
    path = tmp_path / name
    if name.endswith(".npy"):
        np.save(path, a)
    else:
        a.tofile(path)
    return path


def load(path, dtype=None):
    return np.load(path) if str(path).endswith(".npy") else np.fromfile(path, dtype=dtype)


def stable(a, **kw):
    return a[np.argsort(a, kind="stable", **kw)]


def check_report(r, command, records):
    assert isinstance(r, gxsort.Report)
    assert r.command == command and r.records == records, (r.command, r.records)
    assert isinstance(r.backend, str) and r.backend and isinstance(r.mode, str)
    assert r.input_bytes >= 0 and r.output_bytes >= 0 and r.seconds >= 0 and r.runs >= 0 and r.merge_levels >= 0
    assert isinstance(r.phases, dict) and all(isinstance(v, float) for v in r.phases.values())


@pytest.mark.parametrize("dtype", ("i8", "u4", "i1", ">i4", ">u8", "u2", "?", "S3"))
@pytest.mark.parametrize("n", (0, 1, 7, 4099))
def test_sort_file_npy(tmp_path, dtype, n):
    a = make_array(dtype, n, seed=100, kind="dups")
    src = save(tmp_path, "in.npy", a)
    r = gxsort.sort_file(src, tmp_path / "out.npy")
    got = np.load(tmp_path / "out.npy")
    assert_same(got, stable(a), f"sort_file {dtype} n={n}")
    check_report(r, "sort", n)
    assert r.output_bytes >= n * a.dtype.itemsize
    assert leftovers(tmp_path) == ["in.npy", "out.npy"]


@pytest.mark.parametrize("dtype", ("<u8", "<i4", ">u2", ">i8", "<i2"))
def test_sort_file_bin(tmp_path, dtype):
    a = make_array(dtype, 10_001, seed=101)
    src = save(tmp_path, "in.bin", a)
    r = gxsort.sort_file(str(src), str(tmp_path / "out.bin"), dtype=dtype)
    assert_same(load(tmp_path / "out.bin", dtype), stable(a), f"sort_file bin {dtype}")
    check_report(r, "sort", a.shape[0])
    assert r.input_bytes == a.nbytes and r.output_bytes == a.nbytes
    assert (tmp_path / "out.bin").stat().st_size == a.nbytes


def test_sort_file_descending(tmp_path):
    a = make_array("<i8", 5001, seed=102, kind="dups")
    save(tmp_path, "in.bin", a)
    gxsort.sort_file(tmp_path / "in.bin", tmp_path / "out.bin", dtype="<i8", descending=True)
    assert_same(load(tmp_path / "out.bin", "<i8"), a[desc_argsort(a)], "sort_file descending")


def test_sort_file_over_budget_spills_and_cleans(tmp_path):
    a = make_array("<u8", 1 << 20, seed=103)  # 8 MiB through a 1 MiB budget
    work = tmp_path / "tmp"
    work.mkdir()
    save(tmp_path, "in.npy", a)
    r = gxsort.sort_file(tmp_path / "in.npy", tmp_path / "out.npy", memory="1M", tmp_dir=str(work), fsync=False)
    assert_same(np.load(tmp_path / "out.npy"), np.sort(a), "sort_file 8 MiB under 1 MiB")
    check_report(r, "sort", a.shape[0])
    assert r.mode != "in-memory", r.mode
    assert leftovers(work) == [] and leftovers(tmp_path) == ["in.npy", "out.npy", "tmp"]


@pytest.mark.parametrize("dtype", ("<f8", "<f4", ">f8"))
def test_sort_file_float_total(tmp_path, dtype):
    a = make_array(dtype, 3001, seed=104, kind="dups")
    save(tmp_path, "in.npy", a)
    want = a[np.argsort(total_key(a), kind="stable")]
    gxsort.sort_file(tmp_path / "in.npy", tmp_path / "out.npy", float_order="total")
    assert_same(np.load(tmp_path / "out.npy"), want, f"float_order=total {dtype}")
    gxsort.sort_file(tmp_path / "in.npy", tmp_path / "out2.npy")  # the package's default: numpy's order
    assert_same(np.load(tmp_path / "out2.npy"), a[np.argsort(a, kind="stable")], f"default float order of files {dtype}")


@pytest.mark.parametrize("dtype", ("<f8", "<f4", ">f8"))
def test_sort_file_float_numpy_order(tmp_path, dtype):
    a = make_array(dtype, 3001, seed=105, kind="dups")
    save(tmp_path, "in.npy", a)
    gxsort.sort_file(tmp_path / "in.npy", tmp_path / "out.npy", float_order="numpy")
    assert_same(np.load(tmp_path / "out.npy"), stable(a), f"files in numpy's float order {dtype}")


def test_dedupe_and_check_file_float_numpy_order(tmp_path):
    a = make_array("<f4", 3001, seed=107, kind="dups")
    save(tmp_path, "in.npy", a)
    gxsort.dedupe_file(tmp_path / "in.npy", tmp_path / "u.npy", float_order="numpy")
    u = np.load(tmp_path / "u.npy")
    assert np.array_equal(u, np.unique(a), equal_nan=True), "dedupe_file: np.unique's values (NaNs and +-0 one each)"
    r = gxsort.check_file(tmp_path / "u.npy", float_order="numpy")
    assert r.sorted and r.duplicates == 0, r


def test_sort_file_structured_npy(tmp_path):
    dt = np.dtype([("k", "<u4"), ("s", "S3"), ("t", "M8[s]"), ("u", "<U2"), ("p", "<i2")])
    a = make_array(dt, 5000, seed=106, kind="dups")
    save(tmp_path, "in.npy", a)
    # Files keep the CLI's datetime order, NaT (int64's minimum) first (docs/python.md):
    # the oracle sorts the records with t read as int64, numpy's tie-break by the others.
    as_int = np.dtype([("k", "<u4"), ("s", "S3"), ("t", "<i8"), ("u", "<U2"), ("p", "<i2")])
    for order in ("k", ["s", "k"], "t", ["p"]):
        gxsort.sort_file(tmp_path / "in.npy", tmp_path / "out.npy", order=order)
        got = np.load(tmp_path / "out.npy")
        assert got.dtype == dt
        want = a[np.argsort(a.view(as_int), order=order, kind="stable")]
        assert_same(got, want, f"structured .npy order={order}")


def test_sort_file_unique(tmp_path):
    a = make_array("<i4", 20_000, seed=107, kind="dups")
    save(tmp_path, "in.bin", a)
    gxsort.sort_file(tmp_path / "in.bin", tmp_path / "out.bin", dtype="<i4", unique=True)
    assert_same(load(tmp_path / "out.bin", "<i4"), np.unique(a), "sort -u")


def test_sort_file_in_place(tmp_path):
    a = make_array("<u8", 50_000, seed=108)
    src = save(tmp_path, "data.npy", a)
    r = gxsort.sort_file(src, src)
    check_report(r, "sort", a.shape[0])
    assert_same(np.load(src), np.sort(a), "in place .npy")
    b = make_array("<i2", 7777, seed=109, kind="dups")
    raw = save(tmp_path, "data.bin", b)
    gxsort.sort_file(raw, raw, dtype="<i2", memory="1M", tmp_dir=str(tmp_path))
    assert_same(np.fromfile(raw, "<i2"), stable(b), "in place .bin")
    assert leftovers(tmp_path) == ["data.bin", "data.npy"]


def sorted_parts(tmp_path, dtype, sizes, ext, seed=110):
    parts, paths = [], []
    for k, n in enumerate(sizes):
        p = stable(make_array(dtype, n, seed=seed + k, kind="dups"))
        parts.append(p)
        paths.append(save(tmp_path, f"part{k}{ext}", p))
    return parts, paths


@pytest.mark.parametrize("ext", (".npy", ".bin"))
def test_merge_files(tmp_path, ext):
    dtype = "<i8"
    parts, paths = sorted_parts(tmp_path, dtype, (1000, 0, 1, 4099, 333), ext)
    kw = {} if ext == ".npy" else {"dtype": dtype}
    r = gxsort.merge_files(paths, tmp_path / f"out{ext}", **kw)
    cat = np.concatenate(parts)
    assert_same(load(tmp_path / f"out{ext}", dtype), stable(cat), f"merge_files {ext}")
    check_report(r, "merge", cat.shape[0])


def test_merge_files_structured_ties_in_argument_order(tmp_path):
    parts = [stable(make_array(STRUCT_FLAT, n, seed=111 + n, kind="dups"), order="x") for n in (500, 71, 1200)]
    paths = [save(tmp_path, f"p{k}.npy", p) for k, p in enumerate(parts)]
    gxsort.merge_files(paths, tmp_path / "out.npy", order="x")
    cat = np.concatenate(parts)
    assert_same(np.load(tmp_path / "out.npy"), stable(cat, order="x"), "merge_files structured")


def test_merge_files_output_names_an_input(tmp_path):
    parts, paths = sorted_parts(tmp_path, "<u4", (300, 200), ".bin")
    gxsort.merge_files(paths, paths[0], dtype="<u4")  # the CLI allows it: "may name the input"
    assert_same(np.fromfile(paths[0], "<u4"), stable(np.concatenate(parts)), "merge into its first input")
    assert leftovers(tmp_path) == ["part0.bin", "part1.bin"]


def test_merge_files_unsorted_input(tmp_path):
    save(tmp_path, "a.bin", np.array([1, 5, 3], "<u8"))
    save(tmp_path, "b.bin", np.array([0, 9], "<u8"))
    with pytest.raises(gxsort.InputError) as e:
        gxsort.merge_files([tmp_path / "a.bin", tmp_path / "b.bin"], tmp_path / "out.bin", dtype="<u8")
    assert "\n" not in str(e.value)
    assert leftovers(tmp_path) == ["a.bin", "b.bin"]


def test_dedupe_file(tmp_path):
    a = make_array("<u8", 30_000, seed=112, kind="dups")
    save(tmp_path, "in.bin", a)
    r = gxsort.dedupe_file(tmp_path / "in.bin", tmp_path / "out.bin", dtype="<u8")
    check_report(r, "dedupe", a.shape[0])
    assert_same(np.fromfile(tmp_path / "out.bin", "<u8"), np.unique(a), "dedupe")


def test_dedupe_file_count_bin(tmp_path):
    a = make_array("<i4", 10_000, seed=113, kind="dups")
    save(tmp_path, "in.bin", a)
    gxsort.dedupe_file(tmp_path / "in.bin", tmp_path / "out.bin", dtype="<i4", count=True)
    got = np.fromfile(tmp_path / "out.bin", np.dtype([("v", "<i4"), ("count", "<u8")]))
    vals, counts = np.unique(a, return_counts=True)
    assert np.array_equal(got["v"], vals) and np.array_equal(got["count"], counts)


def test_dedupe_file_count_structured_npy_keeps_fields(tmp_path):
    dt = np.dtype([("k", "<u2"), ("name", "S4"), ("w", "<f4")])
    a = make_array(dt, 5000, seed=114, kind="dups")
    save(tmp_path, "in.npy", a)
    gxsort.dedupe_file(tmp_path / "in.npy", tmp_path / "out.npy", order="k", count=True)
    got = np.load(tmp_path / "out.npy")
    assert got.dtype.names == ("k", "name", "w", "count"), got.dtype
    keys, first, counts = np.unique(a["k"], return_index=True, return_counts=True)
    for f in dt.names:
        assert np.array_equal(got[f], a[first][f], equal_nan=f == "w"), f
    assert np.array_equal(got["count"], counts)


@pytest.mark.parametrize("keep", ("first", "last"))
def test_dedupe_file_keep(tmp_path, keep):
    dt = np.dtype([("k", "<i2"), ("payload", "<u8")])
    a = np.zeros(3000, dt)
    a["k"] = make_array("<i2", 3000, seed=115, kind="dups")
    a["payload"] = np.arange(3000)
    save(tmp_path, "in.npy", a)
    gxsort.dedupe_file(tmp_path / "in.npy", tmp_path / "out.npy", order="k", keep=keep)
    got = np.load(tmp_path / "out.npy")
    keys, first = np.unique(a["k"], return_index=True)
    last = a.shape[0] - 1 - np.unique(a["k"][::-1], return_index=True)[1]
    assert_same(got, a[first if keep == "first" else last], f"keep={keep}")


def test_dedupe_file_assume_sorted(tmp_path):
    a = np.sort(make_array("<u4", 5000, seed=116, kind="dups"))
    save(tmp_path, "s.bin", a)
    gxsort.dedupe_file(tmp_path / "s.bin", tmp_path / "out.bin", dtype="<u4", assume_sorted=True)
    assert_same(np.fromfile(tmp_path / "out.bin", "<u4"), np.unique(a), "assume_sorted")
    save(tmp_path, "u.bin", np.array([3, 1, 2], "<u4"))
    with pytest.raises(gxsort.Error):
        gxsort.dedupe_file(tmp_path / "u.bin", tmp_path / "out2.bin", dtype="<u4", assume_sorted=True)
    assert not (tmp_path / "out2.bin").exists()


def test_dedupe_file_in_place(tmp_path):
    a = make_array("<u8", 4000, seed=117, kind="dups")
    src = save(tmp_path, "d.npy", a)
    gxsort.dedupe_file(src, src)  # the CLI allows it: "may name the input"
    assert_same(np.load(src), np.unique(a), "dedupe in place")


def test_check_file(tmp_path):
    a = np.sort(make_array("<i8", 10_000, seed=118, kind="dups"))
    save(tmp_path, "s.npy", a)
    r = gxsort.check_file(tmp_path / "s.npy")
    assert isinstance(r, gxsort.CheckReport)
    assert r.sorted and r.records == a.shape[0]
    assert r.duplicates == int(np.sum(a[1:] == a[:-1]))
    assert isinstance(r.checksum, int) and isinstance(r.xxh3, int)
    b = a.copy()
    b[6000], b[6001] = a[-1], a[0]
    save(tmp_path, "u.bin", b)
    r2 = gxsort.check_file(tmp_path / "u.bin", dtype="<i8")
    assert not r2.sorted and r2.first_violation == int(np.flatnonzero(b[1:] < b[:-1])[0] + 1)
    save(tmp_path, "u2.bin", b)
    assert gxsort.check_file(tmp_path / "u2.bin", dtype="<i8").xxh3 == r2.xxh3  # same bytes, same hash
    save(tmp_path, "d.bin", a[::-1].copy())
    assert gxsort.check_file(tmp_path / "d.bin", dtype="<i8", descending=True).sorted


def test_check_file_empty(tmp_path):
    save(tmp_path, "e.npy", np.zeros(0, "<u2"))
    r = gxsort.check_file(tmp_path / "e.npy")
    assert r.sorted and r.records == 0 and r.duplicates == 0


def test_file_errors(tmp_path):
    save(tmp_path, "in.bin", np.arange(10, dtype="<u8"))
    with pytest.raises(gxsort.InputError):  # a raw file needs dtype=
        gxsort.sort_file(tmp_path / "in.bin", tmp_path / "out.bin")
    with pytest.raises(gxsort.InputError):  # a missing input
        gxsort.sort_file(tmp_path / "missing.bin", tmp_path / "out.bin", dtype="<u8")
    with pytest.raises(gxsort.InputError):  # an output that is a directory
        gxsort.sort_file(tmp_path / "in.bin", tmp_path, dtype="<u8")
    with pytest.raises(gxsort.InputError):  # 80 bytes are not a whole number of 12-byte records
        gxsort.sort_file(tmp_path / "in.bin", tmp_path / "out.bin", dtype=[("a", "<u4"), ("b", "<u8")])
    with pytest.raises(gxsort.ResourceError) as e:  # an output in a directory that does not exist
        gxsort.sort_file(tmp_path / "in.bin", tmp_path / "no" / "out.bin", dtype="<u8")
    assert e.value.exit_code == 3 and "\n" not in str(e.value)
    with pytest.raises(gxsort.InputError):
        gxsort.dedupe_file(tmp_path / "in.bin", tmp_path / "out.bin", dtype="<u8", keep="middle")
    with pytest.raises(gxsort.InputError):
        gxsort.check_file(tmp_path / "missing.npy")
    assert leftovers(tmp_path) == ["in.bin"]


def test_fsync_false_and_threads(tmp_path):
    a = make_array("<u4", 100_000, seed=119)
    save(tmp_path, "in.bin", a)
    gxsort.sort_file(tmp_path / "in.bin", tmp_path / "out.bin", dtype="<u4", fsync=False, threads=1,
                     device="cpu")
    assert_same(np.fromfile(tmp_path / "out.bin", "<u4"), np.sort(a), "fsync=False threads=1")


def test_file_progress(tmp_path):
    a = make_array("<u8", 1 << 19, seed=120)
    save(tmp_path, "in.bin", a)
    seen = []
    gxsort.sort_file(tmp_path / "in.bin", tmp_path / "out.bin", dtype="<u8", memory="1M", tmp_dir=str(tmp_path),
                     progress=lambda phase, done, total: seen.append((phase, done, total)))
    assert seen, "no progress reported for an out-of-core sort"
    assert all(isinstance(p, str) and d >= 0 for p, d, t in seen)
    assert_same(np.fromfile(tmp_path / "out.bin", "<u8"), np.sort(a), "with progress")


def test_sort_file_bad_npy_header(tmp_path):
    bad = tmp_path / "bad.npy"
    bad.write_bytes(b"\x93NUMPY\x01\x00garbage")
    with pytest.raises(gxsort.InputError) as e:
        gxsort.sort_file(bad, tmp_path / "out.npy")
    assert str(bad) in str(e.value) and "\n" not in str(e.value)
    assert leftovers(tmp_path) == ["bad.npy"]
