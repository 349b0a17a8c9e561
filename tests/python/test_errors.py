"""Exceptions: the classes mirror the CLI's exit codes; bad inputs raise before any work,
with one line saying what is wrong."""

import numpy as np
import pytest

import gxsort


def one_line(excinfo):
    msg = str(excinfo.value)
    assert msg and "\n" not in msg, f"not one line: {msg!r}"
    return msg


def test_exception_classes():
    assert issubclass(gxsort.InputError, gxsort.Error) and issubclass(gxsort.InputError, ValueError)
    assert issubclass(gxsort.ResourceError, gxsort.Error) and issubclass(gxsort.ResourceError, OSError)
    assert issubclass(gxsort.DeviceError, gxsort.Error) and issubclass(gxsort.DeviceError, RuntimeError)
    assert (gxsort.InputError.exit_code, gxsort.ResourceError.exit_code, gxsort.DeviceError.exit_code) == (2, 3, 4)


BAD_DTYPES = (
    np.array([1, "a", None], dtype=object),
    np.zeros(3, dtype="V4"),
    np.zeros(3, dtype=np.longdouble),
    np.zeros(3, dtype=[("o", object), ("i", "i4")]),
)


@pytest.mark.parametrize("a", BAD_DTYPES, ids=lambda a: str(a.dtype))
@pytest.mark.parametrize("call", ("sort", "argsort", "unique", "is_sorted"))
def test_bad_dtype(call, a):
    with pytest.raises(gxsort.InputError) as e:
        getattr(gxsort, call)(a)
    one_line(e)


@pytest.mark.parametrize("call", ("sort", "argsort", "is_sorted"))
def test_non_contiguous(call):
    a = np.arange(20, dtype="i4")[::-2]
    with pytest.raises(gxsort.InputError) as e:
        getattr(gxsort, call)(a)
    one_line(e)


def test_non_contiguous_merge_and_rows():
    with pytest.raises(gxsort.InputError):
        gxsort.merge([np.arange(10)[::2], np.arange(3)])
    with pytest.raises(gxsort.InputError):
        gxsort.sort_rows(np.zeros((4, 6), "i4")[:, ::2])


@pytest.mark.parametrize("axis", (-1, 0, 1))
@pytest.mark.parametrize("call", ("sort", "argsort"))
def test_2d_with_an_axis(call, axis):
    a = np.arange(12, dtype="i8").reshape(3, 4)
    with pytest.raises(gxsort.InputError) as e:
        getattr(gxsort, call)(a, axis=axis)
    one_line(e)


def test_bad_axis_1d():
    with pytest.raises(gxsort.InputError):
        gxsort.sort(np.arange(3), axis=1)


@pytest.mark.parametrize("device", ("tpu", "CUDA:x", ""))
def test_bad_device(device):
    with pytest.raises(gxsort.InputError) as e:
        gxsort.sort(np.arange(5), device=device)
    one_line(e)


def test_cuda_without_gpu():
    if gxsort.info()["gpus"]:
        pytest.skip("this machine has a GPU: device='cuda' works here")
    with pytest.raises(gxsort.DeviceError) as e:
        gxsort.sort(np.arange(100_000), device="cuda")
    one_line(e)
    assert e.value.exit_code == 4


@pytest.mark.parametrize("kwargs", ({"memory": "abc"}, {"memory": -5}, {"memory": 0}, {"threads": 0},
                                    {"threads": -1}, {"device_memory": "lots"}))
def test_bad_resources(kwargs):
    with pytest.raises(gxsort.InputError) as e:
        gxsort.sort(np.arange(5), **kwargs)
    one_line(e)


def test_unknown_keyword():
    with pytest.raises(TypeError):
        gxsort.sort(np.arange(5), kind="stable")


def test_bad_float_order():
    with pytest.raises(gxsort.InputError):
        gxsort.sort(np.arange(5.0), float_order="ieee")


@pytest.mark.parametrize("parts", (
    [np.array([3, 1, 2])],
    [np.array([1, 2, 3]), np.array([5, 4])],
    [np.array([1.0, np.nan, 2.0])],
    [np.array([0.0, -0.0, 1.0]), np.array([0.0, 1.0, 0.5])],
))
def test_merge_of_unsorted_input(parts):
    with pytest.raises(gxsort.InputError) as e:
        gxsort.merge(parts)
    one_line(e)


def test_merge_signed_zeros_are_sorted_in_numpy_order():
    got = gxsort.merge([np.array([0.0, -0.0, 1.0]), np.array([-0.0])])
    assert list(np.signbit(got)) == [False, True, True, False]


def test_merge_descending_input_refused_ascending():
    with pytest.raises(gxsort.InputError):
        gxsort.merge([np.array([3, 2, 1])])
    gxsort.merge([np.array([3, 2, 1])], descending=True)


def test_merge_mixed_dtypes():
    with pytest.raises(gxsort.InputError):
        gxsort.merge([np.array([1, 2], "i4"), np.array([1, 2], "i8")])


def test_out_of_wrong_dtype_or_shape():
    a = np.arange(10, dtype="i4")
    for out in (np.empty(10, "i8"), np.empty(9, "i4"), np.empty((2, 5), "i4"), np.empty(20, "i4")[::2]):
        with pytest.raises(gxsort.InputError):
            gxsort.sort(a, out=out)


def test_order_errors():
    a = np.zeros(3, [("x", "i4"), ("y", "f4")])
    with pytest.raises(ValueError):
        gxsort.sort(a, order="nope")
    with pytest.raises(ValueError):
        gxsort.sort(np.arange(3), order="x")
    with pytest.raises(ValueError):
        gxsort.argsort(a, order=["x", "y"], descending=[True])


def test_unique_bad_axis():
    with pytest.raises(gxsort.InputError):
        gxsort.unique(np.zeros((2, 3)), axis=1)


def test_lexsort_keys_of_different_lengths():
    with pytest.raises(gxsort.InputError):
        gxsort.lexsort([np.arange(3), np.arange(4)])


class _FakeDeviceArray:
    """Says it is CUDA memory (__cuda_array_interface__), with no memory behind it."""

    __cuda_array_interface__ = {"shape": (3,), "typestr": "<u8", "data": (0, False), "version": 3}


def test_merge_of_host_and_device_arrays_refused():
    with pytest.raises(gxsort.InputError) as e:
        gxsort.merge([_FakeDeviceArray(), np.arange(3, dtype="<u8")])
    assert "device arrays" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("call", ("sort", "merge", "is_sorted"))
def test_device_arrays_without_cupy(call):
    try:
        import cupy  # noqa: F401

        pytest.skip("cupy is installed: device arrays go to the GPU (tests/python/test_device.py)")
    except ImportError:
        pass
    with pytest.raises(gxsort.DeviceError) as e:
        if call == "merge":
            gxsort.merge([_FakeDeviceArray(), _FakeDeviceArray()])
        else:
            getattr(gxsort, call)(_FakeDeviceArray())
    assert "CuPy" in str(e.value) and "\n" not in str(e.value)


def test_library_errors_name_keywords(tmp_path):
    """The library's messages name an option as this package's keyword (memory=), never as
    the command-line tool's flag (--memory)."""
    np.arange(1000, dtype="<u8").tofile(tmp_path / "in.bin")
    with pytest.raises(gxsort.InputError) as e:
        gxsort.sort_file(tmp_path / "in.bin", tmp_path / "out.bin", dtype="<u8", memory="1K")
    assert one_line(e).startswith("memory=1.0 KiB is below the minimum of "), str(e.value)
    with pytest.raises(gxsort.InputError) as e:
        gxsort.sort(np.arange(5), device_memory="lots")
    assert one_line(e).startswith("device_memory=: invalid size 'lots'"), str(e.value)
    assert not (tmp_path / "out.bin").exists()


@pytest.fixture
def small_tmpfs(tmp_path):
    """A 1 MiB tmpfs (root only: the test says so and skips elsewhere)."""
    import os
    import subprocess

    small = tmp_path / "small"
    small.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(small)],
                                           capture_output=True).returncode != 0:
        pytest.skip("mounting a 1 MiB tmpfs needs root: the temp-space check is not exercised here")
    yield small
    subprocess.run(["umount", str(small)], check=True)


@pytest.mark.parametrize("in_place", [False, True])
def test_array_past_its_budget_without_temp_space(small_tmpfs, in_place):
    a = np.random.default_rng(3).integers(0, 2**63, 4 << 20, dtype="<u8")  # 32 MiB under 4 MiB
    before = a.copy()
    with pytest.raises(gxsort.ResourceError, match="not enough free space"):
        gxsort.sort(a, memory="4M", tmp_dir=str(small_tmpfs), out=a if in_place else None)
    assert np.array_equal(a, before)
    assert list(small_tmpfs.iterdir()) == []
