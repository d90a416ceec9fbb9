// Route picking, shared by the game (main.js) and the puzzle (puzzle.js): pure functions of the
// state's legal routes (full paths, as the server lists them) and the squares selected so far.
// Nothing here decides what is legal; it only walks the routes it is given.

// The routes that begin with the squares of prefix.
export function routesFrom(moves, prefix) {
  return moves.filter((route) => prefix.every((square, i) => route.path[i] === square));
}

// The squares a turn can start from.
export function startSquares(moves) {
  return new Set(moves.map((route) => route.path[0]));
}

// The squares that can come next after prefix.
export function nextSquares(moves, prefix) {
  return new Set(routesFrom(moves, prefix).map((route) => route.path[prefix.length]).filter(Boolean));
}

// The route that is exactly prefix (a whole turn), or null.
export function exactRoute(moves, prefix) {
  return routesFrom(moves, prefix).find((route) => route.path.length === prefix.length) || null;
}
