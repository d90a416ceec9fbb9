"""The daily game and the daily puzzles: product rules built on the computer player.

This layer sits above ``kingme.engine`` and below the server and the command line. It decides
what everybody plays on a given day (``daily_game``) and which puzzle each day shows, how
puzzles are found, checked and scheduled (``puzzles``). None of it is part of the computer
player itself: the engine only searches and evaluates positions for it.
"""
