"""PDN 3.0 text: checkers games as tags plus numbered move text, read and written.

This module only handles the text: it splits a file into games, reads the tags, the move
tokens (with their line numbers, for error messages), the comments and the result. Whether the
moves are legal is decided when a game is replayed (``kingme.game.pdn``), because only a board
knows that.

What is read
------------
* Tags ``[Name "value"]`` (``\\"`` and ``\\\\`` escapes), before the moves of each game.
* Move text: move numbers (``1.``, ``1...``, also glued to the move as in ``1.11-15``), moves
  (``11-15``, ``22x15``, ``9x18x27``, ``9:27``, leading zeros), comments ``{...}`` and ``;`` to the
  end of the line, variations ``( ... )`` (nested, skipped), NAGs (``$3``) and move marks
  (``!``, ``?``, ``!?`` ...), which are dropped.
* A game ends with its result, ``1-0`` (Black wins), ``0-1`` (White wins), ``1/2-1/2`` or ``*``;
  a game whose result is missing ends where the next game's tags begin, or at the end of the file.

Move numbers are not checked: programs disagree on them (pydraughts writes ``1...`` before
Black's first move of a standard game), and the order of the moves is what counts.

>>> [game] = read_pdn('[Black "Ann"]\\n1. 11-15 {book} 23-19 2. 8-11 1-0')
>>> game.tags["Black"], game.moves, game.result, game.comments
('Ann', ['11-15', '23-19', '8-11'], '1-0', [(1, 'book')])
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from kingme.rules.errors import PdnError

#: The largest PDN text accepted (10 MB): tens of thousands of games, far beyond any real file.
MAX_PDN_CHARS = 10_000_000
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
#: Tags written first, in this order (PDN's seven-tag roster for checkers, then the setup).
TAG_ORDER = ("Event", "Site", "Date", "Round", "Black", "White", "Result", "GameType", "SetUp", "FEN")

_MOVE = re.compile(r"^(\d{1,3}(?:[-xX:]\d{1,3})+)([!?]*)$")
_NUMBER = re.compile(r"^(\d{1,4})\.+(.*)$")
_MARKS = re.compile(r"^(?:[!?]+|\$\d{1,3}|\.\.\.?)$")
_TAG_NAME = re.compile(r"^[A-Za-z0-9_]{1,40}$")
_TAG_OPEN = re.compile(r'\s*([^\s"\]]*)\s*"')
_TAG_CLOSE = re.compile(r"[ \t]*\]")
#: Results of other draughts games (two points a win); not valid for checkers.
_OTHER_RESULTS = ("2-0", "0-2", "1-1", "0-0")
_SPACE = re.compile(r"\s+")
_WORD_END = re.compile(r"[\s\[\]{};()]")
_LINE_WIDTH = 79


@dataclass
class PdnVariation:
    """A line of moves other than the game's: its moves, its comments (paired as a game's are)
    and its own variations. A variation ``(i, line)`` of a game or of a line is an alternative to
    its move ``i``: ``line`` starts in the position before that move, and is written after it."""

    moves: list[str] = field(default_factory=list)
    comments: list[tuple[int, str]] = field(default_factory=list)
    variations: list[tuple[int, PdnVariation]] = field(default_factory=list)


@dataclass
class PdnGame:
    """One game as text: its tags, its move tokens and the line each was on, its result.

    ``comments`` pairs each comment with the number of moves before it (0: before the first
    move). ``variations`` (see ``PdnVariation``) are written, never read: the reader skips
    them. ``number`` is the game's position in its file (1 for the first) and ``line`` the line
    it starts on; like ``move_lines`` they are only for messages and play no part in equality.
    """

    tags: dict[str, str] = field(default_factory=dict)
    moves: list[str] = field(default_factory=list)
    result: str = "*"
    comments: list[tuple[int, str]] = field(default_factory=list)
    variations: list[tuple[int, PdnVariation]] = field(default_factory=list)
    move_lines: list[int] = field(default_factory=list, compare=False)
    number: int = field(default=1, compare=False)
    line: int = field(default=1, compare=False)

    @property
    def black_first(self) -> bool:
        """Whether Black makes the first move: true unless a ``FEN`` tag gives White the move."""
        return not self.tags.get("FEN", "B").strip().strip('"').upper().startswith("W")

    def move_number(self, ply: int) -> str:
        """How PDN numbers the move at ``ply`` (0-based): ``'3.'`` for Black, ``'3...'`` for White.

        >>> PdnGame().move_number(1), PdnGame(tags={"FEN": "W:W9:B1"}).move_number(1)
        ('1...', '2.')
        """
        index = ply if self.black_first else ply + 1
        return f"{index // 2 + 1}{'.' if index % 2 == 0 else '...'}"

    def where(self, ply: int | None = None) -> str:
        """'PDN game N, line L' (the line of move ``ply`` when given), to begin error messages."""
        line = self.move_lines[ply] if ply is not None and ply < len(self.move_lines) else self.line
        return f"PDN game {self.number}, line {line}"


class _Reader:
    """A single pass over the text that cuts it into games; see ``read_pdn``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1
        self.games: list[PdnGame] = []
        self.game: PdnGame | None = None

    def error(self, message: str, line: int | None = None) -> PdnError:
        number = len(self.games) + 1
        return PdnError(f"PDN game {number}, line {line or self.line}: {message}")

    def current(self) -> PdnGame:
        if self.game is None:
            self.game = PdnGame(number=len(self.games) + 1, line=self.line)
        return self.game

    def finish(self, result: str) -> None:
        game = self.current()
        tagged = game.tags.get("Result")
        if tagged is not None and tagged.strip() not in (result, "*", "?", "") and result != "*":
            raise self.error(f"the result {result} contradicts the Result tag {tagged!r}")
        if result == "*" and tagged is not None and tagged.strip() in RESULTS:
            result = tagged.strip()
        game.result = result
        self.games.append(game)
        self.game = None

    def skip_to(self, closing: str, what: str) -> str:
        """Consume up to and including ``closing``; return the text before it."""
        end = self.text.find(closing, self.pos)
        if end < 0:
            raise self.error(f"the {what} opened here is never closed with {closing!r}")
        body = self.text[self.pos : end]
        self.line += body.count("\n")
        self.pos = end + len(closing)
        return body

    def read(self) -> list[PdnGame]:
        text = self.text
        while self.pos < len(text):
            char = text[self.pos]
            if char.isspace():
                space = _SPACE.match(text, self.pos)
                assert space is not None
                self.line += text.count("\n", self.pos, space.end())
                self.pos = space.end()
            elif char == "[":
                self.tag()
            elif char == "{":
                line = self.line
                self.pos += 1
                body = self.skip_to("}", "comment")
                self.comment(body, line)
            elif char == ";":
                self.pos += 1
                end = text.find("\n", self.pos)
                end = len(text) if end < 0 else end
                self.comment(text[self.pos : end], self.line)
                self.pos = end
            elif char == "(":
                self.variation()
            elif char == "%" and (self.pos == 0 or text[self.pos - 1] == "\n"):
                end = text.find("\n", self.pos)  # an escaped line, for other programs
                self.pos = len(text) if end < 0 else end
            elif char in ")]}":
                raise self.error(f"{char!r} closes nothing")
            else:
                match = _WORD_END.search(text, self.pos)
                end = match.start() if match else len(text)
                word = text[self.pos : end]
                self.pos = end
                self.word(word)
        if self.game is not None and (self.game.tags or self.game.moves):
            self.finish("*")
        if not self.games:
            raise PdnError("the PDN text holds no game (no tags and no moves)")
        return self.games

    def tag(self) -> None:
        line = self.line
        game = self.current()
        if game.moves:
            # Tags after moves start the next game: the previous one lacked its result.
            self.finish("*")
            game = self.current()
        self.pos += 1
        match = _TAG_OPEN.match(self.text, self.pos)
        if not match:
            raise self.error('a tag must look like [Name "value"]', line)
        name = match.group(1)
        if not _TAG_NAME.match(name):
            raise self.error(f"{name[:40]!r} is not a tag name (letters, digits and _)", line)
        self.pos = match.end()
        value = []
        while True:
            if self.pos >= len(self.text) or self.text[self.pos] == "\n":
                raise self.error(f"the value of the tag {name} is never closed with '\"'", line)
            char = self.text[self.pos]
            if char == "\\" and self.pos + 1 < len(self.text) and self.text[self.pos + 1] in '\\"':
                value.append(self.text[self.pos + 1])
                self.pos += 2
            elif char == '"':
                self.pos += 1
                break
            else:
                value.append(char)
                self.pos += 1
        close = _TAG_CLOSE.match(self.text, self.pos)
        if not close:
            raise self.error(f"the tag {name} is never closed with ']'", line)
        self.pos = close.end()
        game.tags[name] = "".join(value)

    def comment(self, body: str, line: int) -> None:
        game = self.current()
        if body.strip():
            game.comments.append((len(game.moves), " ".join(body.split())))

    def variation(self) -> None:
        """Skip a variation, nested ones and comments inside it included."""
        line = self.line
        depth = 0
        while self.pos < len(self.text):
            char = self.text[self.pos]
            self.pos += 1
            if char == "\n":
                self.line += 1
            elif char == "{":
                self.skip_to("}", "comment")
            elif char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    return
        raise self.error("the variation '(' opened here is never closed with ')'", line)

    def word(self, word: str) -> None:
        while word:
            if word in RESULTS:
                self.finish(word)
                return
            if word in _OTHER_RESULTS:
                raise self.error(f"{word!r} is not a checkers result; use 1-0, 0-1, 1/2-1/2 or *")
            number = _NUMBER.match(word)
            if number:
                word = number.group(2)
                continue
            if _MARKS.match(word):
                return
            move = _MOVE.match(word)
            if not move:
                raise self.error(f"{word[:40]!r} is not a move, a move number or a result (1-0, 0-1, 1/2-1/2, *)")
            game = self.current()
            game.moves.append(move.group(1))
            game.move_lines.append(self.line)
            return


def read_pdn(text: str) -> list[PdnGame]:
    """Every game in ``text``; ``PdnError`` naming the game and line of the first problem.

    >>> len(read_pdn("1. 11-15 * 1. 9-14 *"))
    2
    """
    if not isinstance(text, str):
        raise PdnError(f"PDN must be text, not {type(text).__name__}")
    if len(text) > MAX_PDN_CHARS:
        raise PdnError(f"the PDN text has {len(text):,} characters; at most {MAX_PDN_CHARS:,} are accepted")
    return _Reader(text.lstrip("\ufeff")).read()


def _tag_value(value: object) -> str:
    """A tag value on one line with ``\\`` and ``"`` escaped."""
    text = " ".join(str(value).split())
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _comment_text(text: str) -> str:
    return " ".join(text.replace("}", ")").split())


def _line_words(game: PdnGame, line: PdnVariation, first_ply: int) -> list[str]:
    """The words of ``line``, whose first move is the game's ply ``first_ply``: each move with
    its number (a White move's only where the text before it is not its Black move), the
    comments after the moves they follow, and the variations of a move, each in parentheses,
    after the move and its comments."""
    comments: dict[int, list[str]] = {}
    for ply, text in line.comments:
        comments.setdefault(ply, []).append(f"{{{_comment_text(text)}}}")
    variations: dict[int, list[PdnVariation]] = {}
    for index, variation in line.variations:
        variations.setdefault(index, []).append(variation)
    words = list(comments.get(0, []))
    numbered = True  # the next move needs its number even when it is White's
    for index, move in enumerate(line.moves):
        number = game.move_number(first_ply + index)
        words += [move] if number.endswith("...") and not numbered else [number, move]
        words += comments.get(index + 1, [])
        numbered = bool(comments.get(index + 1))
        for variation in variations.get(index, []):
            inner = _line_words(game, variation, first_ply + index)
            words += [f"({inner[0]}", *inner[1:-1], f"{inner[-1]})"] if len(inner) > 1 else [f"({inner[0]})"]
            numbered = True
    return words


def format_game(game: PdnGame) -> str:
    """One game as PDN text: tags (roster first), a blank line, numbered moves, the result."""
    if game.result not in RESULTS:
        raise PdnError(f"{game.result!r} is not a PDN result; use one of {', '.join(RESULTS)}")
    tags = dict(game.tags)
    tags["Result"] = game.result
    for name in tags:
        if not _TAG_NAME.match(name):
            raise PdnError(f"{name[:40]!r} is not a tag name (letters, digits and _)")
    ordered = [n for n in TAG_ORDER if n in tags] + [n for n in tags if n not in TAG_ORDER]
    lines = [f'[{name} "{_tag_value(tags[name])}"]' for name in ordered]
    words = _line_words(game, PdnVariation(game.moves, game.comments, game.variations), 0)
    words.append(game.result)
    wrapped: list[str] = []
    row = ""
    for word in words:
        if row and len(row) + 1 + len(word) > _LINE_WIDTH:
            wrapped.append(row)
            row = word
        else:
            row = f"{row} {word}" if row else word
    wrapped.append(row)
    return "\n".join(lines + [""] + wrapped) + "\n"


def write_pdn(games: PdnGame | Iterable[PdnGame]) -> str:
    """Games as PDN text, separated by blank lines; ``read_pdn`` reads them back unchanged
    (their variations aside, which it skips)."""
    if isinstance(games, PdnGame):
        games = [games]
    return "\n".join(format_game(game) for game in games)
