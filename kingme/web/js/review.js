// The review view: a game's board with its own stepper, the review's progress, the accuracy of
// each side, the evaluation graph, the moves with their verdicts, the move shown in detail (its
// evaluation, the engine's move and line when it differs, a link to the analysis board) and
// "learn from your mistakes". It renders session.review after every change and binds its events
// to the review's actions (review-session.js, the only code that changes that state).
// Loaded, built and wired the first time a review is opened; like the puzzle view it takes the
// game's place with the game's layout, and has a board of its own.

import { BoardView } from "./board.js";
import { boardView, squareLabel } from "./boardview.js";
import { drawGraph } from "./evalgraph.js";
import { applyTo, language, loadPart, t } from "./i18n.js";
import * as actions from "./review-session.js";
import { VERDICTS } from "./reviewdata.js";
import { subscribe } from "./session.js";
import { colorName, session } from "./state.js";
import { onStepKeys, reviewStyles, stepButtons } from "./stepping.js";
import { addView } from "./views.js";

const review = session.review;
// The verdicts' marks in the move list, as annotators write them.
const MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };
let view;
let board;
const $ = (id) => view.querySelector(`#${id}`);

// ---- words ---------------------------------------------------------------------------------

function percent(value) {
  return value === null ? "–" : new Intl.NumberFormat(language(), { maximumFractionDigits: 1 }).format(value);
}

// An evaluation in words, from Red's (Black's) side: a table win with a capture or a man's move
// within N plies (the tables count plies to the next conversion, not to the game's end), else the
// score in men ("+0.45"), with Red's winning chances.
export function evalText(value) {
  if (value.table_plies !== null) {
    const winner = value.table_plies > 0 ? "black" : "white";
    const plies = Math.abs(value.table_plies);
    return t(plies === 1 ? "review.tableWinOne" : "review.tableWin", { color: colorName(winner), n: plies });
  }
  if (value.score === null) return t("review.chances", { color: colorName("black"), n: percent(value.win) });
  const men = (value.score / 100).toFixed(2);
  return t("review.score", { score: value.score > 0 ? `+${men}` : men, color: colorName("black"), n: percent(value.win) });
}

function moveName(ply) {
  return `${Math.ceil(ply.ply / 2)}${ply.side === "black" ? "." : "…"} ${ply.move}`;
}

function verdictName(verdict) {
  return t(`review.verdicts.${verdict}`);
}

function gameLine(entry) {
  const who = {
    computer: () => t("archive.vsComputer", { level: t(`levels.${entry.level}`) }),
    daily: () => t("archive.daily"),
    local: () => t("archive.local"),
    online: () => t("archive.online"),
    imported: () => t("archive.imported"),
  }[entry.kind]();
  const date = new Date(entry.date).toLocaleDateString(language(), { dateStyle: "medium" });
  return [date, who].join(" · ");
}

// ---- rendering -------------------------------------------------------------------------------

function renderBoard() {
  const { learn, position, entry } = review;
  board.setOrientation(entry.player !== "white");
  const state = learn?.position || position;
  board.render(boardView({
    state, partial: learn?.partial || [], hint: learn?.hint || [], playable: actions.learnPlayable(),
    numbers: session.prefs.numbers, marks: session.prefs.marks,
    label: (square, info) => squareLabel(square, info, { t, colorName }),
  }));
}

function renderProgress() {
  const { status, plies, entry, queued, budget, error } = review;
  const total = entry.record.moves.length;
  const bar = $("review-progress");
  bar.hidden = !(status === "queued" || status === "running");
  bar.max = total;
  bar.value = plies.length;
  let message = "";
  if (status === "queued") message = queued ? t("review.queued", { n: queued }) : t("review.starting");
  else if (status === "running") message = t("review.progress", { n: plies.length, of: total });
  else if (status === "failed") message = error;
  const line = $("review-message");
  line.textContent = message || error; // a failed review, or a position or a try the server refused
  line.dataset.kind = status === "failed" || error ? "error" : "";
  $("review-budget-note").textContent = budget ? t(`review.budgetNote.${budget.name === "deep" ? "deep" : "standard"}`, {
    nodes: new Intl.NumberFormat(language()).format(budget.nodes),
  }) : "";
  $("review-budget").value = review.chosen;
  $("review-again").disabled = status === "queued" || status === "running";
}

function renderAccuracy() {
  const { summary } = review;
  const box = $("review-accuracy");
  box.hidden = !summary;
  if (!summary) return;
  for (const side of ["black", "white"]) {
    const row = box.querySelector(`[data-side=${side}]`);
    row.querySelector(".accuracy-side").textContent = colorName(side);
    row.querySelector(".accuracy-figure").textContent = t("review.accuracy", { n: percent(summary.accuracy[side]) });
    row.querySelector(".accuracy-counts").textContent = VERDICTS.map((verdict) => t(`review.counts.${verdict}`, { n: summary.counts[side][verdict] })).join(" · ");
  }
}

function renderGraph() {
  const { initial, plies, entry, ply } = review;
  drawGraph($("review-graph"), {
    initial, plies, total: entry.record.moves.length, shown: ply, pick: (chosen) => actions.showPly(chosen),
    label: (item) => `${moveName(item)}, ${colorName(item.side)}: ${verdictName(item.verdict)}`,
  });
}

// The moves: made when a review opens, their verdicts and the one shown marked after every change.
let listed = null;
function renderMoves() {
  const { entry, plies, ply } = review;
  const list = $("review-moves");
  if (listed !== entry) {
    listed = entry;
    list.textContent = "";
    entry.record.moves.forEach((move, i) => {
      const item = document.createElement("li");
      item.dataset.ply = String(i + 1);
      const button = document.createElement("button");
      button.type = "button";
      button.className = "review-move";
      const text = document.createElement("span");
      text.textContent = move;
      const mark = document.createElement("span");
      mark.className = "review-mark";
      button.append(text, mark);
      button.addEventListener("click", () => actions.showPly(i + 1));
      item.appendChild(button);
      list.appendChild(item);
    });
  }
  for (const item of list.children) {
    const known = plies[Number(item.dataset.ply) - 1];
    const verdict = known?.verdict || "";
    item.dataset.verdict = verdict;
    const mark = item.querySelector(".review-mark");
    mark.textContent = verdict ? ` ${MARKS[verdict]}` : "";
    mark.title = verdict ? verdictName(verdict) : "";
    if (Number(item.dataset.ply) === ply) item.setAttribute("aria-current", "step");
    else item.removeAttribute("aria-current");
  }
  const current = list.querySelector("[aria-current]");
  if (current && (current.offsetTop < list.scrollTop || current.offsetTop + current.offsetHeight > list.scrollTop + list.clientHeight)) {
    list.scrollTop = current.offsetTop - list.clientHeight / 2;
  }
}

function renderDetail() {
  const { ply, plies, initial, position } = review;
  const known = ply ? plies[ply - 1] : null;
  $("review-where").textContent = ply ? t("review.moveShown", { move: moveName(known || { ply, side: ply % 2 ? "black" : "white", move: review.entry.record.moves[ply - 1] }) }) : t("review.startShown");
  const value = ply ? known?.eval : initial;
  $("review-eval").textContent = value ? evalText(value) : "";
  const verdict = $("review-verdict");
  if (known?.verdict) verdict.textContent = t("review.verdictLine", { verdict: verdictName(known.verdict), loss: percent(known.loss) });
  else verdict.textContent = known?.forced ? t("review.forced") : "";
  verdict.dataset.verdict = known?.verdict || "";
  $("review-best").textContent = known?.best ? t("review.best", { move: known.best, line: known.line.join(" ") }) : "";
  const link = $("review-analyse");
  link.hidden = !position;
  if (position) link.href = `/analysis?fen=${encodeURIComponent(position.fen)}`;
}

function renderLearn() {
  const { learn, status } = review;
  const mistakes = status === "done" ? actions.mistakes() : [];
  $("learn-start").hidden = Boolean(learn);
  $("learn-start").disabled = !mistakes.length;
  $("learn-none").hidden = Boolean(learn) || status !== "done" || mistakes.length > 0;
  $("learn-box").hidden = !learn;
  if (!learn) return;
  const done = learn.index >= learn.items.length;
  const ply = review.plies[learn.items[learn.index] - 1];
  $("learn-question").textContent = done ? t("review.learn.done") : t("review.learn.question", {
    n: learn.index + 1, of: learn.items.length, color: colorName(ply.side), move: ply.move, verdict: verdictName(ply.verdict),
  });
  const outcome = done ? "" : learn.outcome;
  const feedback = $("learn-feedback");
  feedback.dataset.kind = outcome || "";
  feedback.textContent = outcome ? t(`review.learn.${outcome}`, { move: learn.tried || "", best: learn.best || "" }) : "";
  $("learn-next").hidden = done || !(outcome === "found" || outcome === "shown");
  $("learn-skip").hidden = done || outcome === "found" || outcome === "shown";
}

function render() {
  if (!review.entry) return;
  view.dataset.status = review.status;
  $("review-game-line").textContent = gameLine(review.entry);
  renderBoard();
  renderProgress();
  renderAccuracy();
  renderGraph();
  renderMoves();
  renderDetail();
  renderLearn();
}

// ---- building ----------------------------------------------------------------------------------

function build() {
  view = addView("review", `
    <section class="play">
      <div class="board-wrap"><svg id="review-board" class="board" viewBox="0 0 800 800" role="grid" data-i18n-aria-label="board.label"></svg></div>
      <div class="stepper review-stepper" id="review-stepper" role="toolbar" data-i18n-aria-label="step.label"></div>
    </section>
    <aside class="side">
      <section class="card review-card">
        <div class="card-head">
          <h1 id="review-title" class="review-title" data-i18n="review.title"></h1>
          <a class="btn btn-small" href="/archive" id="review-archive" data-testid="review-archive" data-i18n="review.toArchive"></a>
        </div>
        <p id="review-game-line" class="card-note"></p>
        <div class="review-run">
          <label class="field review-budget"><span data-i18n="review.budget"></span>
            <select id="review-budget" data-testid="review-budget">
              <option value="standard" data-i18n="review.budgets.standard"></option>
              <option value="deep" data-i18n="review.budgets.deep"></option>
            </select></label>
          <button type="button" class="btn btn-small" id="review-again" data-testid="review-again" data-i18n="review.again"></button>
        </div>
        <p id="review-budget-note" class="card-note" data-testid="review-budget-note"></p>
        <progress id="review-progress" data-testid="review-progress" max="1" value="0"></progress>
        <p id="review-message" class="review-message" data-testid="review-message" role="status"></p>
        <div id="review-accuracy" class="review-accuracy" data-testid="review-accuracy" hidden>
          <p data-side="black" data-testid="accuracy-black"><span class="accuracy-side"></span> <strong class="accuracy-figure"></strong> <span class="accuracy-counts"></span></p>
          <p data-side="white" data-testid="accuracy-white"><span class="accuracy-side"></span> <strong class="accuracy-figure"></strong> <span class="accuracy-counts"></span></p>
        </div>
        <svg id="review-graph" class="review-graph" data-testid="review-graph" role="group" data-i18n-aria-label="review.graph"></svg>
      </section>
      <section class="card review-detail" aria-live="polite">
        <p id="review-where" class="review-where" data-testid="review-where"></p>
        <p id="review-eval" data-testid="review-eval"></p>
        <p id="review-verdict" class="review-verdict" data-testid="review-verdict"></p>
        <p id="review-best" data-testid="review-best"></p>
        <a id="review-analyse" class="review-analyse" data-testid="review-analyse" data-i18n="review.analyse"></a>
      </section>
      <section class="card review-learn">
        <button type="button" class="btn btn-primary btn-wide" id="learn-start" data-testid="learn-start" data-i18n="review.learn.start"></button>
        <p id="learn-none" class="card-note" data-testid="learn-none" data-i18n="review.learn.none" hidden></p>
        <div id="learn-box" hidden>
          <p id="learn-question" class="learn-question" data-testid="learn-question"></p>
          <p id="learn-feedback" class="learn-feedback" data-testid="learn-feedback" role="status"></p>
          <div class="card-actions">
            <button type="button" class="btn btn-small" id="learn-skip" data-testid="learn-skip" data-i18n="review.learn.skip"></button>
            <button type="button" class="btn btn-small btn-primary" id="learn-next" data-testid="learn-next" data-i18n="review.learn.next"></button>
            <button type="button" class="btn btn-small" id="learn-stop" data-testid="learn-stop" data-i18n="review.learn.stop"></button>
          </div>
        </div>
      </section>
      <section class="card">
        <h2 data-i18n="history.title"></h2>
        <ol id="review-moves" class="review-moves" data-testid="review-moves"></ol>
      </section>
    </aside>`);
  board = new BoardView(view.querySelector("#review-board"), { onActivate: actions.select, onEscape: actions.escape });
  $("review-stepper").append(...stepButtons("review-step", actions.step));
  $("review-budget").addEventListener("change", (event) => actions.choose(event.target.value));
  $("review-again").addEventListener("click", () => actions.run());
  $("learn-start").addEventListener("click", actions.startLearning);
  $("learn-next").addEventListener("click", actions.nextMistake);
  $("learn-skip").addEventListener("click", actions.nextMistake);
  $("learn-stop").addEventListener("click", actions.stopLearning);
  onStepKeys(() => session.mode === "review", actions.step);
}

await Promise.all([reviewStyles(), loadPart("review")]);
build();
applyTo(view);
subscribe(render);

export const { open } = actions;
