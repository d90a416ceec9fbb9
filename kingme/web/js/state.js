// The state: the one state of the page, and what it says (who moves, whether a game is on, the
// status line…). Read it anywhere; it is changed only by the session's actions (session.js, and
// controls.js, room.js and puzzle-session.js for their parts), which call changed() after each
// change so that every panel renders its part from it.
//
// The browser keeps the game record (setup + moves) and the server answers every change with the
// whole state, legal routes included: nothing here decides what is legal.

import { dailyDay } from "./days.js";
import { t } from "./i18n.js";
import { exactRoute } from "./routes.js";
import { load } from "./store.js";
import { sideColors } from "./themes.js";

export const DEFAULT_SETUP = { opponent: "computer", level: "casual", side: "red", rules: "american", position: "standard", seed: "checkers-1" };
const DEFAULT_PREFS = {
  language: "en", pieces: "red-white", board: "walnut", numbers: true, marks: true, oneClickCapture: true,
  sound: true, soundVolume: 60, music: false, musicVolume: 30, setup: DEFAULT_SETUP,
};

const prefs = { ...DEFAULT_PREFS, ...load("prefs", {}) };
prefs.setup = { ...DEFAULT_SETUP, ...(prefs.setup || {}) };

export const session = {
  // The server's own constants (its levels, the undo limit), loaded once from /api/info.
  server: { levels: [], undoLimit: 0 },
  prefs,
  totals: { black: 0, white: 0, draws: 0, levels: {}, ...load("totals", {}) },
  // The view shown: "play" (the board's game, the daily game included) or "daily-puzzle".
  mode: "play",
  // The game being played: { config, setup, record, undoable, flipped, counted }, or null.
  match: null,
  // The server's last answer for match.record (before any game: the standard position).
  state: null,
  // The online room playing this game (online.js's driver), or null for a game on this device.
  remote: null,
  // The puzzle view's part: null until the view first opens (puzzle-session.js documents and
  // writes it).
  puzzle: null,
  // What the page is doing right now (not saved).
  ui: {
    partial: [], hint: [], hintText: "", paused: false, thinking: false, busy: false, setupOpen: false,
    error: "", games: 0, flipped: false, // flipped: the board turned before any game
    // An earlier position shown instead of the live one (stepping.js writes it): { ply, state,
    // moves (the record's first ply moves), live (the moves played then), games }, or null.
    step: null,
  },
};

const ui = session.ui;

export function other(color) {
  return color === "black" ? "white" : "black";
}

export function colorName(color) {
  return t(`colors.${sideColors(prefs.pieces)[color]}`);
}

export function vsComputer() {
  return session.match?.config.opponent === "computer";
}

export function humanColor() {
  if (session.remote) return session.remote.color() || "black";
  return session.match?.config.side === "white" ? "white" : "black";
}

export function computerColor() {
  return vsComputer() ? other(humanColor()) : null;
}

export function isDaily() {
  return Boolean(dailyDay(session.match?.record));
}

export function active() {
  return Boolean(session.match && session.state && !session.state.result);
}

export function computerToMove() {
  return active() && vsComputer() && session.state.turn === computerColor();
}

// The earlier position the player steps through, while it still belongs to the game on the
// board (same game, whose moves still begin with the step's), else null: the live one is shown.
export function stepShown() {
  const { step } = ui;
  const moves = session.match?.record.moves;
  if (!step || !moves || step.games !== ui.games || step.ply >= moves.length) return null;
  return step.moves.every((move, i) => moves[i] === move) ? step : null;
}

export function interactive() {
  return active() && !stepShown() && !ui.paused && !ui.thinking && !ui.busy && !computerToMove() && (!session.remote || session.remote.canMove());
}

export function midJump() {
  return ui.partial.length > 1;
}

export function pickedRoute() {
  return exactRoute(session.state.moves, ui.partial);
}

// How many plies Undo takes back: against the computer, back to the player's own turn.
export function undoTurns() {
  if (!active() || !session.state.history.length) return 0;
  if (!vsComputer()) return 1;
  const history = session.state.history;
  if (history[history.length - 1].color === humanColor()) return 1;
  return history.length >= 2 ? 2 : 0;
}

export function notation(item) {
  const joiner = item.captures.length ? t("history.capture") : t("history.step");
  return `${item.path.join(joiner)}${item.crown ? ` ${t("history.king")}` : ""}`;
}

export function resultTitle() {
  const { winner } = session.state.result;
  return winner ? t(`result.${winner}`, { color: colorName(winner) }) : t("result.draw");
}

export function resultReason() {
  const { winner, reason } = session.state.result;
  return t(`result.${reason}`, { loser: winner ? colorName(other(winner)) : "" });
}

export function statusText() {
  const { match, state, remote } = session;
  if (!match || !state) return t("status.ready");
  if (state.result) return resultTitle();
  if (ui.paused) return t("status.paused");
  if (remote?.status()) return remote.status();
  const color = colorName(state.turn);
  if (ui.thinking || computerToMove()) return t("status.thinking", { color });
  if (midJump()) {
    const n = ui.partial[ui.partial.length - 1];
    return t(pickedRoute() ? "status.continueOrEnd" : "status.continueJumping", { color, n });
  }
  if (ui.hintText) return ui.hintText;
  if (ui.partial.length === 1) return `${t("status.turn", { color })} ${t("status.selected", { n: ui.partial[0] })}`;
  if (state.captureRequired) return t("status.captureRequired", { color });
  return t("status.yourTurn", { color });
}

export function describeMove(item) {
  const parts = [t("announce.move", { color: colorName(item.color), move: notation(item) })];
  if (item.captures.length) parts.push(t("announce.captures", { n: item.captures.length }));
  if (item.crown) parts.push(t("announce.crowned", { color: colorName(item.color) }));
  return parts.join(" ");
}

// Whether Black (the first mover) is drawn at the bottom: the player's side, unless flipped.
export function blackAtBottom() {
  if (!session.match) return !ui.flipped;
  return session.match.flipped ? humanColor() !== "black" : humanColor() === "black";
}

// Who resigns: the player (against the computer or online), else the side to move.
export function resigner() {
  return vsComputer() || session.remote ? humanColor() : session.state.turn;
}
