// The analysis board (/analysis, /analysis?fen=...): free moves for both sides from any position,
// the engine's best three lines deepening as it searches (POST /api/analyse, a stream of one
// object per depth), an evaluation bar, the moves kept as a tree of variations (variations.js),
// a position editor (editor.js) and the tree exported as PDN with the engine's evaluations.
//
// Everything the rules decide comes from the server: each position's legal routes (its state,
// from /api/start or /api/state with the moves from the start position), whether a FEN can be
// read, the PDN text. This module keeps the view's own state (`A` below), renders it after every
// change, and is loaded, built and wired the first time the view is shown.

import { ApiError, api, request, stylesheet } from "./api.js";
import { BoardView } from "./board.js";
import { boardView, pick, squareLabel } from "./boardview.js";
import { editorFrom, emptyEditor, fenOf, place, startEditor } from "./editor.js";
import { applyTo, loadPart, t } from "./i18n.js";
import { subscribe } from "./session.js";
import { colorName, session } from "./state.js";
import * as tree from "./variations.js";
import { addView } from "./views.js";

const START_FEN = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";
// Lines the engine shows.
const LINES = 3;
// The pieces the editor places, in the palette's order (null removes).
const TOOLS = [
  { color: "black", kind: "man" }, { color: "black", kind: "king" },
  { color: "white", kind: "man" }, { color: "white", kind: "king" }, null,
];

// The view's state: the tree and the node shown, each node's server state (by id), the squares
// picked towards a move, the engine's latest lines (for `lines.node`), whether the engine runs
// (Go) and whether a stream is open, the editor while editing, a message for the player and
// the last PDN export.
const A = {
  root: null, current: null, fen: null, blackFirst: true, states: new Map(), partial: [],
  lines: null, running: true, stream: null, finished: null, asked: 0, editing: null, tool: TOOLS[0], message: "", flipped: false, pdn: "",
  // What the player has typed into the FEN field, and the FEN shown when they typed it: kept over
  // every render (engine lines arrive many times a second) until the position shown changes.
  fenDraft: null,
};

let view;
let board;
const $ = (testid) => view.querySelector(`[data-testid="${testid}"]`);

// ---- words -------------------------------------------------------------------------------------

// An EVAL for people: "+0.25" (men, Red's view) or "#12" / "#-12" for a proven win (Red's,
// White's) with a capture or a man's move within 12 plies (the tables' distance to conversion);
// evalWords says so in words, for the tooltip and the bar's aria-valuetext.
export function evalText(value) {
  if (!value) return "";
  if (value.table_plies !== null && value.table_plies !== undefined) return `#${value.table_plies}`;
  if (value.score === null) return value.win >= 50 ? "1-0" : "0-1";
  const men = value.score / 100;
  return `${men > 0 ? "+" : men < 0 ? "−" : ""}${Math.abs(men).toFixed(2)}`;
}

function evalWords(value) {
  if (value.table_plies !== null && value.table_plies !== undefined) {
    const plies = Math.abs(value.table_plies);
    const color = colorName(value.table_plies > 0 ? "black" : "white");
    return t(plies === 1 ? "analysis.winInOne" : "analysis.winIn", { color, n: plies });
  }
  return t("analysis.winChance", { color: colorName("black"), n: Math.round(value.win) });
}

function shownState() {
  return A.states.get(A.current.id);
}

// ---- the engine's lines --------------------------------------------------------------------------

function stopStream() {
  if (A.stream) A.stream.abort();
  A.stream = null;
}

// Read an ndjson answer line by line, calling `each` with every object.
async function readLines(response, each) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf("\n");
    while (end >= 0) {
      const line = buffer.slice(0, end).trim();
      buffer = buffer.slice(end + 1);
      if (line) each(JSON.parse(line));
      end = buffer.indexOf("\n");
    }
  }
}

// Analyse the node shown, if the engine runs (a new stream ends the one before, here and on the server).
async function analyse() {
  stopStream();
  const node = A.current;
  const state = shownState();
  if (!A.running || A.editing || !state || state.result) {
    render();
    return;
  }
  const controller = new AbortController();
  A.stream = controller;
  A.finished = null;
  render();
  try {
    const response = await fetch("/api/analyse", {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ fen: state.fen, lines: LINES }), signal: controller.signal,
    });
    if (!response.ok) {
      const data = await response.json().catch(() => ({}));
      throw new ApiError(data.error || response.statusText, response.status);
    }
    await readLines(response, (message) => {
      if (A.stream !== controller || message.type !== "lines") return;
      A.lines = { node, depth: message.depth, nodes: message.nodes, lines: message.lines };
      if (message.lines.length) {
        node.eval = message.lines[0].eval;
        node.depth = message.depth;
      }
      render();
    });
    if (A.stream === controller) A.finished = node; // the server went as deep as it goes
  } catch (error) {
    if (error.name !== "AbortError" && A.stream === controller) A.message = t("errors.server", { message: error.message || t("errors.network") });
  } finally {
    if (A.stream === controller) A.stream = null;
    render();
  }
}

function toggleEngine() {
  A.running = !A.running;
  if (A.running) analyse();
  else {
    stopStream();
    render();
  }
}

// ---- moving about the tree -------------------------------------------------------------------

// Show `node`, asking the server for its position first when it is new.
async function goTo(node) {
  const asked = ++A.asked;
  A.partial = [];
  A.message = "";
  if (!A.states.has(node.id)) {
    try {
      A.states.set(node.id, await api.state({ setup: { fen: A.fen }, moves: tree.movesTo(node) }));
    } catch (error) {
      A.message = t("errors.server", { message: error.message });
      tree.remove(node);
      render();
      return;
    }
    if (asked !== A.asked) return; // another node was asked for meanwhile: it is the one shown
  }
  A.current = node;
  if (A.lines?.node !== node) A.lines = null;
  analyse();
}

function step(where) {
  const { current } = A;
  const target = { first: A.root, previous: current.parent, next: current.children[0], last: tree.lineEnd(current) }[where];
  if (target && target !== current) goTo(target);
}

// A line's move clicked: its moves up to that one are played from the position shown.
function playLine(line, upTo) {
  let node = A.current;
  for (const move of line.moves.slice(0, upTo + 1)) node = tree.play(node, move);
  goTo(node);
}

// ---- the board -----------------------------------------------------------------------------------

function select(square) {
  if (A.editing) {
    A.editing = place(A.editing, square, A.tool);
    render();
    return;
  }
  const state = shownState();
  if (!state || state.result) return;
  const picked = pick(state.moves, A.partial, square, state.variant === "casual");
  if (picked.kind === "extend" && picked.route) {
    goTo(tree.play(A.current, picked.route.notation));
    return;
  }
  if (picked.kind !== "refused") A.partial = picked.partial;
  render();
}

function escape() {
  A.partial = [];
  render();
}

// ---- starting positions, the editor, FEN and PDN ---------------------------------------------------

// Start the analysis afresh from `fen` (the server reads it); a FEN it refuses leaves everything as it was.
async function startFrom(fen) {
  A.asked += 1; // a position asked for before is not shown over the new start
  let state;
  try {
    state = await api.start({ fen });
  } catch (error) {
    A.message = error instanceof ApiError && error.status ? t("analysis.badFen", { message: error.message }) : t("errors.network");
    render();
    return false;
  }
  A.root = tree.newTree();
  A.current = A.root;
  A.fen = state.fen;
  A.blackFirst = state.turn === "black";
  A.states = new Map([[A.root.id, state]]);
  A.partial = [];
  A.lines = null;
  A.pdn = "";
  A.message = "";
  window.history.replaceState(null, "", `/analysis?fen=${encodeURIComponent(state.fen)}`);
  analyse();
  return true;
}

function startEditing() {
  stopStream();
  A.editing = editorFrom(shownState());
  A.message = "";
  render();
}

async function finishEditing() {
  const editing = A.editing;
  A.editing = null;
  if (!(await startFrom(fenOf(editing)))) A.editing = editing; // refused: keep editing, the message says why
  render();
}

function cancelEditing() {
  A.editing = null;
  A.message = "";
  analyse();
}

function loadFen(event) {
  event.preventDefault();
  const text = $("analysis-fen").value.trim();
  if (!text) return;
  if (A.editing) {
    // Read by the server first: the editor takes the position only when it is a position.
    api.start({ fen: text }).then((state) => {
      A.editing = editorFrom(state);
      A.message = "";
      render();
    }, (error) => {
      A.message = t("analysis.badFen", { message: error.message });
      render();
    });
  } else {
    startFrom(text);
  }
}

async function exportPdn() {
  try {
    A.pdn = (await request("POST", "/api/analysis/pdn", { fen: A.fen, tree: tree.toJson(A.root) })).pdn;
    A.message = "";
  } catch (error) {
    A.message = t("errors.server", { message: error.message });
  }
  render();
}

// ---- rendering -------------------------------------------------------------------------------------

function renderBoard() {
  board.setOrientation(!A.flipped);
  const label = (square, info) => squareLabel(square, info, { t, colorName });
  const { numbers, marks } = session.prefs;
  if (A.editing) {
    const state = { board: A.editing.pieces, history: [], moves: [], variant: "american" };
    board.render(boardView({ state, numbers, marks, label }));
    return;
  }
  const state = shownState();
  board.render(boardView({ state, partial: A.partial, playable: Boolean(state && !state.result), numbers, marks, label }));
}

// The engine's lines of the position shown (none while the editor shows another position).
function shownLines() {
  return !A.editing && A.lines?.node === A.current ? A.lines : null;
}

function renderEngine() {
  const state = shownState();
  const lines = shownLines();
  const toggle = $("analysis-toggle");
  toggle.textContent = t(A.running ? "analysis.stop" : "analysis.go");
  toggle.setAttribute("aria-pressed", String(A.running));
  toggle.disabled = Boolean(A.editing);
  $("analysis-depth").textContent = lines ? t("analysis.depth", { n: lines.depth }) : "";
  let status = "";
  if (A.editing) status = t("analysis.editing");
  else if (state?.result) status = t("analysis.noMoves");
  else if (A.stream && !lines) status = t("analysis.searching");
  else if (!A.stream && A.running && lines && A.finished === A.current) status = t("analysis.finished");
  else if (!A.running) status = t("analysis.stopped");
  $("analysis-status").textContent = status;
  view.dataset.searching = A.stream ? "true" : "false";
  const list = $("analysis-lines");
  list.textContent = "";
  const ply = tree.plyOf(A.current);
  for (const line of lines ? lines.lines : []) {
    const item = document.createElement("li");
    item.dataset.testid = "analysis-line";
    const value = document.createElement("strong");
    value.className = "line-eval";
    value.textContent = evalText(line.eval);
    value.title = evalWords(line.eval);
    item.append(value);
    line.moves.forEach((move, i) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "line-move";
      button.dataset.testid = "line-move";
      const number = tree.numberAt(ply + i, A.blackFirst);
      button.textContent = i === 0 || !number.endsWith("...") ? `${number} ${move}` : move;
      button.addEventListener("click", () => playLine(line, i));
      item.append(button);
    });
    list.append(item);
  }
}

function renderBar() {
  const value = A.editing ? null : shownLines()?.lines[0]?.eval || A.current.eval;
  const bar = $("eval-bar");
  const win = value ? value.win : 50;
  bar.style.setProperty("--red-share", `${win}%`);
  bar.dataset.side = A.flipped ? "top" : "bottom";
  bar.setAttribute("aria-valuenow", String(Math.round(win)));
  bar.setAttribute("aria-valuetext", value ? `${evalText(value)}, ${evalWords(value)}` : t("analysis.noEval"));
  $("eval-text").textContent = value ? evalText(value) : "";
}

function renderMoves() {
  tree.renderList($("analysis-moves"), A.root, A.current, { blackFirst: A.blackFirst, pick: goTo, evalText });
  const start = $("analysis-root");
  if (A.current === A.root) start.setAttribute("aria-current", "step");
  else start.removeAttribute("aria-current");
  const editing = Boolean(A.editing);
  $("analysis-promote").disabled = editing || tree.onMainLine(A.current);
  $("analysis-delete").disabled = editing || A.current === A.root;
  for (const [testid, disabled] of [
    ["analysis-first", A.current === A.root], ["analysis-previous", A.current === A.root],
    ["analysis-next", !A.current.children.length], ["analysis-last", !A.current.children.length],
  ]) $(testid).disabled = editing || disabled;
}

function renderEditor() {
  const card = $("analysis-editor");
  card.hidden = !A.editing;
  $("analysis-edit").hidden = Boolean(A.editing);
  if (!A.editing) return;
  for (const button of card.querySelectorAll("[data-tool]")) {
    const tool = TOOLS[Number(button.dataset.tool)];
    button.setAttribute("aria-pressed", String(tool === A.tool));
    button.textContent = tool ? t(`analysis.${tool.kind}`, { color: colorName(tool.color) }) : t("analysis.erase");
  }
  const turn = $("analysis-turn");
  for (const option of turn.options) option.textContent = colorName(option.value);
  turn.value = A.editing.turn;
}

// The FEN of the board as shown: the editor's position while editing, else the move shown.
function shownFen() {
  return A.editing ? fenOf(A.editing) : shownState()?.fen || "";
}

function render() {
  if (!view || !A.current) return;
  renderBoard();
  renderBar();
  renderEngine();
  renderMoves();
  renderEditor();
  const shown = shownFen();
  if (A.fenDraft?.over !== shown) A.fenDraft = null;
  $("analysis-fen").value = A.fenDraft ? A.fenDraft.text : shown;
  const message = $("analysis-message");
  message.textContent = A.message;
  message.hidden = !A.message;
  const pdn = $("analysis-pdn");
  pdn.hidden = !A.pdn;
  pdn.value = A.pdn;
}

// ---- building ---------------------------------------------------------------------------------------

// A row of buttons in the panel: [testid, text's key, extra class] each.
function actions(buttons) {
  const html = buttons.map(([testid, key, extra = ""]) => `<button type="button" class="btn ${extra}" data-testid="${testid}" data-i18n="${key}"></button>`);
  return `<div class="card-actions">${html.join("")}</div>`;
}

function build() {
  view = addView("analysis", `
    <section class="play">
      <div class="board-wrap"><svg id="analysis-board" class="board" viewBox="0 0 800 800" role="grid" data-i18n-aria-label="board.label"></svg></div>
      <div class="eval-bar" data-testid="eval-bar" role="meter" aria-valuemin="0" aria-valuemax="100" data-i18n-aria-label="analysis.evalBar">
        <span class="eval-text" data-testid="eval-text"></span>
      </div>
      <div class="controls">
        <button type="button" class="btn step-button" data-testid="analysis-first" data-i18n-aria-label="analysis.first">«</button>
        <button type="button" class="btn step-button" data-testid="analysis-previous" data-i18n-aria-label="analysis.previous">‹</button>
        <button type="button" class="btn step-button" data-testid="analysis-next" data-i18n-aria-label="analysis.next">›</button>
        <button type="button" class="btn step-button" data-testid="analysis-last" data-i18n-aria-label="analysis.last">»</button>
        <button type="button" class="btn" data-testid="analysis-flip" data-i18n="controls.flip"></button>
        <button type="button" class="btn" data-testid="analysis-edit" data-i18n="analysis.edit"></button>
      </div>
    </section>
    <aside class="side">
      <p class="banner-error analysis-message" data-testid="analysis-message" role="alert" hidden></p>
      <section class="card editor-card" data-testid="analysis-editor" hidden>
        <h2 data-i18n="analysis.editTitle"></h2>
        <p class="card-note" data-i18n="analysis.editHelp"></p>
        <div class="tools" role="group" data-i18n-aria-label="analysis.tools">
          ${TOOLS.map((tool, i) => `<button type="button" class="btn btn-small" data-tool="${i}" data-testid="tool-${tool ? `${tool.color}-${tool.kind}` : "erase"}"></button>`).join("")}
        </div>
        <label class="field"><span data-i18n="analysis.toMove"></span>
          <select data-testid="analysis-turn" id="analysis-turn"><option value="black"></option><option value="white"></option></select></label>
        ${actions([["analysis-clear", "analysis.clear"], ["analysis-start-position", "analysis.startPosition"]])}
        ${actions([["analysis-done", "analysis.done", "btn-primary"], ["analysis-cancel", "analysis.cancel"]])}
      </section>
      <section class="card engine-card">
        <h1 id="analysis-title" class="visually-hidden" data-i18n="analysis.title"></h1>
        <div class="card-head">
          <h2 data-i18n="analysis.engine"></h2>
          <span class="engine-depth" data-testid="analysis-depth" aria-live="polite"></span>
          <button type="button" class="btn btn-small" data-testid="analysis-toggle"></button>
        </div>
        <p class="card-note engine-status" data-testid="analysis-status"></p>
        <ol class="engine-lines" data-testid="analysis-lines"></ol>
      </section>
      <section class="card moves-card">
        <h2 data-i18n="analysis.moves"></h2>
        <div class="tree">
          <button type="button" class="tree-move" data-testid="analysis-root" data-i18n="analysis.root"></button>
          <span data-testid="analysis-moves"></span>
        </div>
        ${actions([["analysis-promote", "analysis.promote"], ["analysis-delete", "analysis.delete"]])}
      </section>
      <section class="card">
        <form class="fen-form" data-testid="analysis-fen-form">
          <label class="field"><span data-i18n="analysis.fen"></span>
            <input data-testid="analysis-fen" type="text" maxlength="500" autocomplete="off" spellcheck="false"></label>
          <button type="submit" class="btn btn-small" data-testid="analysis-load" data-i18n="analysis.loadFen"></button>
        </form>
        ${actions([["analysis-export", "analysis.exportPdn"]])}
        <textarea class="analysis-pdn" data-testid="analysis-pdn" rows="6" readonly hidden data-i18n-aria-label="analysis.pdn"></textarea>
      </section>
    </aside>`);
  // The board and its controls are built before the first position comes from the server (see
  // openAnalysis): until then a click, a key or a typed FEN has no position to act on.
  const ready = (action) => (...args) => { if (A.current) action(...args); };
  board = new BoardView(view.querySelector("#analysis-board"), { onActivate: ready(select), onEscape: escape });
  const on = (testid, action) => $(testid).addEventListener("click", ready(action));
  on("analysis-first", () => step("first"));
  on("analysis-previous", () => step("previous"));
  on("analysis-next", () => step("next"));
  on("analysis-last", () => step("last"));
  on("analysis-root", () => goTo(A.root));
  on("analysis-flip", () => { A.flipped = !A.flipped; render(); });
  on("analysis-toggle", toggleEngine);
  on("analysis-edit", startEditing);
  on("analysis-done", finishEditing);
  on("analysis-cancel", cancelEditing);
  on("analysis-clear", () => { A.editing = emptyEditor(A.editing.turn); render(); });
  on("analysis-start-position", () => { A.editing = startEditor(); render(); });
  on("analysis-promote", () => { tree.promote(A.current); render(); });
  on("analysis-delete", () => goTo(tree.remove(A.current)));
  on("analysis-export", exportPdn);
  for (const button of view.querySelectorAll("[data-tool]")) {
    button.addEventListener("click", () => { A.tool = TOOLS[Number(button.dataset.tool)]; render(); });
  }
  $("analysis-turn").addEventListener("input", (event) => { A.editing = { ...A.editing, turn: event.target.value }; render(); });
  $("analysis-fen-form").addEventListener("submit", loadFen);
  $("analysis-fen").addEventListener("input", ready((event) => {
    A.fenDraft = { text: event.target.value, over: shownFen() };
  }));
  // ← and → step through the moves, Home and End to the start and the line's end; the board's own
  // arrow keys (moving between squares) and the fields' keep theirs.
  document.addEventListener("keydown", (event) => {
    if (session.mode !== "analysis" || !A.current || A.editing || event.target.closest?.(".board, input, textarea, select")) return;
    const where = { ArrowLeft: "previous", ArrowRight: "next", Home: "first", End: "last" }[event.key];
    if (where) {
      event.preventDefault();
      step(where);
    }
  });
  // Leaving the view stops the engine; coming back (openAnalysis) starts it again.
  subscribe(() => {
    if (session.mode !== "analysis") stopStream();
    else render();
  });
}

// Show the analysis board: from `fen` when given (a review's position), else as it was left (the
// start position the first time).
export async function openAnalysis(fen = null) {
  if (!view) {
    await Promise.all([stylesheet("/css/analysis.css"), loadPart("analysis")]);
    build();
    applyTo(view);
  }
  if (fen && fen !== A.fen && (await startFrom(fen))) return;
  const refused = A.message; // a FEN in the address that is no position: said over the start position
  if (!A.root) await startFrom(START_FEN);
  else analyse();
  A.message = refused;
  render();
}
