// The one-device game: setup, turns, the computer's replies, undo, pause, resign, results.
// The browser keeps the game record (setup + moves) and the server answers every change with
// the whole state, legal routes included: nothing here decides what is legal.

import { api, ApiError, request } from "./api.js";
import { BoardView } from "./board.js";
import * as routes from "./routes.js";
import { applyTo, entry, setLanguage, t } from "./i18n.js";
import * as sound from "./sound.js";
import { load, remove, save, storageAvailable } from "./store.js";
import { BOARD_THEMES, PIECE_THEMES, sideColors } from "./themes.js";
import { mountHelp } from "./help.js";
import { mountPdn } from "./pdn.js";
import { mountDailies } from "./daily.js";
import { createRoom, mountOnline, openLink, renderRoom, roomInUrl } from "./online.js";

// The server's own constants (its levels, the undo limit), loaded once from /api/info at start.
let server = { levels: [], undoLimit: 0 };
// The server treats a game with this seed as the day's game (no other level, no takebacks).
const DAILY_SEED = /^daily-\d{4}-\d{2}-\d{2}$/;
const DEFAULT_SETUP = { opponent: "computer", level: "casual", side: "red", rules: "american", position: "standard", seed: "checkers-1" };
const DEFAULT_PREFS = {
  language: "en", pieces: "red-white", board: "walnut", numbers: true, marks: true,
  sound: true, soundVolume: 60, music: false, musicVolume: 30, setup: DEFAULT_SETUP,
};

const $ = (id) => document.getElementById(id);

const prefs = { ...DEFAULT_PREFS, ...load("prefs", {}) };
prefs.setup = { ...DEFAULT_SETUP, ...(prefs.setup || {}) };
const totals = { black: 0, white: 0, draws: 0, levels: {}, ...load("totals", {}) };

// match: the game being played. { config, setup, record, undoable, flipped, counted }
let match = null;
// state: the server's last answer for match.record.
let state = null;
// ui: what the page is doing right now (not saved).
const ui = {
  partial: [], hint: [], hintText: "", paused: false, thinking: false, busy: false, epoch: 0, abort: null, resumeWaiters: [],
  setupOpen: false, // the match setup is shown before a game and on New game, not during play
};

let board;
// remote: the online room playing this game (online.js), or null for a game on this device.
let remote = null;

// ---- names -------------------------------------------------------------------------------

function colorName(color) {
  return t(`colors.${sideColors(prefs.pieces)[color]}`);
}

function humanColor() {
  if (remote) return remote.color() || "black";
  return match?.config.side === "white" ? "white" : "black";
}

function other(color) {
  return color === "black" ? "white" : "black";
}

function vsComputer() {
  return match?.config.opponent === "computer";
}

function isDaily() {
  return Boolean(match && DAILY_SEED.test(match.record.setup.seed));
}

// A daily game in progress keeps its level and cannot be started over: the day is played once.
function dailyInPlay() {
  return isDaily() && active();
}

function computerColor() {
  return vsComputer() ? other(humanColor()) : null;
}

function notation(entryItem) {
  const joiner = entryItem.captures.length ? t("history.capture") : t("history.step");
  const king = entryItem.crown ? ` ${t("history.king")}` : "";
  return `${entryItem.path.join(joiner)}${king}`;
}

// ---- state of play -----------------------------------------------------------------------

function active() {
  return Boolean(match && state && !state.result);
}

function computerToMove() {
  return active() && vsComputer() && state.turn === computerColor();
}

function interactive() {
  return active() && !ui.paused && !ui.thinking && !ui.busy && !computerToMove() && (!remote || remote.canMove());
}

function routesFrom(prefix) {
  return routes.routesFrom(state.moves, prefix);
}

function startSquares() {
  return routes.startSquares(state.moves);
}

function midJump() {
  return ui.partial.length > 1;
}

function exactRoute() {
  return routes.exactRoute(state.moves, ui.partial);
}

// ---- drawing -----------------------------------------------------------------------------

function squareLabel(square, { piece, target, movable, capturable, selected, lastMove, hint }) {
  const parts = [t("board.square", { n: square })];
  if (piece) parts.push(t(`board.${piece.kind}`, { color: colorName(piece.color).toLowerCase() }));
  else parts.push(t("board.empty"));
  if (piece?.taken) parts.push(t("board.taken"));
  if (selected) parts.push(t("board.selected"));
  if (movable) parts.push(t("board.movable"));
  if (target?.next) parts.push(t("board.target"));
  if (target?.numbers.length) parts.push(t("board.landing", { n: target.numbers.join(", ") }));
  if (capturable) parts.push(t("board.capturable"));
  if (lastMove) parts.push(t("board.lastMove"));
  if (hint) parts.push(t("board.hint"));
  return parts.join(", ");
}

function boardView() {
  const pieces = {};
  for (const [square, piece] of Object.entries(state ? state.board : {})) pieces[square] = { ...piece };
  const view = {
    pieces, movable: new Set(), selected: null, targets: new Map(), capturable: new Set(),
    lastMove: [], hint: ui.hint, numbers: prefs.numbers, marks: prefs.marks, label: squareLabel,
  };
  if (!state) return view;
  const last = state.history[state.history.length - 1];
  if (last && !midJump()) view.lastMove = last.path;
  if (midJump()) {
    const route = routesFrom(ui.partial)[0];
    const from = ui.partial[0];
    const here = ui.partial[ui.partial.length - 1];
    pieces[here] = pieces[from];
    delete pieces[from];
    for (const captured of route.captures.slice(0, ui.partial.length - 1)) pieces[captured] = { ...pieces[captured], taken: true };
  }
  if (!interactive()) return view;
  const candidates = routesFrom(ui.partial);
  if (ui.partial.length === 0) {
    view.movable = startSquares();
  } else {
    const here = ui.partial[ui.partial.length - 1];
    view.selected = here;
    view.movable = midJump() ? new Set([here]) : startSquares();
    if (midJump() && state.variant === "casual") for (const square of startSquares()) if (square !== ui.partial[0]) view.movable.add(square);
    for (const route of candidates) {
      for (let i = ui.partial.length; i < route.path.length; i += 1) {
        const square = route.path[i];
        const target = view.targets.get(square) || { next: false, numbers: [] };
        if (i === ui.partial.length) target.next = true;
        if (route.captures.length && !target.numbers.includes(i)) target.numbers.push(i);
        view.targets.set(square, target);
      }
    }
  }
  const taking = ui.partial.length ? candidates : state.moves;
  const done = ui.partial.length - 1;
  for (const route of taking) route.captures.forEach((square, i) => { if (i >= done) view.capturable.add(square); });
  return view;
}

function statusText() {
  if (!match || !state) return t("status.ready");
  if (state.result) return resultTitle();
  if (ui.paused) return t("status.paused");
  if (remote?.status()) return remote.status();
  const color = colorName(state.turn);
  if (ui.thinking || computerToMove()) return t("status.thinking", { color });
  if (midJump()) {
    const n = ui.partial[ui.partial.length - 1];
    return t(exactRoute() ? "status.continueOrEnd" : "status.continueJumping", { color, n });
  }
  if (ui.hintText) return ui.hintText;
  if (ui.partial.length === 1) return `${t("status.turn", { color })} ${t("status.selected", { n: ui.partial[0] })}`;
  if (state.captureRequired) return t("status.captureRequired", { color });
  return t("status.yourTurn", { color });
}

function resultTitle() {
  const { winner } = state.result;
  return winner ? t(`result.${winner}`, { color: colorName(winner) }) : t("result.draw");
}

function resultReason() {
  const { winner, reason } = state.result;
  return t(`result.${reason}`, { loser: winner ? colorName(other(winner)) : "" });
}

function renderPlayers() {
  const bottom = board.blackAtBottom ? "black" : "white";
  for (const [id, color] of [["player-bottom", bottom], ["player-top", other(bottom)]]) {
    const box = $(id);
    box.dataset.color = color;
    box.classList.toggle("to-move", Boolean(active() && state.turn === color));
    box.querySelector(".player-name").textContent = colorName(color);
    let role = "";
    if (remote) role = remote.role(color);
    else if (match) {
      if (vsComputer()) role = color === computerColor() ? t("players.computer", { level: t(`levels.${match.config.level}`) }) : t("players.you");
      else role = color === "black" ? t("players.player1") : t("players.player2");
    }
    box.querySelector(".player-role").textContent = role;
    const count = state ? state.counts[color] : 12;
    const countBox = box.querySelector(".player-count");
    countBox.textContent = String(count);
    countBox.dataset.testid = `count-${color}`;
    countBox.setAttribute("title", count === 1 ? t("players.piecesOne") : t("players.pieces", { n: count }));
  }
}

function renderHistory() {
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
    list.appendChild(li);
  });
  $("history-empty").hidden = history.length > 0;
  list.scrollTop = list.scrollHeight;
  $("steps").textContent = String(state ? state.steps : 0);
  $("seed-shown").textContent = match ? match.record.setup.seed : "";
}

function undoTurns() {
  if (!active() || !state.history.length) return 0;
  if (!vsComputer()) return 1;
  const history = state.history;
  const last = history[history.length - 1];
  if (last.color === humanColor()) return 1;
  return history.length >= 2 ? 2 : 0;
}

function renderControls() {
  const playing = active();
  $("undo").disabled = !playing || ui.busy || ui.paused || (!midJump() && (undoTurns() === 0 || match.undoable < undoTurns()));
  $("hint").disabled = !interactive();
  $("pause").disabled = !playing || ui.paused;
  $("resign").disabled = !playing;
  $("resign").hidden = Boolean(remote && !remote.color()); // spectators have nothing to resign
  $("restart").disabled = !match || isDaily();
  $("end-turn").hidden = !(interactive() && midJump() && state.variant === "casual" && exactRoute());
  $("setup-card").hidden = Boolean(match) && !ui.setupOpen;
  $("setup-cancel").hidden = !match;
  document.documentElement.dataset.setup = $("setup-card").hidden ? "closed" : "open";
  $("pause-overlay").hidden = !ui.paused;
  $("thinking").hidden = !(ui.thinking && !ui.paused);
  $("board-wrap").classList.toggle("is-thinking", ui.thinking);
  const over = Boolean(match && state?.result);
  $("result-panel").hidden = !over;
  if (over) {
    $("result").textContent = resultTitle();
    $("result-reason").textContent = resultReason();
    $("result-panel").dataset.winner = state.result.winner || "draw";
  }
}

function render() {
  if (match) board.setOrientation(match.flipped ? humanColor() !== "black" : humanColor() === "black");
  board.render(boardView());
  $("status").textContent = statusText();
  renderPlayers();
  renderHistory();
  renderControls();
  updateSetupNotes();
  renderRoom();
}

// ---- announcements -----------------------------------------------------------------------

function announce(text) {
  const region = $("announcer");
  region.textContent = "";
  window.setTimeout(() => { region.textContent = text; }, 30);
}

function describeMove(item) {
  const parts = [t("announce.move", { color: colorName(item.color), move: notation(item) })];
  if (item.captures.length) parts.push(t("announce.captures", { n: item.captures.length }));
  if (item.crown) parts.push(t("announce.crowned", { color: colorName(item.color) }));
  return parts.join(" ");
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

function failed(error) {
  if (error?.name === "AbortError") return;
  if (error instanceof ApiError) showError(error.status ? t("errors.server", { message: error.message }) : t("errors.network"));
  else { showError(String(error)); console.error(error); }
}

// ---- saving and totals --------------------------------------------------------------------

function persist() {
  if (remote) return;
  if (match) save("match", match);
  else remove("match");
}

function savePrefs() {
  save("prefs", prefs);
}

function count(result) {
  if (!state.standard || match.counted) return;
  match.counted = true;
  if (result.winner) totals[result.winner] += 1;
  else totals.draws += 1;
  if (vsComputer()) {
    const level = match.config.level;
    const row = totals.levels[level] || { wins: 0, draws: 0, losses: 0 };
    if (!result.winner) row.draws += 1;
    else if (result.winner === humanColor()) row.wins += 1;
    else row.losses += 1;
    totals.levels[level] = row;
  }
  save("totals", totals);
}

function renderTotals() {
  const list = $("totals");
  list.textContent = "";
  for (const [key, value] of [["blackWins", totals.black], ["whiteWins", totals.white], ["draws", totals.draws]]) {
    const color = key === "blackWins" ? "black" : "white";
    const dt = document.createElement("dt");
    dt.textContent = t(`totals.${key}`, { color: colorName(color) });
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

// ---- applying the server's answers -----------------------------------------------------------

function adopt(next, { moved = null } = {}) {
  // Only a result this state brings is announced (an online room resends finished games' states).
  const ended = Boolean(next.result && !state?.result);
  state = next;
  match.record = next.record;
  ui.partial = [];
  ui.hint = [];
  ui.hintText = "";
  if (moved) {
    match.undoable = Math.min(server.undoLimit, match.undoable + 1);
    const item = next.history[next.history.length - 1];
    sound.play(item.crown ? "crown" : item.captures.length ? "capture" : "move");
    announce(describeMove(item));
  }
  if (ended) {
    count(next.result);
    renderTotals();
    const human = remote ? remote.color() : vsComputer() ? humanColor() : null;
    sound.play(!next.result.winner ? "draw" : human && next.result.winner !== human ? "lose" : "win");
    announce(`${resultTitle()}. ${resultReason()}`);
  }
  persist();
  render();
}

function waitUntilResumed() {
  if (!ui.paused) return Promise.resolve();
  return new Promise((resolve) => ui.resumeWaiters.push(resolve));
}

async function computerTurn() {
  if (!computerToMove() || ui.thinking) return;
  const epoch = ui.epoch;
  ui.thinking = true;
  ui.abort = new AbortController();
  render();
  try {
    const answer = await api.computer(match.record, match.config.level, ui.abort.signal);
    if (epoch !== ui.epoch) return;
    showError("");
    await waitUntilResumed();
    if (epoch !== ui.epoch) return;
    const item = answer.state.history[answer.state.history.length - 1];
    await board.animate(item.path, item.captures, state.board[String(item.path[0])]);
    if (epoch !== ui.epoch) return;
    ui.thinking = false;
    adopt(answer.state, { moved: true });
  } catch (error) {
    if (epoch === ui.epoch) {
      failed(error);
      // The server could not be reached: ask again shortly, the page stays usable meanwhile.
      if (error instanceof ApiError && error.status === 0) window.setTimeout(() => epoch === ui.epoch && computerTurn(), 3000);
    }
  } finally {
    if (epoch === ui.epoch) {
      ui.thinking = false;
      ui.abort = null;
      render();
    }
  }
}

function cancelPending() {
  ui.epoch += 1;
  ui.abort?.abort();
  ui.abort = null;
  ui.thinking = false;
  ui.busy = false;
}

async function commit(route) {
  const epoch = ui.epoch;
  ui.busy = true;
  render();
  if (remote) {
    remote.move(route); // the server's event (or refusal) settles it
    return;
  }
  try {
    const record = { ...match.record, moves: [...match.record.moves, route.notation] };
    const next = await api.state(record);
    if (epoch !== ui.epoch) return;
    ui.busy = false;
    adopt(next, { moved: true });
    computerTurn();
  } catch (error) {
    if (epoch === ui.epoch) {
      ui.busy = false;
      ui.partial = [];
      failed(error);
      render();
    }
  }
}

// ---- playing -------------------------------------------------------------------------------

async function extend(square) {
  const from = ui.partial[ui.partial.length - 1];
  const route = routesFrom([...ui.partial, square])[0];
  const step = ui.partial.length - 1;
  const piece = boardView().pieces[from];
  ui.partial = [...ui.partial, square];
  ui.hint = [];
  ui.hintText = "";
  const epoch = ui.epoch;
  ui.busy = true;
  await board.animate([from, square], route.captures.length ? [route.captures[step]] : [], piece);
  ui.busy = false;
  if (epoch !== ui.epoch) return;
  const exact = exactRoute();
  const longer = routesFrom(ui.partial).some((r) => r.path.length > ui.partial.length);
  if (exact && !longer) {
    commit(exact);
    return;
  }
  sound.play("capture");
  announce(statusText());
  render();
}

function activate(square) {
  sound.unlock();
  if (!interactive()) return;
  const here = ui.partial[ui.partial.length - 1];
  const nexts = routes.nextSquares(state.moves, ui.partial);
  if (ui.partial.length && nexts.has(square)) {
    extend(square);
    return;
  }
  if (midJump()) {
    if (state.variant === "casual" && startSquares().has(square) && square !== ui.partial[0]) {
      ui.partial = [square];
      announce(t("announce.cancelled"));
      sound.play("select");
      render();
    } else {
      sound.play("illegal");
      announce(statusText());
    }
    return;
  }
  if (startSquares().has(square) && square !== here) {
    ui.partial = [square];
    ui.hint = [];
    ui.hintText = "";
    sound.play("select");
    announce(t("announce.selected", { n: square }));
  } else if (ui.partial.length) {
    ui.partial = [];
    announce(t("announce.cleared"));
  }
  render();
}

function escape() {
  if (ui.partial.length === 1) {
    ui.partial = [];
    announce(t("announce.cleared"));
    render();
  }
}

function endTurn() {
  const route = exactRoute();
  if (route && interactive()) commit(route);
}

// ---- game controls ---------------------------------------------------------------------------

function formConfig() {
  const form = $("setup");
  return {
    opponent: form.opponent.value, level: form.level.disabled ? prefs.setup.level : form.level.value, side: form.side.value,
    rules: form.rules.value, position: form.position.value, seed: form.seed.value.trim(),
  };
}

async function start(config, setup = null) {
  leaveRoom();
  cancelPending();
  const epoch = ui.epoch;
  const wanted = setup ? { ...setup, seed: config.seed || setup.seed } : { variant: config.rules, position: config.position, seed: config.seed };
  try {
    const first = await api.start(wanted);
    if (epoch !== ui.epoch) return;
    begin(config, first);
  } catch (error) {
    failed(error);
  }
}

function begin(config, first) {
  leaveRoom();
  showError("");
  const setup = first.record.setup;
  match = {
    config: { ...config, rules: setup.variant, seed: setup.seed },
    setup: { variant: setup.variant, fen: setup.fen, seed: setup.seed },
    record: first.record,
    undoable: Math.min(server.undoLimit, first.record.moves.length),
    flipped: false,
    counted: Boolean(first.result),
  };
  state = first;
  ui.partial = [];
  ui.hint = [];
  ui.hintText = "";
  ui.paused = false;
  ui.setupOpen = false;
  persist();
  render();
  const html = document.documentElement;
  html.dataset.games = String(Number(html.dataset.games || 0) + 1);
  announce(t("announce.started", { color: colorName(first.turn) }));
  board.focus();
  computerTurn();
}

// An online room's first state: its game replaces the one on this device (which stays saved).
function enterRoom(driver, first) {
  cancelPending();
  remote = driver;
  match = {
    config: { ...DEFAULT_SETUP, opponent: "online", rules: first.variant, seed: first.record.setup.seed },
    setup: first.record.setup, record: first.record, undoable: 0, flipped: false, counted: true,
  };
  state = first;
  ui.partial = [];
  ui.paused = false;
  ui.setupOpen = false;
  showError("");
  render();
  const html = document.documentElement;
  html.dataset.games = String(Number(html.dataset.games || 0) + 1);
}

function leaveRoom() {
  if (!remote) return;
  remote.close();
  remote = null;
}

async function undo() {
  if (!active()) return;
  if (midJump()) {
    ui.partial = [];
    render();
    return;
  }
  const turns = ui.thinking ? 1 : undoTurns();
  if (!turns || match.undoable < turns) return;
  cancelPending();
  const epoch = ui.epoch;
  try {
    const next = await api.undo(match.record, turns);
    if (epoch !== ui.epoch) return;
    match.undoable -= turns;
    adopt(next);
    announce(t("announce.undone"));
  } catch (error) {
    failed(error);
    render();
  }
}

async function hint() {
  if (!interactive()) return;
  const epoch = ui.epoch;
  ui.busy = true;
  render();
  try {
    const answer = await api.hint(match.record);
    if (epoch !== ui.epoch) return;
    ui.partial = [];
    ui.hint = answer.path;
    const joiner = answer.captures.length ? t("history.capture") : t("history.step");
    ui.hintText = t("status.hint", { move: answer.path.join(joiner) });
    announce(ui.hintText);
  } catch (error) {
    failed(error);
  } finally {
    if (epoch === ui.epoch) ui.busy = false;
    render();
  }
}

function pause() {
  if (!active() || ui.paused || remote) return;
  ui.paused = true;
  announce(t("announce.paused"));
  render();
  $("resume").focus();
}

function resume() {
  if (!ui.paused) return;
  ui.paused = false;
  for (const resolve of ui.resumeWaiters.splice(0)) resolve();
  announce(t("announce.resumed"));
  render();
  board.focus();
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
  const loser = vsComputer() || remote ? humanColor() : state.turn;
  const sure = await confirmDialog(t("dialog.resignTitle"), t("dialog.resignText", { color: colorName(loser) }), t("dialog.resignConfirm"));
  if (!sure || !active()) return;
  if (remote) {
    remote.resign();
    return;
  }
  cancelPending();
  ui.paused = false;
  const epoch = ui.epoch;
  try {
    const next = await api.state({ ...match.record, ending: { resigned: loser } });
    if (epoch === ui.epoch) adopt(next);
  } catch (error) {
    failed(error);
  }
}

function restart() {
  if (match && !isDaily()) start(match.config, match.setup);
}

function newSeed() {
  const words = ["maple", "harbor", "cobalt", "lantern", "meadow", "quartz", "ember", "willow", "falcon", "juniper"];
  const random = new Uint32Array(2);
  window.crypto.getRandomValues(random);
  return `${words[random[0] % words.length]}-${(random[1] % 9000) + 1000}`;
}

// ---- setup form ----------------------------------------------------------------------------

function fillSetupOptions() {
  const level = $("level");
  const chosen = level.value || prefs.setup.level;
  level.textContent = "";
  for (const name of server.levels) {
    const option = document.createElement("option");
    option.value = name;
    // The seeds' Easy/Medium/Hard and Beginner/Advanced, shown beside the ladder's names.
    const alias = entry(`levelAliases.${name}`);
    option.textContent = alias ? `${t(`levels.${name}`)} · ${alias}` : t(`levels.${name}`);
    level.appendChild(option);
  }
  level.value = chosen;
  const [red, white, random] = $("side").options;
  red.textContent = t("setup.sideFirst", { color: colorName("black") });
  white.textContent = t("setup.sideSecond", { color: colorName("white") });
  random.textContent = t("online.sideRandom");
  updateSetupNotes();
}

function updateSetupNotes() {
  const form = $("setup");
  const computer = form.opponent.value === "computer";
  const online = form.opponent.value === "online";
  $("level-field").hidden = !computer;
  const locked = dailyInPlay();
  if (locked) form.level.value = match.config.level;
  else if (form.level.disabled) form.level.value = prefs.setup.level;
  form.level.disabled = locked;
  $("level-note").textContent = locked ? t("setup.levelDaily", { level: t(`levels.${match.config.level}`) }) : t(`levelNotes.${form.level.value}`);
  $("side-note").textContent = computer ? t("setup.sideNoteComputer", { color: colorName("white") })
    : online ? t("online.sideNote") : t("setup.sideNoteLocal");
  // Online rooms always start from the standard position; a random side is theirs alone.
  form.side.options[2].hidden = !online;
  if (!online && form.side.value === "random") form.side.value = "red";
  for (const name of ["position", "seed"]) form[name].closest(".field").hidden = online;
  const seed = form.seed.value.trim();
  const reason = online ? "" : !seed ? t("setup.seedBlank") : seed.length > 96 ? t("setup.seedLong") : "";
  $("seed-reason").textContent = reason;
  $("start").disabled = Boolean(reason);
  form.seed.setAttribute("aria-invalid", reason ? "true" : "false");
}

function rememberSetup() {
  prefs.setup = { ...formConfig(), seed: $("setup").seed.value };
  savePrefs();
}

function loadSetupForm(config) {
  const form = $("setup");
  for (const key of Object.keys(DEFAULT_SETUP)) if (config[key] !== undefined) form[key].value = config[key];
  if (!form.level.value) form.level.value = DEFAULT_SETUP.level;
  updateSetupNotes();
}

async function levelChanged() {
  const form = $("setup");
  rememberSetup();
  updateSetupNotes();
  if (!active() || !vsComputer() || isDaily() || form.level.value === match.config.level) return;
  const level = t(`levels.${form.level.value}`);
  const sure = await confirmDialog(t("dialog.levelTitle"), t("dialog.levelText", { level }), t("dialog.levelConfirm"));
  if (sure) start({ ...match.config, level: form.level.value }, match.setup);
  else {
    form.level.value = match.config.level;
    rememberSetup();
    updateSetupNotes();
  }
}

// ---- preferences ---------------------------------------------------------------------------

function applyPrefs() {
  document.documentElement.dataset.pieces = prefs.pieces;
  document.documentElement.dataset.board = prefs.board;
  sound.configure(prefs);
}

function fillPrefOptions() {
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
  $("pref-sound").checked = prefs.sound;
  $("pref-music").checked = prefs.music;
  $("pref-sound-volume").value = prefs.soundVolume;
  $("pref-music-volume").value = prefs.musicVolume;
}

function relabel() {
  applyTo(document);
  mountHelp($("help-tabs"), $("help-content"));
  fillSetupOptions();
  fillPrefOptions();
  renderTotals();
  render();
}

function wirePrefs() {
  const bind = (id, key, read) => $(id).addEventListener("input", () => {
    prefs[key] = read($(id));
    savePrefs();
    applyPrefs();
    relabel();
  });
  bind("pref-pieces", "pieces", (e) => e.value);
  bind("pref-board", "board", (e) => e.value);
  bind("pref-numbers", "numbers", (e) => e.checked);
  bind("pref-marks", "marks", (e) => e.checked);
  bind("pref-sound", "sound", (e) => e.checked);
  bind("pref-music", "music", (e) => e.checked);
  bind("pref-sound-volume", "soundVolume", (e) => Number(e.value));
  bind("pref-music-volume", "musicVolume", (e) => Number(e.value));
  $("pref-language").addEventListener("input", async () => {
    // Saved at once, before the translation file arrives, so a reload right after the choice keeps it.
    prefs.language = $("pref-language").value;
    savePrefs();
    prefs.language = await setLanguage(prefs.language);
    relabel();
  });
}

// ---- wiring ------------------------------------------------------------------------------

function wire() {
  board = new BoardView($("board"), { onActivate: activate, onEscape: escape });
  const form = $("setup");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    sound.unlock();
    updateSetupNotes();
    if ($("start").disabled) return;
    rememberSetup();
    const config = formConfig();
    if (config.opponent === "online") createRoom(config);
    else start(config);
  });
  for (const name of ["opponent", "side", "rules", "position"]) {
    form[name].addEventListener("change", () => { updateSetupNotes(); rememberSetup(); });
  }
  form.level.addEventListener("change", levelChanged);
  form.seed.addEventListener("input", () => { updateSetupNotes(); rememberSetup(); });

  $("undo").addEventListener("click", undo);
  $("hint").addEventListener("click", hint);
  $("pause").addEventListener("click", pause);
  $("resume").addEventListener("click", resume);
  $("pause-resign").addEventListener("click", resign);
  $("pause-restart").addEventListener("click", restart);
  $("resign").addEventListener("click", resign);
  $("restart").addEventListener("click", restart);
  $("flip").addEventListener("click", () => {
    if (match) match.flipped = !match.flipped;
    else board.setOrientation(!board.blackAtBottom);
    persist();
    render();
  });
  $("end-turn").addEventListener("click", endTurn);
  $("replay-same-seed").addEventListener("click", restart);
  $("new-seed").addEventListener("click", () => {
    const seed = newSeed();
    $("setup").seed.value = seed;
    rememberSetup();
    updateSetupNotes();
    start({ ...match.config, seed }, match.setup);
  });
  const showSetup = () => {
    // The form describes the next game; a daily game's seed is never offered for it.
    if (match) loadSetupForm({ ...match.config, seed: prefs.setup.seed });
    ui.setupOpen = true;
    render();
    $("setup-card").scrollIntoView({ block: "nearest" });
    form.opponent.focus({ preventScroll: true });
  };
  $("change-setup").addEventListener("click", showSetup);
  $("new-game").addEventListener("click", showSetup);
  $("setup-cancel").addEventListener("click", () => {
    ui.setupOpen = false;
    render();
    board.focus();
  });
  $("board-wrap").addEventListener("keydown", (event) => {
    if ((event.key === "p" || event.key === "P") && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      if (ui.paused) resume();
      else pause();
    }
  });
  document.addEventListener("visibilitychange", () => { if (document.hidden) pause(); });
  window.addEventListener("blur", pause);
  $("open-settings").addEventListener("click", () => $("settings-dialog").showModal());
  $("open-help").addEventListener("click", () => $("help-dialog").showModal());
  document.addEventListener("pointerdown", () => sound.unlock(), { once: true });
  wirePrefs();
}

async function restore() {
  const saved = load("match", null);
  const config = saved?.config;
  const known = config && ["computer", "local"].includes(config.opponent) && server.levels.includes(config.level)
    && ["red", "white"].includes(config.side);
  if (!saved?.record || !known) {
    remove("match");
    return false;
  }
  try {
    const next = await api.state(saved.record);
    match = { undoable: 0, flipped: false, counted: false, ...saved, record: next.record };
    state = next;
    loadSetupForm({ ...match.config, seed: prefs.setup.seed });
    render();
    computerTurn();
    return true;
  } catch {
    remove("match");
    return false;
  }
}

async function preview() {
  try {
    state = await api.start({ variant: "american", position: "standard", seed: "checkers-1" });
  } catch (error) {
    failed(error);
  }
  render();
}

async function main() {
  [server, prefs.language] = await Promise.all([request("GET", "/api/info"), setLanguage(prefs.language)]);
  applyPrefs();
  wire();
  fillPrefOptions();
  fillSetupOptions();
  loadSetupForm(prefs.setup);
  renderTotals();
  $("storage-warning").hidden = storageAvailable;
  mountHelp($("help-tabs"), $("help-content"));
  mountPdn({
    api, t, colorName,
    current: () => match && state ? { record: match.record, config: match.config, history: state.history } : null,
    formConfig,
    onLoad: (next, config) => begin(config, next),
    onError: failed,
  });
  mountOnline({
    enter: enterRoom, update: (next, { moved = false }) => { ui.busy = false; adopt(next, { moved }); },
    moveRefused: () => { ui.busy = false; ui.partial = []; render(); },
    animate: (path, captures, piece) => board.animate(path, captures, piece),
    render, showError, announce, colorName,
  });
  const room = roomInUrl();
  if (!(room && await openLink(room)) && !(await restore())) await preview();
  mountDailies({
    api, colorName,
    current: () => (match && state ? { record: match.record, config: match.config, state } : null),
    onLoad: (next, config) => begin(config, next),
    onError: failed,
    numbers: () => prefs.numbers,
  });
  document.documentElement.dataset.ready = "true";
}

main();
