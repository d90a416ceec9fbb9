"""Subcommands of the engine layer (filled in by the engine work)."""

from __future__ import annotations

import argparse


def register(commands: argparse._SubParsersAction) -> None:
    """Add this layer's subcommands."""


def register_bench(targets: argparse._SubParsersAction) -> None:
    """Add this layer's targets of `kingme bench`."""
