// The review view's part of the state (session.review) and the actions that change it: the only
// code that writes it. Like every action of the page they end with changed(), after which the
// review view (review.js) renders from the state.
//
// A review is the server's: POST /api/review streams one line of JSON per reviewed ply
// (reviewstream below), and the page keeps what it reads, checked (reviewdata.js). A finished
// review is stored with its game in the archive, so opening it again asks the server nothing.
// "Learn from your mistakes" asks /api/review/try about the player's moves; the positions and
// their legal routes come from /api/state (stepping.js's positionAt): nothing here decides
// what is legal.

import { ApiError, request } from "./api.js";
import { storeReview } from "./archive.js";
import { pick } from "./boardview.js";
import { t } from "./i18n.js";
import { BadReview, cleanBudget, cleanEval, cleanPly, cleanSummary } from "./reviewdata.js";
import { changed } from "./session.js";
import { session } from "./state.js";
import { plyFor, positionAt } from "./stepping.js";

export const BUDGETS = ["standard", "deep"];
// Misses before the engine's move is shown in "learn from your mistakes" (the issue: a second miss).
const MISSES_SHOWN = 2;

// The state, set when this module loads (read it anywhere, change it only here).
session.review = {
  entry: null, // the game: { id (null when not archived), kind, level, player, result, record, pdn, date, review }
  chosen: "standard", // the budget picked for the next review (and asked for by the last)
  status: "idle", // "queued" | "running" | "done" | "failed"
  queued: 0, // reviews ahead of this one while queued
  budget: null, initial: null, plies: [], summary: null, // what the server said so far
  error: "", // why the review failed, in the page's words
  ply: 0, position: null, // the ply shown and the server's state after it
  learn: null, // "learn from your mistakes": { items, index, misses, outcome, partial, hint, position, best, busy }
};
const review = session.review;
let running = null; // the stream's AbortController
let asked = 0; // the newest position asked for: older answers are dropped

// ---- the stream ---------------------------------------------------------------------------

// The lines of JSON of a streamed answer, each given to `line` as it arrives; a refusal before
// the stream throws ApiError with the server's message, as the page's other requests do.
async function reviewstream(body, signal, line) {
  let response;
  try {
    response = await fetch("/api/review", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new ApiError("", 0);
  }
  if (!response.ok) {
    const data = await response.json().catch(() => ({}));
    throw new ApiError(data.error || response.statusText, response.status);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n")) >= 0) {
      const text = buffer.slice(0, end).trim();
      buffer = buffer.slice(end + 1);
      if (text) line(JSON.parse(text));
    }
  }
  if (buffer.trim()) line(JSON.parse(buffer));
}

class ReviewFailed extends Error {}

function received(message) {
  switch (message?.type) {
    case "queued":
      review.status = "queued";
      review.queued = Number.isInteger(message.position) ? message.position : 1;
      break;
    case "start":
      review.status = "running";
      review.budget = cleanBudget(message.budget);
      review.initial = cleanEval(message.initial);
      review.plies = [];
      break;
    case "ply":
      if (review.status !== "running") throw new BadReview("ply before start");
      review.plies.push(cleanPly(message, review.plies.length + 1));
      break;
    case "done":
      if (review.plies.length !== review.entry.record.moves.length) throw new BadReview("plies missing");
      review.summary = cleanSummary(message);
      review.status = "done";
      break;
    case "error":
      throw new ReviewFailed(typeof message.message === "string" ? message.message.slice(0, 300) : "");
    default:
      return; // a line of a later kind: not ours to read
  }
  changed();
}

function because(error) {
  if (error instanceof ReviewFailed) return t("review.errors.midway", { message: error.message });
  if (error instanceof BadReview || error instanceof SyntaxError) return t("review.errors.unreadable");
  if (error instanceof ApiError) {
    if (error.status === 409) return t("review.errors.busy");
    if (error.status === 0) return t("errors.network");
    return t("review.errors.refused", { message: error.message });
  }
  return String(error);
}

// The budget picked for the next review: kept in the state, so the panel's redraws show it.
export function choose(budget) {
  review.chosen = BUDGETS.includes(budget) ? budget : "standard";
  changed();
}

// Review the game with the chosen budget (again, when asked).
export async function run() {
  const { entry } = review;
  if (!entry) return;
  running?.abort();
  const controller = new AbortController();
  running = controller;
  Object.assign(review, { status: "queued", queued: 0, budget: null, initial: null, plies: [], summary: null, error: "", learn: null });
  changed();
  try {
    await reviewstream({ pdn: entry.pdn, budget: review.chosen }, controller.signal, received);
    if (review.status !== "done") throw new ReviewFailed(t("review.errors.cut"));
    entry.review = { budget: review.budget, initial: review.initial, plies: review.plies, summary: review.summary };
    if (entry.id) storeReview(entry.id, entry.review);
  } catch (error) {
    if (error?.name === "AbortError" || running !== controller) return;
    review.status = "failed";
    review.error = because(error);
  } finally {
    if (running === controller) {
      running = null;
      changed();
    }
  }
}

// ---- opening a game and stepping through it ----------------------------------------------------

export function open(entry) {
  running?.abort();
  running = null;
  Object.assign(review, { entry, status: "idle", queued: 0, budget: null, initial: null, plies: [], summary: null, error: "", learn: null, position: null });
  review.ply = entry.record.moves.length;
  if (entry.review) Object.assign(review, entry.review, { status: "done" });
  changed();
  showPly(review.ply);
  if (!entry.review) run();
}

export async function showPly(ply) {
  const { entry } = review;
  if (!entry) return;
  const target = Math.min(entry.record.moves.length, Math.max(0, ply));
  asked += 1;
  const mine = asked;
  try {
    const position = await positionAt(entry.record, target);
    if (mine !== asked) return;
    review.ply = target;
    review.position = position;
    review.error = review.status === "failed" ? review.error : "";
  } catch (error) {
    if (mine !== asked) return;
    review.error = because(error);
  }
  changed();
}

export function step(action) {
  if (review.learn || !review.entry) return;
  showPly(plyFor(action, review.ply, review.entry.record.moves.length));
}

// ---- learn from your mistakes ------------------------------------------------------------------

// The player's mistakes and blunders (inaccuracies are left out): the side they played, or both
// sides when the game was two players' on one device or pasted.
export function mistakes() {
  const side = review.entry?.player;
  return review.plies.filter((ply) => (ply.verdict === "mistake" || ply.verdict === "blunder") && (!side || ply.side === side)).map((ply) => ply.ply);
}

async function ask(index) {
  const { learn } = review;
  learn.index = index;
  Object.assign(learn, { misses: 0, outcome: null, partial: [], hint: [], best: null, position: null, busy: true });
  changed();
  if (index >= learn.items.length) {
    learn.busy = false;
    changed();
    return;
  }
  try {
    learn.position = await positionAt(review.entry.record, learn.items[index] - 1);
    review.ply = learn.items[index] - 1;
    review.position = learn.position;
  } catch (error) {
    review.error = because(error);
  }
  learn.busy = false;
  changed();
}

export function startLearning() {
  const items = mistakes();
  if (review.status !== "done" || !items.length) return;
  review.learn = { items, index: 0 };
  ask(0);
}

export function nextMistake() {
  if (review.learn) ask(review.learn.index + 1);
}

export function stopLearning() {
  review.learn = null;
  changed();
}

export function learnPlayable() {
  const { learn } = review;
  return Boolean(learn?.position && !learn.busy && (learn.outcome === null || learn.outcome === "again"));
}

// The squares of a move as written ("9-14", "9x18x27"): only to mark it on the board.
function squares(move) {
  return move.split(/[-x]/).map(Number);
}

async function propose(route) {
  const { learn } = review;
  learn.busy = true;
  changed();
  try {
    const answer = await request("POST", "/api/review/try", {
      pdn: review.entry.pdn, ply: learn.items[learn.index], move: route.notation, budget: review.budget?.name || review.chosen,
    });
    if (review.learn !== learn) return;
    learn.partial = [];
    if (review.status === "done") review.error = "";
    if (answer.found === true) learn.outcome = "found";
    else {
      learn.misses += 1;
      learn.outcome = learn.misses >= MISSES_SHOWN ? "shown" : "again";
    }
    learn.best = typeof answer.best === "string" && /^\d{1,2}(?:[-x]\d{1,2})+$/.test(answer.best) ? answer.best : null;
    learn.tried = route.notation;
    if (learn.outcome === "shown" && learn.best) learn.hint = squares(learn.best);
  } catch (error) {
    learn.partial = [];
    review.error = because(error);
  } finally {
    learn.busy = false;
    changed();
  }
}

// A square picked on the review's board while a mistake is asked about: the route is picked
// among the position's legal routes, and sent when whole.
export function select(square) {
  if (!learnPlayable()) return;
  const { learn } = review;
  const picked = pick(learn.position.moves, learn.partial, square, learn.position.variant === "casual");
  if (picked.kind === "extend" && picked.route) {
    learn.partial = picked.partial;
    propose(picked.route);
    return;
  }
  if (picked.kind !== "refused") learn.partial = picked.partial;
  changed();
}

export function escape() {
  if (review.learn) review.learn.partial = [];
  changed();
}
