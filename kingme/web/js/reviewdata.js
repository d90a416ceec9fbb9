// A game review's data as the page keeps it, read from the server's stream (/api/review) or from
// the archive in localStorage: every value is checked and copied here, so the view only ever
// meets numbers that are numbers and verdicts it knows. Anything else is refused as a whole
// (BadReview), never half shown. The wire format is described in docs/review.md.

export const VERDICTS = ["inaccuracy", "mistake", "blunder"];
export const SIDES = ["black", "white"];
// Longest move text kept: a king's long capture route (up to 9 jumps, "1x10x19x28x…").
const MOVE_CHARS = 64;
// Longest engine line kept with a ply: enough to read, small enough for 100 stored games.
const LINE_MOVES = 12;
// The most plies a review may have (the server refuses longer games well before).
export const MAX_PLIES = 1000;

export class BadReview extends Error {}

function fail(what) {
  throw new BadReview(what);
}

function object(value, what) {
  if (!value || typeof value !== "object" || Array.isArray(value)) fail(what);
  return value;
}

function number(value, what, low = -Infinity, high = Infinity) {
  if (typeof value !== "number" || !Number.isFinite(value) || value < low || value > high) fail(what);
  return value;
}

function integerOrNull(value, what) {
  if (value === null || value === undefined) return null;
  if (!Number.isInteger(value) || Math.abs(value) > 1_000_000_000) fail(what);
  return value;
}

export function moveText(value, what = "move") {
  if (typeof value !== "string" || !/^\d{1,2}(?:[-x]\d{1,2})+$/.test(value) || value.length > MOVE_CHARS) fail(what);
  return value;
}

// EVAL: { score (hundredths of a man, Black's view) | null, win (Black's chance, 0…100),
// table_plies (a proven win, a capture or a man's move within N plies; positive for Black) | null }.
export function cleanEval(raw) {
  const value = object(raw, "eval");
  return {
    score: integerOrNull(value.score, "eval score"),
    win: number(value.win, "win chance", 0, 100),
    table_plies: integerOrNull(value.table_plies, "table plies"),
  };
}

export function cleanPly(raw, expected) {
  const value = object(raw, "ply");
  if (value.ply !== expected) fail(`ply ${expected}`);
  if (!SIDES.includes(value.side)) fail("side");
  if (value.verdict !== null && !VERDICTS.includes(value.verdict)) fail("verdict");
  const line = Array.isArray(value.line) ? value.line.slice(0, LINE_MOVES).map((move) => moveText(move, "line")) : fail("line");
  return {
    ply: expected,
    side: value.side,
    move: moveText(value.move),
    eval: cleanEval(value.eval),
    best: value.best === null ? null : moveText(value.best, "best move"),
    line,
    loss: number(value.loss, "loss", 0, 100),
    verdict: value.verdict,
    accuracy: value.accuracy === null ? null : number(value.accuracy, "accuracy", 0, 100),
    forced: value.forced === true, // the only legal move: shown, never judged
  };
}

export function cleanBudget(raw) {
  const value = object(raw, "budget");
  if (typeof value.name !== "string" || !/^[a-z]{1,20}$/.test(value.name)) fail("budget name");
  return { name: value.name, nodes: number(value.nodes, "budget nodes", 1, 1e12) };
}

// The "done" line's figures: accuracy and verdict counts per side.
export function cleanSummary(raw) {
  const value = object(raw, "summary");
  const accuracy = object(value.accuracy, "accuracy");
  const counts = object(value.counts, "counts");
  const summary = { accuracy: {}, counts: {} };
  for (const side of SIDES) {
    summary.accuracy[side] = accuracy[side] === null ? null : number(accuracy[side], "accuracy", 0, 100);
    const mine = object(counts[side], "counts");
    summary.counts[side] = Object.fromEntries(VERDICTS.map((verdict) => [verdict, number(mine[verdict], "count", 0, MAX_PLIES)]));
  }
  return summary;
}

// A whole review as the archive keeps it: { budget, initial, plies, summary }.
export function cleanReview(raw, plies) {
  const value = object(raw, "review");
  if (!Array.isArray(value.plies) || value.plies.length !== plies) fail("plies");
  return {
    budget: cleanBudget(value.budget),
    initial: cleanEval(value.initial),
    plies: value.plies.map((ply, i) => cleanPly(ply, i + 1)),
    summary: cleanSummary(value.summary),
  };
}
