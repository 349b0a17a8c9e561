"""The exceptions of gxsort: one per exit code of the command-line tool."""


class Error(Exception):
    """A gxsort call failed; the message is the CLI's one line."""

    exit_code = 3


class InputError(Error, ValueError):
    """Bad arguments or bad input data (the CLI's exit code 2)."""

    exit_code = 2


class ResourceError(Error, OSError):
    """An I/O or resource failure: disk full, permissions, the memory budget (exit code 3)."""

    exit_code = 3


class DeviceError(Error, RuntimeError):
    """A GPU error, or no usable GPU where one is needed (exit code 4)."""

    exit_code = 4
