// The archive view (/archive): the player's last finished games, newest first, each opening in
// the review (/review/<id>); and the ways into a review: the result panel's Review button, a
// pasted PDN, an address. Loaded the first time one of them is used. It renders the archive
// from archive.js's entries and keeps no state of its own but the list it has drawn.

import { navigate } from "./address.js";
import { api } from "./api.js";
import { archived, find, keep } from "./archive.js";
import { applyTo, language, loadPart, t } from "./i18n.js";
import { failed, setMode, showError, subscribe } from "./session.js";
import { colorName, session } from "./state.js";
import { reviewStyles } from "./stepping.js";
import { addView } from "./views.js";

let view;
const $ = (id) => document.getElementById(id);

// The result as the player sees it: won, lost or drawn when the player had a side, else who won.
function outcome(entry) {
  const { winner } = entry.result;
  if (!winner) return t("result.draw");
  if (entry.player) return t(entry.player === winner ? "archive.won" : "archive.lost");
  return t(`result.${winner}`, { color: colorName(winner) });
}

function opponent(entry) {
  if (entry.kind === "computer") return t("archive.vsComputer", { level: t(`levels.${entry.level}`) });
  return t(`archive.${entry.kind}`);
}

function render() {
  if (!view || session.mode !== "archive") return;
  const list = view.querySelector("#archive-list");
  list.textContent = "";
  const games = archived();
  view.querySelector("#archive-empty").hidden = games.length > 0;
  const dates = new Intl.DateTimeFormat(language(), { dateStyle: "medium", timeStyle: "short" });
  for (const entry of games) {
    const item = document.createElement("li");
    const open = document.createElement("a");
    open.className = "archive-entry";
    open.href = `/review/${entry.id}`;
    open.dataset.testid = "archive-entry";
    open.dataset.id = entry.id;
    const parts = [dates.format(new Date(entry.date)), opponent(entry), outcome(entry), t("archive.moves", { n: entry.record.moves.length })];
    if (entry.player) parts.splice(2, 0, t("archive.yourSide", { color: colorName(entry.player) }));
    for (const [i, part] of parts.entries()) {
      const span = document.createElement("span");
      span.className = i === 0 ? "archive-date" : "archive-part";
      span.textContent = part;
      open.appendChild(span);
    }
    if (entry.review) {
      const mark = document.createElement("span");
      mark.className = "archive-reviewed";
      mark.textContent = t("archive.reviewed");
      open.appendChild(mark);
    }
    open.addEventListener("click", (event) => {
      event.preventDefault();
      openReview(entry);
    });
    item.appendChild(open);
    list.appendChild(item);
  }
}

function build() {
  view = addView("archive", `
    <section class="card archive-card">
      <h1 id="archive-title" data-i18n="archive.title"></h1>
      <p class="card-note" data-i18n="archive.note"></p>
      <p id="archive-empty" class="empty" data-testid="archive-empty" data-i18n="archive.empty" hidden></p>
      <ol id="archive-list" class="archive-list" data-testid="archive-list"></ol>
    </section>`);
  applyTo(view);
  subscribe(render);
  // The review's way back to the archive stays on this page.
  document.addEventListener("click", (event) => {
    if (!event.target.closest?.("#review-archive")) return;
    event.preventDefault();
    openArchive();
  });
}

export function openArchive() {
  navigate("/archive");
  setMode("archive");
  render();
}

async function openReview(entry, path = entry.id ? `/review/${entry.id}` : "/review") {
  const { open } = await import("./review.js");
  navigate(path);
  setMode("review");
  open(entry);
}

// The game that has just ended on the board, from its result panel.
export async function reviewCurrent() {
  const entry = await keep();
  if (entry) await openReview(entry, find(entry.id) ? `/review/${entry.id}` : "/review");
}

// A pasted PDN game (the server has read it: `state` is its last position and record).
export async function reviewPasted(state) {
  try {
    const { pdn } = await api.exportPdn(state.record, { Event: t("pdn.event") });
    await openReview({
      id: null, kind: "imported", level: null, player: null, result: state.result || { winner: null, reason: "unfinished" },
      record: state.record, pdn, date: new Date().toISOString(), review: null,
    });
  } catch (error) {
    failed(error);
  }
}

// The view of the page's address: /archive, or /review/<id> for an archived game; a review
// whose game is not (or no longer) in the archive shows the archive, saying so.
export function follow() {
  const path = window.location.pathname;
  const id = path.match(/^\/review\/([A-Za-z0-9_-]{1,40})\/?$/)?.[1];
  const entry = id ? find(id) : null;
  if (entry) {
    openReview(entry).catch(failed);
    return;
  }
  if (path !== "/archive") {
    window.history.replaceState(null, "", "/archive");
    showError(t("archive.gone"));
  }
  openArchive();
}

await Promise.all([reviewStyles(), loadPart("review")]);
build();
