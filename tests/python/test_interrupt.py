"""Ctrl-C: a KeyboardInterrupt from another thread, sent once the first progress report
(of a given phase) arrives, cancels the work with the CLI's guarantees (no output, no temp file; a file
job keeps its pieces for resume=True)."""

import _thread
import signal
import threading

import numpy as np
import pytest

import gxsort
from helpers import assert_same

RECORDS = 8 << 20  # 64 MiB of u64 under a 4 MiB budget: many runs, well over a second of work


class Interrupter:
    """The progress callback and the thread that interrupts the main thread. The callback
    waits (bounded) until the interrupt is sent, so that it lands while the work runs."""

    def __init__(self, phase=None):
        self.phase = phase  # interrupt at this phase's first report (None: the first of any)
        self.first_progress = threading.Event()
        self.sent = threading.Event()
        self.finished = threading.Event()  # the call returned: send nothing any more
        self.reports = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        if self.first_progress.wait(timeout=120) and not self.finished.is_set():
            _thread.interrupt_main()
            self.sent.set()

    def __call__(self, phase, done, total):
        self.reports.append((phase, done, total))
        if not self.first_progress.is_set() and self.phase in (None, phase):
            self.first_progress.set()
            assert self.sent.wait(timeout=60), "the interrupting thread did not run"


def interrupted(call, phase=None):
    """Runs call(progress); True when it raised KeyboardInterrupt. SIGINT is Python's own
    handler meanwhile: a process started in the background by a shell (nohup, a batch
    job, some CI runners) inherits it ignored, and interrupt_main() then does nothing."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    stop = Interrupter(phase)
    try:
        call(stop)
    except KeyboardInterrupt:
        return True, stop
    finally:
        stop.finished.set()
        stop.first_progress.set()  # the thread ends either way
        stop.thread.join()
        signal.signal(signal.SIGINT, previous)
    return False, stop


def temp_files(directory):
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(".gxsort.") and p.name.endswith(".tmp"))


@pytest.fixture(scope="module")
def big_input(tmp_path_factory):
    d = tmp_path_factory.mktemp("interrupt-input")
    a = np.random.default_rng(7).integers(0, 2**63, RECORDS, dtype="<u8")
    a.tofile(d / "in.bin")
    return d / "in.bin", a


def test_interrupt_sort_file_leaves_no_output_and_resumes(tmp_path, big_input):
    src, a = big_input
    work, out = tmp_path / "tmp", tmp_path / "out"
    work.mkdir()
    out.mkdir()

    def call(progress):
        gxsort.sort_file(src, out / "sorted.bin", dtype="<u8", memory="4M", tmp_dir=str(work), threads=1,
                         progress=progress)

    landed, stop = interrupted(call)
    assert stop.reports, "no progress was reported: the interrupt was never sent"
    assert landed, "the sort finished before the interrupt landed: make the work bigger"
    assert not (out / "sorted.bin").exists(), "an interrupted sort created its output"
    assert temp_files(work) == [] and temp_files(out) == [], "temp files left behind"
    # What is left is the job's pieces, for resume=True; resuming finishes the sort.
    r = gxsort.sort_file(src, out / "sorted.bin", dtype="<u8", memory="4M", tmp_dir=str(work), resume=True)
    assert r.records == RECORDS
    got = np.fromfile(out / "sorted.bin", "<u8")
    assert np.array_equal(got, np.sort(a))
    assert sorted(p.name for p in work.iterdir()) == [], "the finished job left pieces in tmp_dir"
    assert sorted(p.name for p in out.iterdir()) == ["sorted.bin"]


def test_interrupt_sort_file_in_place_keeps_input(tmp_path, big_input):
    src, a = big_input
    data = tmp_path / "data.bin"
    data.write_bytes(src.read_bytes())
    work = tmp_path / "tmp"
    work.mkdir()

    def call(progress):
        gxsort.sort_file(data, data, dtype="<u8", memory="4M", tmp_dir=str(work), threads=1, progress=progress)

    landed, stop = interrupted(call)
    assert stop.reports, "no progress was reported: the interrupt was never sent"
    assert landed, "the sort finished before the interrupt landed"
    assert data.read_bytes() == src.read_bytes(), "an interrupted in-place sort replaced its input"
    assert temp_files(work) == [] and temp_files(tmp_path) == []


# In place, interrupted in its merge: the array is written only after the merge succeeded.
@pytest.mark.parametrize("in_place", [False, True])
def test_interrupt_array_sort_over_budget(tmp_path, in_place):
    a = np.random.default_rng(8).integers(0, 2**63, 4 << 20, dtype="<u8")  # 32 MiB under 4 MiB
    before = a.copy()

    def call(progress):
        gxsort.sort(a, memory="4M", tmp_dir=str(tmp_path), threads=1, progress=progress, out=a if in_place else None)

    landed, stop = interrupted(call, "merge" if in_place else None)
    assert stop.reports, "no progress was reported: the interrupt was never sent"
    assert landed, "the sort finished before the interrupt landed"
    assert_same(a, before, "the input of an interrupted sort")
    assert list(tmp_path.iterdir()) == [], "temp files left behind"
    # The next call works normally (no interrupt pending, nothing left cancelled).
    assert np.array_equal(gxsort.sort(a[:1000]), np.sort(a[:1000]))


def test_exception_in_progress_callback_cancels(tmp_path, big_input):
    src, _ = big_input

    def boom(phase, done, total):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        gxsort.sort_file(src, tmp_path / "o.bin", dtype="<u8", memory="4M", tmp_dir=str(tmp_path), progress=boom)
    assert temp_files(tmp_path) == [] and not (tmp_path / "o.bin").exists()
