// The puzzle view: the daily puzzle, the archive of past days and any puzzle by id. It renders
// session.puzzle after every change and binds its events to the puzzle's actions
// (puzzle-session.js, the only code that changes that state); it keeps no state of its own.
// Loaded, built and wired the first time the view is shown: until then the page holds one
// board, so the web app's square hooks (data-square=N) stay unique.

import { stylesheet } from "./api.js";
import { BoardView } from "./board.js";
import { boardView, squareLabel } from "./boardview.js";
import { applyTo, loadPart, t } from "./i18n.js";
import { attach, escape, hint, nextPuzzle, openPuzzle, playable, select, stepLine } from "./puzzle-session.js";
import { subscribe } from "./session.js";
import { colorName, session } from "./state.js";
import { streakNow } from "./days.js";
import { onStepKeys, reviewStyles, stepButtons } from "./stepping.js";
import { addView } from "./views.js";

export { openPuzzle };

let view;
let board;

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

// The same board view as the game's, with the same marks (the preference for square numbers holds).
// A solved puzzle's line can be stepped through (the step's position is shown instead).
function renderBoard({ state, partial, hint: marked, shown, step, solved }) {
  board.setOrientation(shown.solver === "black");
  view.querySelector("#puzzle-stepper").hidden = !solved;
  board.render(boardView({
    state: step ? step.state : state, partial, hint: marked, playable: playable(), numbers: session.prefs.numbers, marks: true,
    label: (square, info) => squareLabel(square, info, { t, colorName }),
  }));
}

// The archive's entries are made when the list arrives; their words and marks follow every change.
let listed = null;
function renderArchive({ archive, records }) {
  const list = view.querySelector("#puzzle-archive");
  if (listed !== archive) {
    listed = archive;
    list.textContent = "";
    for (const day of archive) {
      const item = document.createElement("li");
      const open = document.createElement("button");
      open.type = "button";
      open.className = "link-button";
      open.dataset.date = day.date;
      open.dataset.puzzle = day.id;
      open.addEventListener("click", () => openPuzzle({ date: day.date }));
      item.appendChild(open);
      list.appendChild(item);
    }
  }
  archive.forEach((day, i) => {
    const open = list.children[i].firstChild;
    open.textContent = `${day.date} · ${puzzleTitle(day.title)}`;
    open.classList.toggle("is-solved", Boolean(records.solved[day.id]));
  });
}

function render() {
  const { puzzle } = session;
  renderArchive(puzzle);
  view.querySelector("[data-testid=puzzle-streak]").textContent = String(streakNow(puzzle.records.streak, puzzle.today));
  const { shown, solved, feedback } = puzzle;
  if (!shown) return;
  renderBoard(puzzle);
  view.querySelector("#puzzle-title").textContent = puzzleTitle(shown.title);
  const meta = [shown.date, t(`daily.difficulty.${shown.difficulty}`), `#${shown.id}`].filter(Boolean).join(" · ");
  view.querySelector("#puzzle-meta").textContent = meta;
  view.querySelector("#puzzle-source").textContent = shown.source ? t("daily.source", { source: shown.source }) : "";
  view.querySelector("#puzzle-turn").textContent = solved ? "" : t("daily.toMove", { color: colorName(shown.solver), n: shown.solverMoves });
  view.querySelector("[data-testid=puzzle-solved]").hidden = !solved;
  view.querySelector("#puzzle-next").hidden = !(solved && nextPuzzle());
  view.querySelector("#puzzle-hint").disabled = !playable();
  const line = view.querySelector("[data-testid=puzzle-feedback]");
  line.textContent = feedback.key ? t(feedback.key, feedback.vars) : "";
  line.dataset.kind = feedback.kind;
}

function build() {
  // The game's layout: the board as large as the window allows with Hint under it, and the
  // puzzle's words, the answers and the archive in the side panel.
  view = addView("puzzle", `
    <section class="play">
      <div class="board-wrap"><svg id="puzzle-board" class="board" viewBox="0 0 800 800" role="grid" data-i18n-aria-label="board.label" aria-describedby="puzzle-turn"></svg></div>
      <div class="controls">
        <button type="button" class="btn" id="puzzle-hint" data-testid="puzzle-hint" data-i18n="controls.hint"></button>
        <div class="stepper" id="puzzle-stepper" role="toolbar" data-i18n-aria-label="step.label" hidden></div>
      </div>
    </section>
    <aside class="side">
      <section class="card puzzle-card">
        <h1 id="puzzle-title" class="puzzle-title"></h1>
        <p id="puzzle-meta" class="card-note"></p>
        <p id="puzzle-turn" class="status"></p>
        <p class="puzzle-feedback" data-testid="puzzle-feedback" role="status" aria-live="polite"></p>
        <p class="puzzle-solved" data-testid="puzzle-solved" hidden data-i18n="daily.solvedBanner"></p>
        <button type="button" class="btn btn-primary btn-small" id="puzzle-next" data-testid="puzzle-next" hidden data-i18n="daily.next"></button>
        <p id="puzzle-source" class="card-note"></p>
      </section>
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
    </aside>`);
  board = new BoardView(view.querySelector("#puzzle-board"), { onActivate: select, onEscape: escape });
  attach({ animate: (path, captures, piece) => board.animate(path, captures, piece) });
  view.querySelector("#puzzle-hint").addEventListener("click", hint);
  view.querySelector("#puzzle-next").addEventListener("click", () => openPuzzle({ date: nextPuzzle().date }));
  view.querySelector("#puzzle-stepper").append(...stepButtons("puzzle-step", stepLine));
  onStepKeys(() => session.mode === "daily-puzzle" && session.puzzle.solved, stepLine);
  view.querySelector("#puzzle-by-id").addEventListener("submit", (event) => {
    event.preventDefault();
    const id = view.querySelector("#puzzle-id").value.trim();
    if (id) openPuzzle({ id });
  });
}

await Promise.all([stylesheet("/css/puzzle.css"), reviewStyles(), loadPart("review")]);
build();
applyTo(view);
subscribe(render);
