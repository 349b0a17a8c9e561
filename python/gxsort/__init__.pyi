# Typed stubs of the gxsort package (docs/python.md says what each call does).
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Literal, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

_Size = Union[int, str]
_Progress = Union[None, bool, Callable[[str, int, int], Any]]
_Desc = Union[bool, Sequence[bool]]
_FloatOrder = Literal["numpy", "total"]
_Path = Union[str, "os.PathLike[str]"]

import os

class Error(Exception):
    exit_code: int

class InputError(Error, ValueError): ...
class ResourceError(Error, OSError): ...
class DeviceError(Error, RuntimeError): ...

def sort(a: Any, axis: Optional[int] = -1, *, order: Union[None, str, Sequence[str]] = None, descending: _Desc = False,
         float_order: _FloatOrder = "numpy", out: Optional[np.ndarray] = None, memory: Optional[_Size] = None,
         device_memory: Optional[_Size] = None, threads: Optional[int] = None, device: str = "auto",
         device_index: Optional[int] = None, tmp_dir: Union[None, str, Sequence[str]] = None,
         progress: _Progress = None) -> Any: ...
def argsort(a: Any, axis: Optional[int] = -1, *, order: Union[None, str, Sequence[str]] = None,
            descending: _Desc = False, float_order: _FloatOrder = "numpy", **resources: Any) -> Any: ...
def lexsort(keys: Sequence[Any], *, descending: _Desc = False, float_order: _FloatOrder = "numpy",
            **resources: Any) -> Any: ...
def unique(a: Any, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False,
           axis: Optional[int] = None, *, equal_nan: bool = True, float_order: _FloatOrder = "numpy",
           **resources: Any) -> Union[Any, Tuple[Any, ...]]: ...
def merge(arrays: Sequence[npt.ArrayLike], *, order: Union[None, str, Sequence[str]] = None, descending: _Desc = False,
          float_order: _FloatOrder = "numpy", **resources: Any) -> np.ndarray: ...
def is_sorted(a: npt.ArrayLike, *, order: Union[None, str, Sequence[str]] = None, descending: _Desc = False,
              float_order: _FloatOrder = "numpy") -> bool: ...
def sort_rows(a: npt.ArrayLike, *, descending: _Desc = False, float_order: _FloatOrder = "numpy",
              **resources: Any) -> np.ndarray: ...

@dataclass
class Report:
    command: str
    backend: str
    mode: str
    records: int
    input_bytes: int
    output_bytes: int
    runs: int
    merge_levels: int
    resumed: str
    seconds: float
    phases: Dict[str, float]

@dataclass
class CheckReport(Report):
    sorted: bool
    first_violation: int
    duplicates: int
    checksum: int
    xxh3: int

def sort_file(path: _Path, out: _Path, *, dtype: Any = None, order: Union[None, str, Sequence[str]] = None,
              descending: _Desc = False, float_order: _FloatOrder = "numpy", unique: bool = False, resume: bool = False,
              fsync: bool = True, **resources: Any) -> Report: ...
def merge_files(paths: Sequence[_Path], out: _Path, *, dtype: Any = None, order: Union[None, str, Sequence[str]] = None,
                descending: _Desc = False, float_order: _FloatOrder = "numpy", fsync: bool = True,
                **resources: Any) -> Report: ...
def dedupe_file(path: _Path, out: _Path, *, dtype: Any = None, order: Union[None, str, Sequence[str]] = None,
                descending: _Desc = False, float_order: _FloatOrder = "numpy", count: bool = False,
                keep: Literal["first", "last"] = "first", assume_sorted: bool = False, fsync: bool = True,
                **resources: Any) -> Report: ...
def check_file(path: _Path, *, dtype: Any = None, order: Union[None, str, Sequence[str]] = None,
               descending: _Desc = False, float_order: _FloatOrder = "numpy", **resources: Any) -> CheckReport: ...
def info(**resources: Any) -> Dict[str, Any]: ...
def release_device_memory() -> None: ...

__version__: str
