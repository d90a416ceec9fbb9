"""js/variations.js and js/editor.js, the analysis board's tree of moves and its position editor,
as units in Chromium."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def run(play, body: str) -> object:
    """``body`` (statements ending in a return) with ``tree`` and ``editor`` imported."""
    play.page.goto(play.url)
    return play.page.evaluate(
        f"""async () => {{
            const tree = await import('/js/variations.js');
            const editor = await import('/js/editor.js');
            {body}
        }}"""
    )


def test_a_move_played_again_is_the_same_node_and_another_one_a_variation(play):
    assert run(
        play,
        """const root = tree.newTree();
        const a = tree.play(root, "11-15");
        const again = tree.play(root, "11-15");
        const b = tree.play(root, "9-14");
        const c = tree.play(a, "22-18");
        return [a === again, root.children.map((n) => n.move), tree.movesTo(c), tree.plyOf(c),
                tree.onMainLine(c), tree.onMainLine(b), tree.lineEnd(root) === c];""",
    ) == [True, ["11-15", "9-14"], ["11-15", "22-18"], 2, True, False, True]


def test_promoting_moves_a_variation_up_and_deleting_drops_it_with_what_follows(play):
    assert run(
        play,
        """const root = tree.newTree();
        tree.play(root, "11-15");
        tree.play(root, "10-15");
        const deep = tree.play(tree.play(root, "9-14"), "22-18");
        const moved = tree.promote(deep);
        const order = root.children.map((n) => n.move);
        const back = tree.remove(deep.parent);
        return [moved, order, back === root, root.children.map((n) => n.move), tree.promote(root.children[0])];""",
    ) == [True, ["11-15", "9-14", "10-15"], True, ["11-15", "10-15"], False]


def test_the_tree_goes_to_the_pdn_export_with_evaluations_where_known(play):
    assert run(
        play,
        """const root = tree.newTree();
        const a = tree.play(root, "11-15");
        a.eval = { score: 10, win: 51, table_plies: null };
        a.depth = 7;
        tree.play(a, "22-18");
        return tree.toJson(root);""",
    ) == {
        "children": [
            {
                "move": "11-15",
                "eval": {"score": 10, "win": 51, "table_plies": None},
                "depth": 7,
                "children": [{"move": "22-18", "children": []}],
            }
        ]
    }


def test_move_numbers_follow_the_side_that_moved_first(play):
    assert run(
        play, "return [0, 1, 2].map((p) => tree.numberAt(p, true)).concat([0, 1].map((p) => tree.numberAt(p, false)));"
    ) == [
        "1.",
        "1...",
        "2.",
        "1...",
        "2.",
    ]


def test_the_editor_places_replaces_and_removes_pieces_and_writes_fen(play):
    assert run(
        play,
        """let e = editor.emptyEditor("white");
        e = editor.place(e, 5, { color: "black", kind: "king" });
        e = editor.place(e, 9, { color: "black", kind: "man" });
        e = editor.place(e, 9, { color: "white", kind: "man" });
        e = editor.place(e, 30, { color: "white", kind: "man" });
        e = editor.place(e, 30, { color: "white", kind: "man" });
        e = editor.place(e, 1, { color: "black", kind: "man" });
        e = editor.place(e, 1, null);
        return [editor.fenOf(e), editor.fenOf(editor.startEditor()), editor.fenOf(editor.emptyEditor())];""",
    ) == ["W:W9:BK5", "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12", "B:W:B"]
