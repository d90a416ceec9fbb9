// The clocks of a timed online room, shown in the players' boxes: both sides' time, the running
// one highlighted, tenths under 10 s, and under 10 s a red clock and a beep a second on this
// page's own running clock. Loaded with the online driver (online.js), which hands it each
// clock the server sends.
//
// The server keeps the clocks and decides a loss on time; the page only counts down between two
// of its messages. A clock is counted from when its message arrived, less half the round trip
// the page measured (the message was written that long before), so both pages show about the
// server's time. When a clock reaches 0 the page shows 0.0 and waits for the server's verdict.

import { stylesheet } from "./api.js";
import { t } from "./i18n.js";
import { subscribe } from "./session.js";
import * as sound from "./sound.js";
import { colorName } from "./state.js";

// Under this many milliseconds a clock shows tenths and warns.
const LOW_MS = 10_000;
// How often a running clock is redrawn: a tenth of a second, the finest unit shown.
const TICK_MS = 100;
const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

// What is shown: the server's clock ({black, white, running} in ms), when it was true on this
// page's performance.now() scale, and this page's colour (or null); null for no clock.
let shown = null;
let ticker = 0;
let lastBeep = null;

// Show `clock` (null: none, an untimed room or no room), received now, `rttMs` after the server
// wrote it, for the page whose player has `mine`.
export function showClock(clock, rttMs, mine) {
  shown = clock ? { clock, at: performance.now() - (rttMs || 0) / 2, mine } : null;
  window.clearInterval(ticker);
  if (shown?.clock.running) ticker = window.setInterval(renderClocks, TICK_MS);
  renderClocks();
}

function left(color) {
  const { clock, at } = shown;
  return clock.running === color ? Math.max(0, clock[color] - (performance.now() - at)) : clock[color];
}

const two = (n) => String(n).padStart(2, "0");

// "3:07", "1:02:03", "2d 23:59" (correspondence), and "0:09.4" under 10 s.
export function formatClock(ms) {
  if (ms < LOW_MS) return `0:0${Math.floor(ms / SECOND_MS)}.${Math.floor((ms % SECOND_MS) / 100)}`;
  const seconds = Math.floor(ms / SECOND_MS) % 60;
  const minutes = Math.floor(ms / MINUTE_MS) % 60;
  const hours = Math.floor(ms / HOUR_MS) % 24;
  const days = Math.floor(ms / DAY_MS);
  if (days) return `${days}d ${two(hours)}:${two(minutes)}`;
  if (hours) return `${hours}:${two(minutes)}:${two(seconds)}`;
  return `${minutes}:${two(seconds)}`;
}

function face(box) {
  let element = box.querySelector(".player-clock");
  if (!element) {
    element = document.createElement("span");
    element.className = "player-clock";
    element.setAttribute("role", "timer");
    box.append(element);
  }
  return element;
}

// Draw both clocks (after every change of the session, and every tick while one runs).
export function renderClocks() {
  const board = document.getElementById("scoreboard");
  board.dataset.clocks = String(Boolean(shown));
  for (const box of board.querySelectorAll(".player")) {
    const element = face(box);
    element.hidden = !shown;
    if (!shown) continue;
    const color = box.dataset.color;
    const ms = left(color);
    const running = shown.clock.running === color;
    const low = ms < LOW_MS;
    element.textContent = formatClock(ms);
    element.dataset.testid = `clock-${color}`;
    element.dataset.running = String(running);
    element.dataset.low = String(low);
    element.title = low ? t("online.clock.low") : "";
    element.setAttribute("aria-label", t("online.clock.aria", { color: colorName(color), time: element.textContent }));
    if (running && low && color === shown.mine && ms > 0) beep(Math.ceil(ms / SECOND_MS));
  }
}

// One beep each second of this page's own last ten.
function beep(second) {
  if (second === lastBeep) return;
  lastBeep = second;
  sound.play("clock");
}

await stylesheet("/css/clock.css");
// After the players' boxes are drawn (their colours may have switched sides), the clocks are.
subscribe(renderClocks);
