"""Reading the server's settings from environment variables, with one error wording for all."""

from __future__ import annotations

from collections.abc import Mapping


def whole_number(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    """``env[name]`` as a whole number in ``low..high`` (``default`` when unset); a ``ValueError``
    naming the variable, the range and the bad text otherwise.

    >>> whole_number({"N": "12"}, "N", 5, 1, 100)
    12
    >>> whole_number({}, "N", 5, 1, 100)
    5
    """
    text = env.get(name, str(default))
    if not (text.isascii() and text.isdigit()) or not low <= int(text) <= high:
        raise ValueError(f"{name} must be a whole number from {low} to {high}, not {text!r}")
    return int(text)


def one_of(env: Mapping[str, str], name: str, default: int, allowed: tuple[int, ...]) -> int:
    """``env[name]`` as one of the whole numbers ``allowed`` (``default`` when unset); a
    ``ValueError`` naming the variable, the values it may take and the bad text otherwise.

    >>> one_of({"N": "5"}, "N", 6, (0, 4, 5, 6))
    5
    >>> one_of({"N": "3"}, "N", 6, (0, 4, 5, 6))
    Traceback (most recent call last):
    ...
    ValueError: N must be one of 0, 4, 5, 6, not '3'
    """
    text = env.get(name, str(default))
    if text not in {str(value) for value in allowed}:
        raise ValueError(f"{name} must be one of {', '.join(map(str, allowed))}, not {text!r}")
    return int(text)


def items(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    """The comma-separated items of ``env[name]``, spaces around them and empty ones dropped
    (none when unset), so ``"a, b,"`` lists the same two names as ``"a,b"``.

    >>> items({"HOSTS": " a.example, b.example,"}, "HOSTS")
    ('a.example', 'b.example')
    """
    return tuple(item.strip() for item in env.get(name, "").split(",") if item.strip())
