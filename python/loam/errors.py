"""loam's errors as Python exceptions.

Every C entry point returns a loam_status and fills a loam_error; the bindings raise the subclass of
LoamError for that status with the C message verbatim as its text (``str(e) == e.message``) and the status
number in ``e.status`` (the same numbers as the `loam` command's exit statuses). Bad input caught on the
Python side (wrong shapes or dtypes, NaN actions) raises InputError too, and any use of a closed world or
environment raises ClosedError, so a script never has to guess which family to catch."""
from . import _types as T


class LoamError(Exception):
    """Base of every loam error. ``status``: the loam_status number; ``message``: the C message."""

    status = T.ERR_INTERNAL

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status

    def __str__(self):
        return self.message


class InternalError(LoamError):
    """Status 1: a bug in loam."""

    status = T.ERR_INTERNAL


class InputError(LoamError, ValueError):
    """Status 2: a bad scene, option, argument or array."""

    status = T.ERR_INPUT


class DivergedError(LoamError, ArithmeticError):
    """Status 3: the simulation blew up (non-finite or out of bounds); the message names step and
    particle. The state is left as it was before the step; an environment must be reset."""

    status = T.ERR_DIVERGED


class LoamIOError(LoamError, OSError):
    """Status 4: a file could not be read or written."""

    status = T.ERR_IO

    def __init__(self, message, status=None):
        LoamError.__init__(self, message, status)

    def __str__(self):
        return self.message


class NoMemoryError(LoamError, MemoryError):
    """Status 5: out of memory."""

    status = T.ERR_NOMEM


class ClosedError(LoamError, RuntimeError):
    """A world, scene or environment was used after close() (status 2: bad input)."""

    status = T.ERR_INPUT


_BY_STATUS = {
    T.ERR_INTERNAL: InternalError,
    T.ERR_INPUT: InputError,
    T.ERR_DIVERGED: DivergedError,
    T.ERR_IO: LoamIOError,
    T.ERR_NOMEM: NoMemoryError,
}


def from_status(status, message):
    cls = _BY_STATUS.get(int(status), LoamError)
    return cls(message, int(status))


def raise_error(status, err, fallback="loam: call failed"):
    """Raise the exception for a failed call: `err` is the loam_error the call filled."""
    msg = err.message.decode("utf-8", "replace") if err is not None else ""
    raise from_status(status, msg or fallback)


def check(status, err):
    if status != T.OK:
        raise_error(status, err)
