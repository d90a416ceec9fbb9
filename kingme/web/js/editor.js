// The analysis board's position editor: which piece stands on which square and who moves, as
// plain data, and its FEN text. It checks nothing: the server reads the FEN (kingme.rules.fen)
// when the position is analysed, and names what is wrong with it (a man on its crowning row,
// thirteen pieces of a side).

// The start position: Black (shown as Red) on 1-12, White on 21-32, Black to move.
export function startEditor() {
  const pieces = {};
  for (let square = 1; square <= 12; square += 1) pieces[square] = { color: "black", kind: "man" };
  for (let square = 21; square <= 32; square += 1) pieces[square] = { color: "white", kind: "man" };
  return { pieces, turn: "black" };
}

export function emptyEditor(turn = "black") {
  return { pieces: {}, turn };
}

// The editor for a position the server described (its state's board and turn).
export function editorFrom(state) {
  const pieces = {};
  for (const [square, piece] of Object.entries(state.board)) pieces[square] = { color: piece.color, kind: piece.kind };
  return { pieces, turn: state.turn };
}

// A click on `square` with `tool` ({color, kind}, or null to remove): the tool's piece is placed,
// or removed when that very piece stands there already.
export function place(editor, square, tool) {
  const pieces = { ...editor.pieces };
  const there = pieces[square];
  if (!tool || (there && there.color === tool.color && there.kind === tool.kind)) delete pieces[square];
  else pieces[square] = { ...tool };
  return { ...editor, pieces };
}

// The position as FEN: "B:W21,22,K30:B1,K5" (side to move, White's squares, Black's; K for kings).
export function fenOf(editor) {
  const side = (color) => {
    const squares = Object.keys(editor.pieces).map(Number).filter((square) => editor.pieces[square].color === color).sort((a, b) => a - b);
    return squares.map((square) => (editor.pieces[square].kind === "king" ? `K${square}` : String(square))).join(",");
  };
  return `${editor.turn === "black" ? "B" : "W"}:W${side("white")}:B${side("black")}`;
}
