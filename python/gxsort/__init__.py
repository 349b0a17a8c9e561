"""gxsort: sort, merge and deduplicate numpy and CuPy arrays, and files larger than memory,
on the GPU when one is usable and on the CPU otherwise (the same bytes either way).

The array functions follow numpy (np.sort(kind="stable"), np.argsort, np.lexsort,
np.unique); docs/python.md has the table, the order of floats and the options."""

from ._arrays import argsort, is_sorted, lexsort, merge, sort, sort_rows, unique
from ._device import release_device_memory
from ._errors import DeviceError, Error, InputError, ResourceError
from ._files import CheckReport, Report, check_file, dedupe_file, info, merge_files, sort_file

__all__ = [
    "sort", "argsort", "lexsort", "unique", "merge", "is_sorted", "sort_rows",
    "sort_file", "merge_files", "dedupe_file", "check_file", "info", "release_device_memory", "Report", "CheckReport",
    "Error", "InputError", "ResourceError", "DeviceError",
]
__version__ = "0.1.0"
