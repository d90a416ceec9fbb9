"""Game review and analysis: what a player learns from a game after playing it.

This layer sits between the engine and the server: it turns the engine's scores into win
chances, judges each move of a game (verdicts, accuracy), and keeps the several best lines of a
position for the analysis board. ``kingme review`` and the server's review and analysis
endpoints both use it, so the page and the command always agree.
"""
