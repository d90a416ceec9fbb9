// Online play with a friend: the room's HTTP calls, its WebSocket, the seat token, and the
// room's panel (invite link, presence, spectators, score, requests, Play again).
//
// The game itself is drawn and played by the web app's own board and controls: this module is a
// driver that the session plays through (session.remote). It says whether this browser may move
// or resign and who is present, sends the moves and requests, and hands every state the server
// announces to the session's actions. It writes only the room's own panel, never another
// module's part of the page. It is loaded when a room is opened or created, and wires its panel
// as it loads. The server checks everything; the page only shows its answers.
// Nothing received is inserted as HTML.

import { roomInUrl, roomPath } from "./address.js";
import { http, stylesheet } from "./api.js";
import { showClock } from "./clock.js";
import { loadPart, t } from "./i18n.js";
import { enterRoom, moveRefused } from "./room.js";
import { adopt, animate, announce, changed, showError, subscribe } from "./session.js";
import { colorName, other } from "./state.js";
import * as sound from "./sound.js";
import { load, remove, save } from "./store.js";

const COLORS = ["black", "white"];
const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 10_000;
const PING_MS = 25_000;
// Close codes after which reconnecting cannot help: a refused token, an unknown or expired room.
const FINAL_CLOSES = { 4401: "bad_token", 4404: "unknown_room", 4410: "expired" };

const $ = (id) => document.getElementById(id);

// The open room, or null. See openRoom() for its fields.
let room = null;

function tokenKey(id) {
  return `room.${id}`;
}

// A move id unique in the room: crypto.randomUUID where the browser has it (secure contexts),
// else 128 random bits from getRandomValues.
function moveId() {
  if (window.crypto.randomUUID) return window.crypto.randomUUID();
  const bytes = new Uint8Array(16);
  window.crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function inviteUrl(id) {
  return `${window.location.origin}${roomPath(id)}`;
}

// The sentence for a refusal: our translation of its code, else the server's own sentence.
function refusal(code, message) {
  const key = `online.errors.${code}`;
  const text = t(key);
  return text === key ? message || t("online.errors.unknown") : text;
}

// ---- what this browser is in the room --------------------------------------------------

function myColor() {
  if (!room?.player || !room.state) return null;
  return COLORS.find((color) => room.state.sides[color] === room.player) || null;
}

function game() {
  return room.state.game;
}

function bothSeated() {
  return Boolean(room.state.seated.black && room.state.seated.white);
}

// Whether this page can reach the room now: its socket is open and greeted, and the browser has
// not said it went offline since the server last answered a ping (a dropped network leaves the
// socket open, and silent, until pings go unanswered). Not navigator.onLine itself: a browser
// with no network at all says it is offline while its socket to a server on the same machine works.
function connected() {
  return room.socket?.readyState === WebSocket.OPEN && room.greeted && !room.offline;
}

// Whether this page's player has a game on: seated, both seats taken, no result yet.
function playing() {
  return Boolean(room?.state && myColor() && !game().result && bothSeated());
}

const driver = {
  color: () => myColor(),
  canMove: () => Boolean(room?.state && connected() && !room.pending && myColor() === game().turn && bothSeated()),
  canResign: () => playing() && connected(),
  // The seat's player: "here", "away", "reconnecting" or "empty". This page's own seat is as
  // present as its socket (reconnecting while it is down); the others' as the server last said:
  // reconnecting while their connection has stopped answering, away once it has closed.
  presence(color) {
    if (!room?.state) return null;
    if (!room.state.seated[color]) return "empty";
    if (color === myColor()) return connected() ? "here" : "reconnecting";
    if (!room.presence?.[color]) return "away";
    return room.presence.reconnecting?.[color] ? "reconnecting" : "here";
  },
  move(route) {
    room.pending = { id: moveId(), move: route.notation };
    room.sent.add(room.pending.id);
    send({ type: "move", ...room.pending });
  },
  resign: () => send({ type: "resign" }),
  role(color) {
    if (!room?.state) return "";
    const mine = myColor();
    if (!room.state.seated[color]) return t("online.waitingSeat");
    if (mine === color) return t("players.you");
    if (mine) return t("online.friend");
    return t(room.state.sides[color] === 1 ? "players.player1" : "players.player2");
  },
  status() {
    if (!room?.state) return "";
    if (room.stopped) return room.stopped;
    if (!connected()) return t("online.reconnecting");
    if (!bothSeated()) return t("online.waitingFriend");
    const mine = myColor();
    const turn = game().turn;
    if (game().result || turn === mine) return "";
    return t(mine ? "online.theirTurn" : "status.turn", { color: colorName(turn) });
  },
  close: () => closeRoom(),
};

// ---- the socket ------------------------------------------------------------------------

function send(message) {
  if (room?.socket?.readyState === WebSocket.OPEN) room.socket.send(JSON.stringify(message));
}

function connect() {
  const current = room;
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(`${scheme}//${window.location.host}/ws/rooms/${encodeURIComponent(current.id)}`);
  current.socket = socket;
  current.greeted = false;
  socket.addEventListener("open", () => {
    const hello = { type: "hello" };
    if (current.token) hello.token = current.token;
    if (current.last !== null) hello.last_event = current.last;
    socket.send(JSON.stringify(hello));
  });
  socket.addEventListener("message", (event) => {
    if (room !== current || current.socket !== socket) return;
    let message;
    try {
      message = JSON.parse(event.data);
    } catch {
      return;
    }
    current.queue = current.queue.then(() => receive(current, message)).catch((error) => console.error(error));
  });
  socket.addEventListener("close", (event) => {
    if (room !== current || current.socket !== socket) return;
    current.greeted = false;
    window.clearInterval(current.pinger);
    const final = FINAL_CLOSES[event.code];
    if (final === "bad_token") {
      // The server refuses this seat token: forget it, say so, and watch instead.
      remove(tokenKey(current.id));
      current.token = null;
      current.player = null;
      current.notice = refusal(final, event.reason);
    } else if (final) {
      stop(refusal(final, event.reason));
      return;
    }
    retry(current);
    changed();
  });
}

// Reconnect with back-off: 0.5 s doubling to 10 s, with some jitter so a restarted server is not
// hit by every client at once.
function retry(current) {
  window.clearTimeout(current.timer);
  const wait = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** current.attempts);
  current.attempts += 1;
  current.timer = window.setTimeout(() => room === current && connect(), wait * (0.75 + Math.random() / 2));
}

// Give up on a connection whose last ping went unanswered until the next was due: forget it at
// once and try again, without waiting for a close that a dead network may deliver only minutes
// later (or never, when the connection was dropped half-open).
function abandon(current) {
  const socket = current.socket;
  if (!socket || room !== current) return;
  current.socket = null;
  current.greeted = false;
  window.clearInterval(current.pinger);
  socket.close();
  retry(current);
  changed();
}

// The browser's word that its network went (``offline``) or came back: this page's seat says it
// is reconnecting until the network is back or a ping sent now is answered after all.
function browserOffline(offline) {
  if (!room) return;
  room.offline = offline;
  changed();
  if (!offline) reconnectNow();
  else if (!room.unanswered) ping(room);
}

function reconnectNow() {
  const state = room?.socket?.readyState;
  if (!room || room.stopped || state === WebSocket.OPEN || state === WebSocket.CONNECTING) return;
  window.clearTimeout(room.timer);
  room.attempts = 0;
  connect();
}

async function receive(current, message) {
  switch (message.type) {
    case "welcome": return welcome(current, message);
    case "event": return eventReceived(current, message);
    case "ack":
      if (current.pending?.id === message.id) current.pending = null;
      return undefined;
    case "presence":
      current.presence = message;
      return changed();
    case "probe": // the server measures this page's round trip for its clock: answer at once
      send({ type: "probe", n: message.n });
      return undefined;
    case "pong":
      current.rtt = performance.now() - current.pinged;
      current.unanswered = false;
      if (current.offline) {
        current.offline = false;
        changed();
      }
      return undefined;
    case "error": return refused(current, message);
    default: return undefined;
  }
}

function welcome(current, message) {
  current.greeted = true;
  current.attempts = 0;
  window.clearInterval(current.pinger);
  current.unanswered = false;
  ping(current);
  current.pinger = window.setInterval(() => ping(current), PING_MS);
  current.player = message.you.player;
  const first = current.state === null;
  adoptState(current, message.state);
  if (first) {
    enterRoom(driver, game());
    // Until the friend has joined, the invite link is the one thing to do: bring it into view.
    if (!bothSeated()) $("invite-link").scrollIntoView({ block: "nearest" });
  } else {
    showError("");
    adopt(game());
  }
  // A move sent just before the connection dropped: send it again; the server acknowledges a
  // move it already has without playing it twice.
  if (current.pending) send({ type: "move", ...current.pending });
}

// A ping keeps the connection open and measures the round trip the clocks are corrected by.
function ping(current) {
  if (current.unanswered) {
    abandon(current);
    return;
  }
  current.unanswered = true;
  current.pinged = performance.now();
  send({ type: "ping" });
}

function adoptState(current, state) {
  current.state = state;
  current.last = state.version;
  showClock(state.clock, current.rtt, myColor());
}

async function eventReceived(current, message) {
  if (current.last !== null && message.n <= current.last) return;
  if (current.last !== null && message.n !== current.last + 1) {
    send({ type: "sync", last_event: current.last });
    return;
  }
  const before = current.state?.game;
  adoptState(current, message.state);
  const { kind, data } = message;
  const mine = myColor();
  if (kind === "move") {
    // This page's own move was animated as it was played; the ack may come before or after.
    if (current.pending?.id === data.id) current.pending = null;
    current.notice = ""; // a move also clears pending offers and requests
    const piece = before?.board[String(data.path[0])];
    if (!current.sent.has(data.id) && piece) await animate(data.path, data.captures, piece);
    if (room === current) adopt(game(), { moved: true });
    return;
  }
  current.notice = noticeFor(kind, data, mine);
  if (current.notice && data.color && data.color !== mine) sound.play("select");
  adopt(game());
  if (current.notice) announce(current.notice);
}

function noticeFor(kind, data, mine) {
  const name = data.color ? colorName(data.color) : "";
  const theirs = data.color && data.color !== mine;
  switch (kind) {
    case "joined": return t("online.notice.joined", { color: colorName(data.color) });
    case "undo_requested": return theirs && mine ? t("online.notice.undoAsked") : t("online.notice.undoRequested", { color: name });
    case "undo_declined": return t("online.notice.undoDeclined", { color: name });
    case "undo_accepted": return t("online.notice.undoAccepted", { color: name });
    case "draw_offered": return theirs && mine ? t("online.notice.drawAsked") : t("online.notice.drawOffered", { color: name });
    case "draw_declined": return t("online.notice.drawDeclined", { color: name });
    case "play_again_requested": return t("online.notice.playAgain", { color: name });
    case "new_game": return t("online.notice.newGame", { n: data.game_no });
    default: return "";
  }
}

function refused(current, message) {
  if (message.id && current.pending?.id === message.id) {
    current.pending = null;
    moveRefused();
  }
  if (message.code === "conflict") return; // a fresh welcome follows
  showError(refusal(message.code, message.message));
}

// ---- opening and leaving rooms ---------------------------------------------------------------

function openRoom(id, token, player) {
  closeRoom();
  room = {
    id, token, player, state: null, last: null, presence: null, pending: null, sent: new Set(), notice: "",
    socket: null, greeted: false, attempts: 0, timer: null, pinger: null, unanswered: false, offline: false, stopped: "", queue: Promise.resolve(),
    pinged: 0, rtt: 0,
  };
  if (roomInUrl() !== id) window.history.pushState(null, "", roomPath(id));
  $("invite-link").value = inviteUrl(id);
  connect();
}

// The room cannot be reached any more (refused token, unknown or expired): say so, stop trying.
function stop(sentence) {
  room.stopped = sentence;
  window.clearTimeout(room.timer);
  window.clearInterval(room.pinger);
  showError(sentence);
}

function closeRoom() {
  if (!room) return;
  const leaving = room;
  room = null;
  showClock(null);
  window.clearTimeout(leaving.timer);
  window.clearInterval(leaving.pinger);
  leaving.socket?.close(1000);
  if (roomInUrl()) window.history.replaceState(null, "", "/");
}

// 'Play online with a friend': create a room with the creator's rules, side and time control
// (the invite form's), keep the seat.
export async function createRoom({ rules, side }) {
  const wanted = { red: "black", white: "white", random: "random" }[side] || "random";
  const body = { variant: rules, side: wanted, time_control: $("time-control").value };
  const { status, data } = await http("POST", "/api/rooms", body);
  if (status !== 201) {
    showError(status ? refusal(data.code, data.error) : t("errors.network"));
    return;
  }
  save(tokenKey(data.room), { token: data.token });
  openRoom(data.room, data.token, data.player);
}

// A room link: back into our seat with the stored token, else take the empty seat, else watch.
export async function openLink(id) {
  const { status, data } = await http("GET", `/api/rooms/${encodeURIComponent(id)}`);
  if (status === 404 || status === 410) {
    showError(refusal(status === 404 ? "unknown_room" : "expired", data.error));
    window.history.replaceState(null, "", "/");
    return false;
  }
  if (status !== 200) {
    showError(status ? refusal(data.code, data.error) : t("errors.network"));
    return false;
  }
  const stored = load(tokenKey(id), null);
  if (stored?.token) {
    openRoom(id, stored.token, null);
    return true;
  }
  if (data.open) {
    const joined = await http("POST", `/api/rooms/${encodeURIComponent(id)}/join`);
    if (joined.status === 201) {
      save(tokenKey(id), { token: joined.data.token });
      openRoom(id, joined.data.token, joined.data.player);
      return true;
    }
  }
  openRoom(id, null, null);
  return true;
}

// ---- the room's panel ------------------------------------------------------------------------

function show(id, visible) {
  $(id).hidden = !visible;
}

// The score follows the players, not the colours (sides switch between games): "You 1 · Friend 0"
// for a player, "Player 1 1 · Player 2 0" for a spectator.
function scoreText(state, mine) {
  const colorOf = (player) => COLORS.find((color) => state.sides[color] === player);
  const [first, second] = mine ? [mine, other(mine)] : [colorOf(1), colorOf(2)];
  return t("online.score", {
    first: mine ? t("players.you") : t("players.player1"),
    second: mine ? t("online.friendName") : t("players.player2"),
    firstWins: state.score[first], secondWins: state.score[second], draws: state.score.draws,
  });
}

// The room's panel, rendered after every change of the session.
function renderRoom() {
  if (!room?.state) return;
  const state = room.state;
  const mine = myColor();
  const over = Boolean(game().result);
  const theirs = mine ? other(mine) : null;
  $("online-score").textContent = scoreText(state, mine);
  $("spectators").textContent = String(room.presence?.spectators ?? 0);
  $("online-role").textContent = mine ? t("online.youPlay", { color: colorName(mine) }) : t("online.watching");
  $("online-notice").textContent = room.notice;
  $("online-panel").dataset.waiting = String(!bothSeated());
  const on = playing();
  show("undo-request", on);
  $("undo-request").disabled = !connected() || Boolean(state.undo_request) || !game().history.some((item) => item.color === mine);
  show("undo-accept", on && state.undo_request === theirs);
  show("undo-decline", on && state.undo_request === theirs);
  show("draw-offer", on);
  $("draw-offer").disabled = !connected() || Boolean(state.draw_offer);
  show("draw-accept", on && state.draw_offer === theirs);
  show("draw-decline", on && state.draw_offer === theirs);
  const again = Boolean(mine) && over;
  show("play-again", again);
  show("keep-sides", again);
  const asked = Boolean(state.play_again?.[mine]);
  $("play-again").disabled = asked || !connected();
  $("play-again").textContent = t(asked ? "online.playAgainWaiting" : state.play_again?.[theirs] ? "online.playAgainAccept" : "online.playAgain");
  $("keep-sides").disabled = asked;
  $("online-actions").hidden = !mine;
}

async function copyLink() {
  const input = $("invite-link");
  let copied = false;
  try {
    await navigator.clipboard.writeText(input.value);
    copied = true;
  } catch {
    // No clipboard API (an insecure origin, or permission refused): copy the selected text.
    input.focus();
    input.select();
    try {
      copied = document.execCommand("copy");
    } catch {
      copied = false;
    }
  }
  $("copy-link").textContent = t(copied ? "online.copied" : "online.copyManually");
  window.setTimeout(() => { $("copy-link").textContent = t("online.copy"); }, 2000);
}

function mount() {
  $("copy-link").addEventListener("click", copyLink);
  $("invite-link").addEventListener("focus", () => $("invite-link").select());
  const request = (type) => () => {
    room.notice = "";
    send({ type });
  };
  $("undo-request").addEventListener("click", request("undo_request"));
  $("undo-accept").addEventListener("click", request("undo_accept"));
  $("undo-decline").addEventListener("click", request("undo_decline"));
  $("draw-offer").addEventListener("click", request("draw_offer"));
  $("draw-accept").addEventListener("click", request("draw_accept"));
  $("draw-decline").addEventListener("click", request("draw_decline"));
  $("keep-sides").addEventListener("click", () => {
    const pressed = $("keep-sides").getAttribute("aria-pressed") !== "true";
    $("keep-sides").setAttribute("aria-pressed", String(pressed));
  });
  $("play-again").addEventListener("click", () => {
    send({ type: "play_again", keep_sides: $("keep-sides").getAttribute("aria-pressed") === "true" });
    $("keep-sides").setAttribute("aria-pressed", "false");
  });
  window.addEventListener("online", () => browserOffline(false));
  window.addEventListener("offline", () => browserOffline(true));
  document.addEventListener("visibilitychange", () => { if (!document.hidden) reconnectNow(); });
  window.addEventListener("popstate", () => {
    const id = roomInUrl();
    if (id && id !== room?.id) openLink(id);
  });
}

// The room panel's rules come with this module; the panel is wired once they apply.
await Promise.all([stylesheet("/css/online.css"), loadPart("online")]);
mount();
subscribe(renderRoom);
