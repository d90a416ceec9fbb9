// The analysis board's moves as a tree: every move played from the start position is kept, the
// first child of a position is its main line and the others are variations. Pure data and
// functions of it, plus the move list drawn from it; the moves are the server's notation, and
// whether they are legal is the server's business (the board only offers its routes).
//
// A node: { id, move (notation, null at the root), parent, children: [node], eval (the engine's
// EVAL of its position, or null), depth (of that eval) }.

let nextId = 0;

export function newTree() {
  nextId = 0;
  return node(null, null);
}

function node(move, parent) {
  nextId += 1;
  return { id: nextId, move, parent, children: [], eval: null, depth: 0 };
}

// The child of `parent` reached by `move`: the one already there, or a new one (a new main line
// when it is the first, else a new variation).
export function play(parent, move) {
  const known = parent.children.find((child) => child.move === move);
  if (known) return known;
  const child = node(move, parent);
  parent.children.push(child);
  return child;
}

// The moves from the root to `at`, oldest first.
export function movesTo(at) {
  const moves = [];
  for (let here = at; here.parent; here = here.parent) moves.unshift(here.move);
  return moves;
}

// Plies from the root to `at`.
export function plyOf(at) {
  let ply = 0;
  for (let here = at; here.parent; here = here.parent) ply += 1;
  return ply;
}

// The end of the main line from `at` (its first children, followed).
export function lineEnd(at) {
  let here = at;
  while (here.children.length) [here] = here.children;
  return here;
}

// Whether `at` lies on the main line (every node up to the root is a first child).
export function onMainLine(at) {
  for (let here = at; here.parent; here = here.parent) if (here.parent.children[0] !== here) return false;
  return true;
}

// Promote the variation that `at` lies in: the nearest of its ancestors (itself included) that is
// not a first child moves one place up among its siblings; a second child becomes the main line.
// Returns whether anything moved.
export function promote(at) {
  for (let here = at; here.parent; here = here.parent) {
    const siblings = here.parent.children;
    const index = siblings.indexOf(here);
    if (index > 0) {
      [siblings[index - 1], siblings[index]] = [siblings[index], siblings[index - 1]];
      return true;
    }
  }
  return false;
}

// Delete `at` and everything after it; returns the position before it (the root is kept).
export function remove(at) {
  if (!at.parent) return at;
  const { parent } = at;
  parent.children.splice(parent.children.indexOf(at), 1);
  return parent;
}

// The tree as the server's PDN export reads it: { move, eval, depth, children } from the root.
export function toJson(at) {
  const out = { children: at.children.map(toJson) };
  if (at.move) out.move = at.move;
  if (at.eval) {
    out.eval = at.eval;
    out.depth = at.depth;
  }
  return out;
}

// How PDN numbers the game's move `ply` (0 for the first): "3." for Black's, "3..." for White's.
export function numberAt(ply, blackFirst) {
  const index = ply + (blackFirst ? 0 : 1);
  return `${Math.floor(index / 2) + 1}${index % 2 === 0 ? "." : "..."}`;
}

// The number of the move that reaches `at`.
export function moveNumber(at, blackFirst) {
  return numberAt(plyOf(at) - 1, blackFirst);
}

// The move list: the main line, each variation in parentheses after the move it replaces, every
// move a button (data-node = its id) calling pick(node); the current node is marked.
export function renderList(list, root, current, { blackFirst, pick, evalText }) {
  list.textContent = "";
  const button = (at, numbered) => {
    const item = document.createElement("button");
    item.type = "button";
    item.className = "tree-move";
    item.dataset.node = String(at.id);
    item.dataset.testid = "tree-move";
    const number = moveNumber(at, blackFirst);
    item.textContent = numbered || !number.endsWith("...") ? `${number} ${at.move}` : at.move;
    if (at === current) item.setAttribute("aria-current", "step");
    if (at.eval) item.title = evalText(at.eval);
    item.addEventListener("click", () => pick(at));
    return item;
  };
  const write = (into, from, numbered) => {
    let here = from;
    let needsNumber = numbered;
    while (here.children.length) {
      const [main, ...others] = here.children;
      into.append(button(main, needsNumber));
      needsNumber = false;
      for (const other of others) {
        const variation = document.createElement("span");
        variation.className = "variation";
        variation.dataset.testid = "variation";
        variation.append(button(other, true));
        write(variation, other, false);
        into.append(variation);
        needsNumber = true;
      }
      here = main;
    }
  };
  write(list, root, true);
}
