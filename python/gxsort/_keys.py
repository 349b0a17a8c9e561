"""How an array's dtype becomes gxsort's records and key fields, in numpy's order.

gxsort sorts records by key fields whose order words it compares (format.hpp). Most of
numpy's dtypes are such fields as they are: integers, bool and bytes (``S``) in either
byte order, and floats and datetimes whose values hold no NaN, -0.0 or NaT. Then the
array is sorted as it is (the *direct* plan).

Anything else gets *normalized keys*: for each record, the concatenation of its fields'
order words written big-endian (complemented for a descending field), an array of
unsigned integers (one field of 4 or 8 bytes) or of rows of bytes. numpy's order is
written into the words: every NaN (and NaT) is one largest value, -0.0 and +0.0 are one
value, ``U`` strings are code points, complex numbers are (real, imag). The stable
argsort of the normalized keys is the array's, and the values are gathered by it.
"""

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ._errors import InputError

FLOAT_ORDERS = ("numpy", "total")
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
MAX_FIELDS = 16  # kMaxKeyFields in format.hpp


@dataclass
class Field:
    """One scalar key field of a record: its dtype, byte offset and direction."""

    dtype: np.dtype
    offset: int
    desc: bool


@dataclass
class KeyPlan:
    """What a sort is given: the records themselves with their key fields (direct), or
    normalized keys (``keys``, one per record) to argsort."""

    record_size: int
    fields: List[Tuple[int, str, int, bool]]  # (offset, type name, width, descending)
    keys: Optional[object] = None  # normalized keys (numpy or CuPy array); None: direct


def _scalar_fields(dt: np.dtype, offset: int, desc: bool, out: List[Field]) -> None:
    """The scalar fields of dt at offset, in numpy's comparison order (nested structs
    and subarrays flattened)."""
    if dt.names is not None:
        for name in dt.names:
            sub, off = dt.fields[name][:2]
            _scalar_fields(sub, offset + off, desc, out)
    elif dt.subdtype is not None:  # numpy compares a subarray field as raw bytes (memcmp)
        out.append(Field(np.dtype(f"S{dt.itemsize}"), offset, desc))
    else:
        _check_supported(dt)
        out.append(Field(dt, offset, desc))


def _check_supported(dt: np.dtype) -> None:
    if dt.kind in "biufcSUmM" and not (dt.kind in "fc" and dt.itemsize > 16):
        if dt.kind == "f" and dt.itemsize not in (2, 4, 8):
            raise InputError(f"dtype {dt}: gxsort sorts float16, float32 and float64, not this float")
        if dt.kind == "c" and dt.itemsize not in (8, 16):
            raise InputError(f"dtype {dt}: gxsort sorts complex64 and complex128, not this complex")
        return
    raise InputError(f"dtype {dt}: gxsort cannot sort this dtype (kinds b, i, u, f, c, S, U, m, M and structs of them)")


def key_fields(dt: np.dtype, order, descending, tie_break: bool = True) -> List[Field]:
    """The key fields of records of dtype dt, most significant first: for a structured
    dtype the fields `order` names, then (tie_break, or no order=) the others in dtype
    order (numpy's tie-break)."""
    dt = np.dtype(dt)
    if dt.names is None:
        if order is not None:
            raise InputError(f"order=: dtype {dt} has no fields")
        if not isinstance(descending, bool):
            raise InputError("descending= is one bool for an array without fields")
        fields: List[Field] = []
        _scalar_fields(dt, 0, descending, fields)
        return fields
    names = [order] if isinstance(order, str) else list(order or [])
    for n in names:
        if n not in dt.names:
            raise InputError(f"order=: {n!r} is not a field of {dt} (fields: {', '.join(dt.names)})")
    if isinstance(descending, bool):
        desc = [descending] * len(dt.names)
    else:
        desc = list(descending)
        if len(desc) != len(names):
            raise InputError(f"descending=: {len(desc)} values for {len(names)} fields in order=")
        desc += [False] * (len(dt.names) - len(names))
    ordered = names + ([n for n in dt.names if n not in names] if tie_break or not names else [])
    fields = []
    for n, d in zip(ordered, desc):
        sub, off = dt.fields[n][:2]
        _scalar_fields(sub, off, bool(d), fields)
    return fields


def _direct_type(f: Field, float_order: str, values) -> Optional[str]:
    """The library's type name of field f when its order words are numpy's order for
    these values (None: it needs normalizing)."""
    dt = f.dtype
    be = "be" if dt.byteorder == ">" and dt.itemsize > 1 else ""
    if dt.kind in "iu":
        return f"{dt.kind if dt.kind == 'i' else 'u'}{8 * dt.itemsize}{be}"
    if dt.kind == "b":
        return "u8"
    if dt.kind == "S":
        return "bytes"
    if dt.kind == "f" and dt.itemsize in (4, 8):
        if float_order == "total" or not _has_nan_or_negative_zero(values()):
            return f"f{8 * dt.itemsize}{be}"
    if dt.kind in "mM" and not np.isnat(values()).any():
        return f"i64{be}"
    return None


def _xp(a):
    """numpy, or CuPy for a CuPy array."""
    mod = type(a).__module__
    if mod.startswith("cupy"):
        import cupy

        return cupy
    return np


def _has_nan_or_negative_zero(x) -> bool:
    """Whether x holds a NaN or -0.0. Zeros are found by their bits: a GPU that flushes
    denormals to zero would call -1e-45 == 0."""
    xp = _xp(x)
    if x.size == 0:
        return False
    native = x.astype(x.dtype.newbyteorder("="), copy=False)
    bits = native.view(_UINT[x.dtype.itemsize])
    minus_zero = _UINT[x.dtype.itemsize](1) << _UINT[x.dtype.itemsize](8 * x.dtype.itemsize - 1)
    return bool(xp.isnan(native).any()) or bool((bits == minus_zero).any())


def plan(a, dt: np.dtype, fields: List[Field], float_order: str, equal_nan: bool = True,
         unique: bool = False) -> KeyPlan:
    """The key plan of the records of `a` (a 1-D array of dtype dt, or a 2-D byte view
    of one): direct when every field is, else normalized keys."""
    if float_order not in FLOAT_ORDERS:
        raise InputError(f"float_order={float_order!r}: give 'numpy' or 'total'")
    direct = []
    if len(fields) <= MAX_FIELDS and equal_nan:
        for f in fields:
            t = _direct_type(f, float_order, lambda f=f: _field_values(a, dt, f))
            if t is None:
                break
            direct.append((f.offset, t, f.dtype.itemsize, f.desc))
    if len(direct) == len(fields):
        return KeyPlan(dt.itemsize, direct)
    keys = normalized_keys(a, dt, fields, float_order, equal_nan, unique)
    width = keys.dtype.itemsize if keys.ndim == 1 else keys.shape[1]
    name = {4: "u32", 8: "u64"}.get(width, "bytes") if keys.ndim == 1 else "bytes"
    return KeyPlan(width, [(0, name, width, False)], keys)


def _field_values(a, dt: np.dtype, f: Field):
    """Field f of every record of `a`, as an array of f.dtype."""
    xp = _xp(a)
    if a.ndim == 1 and a.dtype == f.dtype and f.offset == 0:
        return a  # a plain array: its values are the field
    raw = a.view(xp.uint8).reshape(a.shape[0], dt.itemsize)[:, f.offset : f.offset + f.dtype.itemsize]
    return xp.ascontiguousarray(raw).view(f.dtype).reshape(-1)


def _float_words(x, float_order: str, unsigned):
    """Order words of floats x (any byte order): totalOrder's bit transform, then, in
    numpy's order, every NaN the largest word and -0.0 the word of +0.0."""
    xp = _xp(x)
    native = x.astype(x.dtype.newbyteorder("="), copy=False)
    u = native.view(unsigned)
    top = unsigned(1) << unsigned(8 * unsigned().itemsize - 1)
    w = xp.where((u & top) != 0, ~u, u | top)
    if float_order == "numpy":
        w[u == top] = top  # -0.0 (found by its bits: see _has_nan_or_negative_zero) is +0.0
        w[xp.isnan(native)] = ~unsigned(0)
    return w


def _field_words(x, f: Field, float_order: str):
    """Order words of field values x: an unsigned integer array, or (n, width) bytes
    already in big-endian order (S, U)."""
    xp = _xp(x)
    dt = f.dtype
    uint = _UINT
    if dt.kind == "S":
        return x.view(xp.uint8).reshape(x.shape[0], dt.itemsize)
    if dt.kind == "U":
        return x.astype(dt.newbyteorder(">"), copy=False).view(xp.uint8).reshape(x.shape[0], dt.itemsize)
    if dt.kind == "f":
        return _float_words(x, float_order, uint[dt.itemsize])
    native = x.astype(dt.newbyteorder("="), copy=False)
    if dt.kind in "ub":
        return native.view(uint[dt.itemsize])
    if dt.kind == "i":
        return native.view(uint[dt.itemsize]) ^ uint[dt.itemsize](1 << (8 * dt.itemsize - 1))
    if dt.kind in "mM":
        w = native.view(np.uint64) ^ np.uint64(1 << 63)
        w[xp.isnat(native)] = ~np.uint64(0)
        return w
    raise InputError(f"dtype {dt}: no key order")  # complex is split by the caller


def _complex_words(a, dt: np.dtype, f: Field, float_order: str, unique: bool):
    """Order words of a complex field: numpy orders R+Rj < R+nanj < nan+Rj < nan+nanj,
    each class by its non-NaN part, so a class word (0 to 3) comes first, then the
    real and imaginary parts' words. For unique (equal_nan) every value with a NaN is
    one value, as np.unique makes it."""
    xp = _xp(a)
    part = np.dtype(f"{f.dtype.byteorder}f{f.dtype.itemsize // 2}")
    re = _field_values(a, dt, Field(part, f.offset, f.desc))
    im = _field_values(a, dt, Field(part, f.offset + part.itemsize, f.desc))
    words = [_float_words(re, float_order, _UINT[part.itemsize]), _float_words(im, float_order, _UINT[part.itemsize])]
    if float_order == "total":
        return words
    re_nan, im_nan = xp.isnan(re), xp.isnan(im)
    cls = im_nan.astype(np.uint8) + 2 * re_nan.astype(np.uint8)
    if unique:
        nan = re_nan | im_nan
        cls = nan.astype(np.uint8)
        for w in words:
            w[nan] = ~w.dtype.type(0)
    return [cls] + words


def normalized_keys(a, dt: np.dtype, fields: List[Field], float_order: str, equal_nan: bool = True,
                    unique: bool = False):
    """One key per record of `a` whose unsigned (or byte-wise) order is the records'
    order: an unsigned array for one word of 4 or 8 bytes, else (n, width) bytes.
    unique: keys of np.unique's groups (complex values with a NaN are one);
    equal_nan=False: every NaN (and NaT) its own key, in input order."""
    xp = _xp(a)
    n = a.size if a.dtype == dt else a.shape[0]
    columns = []
    for f in fields:
        if f.dtype.kind == "c":
            words = _complex_words(a, dt, f, float_order, unique and equal_nan)
        else:
            words = [_field_words(_field_values(a, dt, f), f, float_order)]
        columns += [(~w if w.ndim == 1 else 255 - w) if f.desc else w for w in words]
    if not equal_nan:
        nan = xp.zeros(n, dtype=bool)
        for f in fields:
            if f.dtype.kind in "fc":
                nan |= xp.isnan(_field_values(a, dt, f))
            elif f.dtype.kind in "mM":
                nan |= xp.isnat(_field_values(a, dt, f))
        columns.append(xp.where(nan, xp.arange(n, dtype=np.uint64), np.uint64(0)))
    if len(columns) == 1 and columns[0].ndim == 1:  # one word: widened to 4 bytes at least
        return columns[0] if columns[0].dtype.itemsize >= 4 else columns[0].astype(np.uint32)
    # Big-endian bytes of each word (the machine's order is little-endian), so that the
    # rows compare byte by byte.
    parts = [c if c.ndim == 2 else c.view(xp.uint8).reshape(n, c.dtype.itemsize)[:, ::-1] for c in columns]
    return xp.ascontiguousarray(xp.concatenate(parts, axis=1)) if parts else xp.zeros((n, 0), dtype=xp.uint8)
