"""Subcommands of the online work (filled in by that work)."""

from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction) -> None:
    """Add these subcommands."""


def register_bench(targets: argparse._SubParsersAction) -> None:
    """Add targets of `kingme bench`."""
