"""``kingme bench startup``: how long the commands that do not need the engine take to start.

Those commands declare their options and import their code only when they run, so that they
never import numba (about half a second before the engine has done anything). This benchmark
runs each of them as a new process several times and prints the median wall time from launch
to exit — for these commands nearly all of it start-up — and the median CPU time of the process
(what it costs on an idle core: on a shared machine the wall time grows with the load), beside
the bare interpreter's, and says whether the engine's compiled core was imported on the way.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from kingme.cli.arguments import plural, whole_number

#: What the target is measured against: a command that prints at once should feel instant.
TARGET_MS = 150
#: Modules that only the engine needs; a command without the engine must not import them.
ENGINE_MODULES = ("numba", "numpy")

#: Runs ``kingme.cli.main`` with the arguments given, its output swallowed, then prints the
#: names of every module imported on the way as JSON.
_PROBE = """
import contextlib, io, json, sys
from kingme.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print(json.dumps(sorted(sys.modules)))
"""


def cheap_commands(pdn_file: Path) -> list[list[str]]:
    """The commands measured: each of them needs only the rules, the game or the puzzle files."""
    return [["--version"], ["perft", "1"], ["moves"], ["pdn", str(pdn_file)], ["puzzles", "calendar"]]


def write_sample_pdn(directory: Path) -> Path:
    """A short legal game for ``kingme pdn`` to read."""
    path = directory / "sample.pdn"
    path.write_text('[Black "Ann"]\n[White "Bob"]\n\n1. 11-15 23-19 2. 8-11 22-17 *\n', encoding="utf-8")
    return path


def engine_modules_imported(argv: Sequence[str]) -> list[str]:
    """The engine's modules (``ENGINE_MODULES`` and below) that running ``kingme ARGV`` imports."""
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, check=True, timeout=120
    )
    loaded = json.loads(result.stdout.splitlines()[-1])
    return [name for name in loaded if name.split(".")[0] in ENGINE_MODULES]


def _children_cpu() -> float:
    """CPU seconds, user and system, of every child process waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _median_ms(argv: Sequence[str], runs: int) -> tuple[float, float]:
    """The median wall and CPU milliseconds of ``runs`` runs of ``argv``."""
    wall, cpu = [], []
    for _ in range(runs):
        started, cpu_before = time.perf_counter(), _children_cpu()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        wall.append(time.perf_counter() - started)
        cpu.append(_children_cpu() - cpu_before)
    return 1000 * statistics.median(wall), 1000 * statistics.median(cpu)


def _run(args: argparse.Namespace) -> int:
    print(
        f"start-up, median of {plural(args.runs, 'run')} of each (target: under {TARGET_MS} ms)\n"
        f"  {'':32} {'wall':>6}    {'CPU':>6}",
        flush=True,
    )
    wall, cpu = _median_ms([sys.executable, "-c", "pass"], args.runs)
    print(f"  {'python3 -c pass':32} {wall:6.0f} ms {cpu:6.0f} ms", flush=True)
    with tempfile.TemporaryDirectory() as directory:
        for argv in cheap_commands(write_sample_pdn(Path(directory))):
            shown = " ".join(argv if argv[0] != "pdn" else ["pdn", "FILE"])
            wall, cpu = _median_ms([sys.executable, "-m", "kingme", *argv], args.runs)
            engine = ", ".join(sorted({name.split(".")[0] for name in engine_modules_imported(argv)}))
            note = f"imports {engine}" if engine else "no numba"
            print(f"  {'kingme ' + shown:32} {wall:6.0f} ms {cpu:6.0f} ms  {note}", flush=True)
    return 0


def bench_startup_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--runs", type=whole_number(1), default=10, help="runs of each command (default 10)")
    parser.set_defaults(run=_run)
