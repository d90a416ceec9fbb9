"""``kingme annotate``: every move of the games in a PDN file judged by an engine (see
``kingme.engine.annotate``), the costly ones listed, the games written back with the judge's
scores as comments.

Judging a match's 60 games at master's budget takes an hour or more, so the annotated games are
appended to ``--output`` one by one as they are done, and the same command run again skips the
games that file already holds (after checking they are the same games).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from kingme.cli.arguments import plural, printable, whole_number
from kingme.rules import KingmeError

if TYPE_CHECKING:
    from kingme.rules.pdn import PdnGame

#: What a move must cost, in hundredths of a man, to be listed: the issue's positional bleed was
#: a run of moves each costing 0.4 to 0.9 of a man; below a third the judge's own horizon blurs.
DEFAULT_THRESHOLD = 30


def _already_annotated(output: Path, games: list[PdnGame]) -> int:
    """How many of ``games`` ``output`` already holds, the first ones in order; ``KingmeError``
    when it holds other games."""
    from kingme.game.pdn import read_pdn_file
    from kingme.rules.pdn import read_pdn

    if not output.exists():
        return 0
    done = read_pdn(read_pdn_file(output))
    if len(done) > len(games) or any(old.moves != new.moves for old, new in zip(done, games, strict=False)):
        raise KingmeError(f"{output} holds other games than those of this file; name a new one")
    return len(done)


def _run_annotate(args: argparse.Namespace) -> int:
    from kingme.engine.annotate import annotated, engine_judge, judge_game
    from kingme.game.pdn import check_appendable, game_from_pdn, read_pdn_file
    from kingme.rules.pdn import format_game, read_pdn

    games = read_pdn(read_pdn_file(args.file))
    replayed = [game_from_pdn(pdn) for pdn in games]  # every game checked before the first search
    skip = _already_annotated(args.output, games) if args.output else 0
    if args.output:
        check_appendable(args.output)
    if skip:
        print(f"{skip} of {plural(len(games), 'game')} already annotated in {args.output}")
    judge = engine_judge(args.engine, args.nodes)
    for pdn, game in list(zip(games, replayed, strict=True))[skip:]:
        verdicts = judge_game(game, judge)
        players = f"{printable(pdn.tags.get('Black', '?'))} (Black) - {printable(pdn.tags.get('White', '?'))} (White)"
        seed = f" ({printable(pdn.tags['Seed'])})" if "Seed" in pdn.tags else ""
        counted = verdicts[args.skip :]
        costly = [verdict for verdict in counted if verdict.cost >= args.threshold]
        losses = ", ".join(
            f"{colour.title()} {sum(v.cost for v in costly if v.mover == colour) / 100:.2f} "
            f"in {plural(sum(1 for v in costly if v.mover == colour), 'move')}"
            for colour in ("black", "white")
        )
        print(f"game {pdn.number}{seed}: {players}, {pdn.result}; lost: {losses}", flush=True)
        for verdict in costly:
            move = f"{pdn.move_number(verdict.ply)} {verdict.played.notation}"
            print(f"  {move} ({verdict.mover}): lost {verdict.cost / 100:.2f}, best {verdict.best.notation}")
        if args.output:
            with args.output.open("a", encoding="utf-8") as file:
                file.write(format_game(annotated(pdn, verdicts, args.threshold, args.skip)) + "\n")
    return 0


def annotate_options(parser: argparse.ArgumentParser) -> None:
    own = f"{shlex.quote(sys.executable)} -m kingme engine"
    parser.add_argument("file", metavar="FILE", help="the PDN file of the games")
    parser.add_argument(
        "--engine", metavar="CMD", default=own, help="the judge: a protocol engine command (default kingme's own)"
    )
    parser.add_argument(
        "--nodes", type=whole_number(1), default=4_000_000, help="nodes a position (default 4,000,000, master's)"
    )
    parser.add_argument(
        "--threshold",
        type=whole_number(1),
        default=DEFAULT_THRESHOLD,
        help=f"list moves costing at least this many hundredths of a man (default {DEFAULT_THRESHOLD})",
    )
    parser.add_argument(
        "--skip",
        type=whole_number(0),
        default=0,
        help="plies at the start charged to nobody: 3 for games from the 3-move ballots (default 0)",
    )
    parser.add_argument(
        "--output", type=Path, metavar="FILE", help="append the games with the judge's scores as comments (resumes)"
    )
    parser.set_defaults(run=_run_annotate)
