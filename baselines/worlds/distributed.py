"""Joining a multi-process run (``jax.distributed``), for ``python -m baselines --distributed``.

A run over several hosts (or several processes on one machine) is JAX's own multi-controller
runtime: every process runs the same program on the global device mesh, XLA inserts the
collectives, and ``jax.distributed.initialize`` connects the processes through a coordinator
(process 0). It must be called before anything initialises the XLA backend, which using the
worlds does (their module-level arrays), so the command line joins first thing (``join_from_argv``).
CPU processes exchange collectives over gloo, whose peers must connect within 30 s of each other:
after work whose length differs between processes (a compilation, a share of the evaluation),
every process first waits at a ``barrier`` of the coordination service, which has no such limit.
"""

from __future__ import annotations

import argparse
import itertools

_barriers = itertools.count()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--distributed`` and the coordinator settings (all three, or none: the cluster's environment)."""
    parser.add_argument("--distributed", action="store_true", help="join a multi-process run (jax.distributed.initialize)")
    parser.add_argument(
        "--coordinator", help="with --distributed: host:port of process 0 (default: read from SLURM / Open MPI / Cloud TPU)"
    )
    parser.add_argument("--num-processes", type=int, help="with --distributed: processes in the run")
    parser.add_argument("--process-id", type=int, help="with --distributed: this process's rank, 0 .. num-processes - 1")


def join(coordinator: str | None = None, num_processes: int | None = None, process_id: int | None = None) -> None:
    """``jax.distributed.initialize`` with the three settings given, or none (JAX reads the
    cluster's environment itself); CPU collectives over gloo."""
    import jax

    explicit = (coordinator, num_processes, process_id)
    if any(v is not None for v in explicit) and not all(v is not None for v in explicit):
        raise SystemExit("error: --coordinator, --num-processes and --process-id go together (or none: the cluster's environment)")
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    if coordinator is None:
        jax.distributed.initialize()
    else:
        jax.distributed.initialize(coordinator, num_processes, process_id)


def join_from_argv(argv: list[str]) -> None:
    """Join if ``argv`` asks for it (``--distributed``); other arguments are left to the full parser."""
    parser = argparse.ArgumentParser(add_help=False)
    add_arguments(parser)
    args, _ = parser.parse_known_args(argv)
    if args.distributed:
        join(args.coordinator, args.num_processes, args.process_id)
    elif any(v is not None for v in (args.coordinator, args.num_processes, args.process_id)):
        raise SystemExit("error: --coordinator, --num-processes and --process-id need --distributed")


def barrier(name: str, timeout_s: int = 3600) -> None:
    """Wait until every process of a multi-process run reaches this point (a no-op in one process).

    The coordination service's barrier, not a device collective: one process may arrive minutes
    after another (still compiling), where a gloo collective fails after 30 s. Every process passes
    the same barriers in the same order; ``name`` says what is awaited in a timeout's message."""
    import jax

    if jax.process_count() == 1:
        return
    # the client jax.distributed.initialize made; JAX's own array serialization waits on it the same way
    from jax._src import distributed as jax_distributed

    client = jax_distributed.global_state.client
    if client is None:
        raise RuntimeError("barrier: jax.distributed is not initialised in this multi-process run")
    client.wait_at_barrier(f"instructworlds/{next(_barriers)}/{name}", timeout_in_ms=timeout_s * 1000)


def owner() -> int:
    """The process id of process 0 on every process of a multi-process run (this process's own in
    one process): the processes write one run folder, staged under one name (``cli.prepare_out``)."""
    import os

    import jax

    if jax.process_count() == 1:
        return os.getpid()
    from jax._src import distributed as jax_distributed

    client = jax_distributed.global_state.client
    if client is None:
        raise RuntimeError("owner: jax.distributed is not initialised in this multi-process run")
    key = f"instructworlds/owner/{next(_barriers)}"
    if jax.process_index() == 0:
        client.key_value_set(key, str(os.getpid()))
    return int(client.blocking_key_value_get(key, 3_600_000))


class StopSignals:
    """SIGTERM (a scheduler's pre-emption) and SIGINT (Ctrl-C) ask a run to stop at the next chunk
    boundary instead of killing it mid-update: ``with StopSignals() as stop:`` installs the
    handlers (the previous ones come back on exit), and ``stop()`` at a boundary returns the name
    of the signal that asked, or None. In a multi-process run every process learns at the same
    boundary whether any process was asked (a gather over the processes), so all stop together
    and their collectives stay matched; JAX's own SIGTERM notice is replaced by these handlers."""

    SIGNALS = ("SIGTERM", "SIGINT")

    def __init__(self) -> None:
        self.received: str | None = None
        self._previous: dict = {}

    def __enter__(self) -> StopSignals:
        import signal

        for name in self.SIGNALS:
            self._previous[name] = signal.signal(getattr(signal, name), self._handle)
        return self

    def __exit__(self, *exc) -> None:
        import signal

        for name, handler in self._previous.items():
            signal.signal(getattr(signal, name), handler)

    def _handle(self, signum, frame) -> None:
        import signal

        self.received = signal.Signals(signum).name

    def __call__(self) -> str | None:
        import jax

        if jax.process_count() == 1:
            return self.received
        import numpy as np
        from jax.experimental import multihost_utils

        codes = np.asarray(multihost_utils.process_allgather(np.int32(self.SIGNALS.index(self.received) + 1 if self.received else 0)))
        return self.SIGNALS[int(codes.max()) - 1] if codes.max() else None
