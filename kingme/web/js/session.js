// The session: the actions that change the page's state (state.js) — preferences, the view, the
// game on this device, its moves and the computer's — and the notification after each change:
// subscribe(listener) is called after every action, and the panels render their part from the
// state. The controls' actions (undo, hint, pause, resign) are in controls.js, an online room's
// in room.js, the puzzle's in puzzle-session.js; nothing else writes the state.
//
// An online room is a driver (online.js) that plays through the same actions; it never writes
// the page for us.

import { api, ApiError, http } from "./api.js";
import { routesFrom } from "./routes.js";
import { pick } from "./boardview.js";
import { t } from "./i18n.js";
import * as sound from "./sound.js";
import { load, remove, save } from "./store.js";
import {
  active, colorName, computerToMove, DEFAULT_SETUP, describeMove, humanColor, interactive, isDaily, midJump, pickedRoute,
  resultReason, resultTitle, session, statusText, vsComputer,
} from "./state.js";

const { prefs, ui } = session;
// Pending work: a newer action bumps the epoch, and answers to older requests are dropped.
export const pending = { epoch: 0, abort: null, resumeWaiters: [], retry: null };
const listeners = [];
// What the session asks of the page: animate(path, captures, piece), announce(text) and
// begun() (a game has started on this device: the board takes the focus).
let effects = { animate: async () => {}, announce: () => {}, begun: () => {} };

export function subscribe(listener) {
  listeners.push(listener);
}

export function attach(given) {
  effects = given;
}

// For the online driver: a move the room announces is played out on the board and announced.
export function animate(path, captures, piece) {
  return effects.animate(path, captures, piece);
}

export function announce(text) {
  effects.announce(text);
}

// Every action ends here: the panels render their parts from the new state.
export function changed() {
  for (const listener of listeners) listener(session);
}

// ---- errors, saving, totals ------------------------------------------------------------------

export function showError(message) {
  ui.error = message;
  changed();
}

// While the server cannot be reached it is asked again every few seconds, and once it answers the
// banner that said so goes (what failed is done again by the player or by its own retry).
const RECHECK_MS = 3000;
let recheck = null;
function watchServer() {
  if (recheck) return;
  recheck = window.setInterval(async () => {
    if (!(await http("GET", "/api/info")).status) return;
    window.clearInterval(recheck);
    recheck = null;
    if (ui.error === t("errors.network")) showError("");
  }, RECHECK_MS);
}

export function failed(error) {
  if (error?.name === "AbortError") return;
  if (error instanceof ApiError && !error.status) watchServer();
  if (error instanceof ApiError) showError(error.status ? t("errors.server", { message: error.message }) : t("errors.network"));
  else {
    showError(String(error));
    console.error(error);
  }
}

function persist() {
  if (session.remote) return;
  if (session.match) save("match", session.match);
  else remove("match");
}

function count(result) {
  const { match, totals } = session;
  if (!session.state.standard || match.counted) return;
  match.counted = true;
  if (result.winner) totals[result.winner] += 1;
  else totals.draws += 1;
  if (vsComputer()) {
    const row = totals.levels[match.config.level] || { wins: 0, draws: 0, losses: 0 };
    if (!result.winner) row.draws += 1;
    else if (result.winner === humanColor()) row.wins += 1;
    else row.losses += 1;
    totals.levels[match.config.level] = row;
  }
  save("totals", totals);
}

// ---- preferences and the view --------------------------------------------------------------------

export function setPref(key, value) {
  prefs[key] = value;
  save("prefs", prefs);
  changed();
}

// The setup form's choices, kept for the next visit.
export function rememberSetup(config) {
  prefs.setup = config;
  save("prefs", prefs);
}

export function setMode(mode) {
  session.mode = mode;
  changed();
}

export function openSetup() {
  ui.setupOpen = true;
  changed();
}

export function closeSetup() {
  ui.setupOpen = false;
  changed();
}

export function flip() {
  if (session.match) session.match.flipped = !session.match.flipped;
  else ui.flipped = !ui.flipped;
  persist();
  changed();
}

// ---- applying the server's answers -----------------------------------------------------------

function clearPick() {
  ui.partial = [];
  ui.hint = [];
  ui.hintText = "";
}

// Whether `next` leaves the game where `before` had it: same moves played, same position (the
// FEN holds the board and the side to move), not over. In an online room most events are like
// that (a friend joins, offers a draw, asks to undo), and they must not drop a piece the player
// has picked or a jump half played.
function samePosition(before, next) {
  return Boolean(before) && !next.result && before.fen === next.fen && before.history.length === next.history.length;
}

// A new state for the game on the board (moved: it brings one more move, to be heard and announced).
export function adopt(next, { moved = false } = {}) {
  // Only a result this state brings is announced (an online room resends finished games' states).
  const ended = Boolean(next.result && !session.state?.result);
  const keepPick = !moved && samePosition(session.state, next);
  session.state = next;
  session.match.record = next.record;
  ui.busy = false;
  if (!keepPick) clearPick();
  if (moved) {
    session.match.undoable = Math.min(session.server.undoLimit, session.match.undoable + 1);
    const item = next.history[next.history.length - 1];
    sound.play(item.crown ? "crown" : item.captures.length ? "capture" : "move");
    effects.announce(describeMove(item));
  }
  if (ended) {
    count(next.result);
    const human = session.remote ? session.remote.color() : vsComputer() ? humanColor() : null;
    sound.play(!next.result.winner ? "draw" : human && next.result.winner !== human ? "lose" : "win");
    effects.announce(`${resultTitle()}. ${resultReason()}`);
  }
  persist();
  changed();
}

function waitUntilResumed() {
  if (!ui.paused) return Promise.resolve();
  return new Promise((resolve) => pending.resumeWaiters.push(resolve));
}

export function cancelPending() {
  pending.epoch += 1;
  pending.abort?.abort();
  pending.abort = null;
  window.clearTimeout(pending.retry);
  ui.thinking = false;
  ui.busy = false;
}

async function computerTurn() {
  if (!computerToMove() || ui.thinking) return;
  const epoch = pending.epoch;
  ui.thinking = true;
  pending.abort = new AbortController();
  changed();
  try {
    const answer = await api.computer(session.match.record, session.match.config.level, pending.abort.signal);
    if (epoch !== pending.epoch) return;
    ui.error = "";
    await waitUntilResumed();
    if (epoch !== pending.epoch) return;
    const item = answer.state.history[answer.state.history.length - 1];
    await effects.animate(item.path, item.captures, session.state.board[String(item.path[0])]);
    if (epoch !== pending.epoch) return;
    ui.thinking = false;
    adopt(answer.state, { moved: true });
  } catch (error) {
    if (epoch === pending.epoch) {
      failed(error);
      // The server could not be reached: ask again shortly, the page stays usable meanwhile.
      if (error instanceof ApiError && error.status === 0) pending.retry = window.setTimeout(() => epoch === pending.epoch && computerTurn(), 3000);
    }
  } finally {
    if (epoch === pending.epoch) {
      ui.thinking = false;
      pending.abort = null;
      changed();
    }
  }
}

async function commit(route) {
  const epoch = pending.epoch;
  ui.busy = true;
  changed();
  if (session.remote) {
    session.remote.move(route); // the server's event (or refusal) settles it
    return;
  }
  try {
    const next = await api.state({ ...session.match.record, moves: [...session.match.record.moves, route.notation] });
    if (epoch !== pending.epoch) return;
    adopt(next, { moved: true });
    computerTurn();
  } catch (error) {
    if (epoch === pending.epoch) {
      ui.busy = false;
      ui.partial = [];
      failed(error);
    }
  }
}

// ---- playing -------------------------------------------------------------------------------

// The square a capture goes on to by itself after a step: the next of `goal` (a route's whole
// path, when the player named its last square), or, with the preference on, the next landing of
// the only route left in American rules (in casual rules the player may stop after any jump).
function nextLanding(partial, goal) {
  if (goal) return goal[partial.length];
  const left = routesFrom(session.state.moves, partial);
  const single = left.length === 1 && session.state.variant !== "casual" && session.prefs.oneClickCapture;
  return single ? left[0].path[partial.length] : null;
}

// One more square of a route: its step is animated, then the turn is sent once it is whole.
async function extend(partial, route, goal = null) {
  const step = ui.partial.length - 1;
  const from = ui.partial[ui.partial.length - 1];
  const here = partial[partial.length - 1];
  const taken = routesFrom(session.state.moves, partial)[0].captures[step];
  const piece = session.state.board[String(ui.partial[0])];
  ui.partial = partial;
  ui.hint = [];
  ui.hintText = "";
  const epoch = pending.epoch;
  ui.busy = true;
  await effects.animate([from, here], taken ? [taken] : [], piece);
  ui.busy = false;
  if (epoch !== pending.epoch) return;
  if (route) {
    commit(route);
    return;
  }
  const next = nextLanding(partial, goal);
  if (next) {
    const picked = pick(session.state.moves, partial, next);
    if (picked.kind === "extend") return extend(picked.partial, picked.route, goal);
  }
  sound.play("capture");
  effects.announce(statusText());
  changed();
}

// A square clicked (or chosen with the keyboard) on the game's board.
export function select(square) {
  sound.unlock();
  if (!interactive()) return;
  const wasJumping = midJump();
  const picked = pick(session.state.moves, ui.partial, square, session.state.variant === "casual");
  if (picked.kind === "extend") return extend(picked.partial, picked.route);
  // The last square of exactly one route (clicked, or a piece dropped there): played step by step.
  const ending = ui.partial.length ? routesFrom(session.state.moves, ui.partial).filter((route) => route.path.at(-1) === square) : [];
  if (ending.length === 1 && picked.kind !== "select") {
    const goal = ending[0].path;
    const first = pick(session.state.moves, ui.partial, goal[ui.partial.length]);
    return extend(first.partial, first.route, goal);
  }
  if (picked.kind === "refused") {
    sound.play("illegal");
    effects.announce(statusText());
    return;
  }
  if (picked.kind === "select") {
    ui.partial = picked.partial;
    ui.hint = [];
    ui.hintText = "";
    sound.play("select");
    effects.announce(wasJumping ? t("announce.cancelled") : t("announce.selected", { n: square }));
  } else if (picked.kind === "clear") {
    ui.partial = [];
    effects.announce(t("announce.cleared"));
  }
  changed();
}

// Escape drops a picked piece (a started jump stays: its first steps are already played out).
export function escape() {
  if (ui.partial.length !== 1) return;
  ui.partial = [];
  effects.announce(t("announce.cleared"));
  changed();
}

// Casual rules: stop a jump where it is.
export function endTurn() {
  const route = pickedRoute();
  if (route && interactive()) commit(route);
}

// ---- starting and leaving games ----------------------------------------------------------------

export async function start(config, setup = null) {
  leaveRoom();
  cancelPending();
  const epoch = pending.epoch;
  const wanted = setup ? { ...setup, seed: config.seed || setup.seed } : { variant: config.rules, position: config.position, seed: config.seed };
  try {
    const first = await api.start(wanted);
    if (epoch === pending.epoch) begin(config, first);
  } catch (error) {
    failed(error);
  }
}

// A game taken on from its first state (here or in a room): the page's picks and pause cleared.
export function playing(match, first) {
  session.match = match;
  session.state = first;
  clearPick();
  ui.paused = false;
  ui.setupOpen = false;
  ui.error = "";
  ui.games += 1;
}

// A game that starts (or continues) from the server's state `first`, played with config.
export function begin(config, first) {
  leaveRoom();
  cancelPending();
  const setup = first.record.setup;
  playing({
    config: { ...config, rules: setup.variant, seed: setup.seed },
    setup: { variant: setup.variant, fen: setup.fen, seed: setup.seed },
    record: first.record,
    undoable: Math.min(session.server.undoLimit, first.record.moves.length),
    flipped: false,
    counted: Boolean(first.result),
  }, first);
  persist();
  changed();
  effects.announce(t("announce.started", { color: colorName(first.turn) }));
  effects.begun();
  computerTurn();
}

export function restart() {
  if (session.match && !isDaily()) start(session.match.config, session.match.setup);
}

// Whether the page may leave the room it shows, if any: never without the player's word.
// confirm(title, text, action) -> Promise<bool> is the page's confirmation dialog.
export async function mayLeaveRoom(confirm) {
  if (!session.remote) return true;
  return confirm(t("dialog.leaveRoomTitle"), t("dialog.leaveRoomText"), t("dialog.leaveRoomConfirm"));
}

function leaveRoom() {
  if (!session.remote) return;
  session.remote.close();
  session.remote = null;
}

// The saved unfinished game, checked again by the server; false when there is none (or it is bad).
export async function restore() {
  const saved = load("match", null);
  const config = saved?.config;
  const known = config && ["computer", "local"].includes(config.opponent) && session.server.levels.includes(config.level)
    && ["red", "white"].includes(config.side);
  if (!saved?.record || !known) {
    remove("match");
    return false;
  }
  try {
    const next = await api.state(saved.record);
    session.match = { undoable: 0, flipped: false, counted: false, ...saved, record: next.record };
    session.state = next;
    changed();
    computerTurn();
    return true;
  } catch {
    remove("match");
    return false;
  }
}

// The game on the board put away (the daily game, which its module keeps to resume): the standard
// position to look at, and the setup for a game of the player's own.
export async function putAway() {
  cancelPending();
  session.match = null;
  persist();
  await preview();
}

// Before any game: the standard position, to look at.
export async function preview() {
  try {
    session.state = await api.start({ variant: "american", position: "standard", seed: "checkers-1" });
  } catch (error) {
    failed(error);
  }
  changed();
}

// ---- start-up --------------------------------------------------------------------------------

export function configure(server, language) {
  session.server = server;
  prefs.language = language;
}
