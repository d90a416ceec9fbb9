// The puzzle view's part of the state (session.puzzle) and the actions that change it: the
// only code that writes it. Like the game's actions they end with changed(), after which the
// puzzle view (puzzle.js) renders from the state; the view never keeps a state of its own.
//
// The server holds the solution. The page only knows how many plies of the line are on the
// board: it sends the player's move, and the server answers whether it was the solution's, with
// the defender's reply and the new state (legal routes included, so nothing here decides
// legality). A wrong move changes nothing and can be retried; a hint asks the server for the
// next move. Solving today's puzzle extends the streak. Loaded with the puzzle view.

import { navigate } from "./address.js";
import { request } from "./api.js";
import { pick } from "./boardview.js";
import { routesFrom } from "./routes.js";
import { t } from "./i18n.js";
import { changed, failed, showError } from "./session.js";
import { plyFor, positionAt } from "./stepping.js";
import { session } from "./state.js";
import { load, save } from "./store.js";
import { extendStreak } from "./days.js";

// The state, set when this module loads (read it anywhere, change it only here):
session.puzzle = {
  today: null, // the server's UTC day, once known
  archive: [], // the last 30 days' puzzles ({ date, id, title }), newest first
  records: load("puzzles", { streak: { count: 0, last: null }, solved: {} }), // saved in this browser
  // The puzzle on the board (the server's: id, title, date, difficulty, solver, solverMoves,
  // source) and where its line stands: the server's state, the plies played, the squares picked.
  shown: null, state: null, ply: 0, partial: [], hint: [], solved: false, busy: false,
  step: null, // a solved puzzle's line stepped through: { ply, state } shown instead of the end, or null
  feedback: { key: "", vars: {}, kind: "" }, // the last answer, worded by the view in the chosen language
};
const puzzle = session.puzzle;

// What the actions ask of the view: animate(path, captures, piece) on the puzzle's board.
let effects = { animate: async () => {} };

export function attach(given) {
  effects = given;
}

export function playable() {
  return Boolean(puzzle.state && !puzzle.solved && !puzzle.busy);
}

function say(key, vars = {}, kind = "") {
  puzzle.feedback = { key, vars, kind };
}

function solved() {
  const { records, shown, today } = puzzle;
  puzzle.solved = true;
  records.solved[shown.id] = shown.date || true;
  if (shown.date && shown.date === today) records.streak = extendStreak(records.streak, today);
  save("puzzles", records);
  say("daily.solved", {}, "right");
}

async function submit(route) {
  puzzle.busy = true;
  changed();
  try {
    const answer = await request("POST", `/api/puzzles/${encodeURIComponent(puzzle.shown.id)}/move`, { ply: puzzle.ply, move: route.notation });
    puzzle.partial = [];
    puzzle.hint = [];
    if (!answer.correct) {
      say(answer.other_win ? `daily.otherWin.${answer.other_win}` : "daily.wrong", { move: route.notation }, "wrong");
      return;
    }
    puzzle.state = answer.state;
    puzzle.ply = answer.ply;
    if (answer.solved) solved();
    else say("daily.right", { reply: answer.reply }, "right");
  } catch (error) {
    puzzle.partial = [];
    failed(error);
  } finally {
    puzzle.busy = false;
    changed();
  }
}

// A square picked on the puzzle's board: each step of a route is played out as it is picked, and
// the whole move goes to the server, which says whether it is the solution's.
export async function select(square) {
  if (!playable()) return;
  const picked = pick(puzzle.state.moves, puzzle.partial, square);
  if (picked.kind === "extend") {
    const step = picked.partial.length - 2;
    const [from, here] = picked.partial.slice(-2);
    const taken = routesFrom(puzzle.state.moves, picked.partial)[0].captures[step];
    puzzle.busy = true;
    await effects.animate([from, here], taken ? [taken] : [], puzzle.state.board[String(picked.partial[0])]);
    puzzle.busy = false;
    puzzle.partial = picked.partial;
    if (picked.route) {
      submit(picked.route);
      return;
    }
  } else if (picked.kind !== "refused") puzzle.partial = picked.partial;
  changed();
}

export function escape() {
  puzzle.partial = [];
  changed();
}

export async function hint() {
  if (!playable()) return;
  try {
    const answer = await request("POST", `/api/puzzles/${encodeURIComponent(puzzle.shown.id)}/hint`, { ply: puzzle.ply });
    puzzle.hint = answer.path;
    puzzle.partial = [];
    say("daily.hint", { move: answer.move }, "hint");
  } catch (error) {
    failed(error);
  }
  changed();
}

// A solved puzzle's line, stepped through ("first", "back", "forward", "last"): the position
// after that many of its moves, from the server; the last is the solved position itself.
export async function stepLine(action) {
  if (!puzzle.solved) return;
  const { shown, state } = puzzle;
  const last = state.record.moves.length;
  const ply = plyFor(action, puzzle.step?.ply ?? last, last);
  try {
    const earlier = ply === last ? null : await positionAt(state.record, ply);
    if (puzzle.shown !== shown || !puzzle.solved) return;
    puzzle.step = earlier && { ply, state: earlier };
  } catch (error) {
    failed(error);
  }
  changed();
}

// A puzzle on the board; an error from before (a puzzle that could not be opened) is over.
function show(shown) {
  Object.assign(puzzle, { shown, state: shown.state, ply: 0, partial: [], hint: [], solved: false, busy: false, step: null });
  say("");
  showError("");
}

async function loadArchive() {
  puzzle.archive = (await request("GET", "/api/puzzles/archive?days=30")).days;
  changed();
}

// Whether the puzzle view is still the one shown: a puzzle that arrives after the player went on
// to another view must not take the address back.
function stillShown() {
  return session.mode === "daily-puzzle";
}

// Open today's puzzle, a past day's ({ date }) or any puzzle ({ id }); the address follows
// (/puzzle, /puzzle?date=D, /puzzle/ID), so a reload shows the same puzzle with its day. A day
// still to come is refused in words, with today's puzzle on the board.
export async function openPuzzle({ date = null, id = null } = {}) {
  try {
    if (!puzzle.today) {
      const current = await request("GET", "/api/daily/puzzle");
      puzzle.today = current.date;
      show(current);
      if (!date && !id && stillShown()) navigate("/puzzle"); // its address as soon as it shows
      await loadArchive();
    }
    if (date && date > puzzle.today) {
      if (stillShown()) navigate("/puzzle");
      showError(t("daily.notYet", { date }));
      return;
    }
    if (id) show(await request("GET", `/api/puzzles/${encodeURIComponent(id)}`));
    else if (date || puzzle.shown?.date !== puzzle.today) {
      show(await request("GET", `/api/daily/puzzle${date ? `?date=${encodeURIComponent(date)}` : ""}`));
    }
    if (stillShown()) navigate(id ? `/puzzle/${encodeURIComponent(id)}` : date ? `/puzzle?date=${date}` : "/puzzle");
  } catch (error) {
    failed(error);
  }
}

// The puzzle to go on to once this one is solved: the newest day of the archive not solved yet.
export function nextPuzzle() {
  return puzzle.archive.find((day) => !puzzle.records.solved[day.id] && day.id !== puzzle.shown?.id) || null;
}
