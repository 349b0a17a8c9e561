"""Files through the out-of-core engine, with the CLI's options as keyword arguments:
sort_file, merge_files, dedupe_file, check_file; and info()."""

import os
from dataclasses import dataclass, field
from typing import Dict, Sequence

import numpy as np

from . import _core
from ._errors import InputError
from ._keys import key_fields
from ._resources import options


@dataclass
class Report:
    """What a file command did (the CLI's --stats)."""

    command: str = ""
    backend: str = ""
    mode: str = ""
    records: int = 0
    input_bytes: int = 0
    output_bytes: int = 0
    runs: int = 0
    merge_levels: int = 0
    resumed: str = ""
    seconds: float = 0.0
    phases: Dict[str, float] = field(default_factory=dict)


@dataclass
class CheckReport(Report):
    """check_file's answer: whether the file is sorted, and what it holds."""

    sorted: bool = True
    first_violation: int = 0
    duplicates: int = 0
    checksum: int = 0
    xxh3: int = 0


def _npy_fields(path):
    """The field names of the dtype in a .npy file's header; None for a plain dtype, or
    for a header numpy cannot read (the library reads it again and says what is wrong)."""
    try:
        with open(path, "rb") as f:
            version = np.lib.format.read_magic(f)
            read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            return read(f)[2].names
    except (OSError, ValueError):
        return None


def _format(dtype, order, descending, float_order, npy=None, tie_break=True):
    """(record_size, fields, npy key names) of a file command: from dtype= (raw files),
    or None and the order= names for .npy files, whose header gives the dtype."""
    if float_order not in ("numpy", "total"):
        raise InputError(f"float_order={float_order!r}: give 'numpy' or 'total'")
    if dtype is None:
        names = [order] if isinstance(order, str) else list(order or [])
        if not isinstance(descending, bool):
            names = [f"{n}:desc" if d else n for n, d in zip(names, descending)]
            descending = False
        fields = _npy_fields(npy) if npy is not None else None
        if fields and tie_break:  # numpy's rule: the fields not named break ties, in dtype order
            named = {n.split(":")[0] for n in names}
            names += [n for n in fields if n not in named]
        return 0, None, names, descending
    dt = np.dtype(dtype)
    fields = key_fields(dt, order, descending, tie_break)
    out = []
    for f in fields:
        k = f.dtype.kind
        if k not in "biufSmM" or k == "U":
            raise InputError(f"dtype {f.dtype}: files take integer, float, bool and bytes (S) keys")
        be = "be" if f.dtype.byteorder == ">" and f.dtype.itemsize > 1 else ""
        name = {"b": "u8", "S": "bytes"}.get(k) or f"{'i' if k in 'imM' else k}{8 * f.dtype.itemsize}{be}"
        out.append((f.offset, name, f.dtype.itemsize, f.desc))
    return dt.itemsize, out, [], False


def _npy_path(path):
    """path when it names a .npy file (its header's fields give the tie-break)."""
    p = os.fspath(path)
    return p if p.endswith(".npy") and os.path.isfile(p) else None


def _command_options(resources, call, flags):
    opts, progress = options(resources, call)
    opts["float_order"] = flags.pop("float_order")
    opts.update({k: v for k, v in flags.items() if v is not None})
    return opts, progress


def sort_file(path, out, *, dtype=None, order=None, descending=False, float_order="numpy", unique=False,
              resume=False, fsync=True, **resources) -> Report:
    """`gxsort sort PATH -o OUT`: a stable sort of a .npy or raw (dtype=) file, through
    temp files when it does not fit the memory budget. OUT may be PATH (in place)."""
    rs, fields, names, reverse = _format(dtype, order, descending, float_order, _npy_path(path))
    flags = {"unique": unique, "resume": resume, "fsync": fsync, "float_order": float_order}
    opts, progress = _command_options(resources, "sort_file", flags)
    return Report(**_core.sort_file(os.fspath(path), os.fspath(out), rs, fields, names, reverse, opts, progress))


def merge_files(paths: Sequence, out, *, dtype=None, order=None, descending=False, float_order="numpy", fsync=True,
                **resources) -> Report:
    """`gxsort merge PATH... -o OUT`: the stable merge of sorted files (ties in argument order)."""
    paths = [os.fspath(p) for p in paths]
    rs, fields, names, reverse = _format(dtype, order, descending, float_order, next(filter(None, map(_npy_path, paths)), None))
    opts, progress = _command_options(resources, "merge_files", {"fsync": fsync, "float_order": float_order})
    return Report(**_core.merge_files(paths, os.fspath(out), rs, fields, names, reverse, opts, progress))


def dedupe_file(path, out, *, dtype=None, order=None, descending=False, float_order="numpy", count=False,
                keep="first", assume_sorted=False, fsync=True, **resources) -> Report:
    """`gxsort dedupe PATH -o OUT`: sorted, one record per key (the first, or keep="last")."""
    if keep not in ("first", "last"):
        raise InputError(f"keep={keep!r}: give 'first' or 'last'")
    # The key is what order= names (the groups), nothing more.
    rs, fields, names, reverse = _format(dtype, order, descending, float_order, _npy_path(path), tie_break=False)
    flags = {"count": count, "keep_last": keep == "last", "assume_sorted": assume_sorted, "fsync": fsync,
             "float_order": float_order}
    opts, progress = _command_options(resources, "dedupe_file", flags)
    return Report(**_core.dedupe_file(os.fspath(path), os.fspath(out), rs, fields, names, reverse, opts, progress))


def check_file(path, *, dtype=None, order=None, descending=False, float_order="numpy", **resources) -> CheckReport:
    """`gxsort check PATH`: the record count, whether it is sorted (first_violation),
    duplicate keys and checksums."""
    rs, fields, names, reverse = _format(dtype, order, descending, float_order, _npy_path(path))
    opts, progress = _command_options(resources, "check_file", {"float_order": float_order})
    return CheckReport(**_core.check_file(os.fspath(path), rs, fields, names, reverse, opts, progress))


def info(**resources) -> dict:
    """The version, whether the CUDA backend is built, threads, memory, the usable GPUs,
    and the backend an array call with device="auto" uses ("cuda" or "cpu")."""
    opts, _ = options(resources, "info")
    d = _core.info(opts)
    d["backend"] = "cuda" if d["gpus"] and opts.get("device") != "cpu" else "cpu"
    return d
