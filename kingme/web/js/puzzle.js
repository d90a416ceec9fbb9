// The daily puzzle, the archive of past days and any puzzle by id.
//
// The board is the web app's BoardView; the server holds the solution. The page only knows how
// many plies of the line are on the board: it sends the player's move, and the server answers
// whether it was the solution's, with the defender's reply and the new state (legal routes
// included, so this module never decides legality). A wrong move changes nothing and can be
// retried; a hint asks the server for the next move. Solving today's puzzle extends the streak.

import { navigate } from "./address.js";
import { request } from "./api.js";
import { BoardView } from "./board.js";
import { boardView, pick, squareLabel } from "./boardview.js";
import { routesFrom } from "./routes.js";
import { applyTo, t } from "./i18n.js";
import { colorName, failed, session, subscribe } from "./session.js";
import { load, save } from "./store.js";
import { extendStreak, streakNow } from "./streak.js";

let view;
let board;
const game = { puzzle: null, state: null, ply: 0, partial: [], hint: [], solved: false, busy: false };
let today = null;

function records() {
  return load("puzzles", { streak: { count: 0, last: null }, solved: {} });
}

// ---- what the board shows -------------------------------------------------------------------

function playable() {
  return Boolean(game.state && !game.solved && !game.busy);
}

// The same board view as the game's, with the same marks (the preference for square numbers holds).
function shown() {
  return boardView({
    state: game.state, partial: game.partial, hint: game.hint, playable: playable(), numbers: session.prefs.numbers,
    marks: true, label: (square, info) => squareLabel(square, info, { t, colorName }),
  });
}

// The collection's titles are English and name the sides Black and White; the page says them in
// the chosen language with the chosen theme's colours ("Red to play and win a man").
function puzzleTitle(title) {
  const name = (side) => colorName(side === "Black" ? "black" : "white");
  let found = title.match(/^(Black|White) to play and win a man$/);
  if (found) return t("daily.titleWinMan", { color: name(found[1]) });
  found = title.match(/^(Black|White) to play and win (\d+) men$/);
  if (found) return t("daily.titleWinMen", { color: name(found[1]), n: found[2] });
  found = title.match(/^(.+): (Black|White) to play and win$/);
  if (found) return `${found[1]}: ${t("daily.titleWin", { color: name(found[2]) })}`;
  return title;
}

function renderPuzzle() {
  if (!game.puzzle) return;
  const { puzzle } = game;
  board.setOrientation(puzzle.solver === "black");
  board.render(shown());
  view.querySelector("#puzzle-title").textContent = puzzleTitle(puzzle.title);
  const meta = [puzzle.date, t(`daily.difficulty.${puzzle.difficulty}`), `#${puzzle.id}`].filter(Boolean).join(" · ");
  view.querySelector("#puzzle-meta").textContent = meta;
  view.querySelector("#puzzle-source").textContent = puzzle.source ? t("daily.source", { source: puzzle.source }) : "";
  view.querySelector("#puzzle-turn").textContent = game.solved
    ? ""
    : t("daily.toMove", { color: colorName(puzzle.solver), n: puzzle.solverMoves });
  view.querySelector("[data-testid=puzzle-solved]").hidden = !game.solved;
  view.querySelector("[data-testid=puzzle-streak]").textContent = String(streakNow(records().streak, today));
  view.querySelector("#puzzle-hint").disabled = !playable();
}

function feedback(key, vars = {}, kind = "") {
  const line = view.querySelector("[data-testid=puzzle-feedback]");
  line.textContent = key ? t(key, vars) : "";
  line.dataset.kind = kind;
}

// ---- playing ---------------------------------------------------------------------------------

function solved() {
  game.solved = true;
  const data = records();
  data.solved[game.puzzle.id] = game.puzzle.date || true;
  if (game.puzzle.date && game.puzzle.date === today) data.streak = extendStreak(data.streak, today);
  save("puzzles", data);
  feedback("daily.solved", {}, "right");
  renderArchiveMarks();
}

async function submit(route) {
  game.busy = true;
  try {
    const answer = await request("POST", `/api/puzzles/${encodeURIComponent(game.puzzle.id)}/move`, { ply: game.ply, move: route.notation });
    game.partial = [];
    game.hint = [];
    if (!answer.correct) {
      feedback(answer.other_win ? `daily.otherWin.${answer.other_win}` : "daily.wrong", { move: route.notation }, "wrong");
      return;
    }
    game.state = answer.state;
    game.ply = answer.ply;
    if (answer.solved) solved();
    else feedback("daily.right", { reply: answer.reply }, "right");
  } catch (error) {
    game.partial = [];
    failed(error);
  } finally {
    game.busy = false;
    renderPuzzle();
  }
}

// A square picked on the puzzle's board: each step of a route is played out as it is picked, and
// the whole move goes to the server, which says whether it is the solution's.
async function activate(square) {
  if (!playable()) return;
  const picked = pick(game.state.moves, game.partial, square);
  if (picked.kind === "extend") {
    const step = picked.partial.length - 2;
    const [from, here] = picked.partial.slice(-2);
    const taken = routesFrom(game.state.moves, picked.partial)[0].captures[step];
    game.busy = true;
    await board.animate([from, here], taken ? [taken] : [], game.state.board[String(picked.partial[0])]);
    game.busy = false;
    game.partial = picked.partial;
    if (picked.route) {
      submit(picked.route);
      return;
    }
  } else if (picked.kind !== "refused") game.partial = picked.partial;
  renderPuzzle();
}

async function hint() {
  if (!playable()) return;
  try {
    const answer = await request("POST", `/api/puzzles/${encodeURIComponent(game.puzzle.id)}/hint`, { ply: game.ply });
    game.hint = answer.path;
    game.partial = [];
    feedback("daily.hint", { move: answer.move }, "hint");
  } catch (error) {
    failed(error);
  }
  renderPuzzle();
}

function show(puzzle) {
  Object.assign(game, { puzzle, state: puzzle.state, ply: 0, partial: [], hint: [], solved: false, busy: false });
  feedback("");
  renderPuzzle();
}

// Whether the puzzle view is still the one shown: a puzzle that arrives after the player went on
// to another view must not take the address back.
function stillShown() {
  return session.mode === "daily-puzzle";
}

// Open today's puzzle, a past day's ({ date }) or any puzzle ({ id }).
export async function openPuzzle({ date = null, id = null } = {}) {
  // Built on first use: until then the page holds one board, so the web app's square hooks
  // (data-square=N) stay unique.
  if (!view) {
    build();
    applyTo(view);
  }
  try {
    if (!today) {
      const current = await request("GET", "/api/daily/puzzle");
      today = current.date;
      if (!date && !id) {
        show(current);
        if (stillShown()) navigate("/puzzle");
        await loadArchive();
        return;
      }
      await loadArchive();
    }
    if (id) show(await request("GET", `/api/puzzles/${encodeURIComponent(id)}`));
    else show(await request("GET", `/api/daily/puzzle${date ? `?date=${encodeURIComponent(date)}` : ""}`));
    if (stillShown()) navigate(date || id ? `/puzzle/${encodeURIComponent(game.puzzle.id)}` : "/puzzle");
  } catch (error) {
    failed(error);
  }
}

async function loadArchive() {
  const list = view.querySelector("#puzzle-archive");
  const { days } = await request("GET", "/api/puzzles/archive?days=30");
  list.textContent = "";
  for (const day of days) {
    const item = document.createElement("li");
    const open = document.createElement("button");
    open.type = "button";
    open.className = "link-button";
    open.dataset.date = day.date;
    open.dataset.puzzle = day.id;
    open.textContent = `${day.date} · ${puzzleTitle(day.title)}`;
    open.addEventListener("click", () => openPuzzle({ date: day.date }));
    item.appendChild(open);
    list.appendChild(item);
  }
  renderArchiveMarks();
}

function renderArchiveMarks() {
  const solved = records().solved;
  for (const open of view.querySelectorAll("#puzzle-archive button")) {
    open.classList.toggle("is-solved", Boolean(solved[open.dataset.puzzle]));
  }
}

function build() {
  view = document.createElement("section");
  view.id = "puzzle-view";
  view.className = "puzzle-view";
  view.setAttribute("aria-labelledby", "puzzle-title");
  view.innerHTML = `
    <div class="puzzle-main">
      <h1 id="puzzle-title" class="puzzle-title"></h1>
      <p id="puzzle-meta" class="card-note"></p>
      <p id="puzzle-turn" class="status"></p>
      <div class="board-wrap"><svg id="puzzle-board" class="board" viewBox="0 0 800 800" role="grid" data-i18n-aria-label="board.label"></svg></div>
      <p class="puzzle-feedback" data-testid="puzzle-feedback" role="status" aria-live="polite"></p>
      <p class="puzzle-solved" data-testid="puzzle-solved" hidden data-i18n="daily.solvedBanner"></p>
      <div class="controls">
        <button type="button" class="btn" id="puzzle-hint" data-testid="puzzle-hint" data-i18n="controls.hint"></button>
      </div>
      <p id="puzzle-source" class="card-note"></p>
    </div>
    <aside class="side">
      <section class="card">
        <p class="daily-streak"><span data-i18n="daily.puzzleStreak"></span> <strong data-testid="puzzle-streak">0</strong></p>
        <form id="puzzle-by-id" class="puzzle-by-id">
          <label class="field"><span data-i18n="daily.byId"></span>
            <input id="puzzle-id" data-testid="puzzle-id" type="text" maxlength="48" autocomplete="off" spellcheck="false"></label>
          <button type="submit" class="btn btn-small" data-testid="open-puzzle" data-i18n="daily.open"></button>
        </form>
      </section>
      <section class="card">
        <h2 data-i18n="daily.archive"></h2>
        <ol id="puzzle-archive" class="puzzle-archive" data-testid="puzzle-archive"></ol>
      </section>
    </aside>`;
  document.querySelector("main.layout").after(view);
  board = new BoardView(view.querySelector("#puzzle-board"), { onActivate: activate, onEscape: () => { game.partial = []; renderPuzzle(); } });
  view.querySelector("#puzzle-hint").addEventListener("click", hint);
  subscribe(renderPuzzle); // new words or preferences
  view.querySelector("#puzzle-by-id").addEventListener("submit", (event) => {
    event.preventDefault();
    const id = view.querySelector("#puzzle-id").value.trim();
    if (id) openPuzzle({ id });
  });
}
