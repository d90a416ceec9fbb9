// The archive: the player's last finished games (against the computer, for two players, online,
// the daily game), kept in localStorage with their date, opponent, result, record and PDN, and
// each game's review once one has finished, so that opening it again asks the server nothing.
//
// What is read back from storage may be anything (an older page's, another program's, a hand
// edit): every entry is checked and copied (clean), a bad one is left out, a bad review dropped
// from a good game; nothing read is ever inserted as HTML. Loaded with a game's first result.

import { api } from "./api.js";
import { changed } from "./session.js";
import { t } from "./i18n.js";
import { BadReview, cleanReview, MAX_PLIES, SIDES, moveText } from "./reviewdata.js";
import { humanColor, isDaily, session, vsComputer } from "./state.js";
import { load, save, storageAvailable } from "./store.js";

// The figure: the last 100 games.
export const KEPT = 100;
const KINDS = ["computer", "local", "online", "daily"];
// A PDN text kept: far more than the longest game the server accepts needs.
const PDN_CHARS = 100_000;

// ---- reading and checking ----------------------------------------------------------------------

function text(value, limit, pattern = null) {
  if (typeof value !== "string" || value.length > limit || (pattern && !pattern.test(value))) throw new BadReview("text");
  return value;
}

function cleanRecord(raw) {
  if (!raw || typeof raw !== "object" || !raw.setup || typeof raw.setup !== "object" || !Array.isArray(raw.moves)) throw new BadReview("record");
  if (raw.moves.length === 0 || raw.moves.length > MAX_PLIES) throw new BadReview("moves");
  const setup = {
    variant: text(raw.setup.variant, 20, /^[a-z]+$/),
    fen: text(raw.setup.fen, 200),
    seed: text(raw.setup.seed ?? "", 200),
  };
  const record = { setup, moves: raw.moves.map((move) => moveText(move)) };
  const resigned = raw.ending?.resigned;
  if (SIDES.includes(resigned)) record.ending = { resigned };
  else if (raw.ending?.agreed === true) record.ending = { agreed: true };
  return record;
}

function cleanResult(raw) {
  if (!raw || typeof raw !== "object") throw new BadReview("result");
  if (raw.winner !== null && !SIDES.includes(raw.winner)) throw new BadReview("winner");
  return { winner: raw.winner, reason: text(raw.reason, 40, /^[a-z_-]+$/) };
}

// One stored game, checked and copied, or null when it cannot be read.
export function clean(raw) {
  try {
    if (!raw || typeof raw !== "object") return null;
    const record = cleanRecord(raw.record);
    const entry = {
      id: text(raw.id, 40, /^[A-Za-z0-9_-]+$/),
      date: text(raw.date, 40, /^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
      kind: KINDS.includes(raw.kind) ? raw.kind : null,
      level: raw.level === null ? null : text(raw.level, 20, /^[a-z]+$/),
      player: raw.player === null ? null : SIDES.includes(raw.player) ? raw.player : undefined,
      result: cleanResult(raw.result),
      record,
      pdn: text(raw.pdn, PDN_CHARS),
      review: null,
    };
    if (!entry.kind || entry.player === undefined) return null;
    if (raw.review) {
      try {
        entry.review = cleanReview(raw.review, record.moves.length);
      } catch {
        entry.review = null; // a bad review is dropped; the game stays
      }
    }
    return entry;
  } catch {
    return null;
  }
}

let games = null;

// The games, newest first (read from storage once, then kept here).
export function archived() {
  if (games === null) {
    const stored = load("archive", null);
    const list = Array.isArray(stored?.games) ? stored.games.slice(0, KEPT) : [];
    const seen = new Set();
    games = [];
    for (const raw of list) {
      const entry = clean(raw);
      if (entry && !seen.has(entry.id)) {
        seen.add(entry.id);
        games.push(entry);
      }
    }
  }
  return games;
}

export function find(id) {
  return archived().find((entry) => entry.id === id) || null;
}

// Written back whole. When the browser's quota is reached, the oldest games' reviews go first
// (a review can be made again; a game cannot), then the oldest games.
function persist() {
  const kept = [...archived()];
  for (;;) {
    if (save("archive", { version: 1, games: kept }) || !storageAvailable) return;
    const reviewed = kept.findLastIndex((entry) => entry.review);
    if (reviewed >= 0) kept[reviewed] = { ...kept[reviewed], review: null };
    else if (kept.length > 1) kept.pop();
    else return;
  }
}

export function storeReview(id, review) {
  const entry = find(id);
  if (!entry) return;
  entry.review = review;
  persist();
}

// ---- keeping the game that has just ended --------------------------------------------------------

// A game is known by its record: a page that shows a finished game again (a reload, an online
// room resending its state) keeps it once.
function sameGame(a, b) {
  return a.setup.fen === b.setup.fen && a.setup.variant === b.setup.variant && a.moves.length === b.moves.length
    && a.moves.every((move, i) => move === b.moves[i]);
}

export function entryFor(record) {
  return archived().find((entry) => sameGame(entry.record, record)) || null;
}

function newId() {
  const bytes = new Uint8Array(9);
  window.crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_");
}

// What the game on the board was: its kind, the computer's level, the player's side.
function describe() {
  const { match, remote } = session;
  if (remote) return { kind: "online", level: null, player: remote.color() };
  if (isDaily()) return { kind: "daily", level: match.config.level, player: humanColor() };
  if (vsComputer()) return { kind: "computer", level: match.config.level, player: humanColor() };
  return { kind: "local", level: null, player: null };
}

let keeping = null; // the game being kept (its PDN is on its way), so it is kept once

// The finished game on the board, as an archive entry (kept now if it was not yet); a game
// watched online is not the player's and is not kept, but can still be reviewed.
export async function keep() {
  const { match, state } = session;
  if (!match || !state?.result || state.history.length === 0) return null;
  const known = entryFor(state.record);
  if (known) return known;
  if (keeping && sameGame(keeping.record, state.record)) return keeping.entry;
  const record = state.record;
  const about = describe();
  const entry = (async () => {
    const { pdn } = await api.exportPdn(record, { Event: t("pdn.event"), Site: window.location.host });
    const made = clean({
      id: newId(), date: new Date().toISOString(), ...about, result: state.result, record, pdn, review: null,
    });
    if (made && (about.kind !== "online" || about.player)) {
      archived().unshift(made);
      games.splice(KEPT);
      persist();
      changed(); // an archive already open shows the game kept now
    }
    return made;
  })();
  keeping = { record, entry };
  try {
    return await entry;
  } finally {
    if (keeping?.entry === entry) keeping = null;
  }
}
