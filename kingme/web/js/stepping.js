// Stepping through the game on the board: a click on a move of the list, ←/→, Home/End or the
// stepper's buttons show the position as it stood after that move (its last move marked), and
// the board is not playable meanwhile; End or "Back to the game" shows the live position again.
//
// The positions come from the server (/api/state with the record cut at that ply), never from
// rules re-implemented here, and are kept in a small cache shared with the review view
// (positionAt). Stepping is this page's view only: an online room's game is never touched, and
// a move arriving while the player looks back leaves the board where it is and says the game
// moved on. The step shown is session.ui.step (state.js's stepShown() says whether it still
// holds); only this module writes it.

import { api, stylesheet } from "./api.js";
import { applyTo, loadPart, t } from "./i18n.js";
import { changed, failed, subscribe } from "./session.js";
import { session, stepShown } from "./state.js";

const $ = (id) => document.getElementById(id);
const ui = session.ui;
// Positions kept: a long game's every ply in the play screen and in a review, with room to spare.
const POSITIONS_KEPT = 600;
const positions = new Map();

// The server's state after the first `ply` moves of `record` (an ending such as a resignation
// belongs to the whole game and is left out). The answer is cached; a failed one is not.
export function positionAt(record, ply) {
  const cut = { setup: record.setup, moves: record.moves.slice(0, ply) };
  const key = JSON.stringify(cut);
  if (!positions.has(key)) {
    if (positions.size >= POSITIONS_KEPT) positions.delete(positions.keys().next().value);
    const answer = api.state(cut);
    answer.catch(() => positions.delete(key));
    positions.set(key, answer);
  }
  return positions.get(key);
}

// What a key press asks of a stepper: "first", "back", "forward", "last", or null when the key is
// not a stepping key or belongs to what has the focus (a field, a dialog, a board's squares,
// whose arrow keys move between squares).
function stepKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return null;
  const wanted = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last" }[event.key];
  if (!wanted) return null;
  const target = event.target;
  if (target.closest?.("input, select, textarea, dialog, .board, [role=tablist]")) return null;
  return wanted;
}

// ←/→/Home/End call act(action) while when() holds (the view that steps is shown).
export function onStepKeys(when, act) {
  document.addEventListener("keydown", (event) => {
    const action = when() ? stepKey(event) : null;
    if (!action) return;
    event.preventDefault();
    act(action);
  });
}

// The ply a stepping action leads to, from the ply shown, among plies 0…last.
export function plyFor(action, shown, last) {
  const next = { first: 0, back: shown - 1, forward: shown + 1, last }[action];
  return Math.min(last, Math.max(0, next));
}

// ---- the play screen's stepping ----------------------------------------------------------

let asked = 0; // the newest request: older answers are dropped
let aiming = null; // the ply asked for and not yet shown (so that ←← goes two plies back)

function liveLength() {
  return session.match ? session.match.record.moves.length : 0;
}

export function shownPly() {
  return aiming ?? stepShown()?.ply ?? liveLength();
}

export async function stepTo(ply) {
  if (!session.match || !session.state) return;
  const record = session.match.record;
  const target = Math.min(record.moves.length, Math.max(0, ply));
  asked += 1;
  const mine = asked;
  if (target === record.moves.length) {
    aiming = null;
    backToGame();
    return;
  }
  aiming = target;
  try {
    const state = await positionAt(record, target);
    if (mine !== asked) return;
    ui.step = { ply: target, state, moves: record.moves.slice(0, target), live: record.moves.length, games: ui.games };
    ui.partial = [];
    ui.hint = [];
    ui.hintText = "";
    changed();
  } catch (error) {
    if (mine === asked) failed(error);
  } finally {
    if (mine === asked) aiming = null;
  }
}

export function step(action) {
  stepTo(plyFor(action, shownPly(), liveLength()));
}

export function backToGame() {
  asked += 1;
  aiming = null;
  if (!ui.step) return;
  ui.step = null;
  changed();
}

// ---- its controls --------------------------------------------------------------------------

// The stepper's buttons' icons (drawn, so that no font has to have ⏮ or ⏭): bar-and-triangle
// for the first and last positions, a triangle for one move back or forward.
const ICONS = {
  first: "M5 4v12M16 4 7 10l9 6z", back: "M14 4 5 10l9 6z", forward: "M6 4l9 6-9 6z", last: "M15 4v12M4 4l9 6-9 6z",
};
export const STEPS = Object.keys(ICONS);

// The four stepping buttons, each calling act(action); hooks data-testid=<prefix>-<action>.
export function stepButtons(prefix, act) {
  return STEPS.map((action) => {
    const node = document.createElement("button");
    node.type = "button";
    node.className = "btn btn-small step-button";
    node.dataset.testid = `${prefix}-${action}`;
    node.dataset.step = action;
    node.dataset.i18nAriaLabel = `step.${action}`;
    const icon = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    icon.setAttribute("viewBox", "0 0 20 20");
    icon.setAttribute("aria-hidden", "true");
    icon.classList.add("step-icon");
    const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
    path.setAttribute("d", ICONS[action]);
    icon.appendChild(path);
    node.appendChild(icon);
    node.addEventListener("click", () => act(action));
    return node;
  });
}

// The stepper: its buttons beside the seed, above the move list (no row of its own: the list
// keeps its height); while stepping, "Back to the game" and where the board stands under the list.
function build() {
  const bar = document.createElement("div");
  bar.className = "moves-bar";
  const buttons = document.createElement("div");
  buttons.className = "stepper";
  buttons.id = "stepper";
  buttons.setAttribute("role", "toolbar");
  buttons.dataset.i18nAriaLabel = "step.label";
  buttons.append(...stepButtons("step", step));
  const seed = document.querySelector("#moves-card .seed-line");
  seed.before(bar);
  bar.append(seed, buttons);
  const shown = document.createElement("div");
  shown.className = "step-status";
  shown.id = "step-status";
  const live = document.createElement("button");
  live.type = "button";
  live.className = "btn btn-small btn-primary";
  live.id = "step-live";
  live.dataset.testid = "step-live";
  live.dataset.i18n = "step.live";
  live.addEventListener("click", backToGame);
  const where = document.createElement("p");
  where.className = "step-where";
  where.id = "step-where";
  where.dataset.testid = "step-where";
  where.setAttribute("aria-live", "polite");
  shown.append(where, live);
  $("history").after(shown);
  // The list takes the focus, for ←/→ (on the board they go from square to square).
  $("history").tabIndex = 0;
  applyTo(bar);
  applyTo(shown);
  $("history").addEventListener("click", (event) => {
    const item = event.target.closest?.("li[data-ply]");
    if (item) stepTo(Number(item.dataset.ply));
  });
}

// After every change: the stepper's state, and the move shown marked in the list.
function render() {
  const shown = stepShown();
  const live = liveLength();
  const ply = shown ? shown.ply : live;
  document.documentElement.dataset.stepping = shown ? "on" : "off";
  $("stepper").hidden = !session.match || live === 0;
  $("step-status").hidden = !shown;
  for (const [action, off] of [["first", ply === 0], ["back", ply === 0], ["forward", !shown], ["last", !shown]]) {
    $("stepper").querySelector(`[data-testid=step-${action}]`).disabled = off;
  }
  let where = "";
  if (shown) where = live > shown.live ? t("step.movedOn", { n: ply, of: live }) : t("step.where", { n: ply, of: live });
  $("step-where").textContent = where;
  const list = $("history");
  for (const item of list.children) {
    const on = Boolean(shown) && Number(item.dataset.ply) === ply;
    if (on) {
      item.setAttribute("aria-current", "step");
      // Into the list's view, without scrolling the page.
      if (item.offsetTop < list.scrollTop) list.scrollTop = item.offsetTop;
      else if (item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = item.offsetTop + item.offsetHeight - list.clientHeight;
      }
    } else item.removeAttribute("aria-current");
  }
}

let styled = null;

// The style sheet of stepping, the review and the archive, loaded once with the first of them.
export function reviewStyles() {
  styled ??= stylesheet("/css/review.css");
  return styled;
}

// Loaded with a game's first move (the first visit needs none of it): its words and rules first,
// so the stepper never shows unstyled or unworded.
export async function mountStepping() {
  await Promise.all([reviewStyles(), loadPart("review")]);
  build();
  subscribe(render);
  onStepKeys(() => session.mode === "play" && Boolean(session.match), step);
  render();
}
