"""Each layer imports only the layers before it: rules → game → engine → daily → review → server, and cli last."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "kingme"
ORDER = ["rules", "game", "engine", "daily", "review", "server", "cli"]
#: What each layer may import from kingme besides itself (the cli may import everything).
ALLOWED = {layer: set(ORDER[:i]) for i, layer in enumerate(ORDER)}


def kingme_imports(path: Path) -> set[str]:
    """The kingme layers a module imports, at any depth of its code (lazy imports count too)."""
    layers = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for name in names:
            parts = name.split(".")
            if parts[0] == "kingme" and len(parts) > 1:
                layers.add(parts[1])
    return layers


@pytest.mark.parametrize("layer", ORDER)
def test_a_layer_imports_only_the_layers_before_it(layer):
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        upward = kingme_imports(path) - ALLOWED[layer] - {layer}
        assert not upward, f"{path.relative_to(PACKAGE.parent)} imports {sorted(upward)}"
