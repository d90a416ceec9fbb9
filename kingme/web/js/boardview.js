// What the board shows, shared by the game and the puzzle: a pure function of the server's state
// (its pieces, last move and legal routes) and the squares picked so far. BoardView (board.js)
// draws the description; nothing here touches the page or decides what is legal.

import { exactRoute, routesFrom, startSquares } from "./routes.js";

// The description board.js draws, for:
//   state: the server's state (board, history, moves, variant), or null before any game;
//   partial: the squares picked so far (a started jump moves its piece along and marks the taken ones);
//   hint: squares to mark as the hint; playable: whether the player may pick squares now;
//   numbers, marks: the preferences; label(square, info): the square's accessible name.
export function boardView({ state, partial = [], hint = [], playable = false, numbers = true, marks = true, label }) {
  const pieces = {};
  for (const [square, piece] of Object.entries(state ? state.board : {})) pieces[square] = { ...piece };
  const view = {
    pieces, movable: new Set(), selected: null, targets: new Map(), capturable: new Set(),
    lastMove: [], hint, numbers, marks, label,
  };
  if (!state) return view;
  const midJump = partial.length > 1;
  const last = state.history[state.history.length - 1];
  if (last && !midJump) view.lastMove = last.path;
  if (midJump) {
    const route = routesFrom(state.moves, partial)[0];
    const from = partial[0];
    const here = partial[partial.length - 1];
    pieces[here] = pieces[from];
    delete pieces[from];
    for (const captured of route.captures.slice(0, partial.length - 1)) pieces[captured] = { ...pieces[captured], taken: true };
  }
  if (!playable) return view;
  const candidates = routesFrom(state.moves, partial);
  if (partial.length === 0) {
    view.movable = startSquares(state.moves);
  } else {
    const here = partial[partial.length - 1];
    view.selected = here;
    view.movable = midJump ? new Set([here]) : startSquares(state.moves);
    // Casual rules let a started jump stop, or another piece be picked instead.
    if (midJump && state.variant === "casual") for (const square of startSquares(state.moves)) if (square !== partial[0]) view.movable.add(square);
    for (const route of candidates) {
      for (let i = partial.length; i < route.path.length; i += 1) {
        const square = route.path[i];
        const target = view.targets.get(square) || { next: false, numbers: [] };
        if (i === partial.length) target.next = true;
        if (route.captures.length && !target.numbers.includes(i)) target.numbers.push(i);
        view.targets.set(square, target);
      }
    }
  }
  const done = partial.length - 1;
  for (const route of partial.length ? candidates : state.moves) route.captures.forEach((square, i) => { if (i >= done) view.capturable.add(square); });
  return view;
}

// What a click on square does to the squares picked so far, given the legal routes (moves):
//   { kind: "extend", partial }: square continues the route (the caller animates the step; when
//     `route` is set, the turn is complete and is that route);
//   { kind: "select", partial: [square] }: a piece that can move is picked (or another, instead);
//   { kind: "clear", partial: [] }: the pick is dropped; { kind: "refused", partial }: mid-jump, the
//     square is not the jump's next landing; { kind: "none", partial: [] }: nothing was picked and
//     nothing can start there. `casual` lets a started jump give way to another piece.
export function pick(moves, partial, square, casual = false) {
  const next = [...partial, square];
  if (partial.length && routesFrom(moves, next).length) {
    const exact = exactRoute(moves, next);
    const longer = routesFrom(moves, next).some((route) => route.path.length > next.length);
    return { kind: "extend", partial: next, route: exact && !longer ? exact : null };
  }
  const starts = startSquares(moves);
  if (partial.length > 1) {
    return casual && starts.has(square) && square !== partial[0] ? { kind: "select", partial: [square] } : { kind: "refused", partial };
  }
  if (starts.has(square) && square !== partial[0]) return { kind: "select", partial: [square] };
  return { kind: partial.length ? "clear" : "none", partial: [] };
}

// The square's accessible name ("Square 22, red man, can move, …"); say: { t, colorName }.
export function squareLabel(square, { piece, target, movable, capturable, selected, lastMove, hint }, { t, colorName }) {
  const parts = [t("board.square", { n: square })];
  if (piece) parts.push(t(`board.${piece.kind}`, { color: colorName(piece.color).toLowerCase() }));
  else parts.push(t("board.empty"));
  if (piece?.taken) parts.push(t("board.taken"));
  if (selected) parts.push(t("board.selected"));
  if (movable) parts.push(t("board.movable"));
  if (target?.next) parts.push(t("board.target"));
  if (target?.numbers.length) parts.push(t("board.landing", { n: target.numbers.join(", ") }));
  if (capturable) parts.push(t("board.capturable"));
  if (lastMove) parts.push(t("board.lastMove"));
  if (hint) parts.push(t("board.hint"));
  return parts.join(", ");
}
