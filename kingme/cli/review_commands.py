"""``kingme review``: one game of a PDN file reviewed as the web page reviews it (``kingme.review``):
each move's evaluation, win chance, verdict and the engine's move, then each side's accuracy —
a table to read, or with ``--json`` the same data as the page's stream has it (``docs/review.md``),
with the win chance after every ply for a graph."""

from __future__ import annotations

import argparse
import json
from typing import Any

from kingme.cli.arguments import plural, printable, whole_number
from kingme.review.budgets import BUDGETS, DEFAULT_BUDGET, budget_named

#: The verdicts' plurals, for the summary lines.
PLURALS = {"inaccuracy": "inaccuracies", "mistake": "mistakes", "blunder": "blunders"}
#: Columns of the table: ply, mover, move, evaluation, Black's win chance, verdict, engine's move.
ROW = "{:>4}  {:<5}  {:<12}  {:>14}  {:>6}  {:<10}  {}"


def _evaluation(evaluation: dict[str, Any]) -> str:
    """An EVAL for people: ``+0.35`` (Black's view, in men), ``Black in 7`` (a proven win, a
    capture or a man's move within so many plies), ``Black won`` / ``draw`` at the end of a game."""
    if evaluation["table_plies"] is not None:
        plies = evaluation["table_plies"]
        return f"{'Black' if plies > 0 else 'White'} in {abs(plies)}"
    if evaluation["score"] is None:
        return "Black won" if evaluation["win"] == 100.0 else "White won"
    return f"{evaluation['score'] / 100:+.2f}"


def _run_review(args: argparse.Namespace) -> int:
    from kingme.game.pdn import game_from_pdn, read_pdn_file
    from kingme.review.review import PlyReview, check_reviewable, review_game
    from kingme.rules.pdn import read_pdn

    games = read_pdn(read_pdn_file(args.file))
    if args.game > len(games):
        raise ValueError(f"{args.file} holds {plural(len(games), 'game')}; --game must be 1 to {len(games)}")
    pdn = games[args.game - 1]
    game = game_from_pdn(pdn)
    check_reviewable(game)
    budget = budget_named(args.budget)
    if not args.json:
        players = f"{printable(pdn.tags.get('Black', '?'))} (Black) - {printable(pdn.tags.get('White', '?'))} (White)"
        print(f"game {args.game} of {args.file}: {players}, {pdn.result}")
        print(f"{budget.name} review: {budget.nodes:,} nodes a position, {plural(len(game.moves), 'ply', 'plies')}")
        print(ROW.format("ply", "side", "move", "eval", "Black%", "verdict", "engine (what the move lost)"), flush=True)
    plies: list[dict[str, Any]] = []
    for item in review_game(game, budget):
        if not isinstance(item, PlyReview):
            summary, initial = item.to_dict(), item.initial.to_dict()  # the last item
            break
        ply = item.to_dict()
        plies.append(ply)
        if not args.json:
            best = f"{ply['best']} (lost {ply['loss']:.1f})" if ply["best"] else ""
            verdict = ply["verdict"] or ("forced" if ply["forced"] else "")
            row = (ply["ply"], ply["side"], ply["move"], _evaluation(ply["eval"]), f"{ply['eval']['win']:.1f}")
            print(ROW.format(*row, verdict, best).rstrip(), flush=True)
    if args.json:
        graph = [initial["win"]] + [ply["eval"]["win"] for ply in plies]
        start = {"game": args.game, "budget": budget.to_dict(), "fen": game.setup.fen, "initial": initial}
        print(json.dumps({**start, "plies": plies, **summary, "graph": graph}, indent=1))
        return 0
    for side in ("black", "white"):
        accuracy = summary["accuracy"][side]
        counts = ", ".join(plural(count, name, PLURALS[name]) for name, count in summary["counts"][side].items())
        shown = "no judged move" if accuracy is None else f"accuracy {accuracy:.1f}"
        print(f"{side.title()}: {shown}; {counts}")
    return 0


def review_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the PDN file of the game")
    parser.add_argument("--game", type=whole_number(1), default=1, help="which game of the file (default the first)")
    budgets = ", ".join(f"{name} {budget.nodes:,}" for name, budget in BUDGETS.items())
    parser.add_argument(
        "--budget",
        choices=tuple(BUDGETS),
        default=DEFAULT_BUDGET,
        help=f"nodes a position: {budgets} (default {DEFAULT_BUDGET})",
    )
    parser.add_argument("--json", action="store_true", help="print the review as JSON (win chance per ply in 'graph')")
    parser.set_defaults(run=_run_review)
