"""Device arrays: CuPy arrays, torch CUDA tensors and anything else with
__cuda_array_interface__ or a CUDA __dlpack__, sorted on their own GPU on the caller's
current stream and returned as the same type, without a copy to the host."""

import atexit

import numpy as np

from . import _core
from ._errors import DeviceError, InputError
from ._keys import key_fields, normalized_keys, plan
from ._resources import options

_KDLCUDA = 2  # DLPack's device type of CUDA memory


def release_device_memory() -> None:
    """Frees the GPU memory and streams gxsort keeps between calls on device arrays (on
    each GPU, an arena fitted to the largest recent call, as CuPy's pool keeps blocks); the
    next call makes them again. Done at exit too."""
    _core.release_device_memory()


atexit.register(release_device_memory)  # before the CUDA runtime is torn down


def is_device_array(a) -> bool:
    if hasattr(a, "__cuda_array_interface__"):
        return True
    dev = getattr(a, "__dlpack_device__", None)
    if dev is None or isinstance(a, np.ndarray):
        return False
    try:
        return dev()[0] == _KDLCUDA
    except Exception:  # an object whose __dlpack_device__ cannot answer is not one
        return False


class _OnDevice:
    """A device array as a CuPy array on its stream, and the way back to its type."""

    def __init__(self, a):
        try:
            import cupy
        except ImportError:
            raise DeviceError("device arrays: gxsort reaches them through CuPy, which is not installed "
                              "(pip install cupy-cuda12x, or cupy-cuda13x)") from None

        self.cupy = cupy
        self.torch = type(a).__module__.startswith("torch")
        if self.torch:
            import torch

            stream = torch.cuda.current_stream(a.device).cuda_stream
            self.stream = cupy.cuda.ExternalStream(stream, a.device.index)  # on its device
            self.x = cupy.from_dlpack(a)
        elif isinstance(a, cupy.ndarray):
            self.stream, self.x = cupy.cuda.get_current_stream(), a
        else:
            self.stream = cupy.cuda.get_current_stream()
            self.x = cupy.asarray(a) if hasattr(a, "__cuda_array_interface__") else cupy.from_dlpack(a)

    def back(self, y):
        if self.torch:
            import torch

            return torch.from_dlpack(y)
        return y


def _records(x, axis, call):
    if axis is None:
        x = x.reshape(-1)
    elif x.ndim != 1 or axis not in (-1, 0):
        raise InputError(f"{call}: a device array of {x.ndim} dimensions along axis {axis}: give a 1-D array or axis=None")
    if not x.flags.c_contiguous:
        raise InputError(f"{call}: the device array is not contiguous")
    if x.dtype.kind not in "biuf":
        raise InputError(f"{call}: device arrays of dtype {x.dtype}: gxsort sorts bool, integers and floats there")
    return x


def _argsort(d: _OnDevice, src, p, opts):
    perm = d.cupy.empty(src.shape[0], d.cupy.uint64)
    if src.shape[0]:
        _core.argsort_device(src.data.ptr, src.shape[0], p.record_size, p.fields, perm.data.ptr, src.device.id,
                             d.stream.ptr, opts)
    return perm.view(d.cupy.int64)


def _perm(d: _OnDevice, x, order, descending, float_order, opts):
    with d.stream:
        p = plan(x, x.dtype, key_fields(x.dtype, order, descending), float_order)
        return p, _argsort(d, x if p.keys is None else p.keys, p, opts)


def _output(d: _OnDevice, x, a, out):
    """The device array a sort writes, not filled: a new one, or `out` (x's dtype and
    shape on its device; `a` itself: in place, no second array of its size)."""
    if out is None:
        return d.cupy.empty_like(x)
    if out is a:
        return x
    y = _OnDevice(out).x
    if y.dtype != x.dtype or y.shape != x.shape or y.device.id != x.device.id or not y.flags.c_contiguous:
        raise InputError(f"out=: give a contiguous device array of dtype {x.dtype} and shape {x.shape} on device {x.device.id}")
    return y


def _overlap(x, y):
    return x.data.ptr < y.data.ptr + y.nbytes and y.data.ptr < x.data.ptr + x.nbytes


def sort(a, axis, order, descending, float_order, out, resources):
    opts, _ = options(resources, "sort")
    d = _OnDevice(a)
    x = _records(d.x, axis, "sort")
    with d.stream:
        p = plan(x, x.dtype, key_fields(x.dtype, order, descending), float_order)
        y = _output(d, x, a, out)
        if y.shape[0]:
            _sort_into(d, x, y, p, opts)
    return out if out is not None else d.back(y)


def _sort_into(d: _OnDevice, x, y, p, opts):
    """x sorted into y (x itself, or an array that may overlap it)."""
    if p.keys is not None:
        y[...] = x[_argsort(d, p.keys, p, opts)]  # x[perm] is made before y is written
    elif y is x or _overlap(x, y):
        if y is not x:
            y[...] = x.copy()  # an elementwise copy between overlapping views would race
        _core.sort_device(y.data.ptr, y.shape[0], p.record_size, p.fields, y.device.id, d.stream.ptr, opts)
    else:  # the sort's first pass is the copy
        _core.sort_copy_device(x.data.ptr, y.data.ptr, y.shape[0], p.record_size, p.fields, y.device.id,
                               d.stream.ptr, opts)


def argsort(a, axis, order, descending, float_order, resources):
    opts, _ = options(resources, "argsort")
    d = _OnDevice(a)
    x = _records(d.x, axis, "argsort")
    return d.back(_perm(d, x, order, descending, float_order, opts)[1])


def lexsort(keys, descending, float_order, resources):
    opts, _ = options(resources, "lexsort")
    ds = [_OnDevice(k) for k in keys]
    d = ds[0]
    xs = [_records(k.x, -1, "lexsort") for k in ds]
    desc = [descending] * len(xs) if isinstance(descending, bool) else list(descending)
    with d.stream:
        perm = d.cupy.arange(xs[0].shape[0], dtype=d.cupy.int64)
        for x, down in zip(xs, desc):  # least significant first: stable passes
            perm = perm[_perm(d, x[perm], None, bool(down), float_order, opts)[1]]
    return d.back(perm)


def _unique_sorted(d: _OnDevice, x, p, return_counts, opts):
    """unique of values whose bits are their keys (the direct plan: no NaN, no -0.0):
    a sorted copy, and the starts of its runs of equal bits (bits, not values: a GPU
    that flushes denormals calls them equal to zero)."""
    cp = d.cupy
    y = x.copy()
    if y.shape[0] > 1:
        _core.sort_device(y.data.ptr, y.shape[0], p.record_size, p.fields, y.device.id, d.stream.ptr, opts)
    bits = y.view({1: cp.uint8, 2: cp.uint16, 4: cp.uint32, 8: cp.uint64}[y.dtype.itemsize])
    starts = cp.flatnonzero(cp.concatenate([cp.ones(min(1, y.shape[0]), bool), bits[1:] != bits[:-1]]))
    result = [y[starts]]
    if return_counts:
        result.append(cp.diff(cp.concatenate([starts, cp.array([y.shape[0]])])))
    return result


def unique(a, return_index, return_inverse, return_counts, axis, equal_nan, float_order, resources):
    opts, _ = options(resources, "unique")
    d = _OnDevice(a)
    cp = d.cupy
    x = _records(d.x, None if axis is None else axis, "unique")
    with d.stream:
        fields = key_fields(x.dtype, None, False)
        direct = plan(x, x.dtype, fields, float_order, equal_nan)
        if direct.keys is None and not return_index and not return_inverse:
            result = _unique_sorted(d, x, direct, return_counts, opts)
            out = [d.back(r) for r in result]
            return out[0] if len(out) == 1 else tuple(out)
        keys = normalized_keys(x, x.dtype, fields, float_order, equal_nan)
        p = plan(keys, keys.dtype, key_fields(keys.dtype, None, False), "total") if keys.ndim == 1 else None
        if p is None:
            raise InputError("unique: this device array's keys are wider than 8 bytes; copy it to the host")
        perm = _argsort(d, keys, p, opts)
        ks = keys[perm]
        starts = cp.flatnonzero(cp.concatenate([cp.ones(min(1, ks.shape[0]), bool), ks[1:] != ks[:-1]]))
        first = perm[starts]
        result = [x[first]]
        if return_index:
            result.append(first)
        if return_inverse:
            inverse = cp.empty(x.shape[0], cp.int64)
            inverse[perm] = cp.cumsum(cp.concatenate([cp.zeros(min(1, ks.shape[0]), cp.int64),
                                                      (ks[1:] != ks[:-1]).astype(cp.int64)]))
            result.append(inverse.reshape(d.x.shape) if axis is None else inverse)
        if return_counts:
            result.append(cp.diff(cp.concatenate([starts, cp.array([x.shape[0]])])))
    out = [d.back(r) for r in result]
    return out[0] if len(out) == 1 else tuple(out)


def _same_kind(xs, call):
    for k, x in enumerate(xs):
        if x.dtype != xs[0].dtype:
            raise InputError(f"{call}: array {k} has dtype {x.dtype}, array 0 {xs[0].dtype}: give arrays of one dtype")
        if x.device.id != xs[0].device.id:
            raise InputError(f"{call}: array {k} is on device {x.device.id}, array 0 on device {xs[0].device.id}: "
                             "give arrays on one device")


def _first_unsorted(d: _OnDevice, x, p, opts) -> int:
    if x.shape[0] < 2:
        return x.shape[0]
    return _core.first_unsorted_device(x.data.ptr, x.shape[0], p.record_size, p.fields, x.device.id, d.stream.ptr, opts)


def _check_sorted(d: _OnDevice, parts, p, opts):
    for k, x in enumerate(parts):
        bad = _first_unsorted(d, x, p, opts)
        if bad < x.shape[0]:
            raise InputError(f"merge: array {k} is not sorted: element {bad} is smaller than the one before it")


def merge(arrays, order, descending, float_order, resources):
    """The stable merge of sorted device arrays, on their GPU: of the arrays themselves
    where their values are their keys, else a stable sort of their keys laid end to end
    (the same order)."""
    opts, _ = options(resources, "merge")
    ds = [_OnDevice(a) for a in arrays]
    d = ds[0]
    xs = [_records(k.x, -1, "merge") for k in ds]
    _same_kind(xs, "merge")
    with d.stream:
        fields = key_fields(xs[0].dtype, order, descending)
        plans = [plan(x, x.dtype, fields, float_order) for x in xs]
        if all(p.keys is None for p in plans):  # the values are the keys: merged where they lie
            _check_sorted(d, xs, plans[0], opts)
            out = d.cupy.empty(sum(x.shape[0] for x in xs), xs[0].dtype)
            parts = [(x.data.ptr, x.shape[0]) for x in xs if x.shape[0]]
            if parts:
                _core.merge_device(parts, plans[0].record_size, plans[0].fields, out.data.ptr, out.device.id,
                                   d.stream.ptr, opts)
            return d.back(out)
        cat = d.cupy.concatenate(xs)
        p = plan(cat, cat.dtype, fields, float_order)
        src = cat if p.keys is None else p.keys
        bounds = [int(b) for b in np.cumsum([0] + [x.shape[0] for x in xs])]
        _check_sorted(d, [src[bounds[k] : bounds[k + 1]] for k in range(len(xs))], p, opts)
        return d.back(cat[_argsort(d, src, p, opts)])


def is_sorted(a, order, descending, float_order):
    d = _OnDevice(a)
    x = _records(d.x, -1, "is_sorted")
    with d.stream:
        p = plan(x, x.dtype, key_fields(x.dtype, order, descending), float_order)
        src = x if p.keys is None else p.keys
        return _first_unsorted(d, src, p, {}) == src.shape[0]
