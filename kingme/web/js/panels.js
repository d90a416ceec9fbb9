// The play screen's panels. Each renders its own part of the page from the session's state and
// writes nothing else: the players, the status line, the move list, the controls, the result, the
// totals, the error banner and the page-wide marks on <html> that the style sheets read.

import { t } from "./i18n.js";
import {
  active, colorName, computerColor, interactive, isDaily, midJump, notation, other, pickedRoute,
  resultReason, resultTitle, session, statusText, undoTurns, vsComputer,
} from "./state.js";

const $ = (id) => document.getElementById(id);

// The page-wide marks: the view shown, an online room, the daily game, the setup, games started.
export function renderPage({ mode, remote, ui }) {
  const html = document.documentElement;
  html.dataset.mode = mode;
  html.dataset.online = remote ? "on" : "off";
  html.dataset.daily = isDaily() ? "on" : "off";
  html.dataset.setup = setupShown() ? "open" : "closed";
  html.dataset.games = String(ui.games);
}

// The mode entries: during the daily game only its entry is lit, not Play's.
export function renderModes({ mode }) {
  const lit = mode === "play" && isDaily() ? "daily-game" : mode;
  for (const entry of document.querySelectorAll("#modes .mode")) {
    const on = entry.dataset.mode === lit;
    entry.classList.toggle("is-active", on);
    if (on) entry.setAttribute("aria-current", "page");
    else entry.removeAttribute("aria-current");
  }
}

export function renderError({ ui }) {
  const box = $("error");
  box.textContent = ui.error;
  box.hidden = !ui.error;
}

// The role shown under a player's name: You / Computer · level / Player 1, or the room's word.
function role(color) {
  const { match, remote } = session;
  if (remote) return remote.role(color);
  if (!match) return "";
  if (vsComputer()) return color === computerColor() ? t("players.computer", { level: t(`levels.${match.config.level}`) }) : t("players.you");
  return color === "black" ? t("players.player1") : t("players.player2");
}

export function renderPlayers({ state, remote }, bottom) {
  // The rules with the players, in every mode: a friend who joins a casual room learns it here.
  $("rules-name").textContent = state ? t(state.variant === "casual" ? "setup.rulesCasual" : "setup.rulesAmerican") : "";
  for (const [id, color] of [["player-bottom", bottom], ["player-top", other(bottom)]]) {
    const box = $(id);
    box.dataset.color = color;
    box.classList.toggle("to-move", Boolean(active() && state.turn === color));
    box.querySelector(".player-name").textContent = colorName(color);
    box.querySelector(".player-role").textContent = role(color);
    const count = state ? state.counts[color] : 12;
    const countBox = box.querySelector(".player-count");
    countBox.textContent = String(count);
    countBox.dataset.testid = `count-${color}`;
    countBox.setAttribute("title", count === 1 ? t("players.piecesOne") : t("players.pieces", { n: count }));
    // Online: whether the seat's player is here, away, reconnecting, or the seat is empty.
    const mark = box.querySelector(".player-presence");
    const presence = remote ? remote.presence(color) : null;
    mark.dataset.testid = `presence-${color}`;
    mark.dataset.connected = String(presence === "here");
    mark.textContent = presence ? t(`online.presence.${presence}`) : "";
  }
}

export function renderStatus({ ui }) {
  $("status").textContent = statusText();
  $("thinking").hidden = !(ui.thinking && !ui.paused);
  $("board-wrap").classList.toggle("is-thinking", ui.thinking);
  $("end-turn").hidden = !(interactive() && midJump() && session.state.variant === "casual" && pickedRoute());
  $("pause-overlay").hidden = !ui.paused;
}

export function renderHistory({ state, match }) {
  const list = $("history");
  list.textContent = "";
  const history = state ? state.history : [];
  history.forEach((item, ply) => {
    const li = document.createElement("li");
    li.dataset.color = item.color;
    li.dataset.ply = String(ply + 1);
    const name = document.createElement("span");
    name.className = "history-side";
    name.textContent = colorName(item.color);
    const move = document.createElement("span");
    move.className = "history-move";
    move.textContent = notation(item);
    li.append(name, " ", move);
    li.title = `${name.textContent} ${move.textContent}`;
    list.appendChild(li);
  });
  $("history-empty").hidden = history.length > 0;
  // The last move in view, also once the cards around the list have taken their new sizes.
  list.scrollTop = list.scrollHeight;
  requestAnimationFrame(() => { list.scrollTop = list.scrollHeight; });
  $("steps").textContent = String(state ? state.steps : 0);
  $("seed-shown").textContent = match ? match.record.setup.seed : "";
}

// The match setup is shown before a game and on New game, not during play.
function setupShown() {
  return !session.match || session.ui.setupOpen;
}

export function renderControls({ match, ui, remote }) {
  const playing = active();
  $("undo").disabled = !playing || ui.busy || ui.paused || (!midJump() && (undoTurns() === 0 || match.undoable < undoTurns()));
  $("hint").disabled = !interactive();
  $("pause").disabled = !playing || ui.paused;
  // Online: only a seated player whose game is on (and whose connection is up) can resign.
  $("resign").disabled = remote ? !remote.canResign() : !playing;
  $("resign").hidden = Boolean(remote && !remote.color()); // spectators have nothing to resign
  $("restart").disabled = !match || isDaily();
  $("setup-card").hidden = !setupShown();
  $("setup-cancel").hidden = !match;
}

export function renderResult({ match, state }) {
  const over = Boolean(match && state?.result);
  $("result-panel").hidden = !over;
  if (!over) return;
  $("result").textContent = resultTitle();
  $("result-reason").textContent = resultReason();
  $("result-panel").dataset.winner = state.result.winner || "draw";
}

export function renderTotals({ totals, server }) {
  const list = $("totals");
  list.textContent = "";
  for (const [key, value] of [["blackWins", totals.black], ["whiteWins", totals.white], ["draws", totals.draws]]) {
    const dt = document.createElement("dt");
    dt.textContent = t(`totals.${key}`, { color: colorName(key === "blackWins" ? "black" : "white") });
    const dd = document.createElement("dd");
    dd.textContent = String(value);
    dd.dataset.testid = `total-${key}`;
    list.append(dt, dd);
  }
  const body = $("level-totals").querySelector("tbody");
  body.textContent = "";
  for (const level of server.levels) {
    const row = totals.levels[level];
    if (!row) continue;
    const tr = document.createElement("tr");
    tr.dataset.level = level;
    for (const text of [t(`levels.${level}`), row.wins, row.draws, row.losses]) {
      const td = document.createElement("td");
      td.textContent = String(text);
      tr.appendChild(td);
    }
    body.appendChild(tr);
  }
  $("level-totals").hidden = !body.children.length;
}
