// The daily game ('Beat Club') and the entries of both dailies.
//
// The daily game is an ordinary game against the computer, played by the web app's own board
// and controls: this module only fetches the day's setup from the server, starts or resumes it
// through the session's actions, and keeps the day's result and the streak in localStorage (the
// style sheet hides the takeback and hint buttons; the server refuses them too). A day is played
// once: after its result the entry shows 'already played today' and the share text.

import { navigate } from "./address.js";
import { api, request } from "./api.js";
import { applyTo, t } from "./i18n.js";
import { begin, failed, mayLeaveRoom, putAway, setMode, subscribe } from "./session.js";
import { colorName, session } from "./state.js";
import { load, save } from "./store.js";
import { dailyDay, extendStreak, streakNow } from "./days.js";

// Whether the board's game was the daily at the last change (null before the first).
let wasDaily = null;
let today = null; // the server's UTC day, once known
let panel;

function records() {
  return load("daily", { streak: { count: 0, last: null }, days: {}, unfinished: null });
}

function outcome(result, player) {
  if (!result.winner) return "draw";
  return result.winner === player ? "win" : "loss";
}

// Called after every change of the session: keep the daily's record and result.
function sync() {
  const { match, state } = session;
  const day = match ? dailyDay(match.record) : null;
  if (wasDaily !== null && Boolean(day) !== wasDaily && session.mode === "play" && !session.remote) {
    // The board's game changed to or from the daily: the address says which (a room keeps its own).
    window.history.replaceState(null, "", day ? "/daily" : "/");
  }
  wasDaily = Boolean(day);
  if (!day) return;
  const data = records();
  const player = match.config.side === "red" ? "black" : "white";
  if (state.result && !data.days[day]) {
    const result = outcome(state.result, player);
    data.days[day] = { result, player, moves: match.record.moves };
    data.streak = result === "win" ? extendStreak(data.streak, day) : { count: 0, last: day };
    data.unfinished = null;
    save("daily", data);
  } else if (!state.result) {
    data.unfinished = { day, record: match.record };
    save("daily", data);
  }
}

function shareText(day, entry) {
  const moves = [];
  entry.moves.forEach((move, ply) => {
    moves.push(ply % 2 === 0 ? `${ply / 2 + 1}. ${move}` : move);
  });
  const result = t(`daily.results.${entry.result}`);
  const side = colorName(entry.player);
  return `${t("daily.shareHead", { day, result, side })}\n${moves.join(" ")}`;
}

function renderPanel() {
  const data = records();
  const streak = streakNow(data.streak, today);
  panel.querySelector("[data-testid=streak]").textContent = String(streak);
  const entry = today ? data.days[today] : null;
  const done = panel.querySelector("#daily-done");
  done.hidden = !entry;
  if (entry) {
    done.querySelector("#daily-done-text").textContent = t("daily.alreadyPlayed", {
      result: t(`daily.results.${entry.result}`),
    });
    panel.querySelector("#daily-share-text").value = shareText(today, entry);
  }
}

function config(daily) {
  return {
    opponent: "computer", level: daily.level, side: daily.player === "black" ? "red" : "white",
    rules: "american", position: "standard", seed: daily.setup.seed,
  };
}

async function fetchToday() {
  const daily = await request("GET", "/api/daily/game");
  today = daily.date;
  renderPanel();
  return daily;
}

async function openDailyGame() {
  navigate("/daily");
  setMode("play");
  try {
    const daily = await fetchToday();
    const data = records();
    if (data.days[today]) return; // already played today
    const { match } = session;
    if (match && dailyDay(match.record) === today) {
      // Already on the board; a level saved by an older page is put right (the server allows one).
      if (match.config.level !== daily.level) begin(config(daily), await api.state(match.record));
      return;
    }
    const saved = data.unfinished?.day === today ? await api.state(data.unfinished.record) : daily.state;
    begin(config(daily), saved);
  } catch (error) {
    failed(error);
  }
}

async function share() {
  const text = panel.querySelector("#daily-share-text");
  text.hidden = false;
  text.select();
  try {
    await navigator.clipboard.writeText(text.value);
    panel.querySelector("#daily-share-note").textContent = t("daily.copied");
  } catch {
    panel.querySelector("#daily-share-note").textContent = t("daily.copyByHand");
  }
}

function button(mode, testid, key) {
  const entry = document.createElement("button");
  entry.type = "button";
  entry.className = "mode";
  entry.dataset.mode = mode;
  entry.dataset.testid = testid;
  entry.dataset.i18n = key;
  return entry;
}

// The analysis board's entry: on a phone an icon (a magnifier over a board's corner), as Help and
// Settings are, so the row of modes still fits; its word stays its accessible name.
function analysisEntry() {
  const entry = button("analysis", "analysis-entry", "nav.analysis");
  delete entry.dataset.i18n;
  entry.innerHTML = `<svg class="nav-icon" viewBox="0 0 20 20" aria-hidden="true"><circle cx="8.5" cy="8.5" r="5.5"/><path d="M12.5 12.5 L17.5 17.5"/></svg><span class="nav-label" data-i18n="nav.analysis"></span>`;
  return entry;
}

// Play (and the address /): the player's own games. The daily game, if on the board, is put away
// and waits for the Daily entry; a room stays where it is.
function playOwnGames() {
  setMode("play");
  if (session.remote) return;
  if (window.location.pathname !== "/") navigate("/");
  if (dailyDay(session.match?.record)) putAway().catch(failed);
}

// Show the view of the page's URL (at start and after Back or Forward).
function follow() {
  const puzzle = window.location.pathname.match(/^\/puzzle(?:\/([A-Za-z0-9_-]+))?\/?$/);
  if (window.location.pathname === "/daily") openDailyGame();
  else if (puzzle) showPuzzle(puzzle[1] ? { id: puzzle[1] } : { date: new URLSearchParams(window.location.search).get("date") });
  else if (/^\/analysis\/?$/.test(window.location.pathname)) showAnalysis(new URLSearchParams(window.location.search).get("fen"));
  else if (window.location.pathname === "/") playOwnGames();
  else setMode("play");
}

// The analysis board's module is loaded the first time the board is shown; `fen` (from a
// review's link, /analysis?fen=...) is the position to start from.
function showAnalysis(fen = null) {
  setMode("analysis");
  import("./analysis.js").then((analysis) => analysis.openAnalysis(fen)).catch(failed);
}

// The puzzle view's module is loaded the first time the view is shown.
function showPuzzle(which = {}) {
  setMode("daily-puzzle");
  import("./puzzle.js").then((puzzle) => puzzle.openPuzzle(which)).catch(failed);
}

function buildPanel() {
  panel = document.createElement("section");
  panel.className = "card daily-card";
  panel.id = "daily-card";
  panel.innerHTML = `
    <h2 data-i18n="daily.title"></h2>
    <p class="card-note" data-i18n="daily.rules"></p>
    <p class="daily-streak"><span data-i18n="daily.streak"></span> <strong data-testid="streak">0</strong></p>
    <div id="daily-done" hidden>
      <p id="daily-done-text" data-testid="daily-done"></p>
      <button type="button" class="btn btn-small" data-testid="share" id="daily-share" data-i18n="daily.share"></button>
      <textarea id="daily-share-text" data-testid="share-text" rows="4" readonly hidden></textarea>
      <p id="daily-share-note" class="card-note" role="status"></p>
    </div>`;
  document.getElementById("side-main").after(panel);
  panel.querySelector("#daily-share").addEventListener("click", share);
}

// confirm(title, text, action) -> Promise<bool>: the page's dialog, to ask before leaving a room.
export function mountDailies(confirm) {
  const modes = document.getElementById("modes");
  modes.append(
    button("daily-game", "daily-game", "daily.entry"),
    button("daily-puzzle", "daily-puzzle", "daily.puzzleEntry"),
    analysisEntry(),
  );
  buildPanel();
  applyTo(document);
  modes.addEventListener("click", (event) => {
    const mode = event.target.closest?.(".mode")?.dataset.mode;
    if (mode === "play") playOwnGames();
    else if (mode === "daily-game") mayLeaveRoom(confirm).then((leave) => leave && openDailyGame());
    else if (mode === "daily-puzzle") showPuzzle();
    else if (mode === "analysis") {
      navigate("/analysis");
      showAnalysis();
    }
  });
  subscribe(() => {
    sync();
    renderPanel();
  });
  sync();
  follow();
  window.addEventListener("popstate", follow);
  fetchToday().catch(failed);
}
