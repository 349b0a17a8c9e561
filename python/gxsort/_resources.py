"""The keyword arguments every call takes: the engine's resources and a progress callback."""

from typing import Callable, Dict, Optional, Tuple

from ._errors import InputError

RESOURCES = ("memory", "device_memory", "threads", "device", "device_index", "tmp_dir", "progress")


def options(kwargs: Dict, call: str) -> Tuple[Dict, Optional[Callable]]:
    """The library's option dict and the progress callback of `kwargs` (resources only:
    anything else is a TypeError, as Python reports an unknown keyword)."""
    unknown = [k for k in kwargs if k not in RESOURCES]
    if unknown:
        raise TypeError(f"{call}() got an unexpected keyword argument {unknown[0]!r}")
    opts = {k: v for k, v in kwargs.items() if v is not None and k != "progress"}
    if isinstance(opts.get("tmp_dir"), str):
        opts["tmp_dir"] = [opts["tmp_dir"]]
    if "tmp_dir" in opts:
        opts["tmp_dir"] = [str(d) for d in opts["tmp_dir"]]
    if "device" in opts and opts["device"] not in ("auto", "cpu", "cuda"):
        raise InputError(f"device={opts['device']!r}: give 'auto', 'cpu' or 'cuda'")
    return opts, progress_callback(kwargs.get("progress"))


def progress_callback(progress) -> Optional[Callable]:
    """progress=True: a tqdm bar per phase when tqdm is installed (else nothing); a
    callable: called as progress(phase, done, total) with bytes; None/False: nothing."""
    if progress is None or progress is False:
        return None
    if progress is True:
        try:
            from tqdm import tqdm
        except ImportError:
            return None
        return _TqdmBars(tqdm)
    if not callable(progress):
        raise InputError("progress=: give a callable (phase, done, total), True for tqdm, or None")
    return progress


class _TqdmBars:
    """One tqdm bar per phase of a call, in bytes."""

    def __init__(self, tqdm):
        self.tqdm, self.bar, self.phase = tqdm, None, None

    def __call__(self, phase: str, done: int, total: int) -> None:
        if phase != self.phase:
            if self.bar is not None:
                self.bar.close()
            self.phase = phase
            self.bar = self.tqdm(total=total or None, desc=phase, unit="B", unit_scale=True, leave=False)
        self.bar.update(done - self.bar.n)

    def __del__(self):
        if self.bar is not None:
            self.bar.close()
