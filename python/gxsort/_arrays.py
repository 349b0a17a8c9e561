"""numpy-shaped functions on host arrays: sort, argsort, lexsort, unique, merge,
is_sorted and sort_rows. Device arrays (CuPy, torch) go to _device.py."""

from typing import Sequence

import numpy as np

from . import _core, _device
from ._errors import InputError
from ._keys import KeyPlan, key_fields, plan
from ._resources import options


def _records(a, axis, call: str):
    """The 1-D C-contiguous array of records `call` works on: `a` itself (axis -1 or 0
    of a 1-D array) or `a` flattened (axis=None, as numpy)."""
    if not isinstance(a, np.ndarray):
        a = np.asarray(a)
    if axis is None:
        return np.ascontiguousarray(a).reshape(-1)
    if a.ndim != 1:
        raise InputError(f"{call}: an array of {a.ndim} dimensions along an axis: gxsort sorts 1-D arrays "
                         "(axis=None flattens; gxsort.sort_rows sorts the rows of a 2-D array)")
    if axis not in (-1, 0):
        raise InputError(f"{call}: axis={axis} for a 1-D array")
    if not a.flags.c_contiguous:
        raise InputError(f"{call}: the array is not contiguous: pass np.ascontiguousarray(a)")
    return a


def _bytes(a):
    """The records' bytes as a 1-D uint8 array (what the extension module takes)."""
    return a.reshape(-1).view(np.uint8) if a.size else np.zeros(0, np.uint8)


def _rows_of(a):
    """The records of a 1-D array as rows of bytes (padding included)."""
    return a.view(np.uint8).reshape(a.shape[0], a.dtype.itemsize)


def _take(a, idx, out=None):
    """a[idx], every byte of each record copied (numpy's own gather skips the padding of
    a structured dtype)."""
    res = np.empty(idx.shape[0], a.dtype) if out is None else out
    if idx.shape[0] and a.dtype.itemsize:
        np.take(_rows_of(a), idx, axis=0, out=_rows_of(res))
    return res


def _sorted_keys_perm(p: KeyPlan, opts, progress) -> np.ndarray:
    """The stable sorting permutation of the plan's normalized keys."""
    keys = p.keys
    perm = np.empty(keys.shape[0], np.uint64)
    _core.argsort(_bytes(keys), keys.shape[0], p.record_size, p.fields, perm, opts, progress)
    return perm.view(np.int64)


def _argsort_records(a, p: KeyPlan, opts, progress) -> np.ndarray:
    if p.keys is not None:
        return _sorted_keys_perm(p, opts, progress)
    perm = np.empty(a.shape[0], np.uint64)
    _core.argsort(_bytes(a), a.shape[0], p.record_size, p.fields, perm, opts, progress)
    return perm.view(np.int64)


def _output(a, out):
    """The array a sort writes: a new one, or `out` when it has a's dtype and shape."""
    if out is None:
        return np.empty_like(a)
    if not isinstance(out, np.ndarray) or out.dtype != a.dtype or out.shape != a.shape:
        raise InputError(f"out=: give an array of dtype {a.dtype} and shape {a.shape}")
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise InputError("out=: the array is not contiguous and writable")
    return out


def sort(a, axis=-1, *, order=None, descending=False, float_order="numpy", out=None, **resources):
    """A sorted copy of `a` (np.sort(a, kind="stable") by default); out= sorts into
    that array instead (`a` itself: in place). See docs/python.md for the order."""
    if _device.is_device_array(a):
        return _device.sort(a, axis, order, descending, float_order, out, resources)
    opts, progress = options(resources, "sort")
    a = _records(a, axis, "sort")
    p = plan(a, a.dtype, key_fields(a.dtype, order, descending), float_order)
    res = _output(a, out)
    if p.keys is None and res is a:
        _core.sort(_bytes(res), res.shape[0], p.record_size, p.fields, opts, progress)
    elif p.keys is None:  # the copy made by the library's threads
        _core.sort_copy(_bytes(a), _bytes(res), res.shape[0], p.record_size, p.fields, opts, progress)
    else:
        perm = _sorted_keys_perm(p, opts, progress)
        _take(a if res is not a else a.copy(), perm, res)
    return res


def argsort(a, axis=-1, *, order=None, descending=False, float_order="numpy", **resources):
    """The stable sorting permutation of `a` (np.argsort(a, kind="stable")), int64."""
    if _device.is_device_array(a):
        return _device.argsort(a, axis, order, descending, float_order, resources)
    opts, progress = options(resources, "argsort")
    a = _records(a, axis, "argsort")
    p = plan(a, a.dtype, key_fields(a.dtype, order, descending), float_order)
    return _argsort_records(a, p, opts, progress)


def _lexsort_records(keys):
    """The keys of np.lexsort (last primary) as one array of records, primary first."""
    keys = [np.asarray(k) for k in keys]
    if not keys:
        raise InputError("lexsort: give at least one key")
    n = keys[0].shape
    if any(k.shape != n for k in keys) or len(n) != 1:
        raise InputError("lexsort: the keys must be 1-D arrays of one length")
    dt = np.dtype([(f"k{i}", k.dtype) for i, k in enumerate(reversed(keys))])
    rec = np.empty(n, dt)
    for i, k in enumerate(reversed(keys)):
        rec[f"k{i}"] = k
    return rec


def lexsort(keys, *, descending=False, float_order="numpy", **resources):
    """np.lexsort(keys): the stable permutation ordering by the last key, then the one
    before it, and so on. descending: one bool, or one per key (in `keys`' order)."""
    if not isinstance(keys, np.ndarray) and any(_device.is_device_array(k) for k in keys):
        return _device.lexsort(keys, descending, float_order, resources)
    rec = _lexsort_records(keys)
    if not isinstance(descending, bool):
        descending = list(reversed(list(descending)))
    return argsort(rec, order=list(rec.dtype.names), descending=descending, float_order=float_order, **resources)


def _group_ids(counts: np.ndarray, perm: np.ndarray) -> np.ndarray:
    """inverse[i]: the group of input element i, from the groups' sizes in sorted order
    and the sorting permutation."""
    inverse = np.empty(perm.shape[0], np.int64)
    inverse[perm] = np.repeat(np.arange(counts.shape[0], dtype=np.int64), counts)
    return inverse


def _rows(a, call: str):
    """A C-contiguous 2-D array as 1-D records of its rows (fields f0, f1, ...)."""
    a = np.asarray(a)
    if a.ndim != 2:
        raise InputError(f"{call}: rows of a 2-D array; this one has {a.ndim} dimensions")
    if not a.flags.c_contiguous:
        raise InputError(f"{call}: the array is not contiguous: pass np.ascontiguousarray(a)")
    dt = np.dtype([(f"f{i}", a.dtype) for i in range(a.shape[1])])
    return a.view(dt).reshape(-1) if a.shape[1] else np.zeros(a.shape[0], np.dtype([]))


def _complex_nan_first(rec, first) -> None:
    """np.unique's one group of complex values with a NaN is represented by the one that
    sorts first (R+nanj by R, then nan+Rj by R), not by the first in input order."""
    nan = np.flatnonzero(np.isnan(rec))
    if nan.shape[0] and first.shape[0] and np.isnan(rec[first[-1]]):
        first[-1] = nan[argsort(rec[nan])[0]]


def unique(a, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True,
           float_order="numpy", **resources):
    """np.unique: the sorted distinct values of `a` (axis=None: flattened; axis=0: the
    rows of a 2-D array), with the first index, inverse and counts asked for."""
    if _device.is_device_array(a):
        return _device.unique(a, return_index, return_inverse, return_counts, axis, equal_nan, float_order, resources)
    opts, progress = options(resources, "unique")
    shape = np.shape(a)
    if axis is None:
        rec = _records(a, None, "unique")
    elif axis == 0 and len(shape) == 2:
        rec = _rows(a, "unique")
    elif axis == 0 and len(shape) == 1:
        rec = _records(a, 0, "unique")
    else:
        raise InputError(f"unique: axis={axis}: give None, or 0 for the rows of a 2-D array")
    p = plan(rec, rec.dtype, key_fields(rec.dtype, None, False), float_order, equal_nan, unique=True)
    src = rec if p.keys is None else p.keys
    n = src.shape[0]
    scratch = np.empty_like(src)
    counts, first = np.empty(n, np.uint64), np.empty(n, np.uint64)
    groups = _core.unique(_bytes(src), n, p.record_size, p.fields, _bytes(scratch), counts, first, opts, progress)
    first = first[:groups].view(np.int64)
    if rec.dtype.kind == "c" and equal_nan and float_order == "numpy":
        _complex_nan_first(rec, first)
    values = _take(rec, first)
    if axis == 0 and len(shape) == 2:
        values = values.view(np.asarray(a).dtype).reshape(groups, shape[1])
    result = [values]
    if return_index:
        result.append(first)
    if return_inverse:
        inverse = _group_ids(counts[:groups].view(np.int64), _argsort_records(rec, p, opts, progress))
        if axis is None and int(np.__version__.split(".")[0]) >= 2:
            inverse = inverse.reshape(shape)  # numpy 2: the input's shape
        result.append(inverse)
    if return_counts:
        result.append(counts[:groups].view(np.int64))
    return result[0] if len(result) == 1 else tuple(result)


def merge(arrays: Sequence, *, order=None, descending=False, float_order="numpy", **resources):
    """The stable merge of sorted 1-D arrays of one dtype: ties keep the arrays' order,
    then each array's own. An array that is not sorted raises InputError."""
    arrays = list(arrays)
    if not arrays:
        raise InputError("merge: give at least one array")
    on_device = [_device.is_device_array(x) for x in arrays]
    if all(on_device):
        return _device.merge(arrays, order, descending, float_order, resources)
    if any(on_device):
        raise InputError("merge: give host arrays or device arrays, not both")
    arrays = [_records(x, -1, "merge") for x in arrays]
    dt = arrays[0].dtype
    for k, x in enumerate(arrays):
        if x.dtype != dt:
            raise InputError(f"merge: array {k} has dtype {x.dtype}, array 0 {dt}: give arrays of one dtype")
    opts, progress = options(resources, "merge")
    cat = np.empty(sum(x.shape[0] for x in arrays), dt)  # np.concatenate would change the byte order
    _bytes(cat)[...] = np.concatenate([_bytes(x) for x in arrays])
    p = plan(cat, dt, key_fields(dt, order, descending), float_order)
    src, start = (cat if p.keys is None else p.keys), 0
    for k, x in enumerate(arrays):
        part = src[start : start + x.shape[0]]
        bad = _core.first_unsorted(_bytes(part), part.shape[0], p.record_size, p.fields)
        if bad < part.shape[0]:
            raise InputError(f"merge: array {k} is not sorted: element {bad} is smaller than the one before it")
        start += x.shape[0]
    if p.keys is None:
        _core.sort(_bytes(cat), cat.shape[0], p.record_size, p.fields, opts, progress)
        return cat
    return _take(cat, _sorted_keys_perm(p, opts, progress))


def is_sorted(a, *, order=None, descending=False, float_order="numpy"):
    """Whether `a` (1-D) is in the order sort(a, ...) gives (equal keys in any order)."""
    if _device.is_device_array(a):
        return _device.is_sorted(a, order, descending, float_order)
    a = _records(a, -1, "is_sorted")
    p = plan(a, a.dtype, key_fields(a.dtype, order, descending), float_order)
    src = a if p.keys is None else p.keys
    return _core.first_unsorted(_bytes(src), src.shape[0], p.record_size, p.fields) == src.shape[0]


def sort_rows(a, *, descending=False, float_order="numpy", **resources):
    """The rows of a C-contiguous 2-D array in lexicographic order, stably (the order of
    np.unique(a, axis=0)); descending: one bool, or one per column."""
    rec = _rows(a, "sort_rows")
    a = np.asarray(a)
    order = list(rec.dtype.names) if not isinstance(descending, bool) else None
    out = sort(rec, order=order, descending=descending, float_order=float_order, **resources)
    return out.view(a.dtype).reshape(a.shape)
