"""How many threads one call uses: one rule for the whole library.

From 200,000 rows a call ranks whole groups in two parts on two threads (numpy releases the GIL
while it sorts), sorts a score column while the group keys are encoded, and adds bootstrap sums
of two halves of the groups at once. Fewer rows, one core, a call already running on a worker
thread (Dask's threaded scheduler or a distributed worker, or a thread of the caller's), or inside
a Spark task: one thread, since the engine already runs one task per core. ``engine_options=
{"threads": n}`` on a pandas or polars frame sets the number (1: no extra thread). The numbers
never depend on it: parts are whole groups, and every sum is added in a fixed order.

A call of ``n`` threads is the calling thread and ``n - 1`` workers (:class:`Workers`): the caller
takes its share of every batch of tasks instead of waiting. Besides the thread it saves, this
keeps the memory down: glibc's malloc gives every thread that allocates its own arena, and
what one arena frees the others cannot reuse, so that each more thread that allocates adds the
memory its arena keeps to the peak resident set (one ``pre.gauc`` of 1e6 rows: 43-46 bytes a
row with two workers beside a waiting caller, 36-39 with the caller and one worker).
"""

from __future__ import annotations

import functools
import itertools
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from .inputs.validation import check_min_count, invalid_parameter
from .reference import reference_mode

__all__ = [
    "RANGES_FROM_ROWS", "THREADS_FROM_ROWS", "Workers", "check_threads", "limit_threads", "one_blas_thread",
    "over_ranges", "row_ranges", "run_tasks", "threads_for",
]

T = TypeVar("T")
R = TypeVar("R")

#: Rows from which a call uses more than one thread.
THREADS_FROM_ROWS = 200_000
#: Threads of one call from that size on, by default.
DEFAULT_THREADS = 2

_LIMIT: ContextVar[int | None] = ContextVar("pandas_rankeval_threads", default=None)


def _in_spark_task() -> bool:
    if "pyspark" not in sys.modules:
        return False
    try:
        from pyspark import TaskContext
    except ImportError:  # pragma: no cover - pyspark half installed
        return False
    return TaskContext.get() is not None


def threads_for(n_rows: int | None = None) -> int:
    """The threads a call over ``n_rows`` rows uses (None: no row threshold).

    Examples
    --------
    >>> from pandas_rankeval.core.threads import limit_threads, threads_for
    >>> threads_for(1_000)
    1
    >>> with limit_threads(3):
    ...     threads_for(1_000)
    3
    """
    if reference_mode():  # the reference switch: one thread
        return 1
    limit = _LIMIT.get()
    if limit is not None:
        return limit
    if n_rows is not None and n_rows < THREADS_FROM_ROWS:
        return 1
    if (os.cpu_count() or 1) < 2 or threading.current_thread() is not threading.main_thread() or _in_spark_task():
        return 1
    return DEFAULT_THREADS


@contextmanager
def limit_threads(n: int | None) -> Iterator[None]:
    """Within the block, every call uses ``n`` threads (None: as outside the block, where the default
    rule applies unless an enclosing block set a number)."""
    if n is None:
        yield
        return
    token = _LIMIT.set(n)
    try:
        yield
    finally:
        _LIMIT.reset(token)


def check_threads(value: Any, func: str) -> int | None:
    """``engine_options["threads"]``: an int >= 1, or None for the default rule."""
    if value is None:
        return None
    n = check_min_count(value, "threads", func)
    if n < 1:
        raise invalid_parameter("threads", func, f"an int in the range [1, inf) (1: no extra thread) or None (the "
                                f"default: {DEFAULT_THREADS} threads from {THREADS_FROM_ROWS:,} rows)", value,
                                what="engine option")
    return int(n)


@functools.cache
def _blas_controller() -> Any:
    """threadpoolctl's controller (a dependency of scikit-learn), made once: making one scans the
    loaded libraries, ~10 ms. None without threadpoolctl."""
    try:
        from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

        return ThreadpoolController()
    except Exception:  # noqa: BLE001 - no controller: BLAS as configured
        return None


#: The process-wide BLAS limit of :func:`one_blas_thread`: how many blocks hold it, and the
#: limiter of the first (which restores the limits found before it), under one lock.
_BLAS_GUARD = threading.Lock()
_BLAS_HELD: dict[str, Any] = {"depth": 0, "limiter": None}


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """A block in which BLAS runs on one thread, whatever other threads do meanwhile.

    OpenBLAS spreads a dot product of more than ~1e4 values over its threads: the sum then
    depends on the thread count in its last bit, the wake-ups cost milliseconds per call on a busy
    machine, and on top of the library's own threads it only contends. BLAS's thread count is
    one setting of the process, so the limit is held by a count of the blocks inside it (in any
    thread): the first block sets one thread, the last one out restores what the first found.
    One call can therefore never lift it while another call still computes (each call holds it
    from start to end, :func:`pandas_rankeval.api.dispatch.evaluate_frame`), so every product
    of every call runs on one BLAS thread, alone or beside others: the same numbers to the bit.
    The caller's own BLAS setting is back once no call runs. Without threadpoolctl BLAS is left
    as configured.

    Examples
    --------
    >>> from pandas_rankeval.core.threads import one_blas_thread
    >>> with one_blas_thread():
    ...     with one_blas_thread():  # nested (or in another thread): the limit is held once
    ...         pass
    """
    controller = _blas_controller()
    if controller is None:
        yield
        return
    with _BLAS_GUARD:
        if _BLAS_HELD["depth"] == 0:
            _free_blas_pool()
            _BLAS_HELD["limiter"] = controller.limit(limits=1, user_api="blas")  # set now; remembers the limits
            _free_blas_pool()
        _BLAS_HELD["depth"] += 1
    try:
        yield
    finally:
        with _BLAS_GUARD:
            _BLAS_HELD["depth"] -= 1
            if _BLAS_HELD["depth"] == 0:
                limiter, _BLAS_HELD["limiter"] = _BLAS_HELD["limiter"], None
                _free_blas_pool()
                limiter.restore_original_limits()
                _free_blas_pool()


def _free_blas_pool() -> None:
    """Let any thread set OpenBLAS's threads next. threadpoolctl (3.6 on) lets only the thread
    that last set a process-wide (pthreads) OpenBLAS pool set it again, silently ignoring the
    others, until that thread leaves a ``with`` block of its own; the limit of
    :func:`one_blas_thread` is set by the first call in and restored by the last one out, which
    may be any threads, so no thread keeps that right past a change."""
    try:
        from threadpoolctl import OpenBLASController
    except ImportError:  # pragma: no cover - an older threadpoolctl: any thread sets the pool
        return
    clear = getattr(OpenBLASController, "clear_controlling_thread", None)
    if clear is not None:
        clear(force=True)


class Workers:
    """The threads of one call: the calling thread and ``n - 1`` pool threads (none for ``n=1``).

    :meth:`map` runs a batch of tasks on all of them, each thread taking the next task when it is
    free (the caller too); :meth:`submit` starts one task on a pool thread, ahead of the batches.

    Examples
    --------
    >>> from pandas_rankeval.core.threads import Workers
    >>> with Workers(2) as workers:
    ...     workers.map(lambda x: x * x, [1, 2, 3])
    [1, 4, 9]
    """

    def __init__(self, n: int) -> None:
        self.n = max(1, int(n))
        self._pool = ThreadPoolExecutor(max_workers=self.n - 1) if self.n > 1 else None

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)

    def submit(self, fn: Callable[[], R]) -> Future[R] | None:
        """``fn`` started on a pool thread (None without one: the caller runs it when needed)."""
        return self._pool.submit(fn) if self._pool is not None else None

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        """``fn`` of every item, on the pool threads and this one; the results in the items' order
        (which thread ran a task never changes its result)."""
        if self._pool is None or len(items) < 2:
            return [fn(x) for x in items]
        results: list[Any] = [None] * len(items)
        order = iter(range(len(items)))
        lock = threading.Lock()
        failed = threading.Event()  # a task raised: the others take no new task

        def work() -> None:
            while not failed.is_set():
                with lock:
                    i = next(order, None)
                if i is None:
                    return
                try:
                    results[i] = fn(items[i])
                except BaseException:
                    failed.set()
                    raise

        helpers = [self._pool.submit(work) for _ in range(min(self.n - 1, len(items) - 1))]
        try:
            work()
        except BaseException:
            for h in helpers:
                h.exception()  # wait for them; the caller's error is the one raised
            raise
        for h in helpers:
            h.result()
        return results


def run_tasks(workers: Workers | None, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """``workers.map(fn, items)``, or every task on this thread without workers."""
    return workers.map(fn, items) if workers is not None else [fn(x) for x in items]


#: Rows from which :func:`over_ranges` splits a pass over a column by default: a shorter pass
#: takes about as long as starting the threads for it.
RANGES_FROM_ROWS = 2_000_000


def over_ranges(fn: Callable[[int, int], R], n_rows: int) -> list[R]:
    """``fn(lo, hi)`` of ranges of rows covering ``0 .. n_rows``: one range, or one per thread of
    the call (:func:`threads_for`; by default from :data:`RANGES_FROM_ROWS` rows) on as many
    threads, for a pass over a column (numpy releases the GIL in it) made before the call's
    threads are.

    >>> over_ranges(lambda lo, hi: hi - lo, 10)
    [10]
    """
    n = threads_for(n_rows) if _LIMIT.get() is not None or n_rows >= RANGES_FROM_ROWS else 1
    ranges = row_ranges(n_rows, n) if n_rows else [(0, 0)]
    if len(ranges) < 2:
        return [fn(lo, hi) for lo, hi in ranges]
    with Workers(n) as workers:
        return workers.map(lambda r: fn(*r), ranges)


def row_ranges(n_rows: int, n_parts: int) -> list[tuple[int, int]]:
    """``n_parts`` ranges of rows ``(lo, hi)`` of about the same length (fewer when rows are few).

    >>> row_ranges(10, 3)
    [(0, 3), (3, 6), (6, 10)]
    """
    n_parts = max(1, min(n_parts, n_rows))
    cuts = [n_rows * i // n_parts for i in range(n_parts + 1)]
    return [(lo, hi) for lo, hi in itertools.pairwise(cuts) if hi > lo]
