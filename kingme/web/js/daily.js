// The daily game ('Beat Club') and the entries of both dailies.
//
// The daily game is an ordinary game against the computer, played by the web app's own board
// and controls (main.js): this module only fetches the day's setup from the server, starts or
// resumes it through the hooks main.js passes in, hides the takeback and hint buttons (the
// server refuses them too), and keeps the day's result and the streak in localStorage. A day is
// played once: after its result the entry shows 'already played today' and the share text.

import { request } from "./api.js";
import { applyTo, t } from "./i18n.js";
import { load, save } from "./store.js";
import { mountPuzzle, openPuzzle, renderPuzzle } from "./puzzle.js";
import { extendStreak, streakNow } from "./streak.js";

const DAILY_SEED = /^daily-(\d{4}-\d{2}-\d{2})$/;

let hooks;
let today = null; // the server's UTC day, once known
let panel;

function records() {
  return load("daily", { streak: { count: 0, last: null }, days: {}, unfinished: null });
}

function dailyDay(record) {
  return record?.setup?.seed?.match(DAILY_SEED)?.[1] || null;
}

function outcome(result, player) {
  if (!result.winner) return "draw";
  return result.winner === player ? "win" : "loss";
}

// Called whenever the web app's game may have changed: keep the daily's record and result.
function sync() {
  const game = hooks.current();
  const day = game ? dailyDay(game.record) : null;
  const html = document.documentElement;
  const was = html.dataset.daily;
  html.dataset.daily = day ? "on" : "off";
  if (html.dataset.daily !== was && html.dataset.mode === "play") {
    showMode("play");
    // The board's game changed to or from the daily: the address says which (a room keeps its own).
    if (html.dataset.online !== "on") window.history.replaceState(null, "", day ? "/daily" : "/");
  }
  if (!day) return;
  const data = records();
  const player = game.config.side === "red" ? "black" : "white";
  if (game.state.result && !data.days[day]) {
    const result = outcome(game.state.result, player);
    data.days[day] = { result, player, moves: game.record.moves };
    data.streak = result === "win" ? extendStreak(data.streak, day) : { count: 0, last: day };
    data.unfinished = null;
    save("daily", data);
  } else if (!game.state.result) {
    data.unfinished = { day, record: game.record };
    save("daily", data);
  }
  renderPanel();
}

function shareText(day, entry) {
  const moves = [];
  entry.moves.forEach((move, ply) => {
    moves.push(ply % 2 === 0 ? `${ply / 2 + 1}. ${move}` : move);
  });
  const result = t(`daily.results.${entry.result}`);
  const side = hooks.colorName(entry.player);
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
  showMode("play");
  try {
    const daily = await fetchToday();
    const data = records();
    if (data.days[today]) return; // already played today
    const game = hooks.current();
    if (game && dailyDay(game.record) === today) {
      // Already on the board; a level saved by an older page is put right (the server allows one).
      if (game.config.level !== daily.level) hooks.onLoad(await hooks.api.state(game.record), config(daily));
      return;
    }
    if (data.unfinished?.day === today) {
      hooks.onLoad(await hooks.api.state(data.unfinished.record), config(daily));
    } else {
      hooks.onLoad(daily.state, config(daily));
    }
  } catch (error) {
    hooks.onError(error);
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

// Each view has its URL (/, /daily, /puzzle, /puzzle/ID), so a reload or Back shows it again.
function navigate(path) {
  if (window.location.pathname !== path) window.history.pushState(null, "", path);
}

// Show the view of the page's URL (at start and after Back or Forward).
function follow() {
  const puzzle = window.location.pathname.match(/^\/puzzle(?:\/([A-Za-z0-9_-]+))?\/?$/);
  if (window.location.pathname === "/daily") openDailyGame();
  else if (puzzle) {
    showMode("daily-puzzle");
    openPuzzle(puzzle[1] ? { id: puzzle[1] } : {});
  } else showMode("play");
}

function showMode(mode) {
  document.documentElement.dataset.mode = mode;
  for (const entry of document.querySelectorAll("#modes .mode")) {
    // During the daily game only its entry is lit, not Play's.
    const daily = mode === "play" && document.documentElement.dataset.daily === "on";
    const on = daily ? entry.dataset.mode === "daily-game" : entry.dataset.mode === mode;
    entry.classList.toggle("is-active", on);
    if (on) entry.setAttribute("aria-current", "page");
    else entry.removeAttribute("aria-current");
  }
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
  document.getElementById("moves-card").after(panel);
  panel.querySelector("#daily-share").addEventListener("click", share);
}

function stylesheet() {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = "/css/daily.css";
  document.head.appendChild(link);
}

// hooks: { api, colorName, current() -> {record, config, state} | null, onLoad(state, config), onError(error),
//          numbers() -> whether square numbers are shown }
export function mountDailies(given) {
  hooks = given;
  stylesheet();
  const modes = document.getElementById("modes");
  modes.append(button("daily-game", "daily-game", "daily.entry"), button("daily-puzzle", "daily-puzzle", "daily.puzzleEntry"));
  buildPanel();
  mountPuzzle({ ...hooks, navigate });
  applyTo(document);
  modes.addEventListener("click", (event) => {
    const mode = event.target.closest?.(".mode")?.dataset.mode;
    if (mode === "play") {
      showMode("play");
      if (document.documentElement.dataset.online !== "on") navigate(document.documentElement.dataset.daily === "on" ? "/daily" : "/");
    }
    else if (mode === "daily-game") openDailyGame();
    else if (mode === "daily-puzzle") {
      showMode("daily-puzzle");
      openPuzzle();
    }
  });
  const watch = new MutationObserver(() => sync());
  watch.observe(document.getElementById("history"), { childList: true });
  watch.observe(document.getElementById("result-panel"), { attributes: true, attributeFilter: ["hidden"] });
  // A new language: the web app relabels the static text; redraw the texts made here.
  new MutationObserver(() => { renderPanel(); renderPuzzle(); })
    .observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
  sync();
  follow();
  window.addEventListener("popstate", follow);
  fetchToday().catch(hooks.onError);
}
