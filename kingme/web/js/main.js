// The page's start-up and wiring: it loads the configuration once from /api/info, makes the
// board, connects the page's events to the session's actions (session.js, the only code that
// changes the state) and renders every panel from the state after each change.

import { roomInUrl } from "./address.js";
import { request } from "./api.js";
import { BoardView } from "./board.js";
import { boardView, squareLabel } from "./boardview.js";
import { applyTo, loadPart, setLanguage, t } from "./i18n.js";
import { mountDailies } from "./daily.js";
import * as panels from "./panels.js";
import * as controls from "./controls.js";
import * as play from "./session.js";
import { active, blackAtBottom, colorName, interactive, resigner, session, stepShown } from "./state.js";
import { chooseSeed, fillSetupOptions, loadSetupForm, mountSetup, renderSetup, showSetupFor } from "./setup.js";
import * as sound from "./sound.js";
import { storageAvailable } from "./store.js";
import { BOARD_THEMES, PIECE_THEMES } from "./themes.js";

const $ = (id) => document.getElementById(id);

let board;

// ---- rendering ---------------------------------------------------------------------------

// The live position, or the earlier one the player steps through (stepping.js).
function renderBoard({ state, ui, prefs }) {
  const step = stepShown();
  board.setOrientation(blackAtBottom());
  board.render(boardView({
    state: step ? step.state : state, partial: step ? [] : ui.partial, hint: step ? [] : ui.hint,
    playable: interactive(), numbers: prefs.numbers, marks: prefs.marks,
    label: (square, info) => squareLabel(square, info, { t, colorName }),
  }));
}

// A result that appears is brought into view: on a phone it is below the board and the controls.
let resultShown = false;
function revealResult() {
  const shown = !$("result-panel").hidden;
  if (shown && !resultShown) $("result-panel").scrollIntoView({ block: "nearest" });
  resultShown = shown;
}

function render(current) {
  panels.renderPage(current);
  panels.renderModes(current);
  panels.renderError(current);
  renderBoard(current);
  panels.renderStatus(current);
  panels.renderPlayers(current, board.blackAtBottom ? "black" : "white");
  panels.renderHistory(current);
  panels.renderControls(current);
  panels.renderResult(current);
  revealResult();
  panels.renderTotals(current);
  renderSetup();
}

// ---- what the session asks of the page -------------------------------------------------------

function announce(text) {
  const region = $("announcer");
  region.textContent = "";
  window.setTimeout(() => { region.textContent = text; }, 30);
}

function confirmDialog(title, text, action) {
  const dialog = $("confirm-dialog");
  $("confirm-title").textContent = title;
  $("confirm-text").textContent = text;
  $("confirm-button").textContent = action;
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "confirm"), { once: true });
  });
}

async function resign() {
  if (!active()) return;
  const loser = colorName(resigner());
  const sure = await confirmDialog(t("dialog.resignTitle"), t("dialog.resignText", { color: loser }), t("dialog.resignConfirm"));
  if (sure) controls.resign();
}

function pause() {
  if (controls.pause()) $("resume").focus();
}

function resume() {
  if (controls.resume()) board.focus();
}

function newSeed() {
  const words = ["maple", "harbor", "cobalt", "lantern", "meadow", "quartz", "ember", "willow", "falcon", "juniper"];
  const random = new Uint32Array(2);
  window.crypto.getRandomValues(random);
  return `${words[random[0] % words.length]}-${(random[1] % 9000) + 1000}`;
}

// ---- preferences ---------------------------------------------------------------------------

function applyPrefs() {
  document.documentElement.dataset.pieces = session.prefs.pieces;
  document.documentElement.dataset.board = session.prefs.board;
  sound.configure(session.prefs);
}

function fillPrefOptions() {
  const { prefs } = session;
  const pieces = $("pref-pieces");
  pieces.textContent = "";
  for (const [name, sides] of Object.entries(PIECE_THEMES)) {
    const option = document.createElement("option");
    option.value = name;
    option.textContent = `${t(`colors.${sides.black}`)} / ${t(`colors.${sides.white}`)}`;
    pieces.appendChild(option);
  }
  const boards = $("pref-board");
  boards.textContent = "";
  for (const name of BOARD_THEMES) {
    const option = document.createElement("option");
    option.value = name;
    option.textContent = t(`boards.${name}`);
    boards.appendChild(option);
  }
  pieces.value = prefs.pieces;
  boards.value = prefs.board;
  $("pref-language").value = prefs.language;
  $("pref-numbers").checked = prefs.numbers;
  $("pref-marks").checked = prefs.marks;
  $("pref-one-click").checked = prefs.oneClickCapture;
  $("pref-sound").checked = prefs.sound;
  $("pref-music").checked = prefs.music;
  $("pref-sound-volume").value = prefs.soundVolume;
  $("pref-music-volume").value = prefs.musicVolume;
}

// Help, its module and its words (a third of the page's) are loaded when it is first opened.
let help = null;
async function openHelp() {
  if (!help) [help] = await Promise.all([import("./help.js"), loadPart("help")]);
  help.mountHelp($("help-tabs"), $("help-content"));
  $("help-dialog").showModal();
}

// New words (a language, or colour names from a piece theme): the static text and the options.
function relabel() {
  applyTo(document);
  help?.mountHelp($("help-tabs"), $("help-content"));
  fillSetupOptions();
  fillPrefOptions();
  play.changed();
}

function wirePrefs() {
  const bind = (id, key, read) => $(id).addEventListener("input", () => {
    play.setPref(key, read($(id)));
    applyPrefs();
    relabel();
  });
  bind("pref-pieces", "pieces", (e) => e.value);
  bind("pref-board", "board", (e) => e.value);
  bind("pref-numbers", "numbers", (e) => e.checked);
  bind("pref-marks", "marks", (e) => e.checked);
  bind("pref-one-click", "oneClickCapture", (e) => e.checked);
  bind("pref-sound", "sound", (e) => e.checked);
  bind("pref-music", "music", (e) => e.checked);
  bind("pref-sound-volume", "soundVolume", (e) => Number(e.value));
  bind("pref-music-volume", "musicVolume", (e) => Number(e.value));
  $("pref-language").addEventListener("input", async () => {
    // Saved at once, before the translation file arrives, so a reload right after the choice keeps it.
    play.setPref("language", $("pref-language").value);
    play.setPref("language", await setLanguage(session.prefs.language));
    relabel();
  });
}

// ---- wiring ------------------------------------------------------------------------------

function wire() {
  board = new BoardView($("board"), { onActivate: play.select, onEscape: play.escape });
  mountSetup(confirmDialog);
  $("undo").addEventListener("click", controls.undo);
  $("hint").addEventListener("click", controls.hint);
  $("pause").addEventListener("click", pause);
  $("resume").addEventListener("click", resume);
  $("pause-resign").addEventListener("click", resign);
  const restart = async () => {
    if (await controls.leaveGame(confirmDialog, true)) play.restart();
  };
  $("pause-restart").addEventListener("click", restart);
  $("resign").addEventListener("click", resign);
  $("restart").addEventListener("click", restart);
  $("flip").addEventListener("click", play.flip);
  $("end-turn").addEventListener("click", play.endTurn);
  $("replay-same-seed").addEventListener("click", play.restart);
  $("new-seed").addEventListener("click", () => {
    const seed = newSeed();
    chooseSeed(seed);
    play.start({ ...session.match.config, seed }, session.match.setup);
  });
  const showSetup = () => {
    showSetupFor(session.match);
    play.openSetup();
    $("setup-card").scrollIntoView({ block: "nearest" });
    $("setup").opponent.focus({ preventScroll: true });
  };
  $("change-setup").addEventListener("click", showSetup);
  $("new-game").addEventListener("click", showSetup);
  $("setup-cancel").addEventListener("click", () => {
    play.closeSetup();
    board.focus();
  });
  $("board-wrap").addEventListener("keydown", (event) => {
    if ((event.key === "p" || event.key === "P") && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      if (session.ui.paused) resume();
      else pause();
    }
  });
  document.addEventListener("visibilitychange", () => { if (document.hidden) pause(); });
  window.addEventListener("blur", pause);
  // PDN export and import are loaded when first asked for.
  const pdn = (action) => () => import("./pdn.js").then((module) => module[action]()).catch(play.failed);
  $("export-pdn").addEventListener("click", pdn("exportGame"));
  $("import-pdn").addEventListener("click", pdn("importGame"));
  $("open-settings").addEventListener("click", () => $("settings-dialog").showModal());
  $("open-help").addEventListener("click", () => openHelp().catch(play.failed));
  for (const gesture of ["pointerdown", "keydown"]) document.addEventListener(gesture, () => sound.unlock(), { once: true });
  wirePrefs();
}

// ---- parts loaded when first needed (issue 13: the first visit stays light) -------------------

let stepping = null;

function later({ match, state }) {
  $("review-game").hidden = !(match && state?.result && match.record.moves.length);
  if (!stepping && match?.record.moves.length) stepping = import("./stepping.js").then((module) => module.mountStepping()).catch(play.failed);
  if (match && state?.result) import("./archive.js").then((module) => module.keep()).catch(play.failed);
}

// The archive, Review (beside a finished game's result) and the addresses /archive and /review/<id>.
function mountViews() {
  const views = (action) => () => import("./archive-view.js").then((module) => module[action]()).catch(play.failed);
  for (const id of ["open-archive", "record-archive"]) $(id).addEventListener("click", views("openArchive"));
  $("review-game").addEventListener("click", views("reviewCurrent"));
  const follow = () => /^\/(archive|review)(\/|$)/.test(window.location.pathname) && views("follow")();
  window.addEventListener("popstate", follow);
  follow();
}

async function main() {
  const [server, language] = await Promise.all([request("GET", "/api/info"), setLanguage(session.prefs.language)]);
  play.configure(server, language);
  applyPrefs();
  wire();
  // A game begun shows the side panel from its top: the players, the status and the moves.
  const begun = () => {
    document.querySelector(".side").scrollTop = 0;
    board.focus();
  };
  // A move is played out on the board only when the board shows the live game, not an earlier step.
  const animate = (path, captures, piece) => (stepShown() ? Promise.resolve() : board.animate(path, captures, piece));
  play.attach({ animate, announce, begun });
  play.subscribe(render);
  play.subscribe(later);
  fillPrefOptions();
  fillSetupOptions();
  loadSetupForm(session.prefs.setup);
  $("storage-warning").hidden = storageAvailable;
  // A room's address: the online driver is loaded for it (and only for a room).
  const room = roomInUrl();
  if (!(room && await (await import("./online.js")).openLink(room))) {
    if (await play.restore()) showSetupFor(session.match);
    else await play.preview();
  }
  mountDailies(confirmDialog);
  mountViews();
  document.documentElement.dataset.ready = "true";
}

main();
