// The match setup panel: the form for the next game (opponent, level, side, rules, position,
// seed), shown before a game and on New game. It writes only its own form and notes, and starts
// games through the session's actions.

import { leaveGame } from "./controls.js";
import { entry, t } from "./i18n.js";
import { failed, mayLeaveRoom, rememberSetup, start } from "./session.js";
import { colorName, DEFAULT_SETUP, isDaily, session } from "./state.js";
import * as sound from "./sound.js";

const $ = (id) => document.getElementById(id);
const form = () => $("setup");

// The next game's choices.
export function formConfig() {
  const fields = form();
  return {
    opponent: fields.opponent.value, level: fields.level.value, side: fields.side.value,
    rules: fields.rules.value, position: fields.position.value, seed: fields.seed.value.trim(),
  };
}

// Kept for the next visit.
function remember() {
  rememberSetup({ ...formConfig(), seed: form().seed.value });
}

// The options' words, in the chosen language.
export function fillSetupOptions() {
  const level = $("level");
  const chosen = level.value || session.prefs.setup.level;
  level.textContent = "";
  for (const name of session.server.levels) {
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
  renderSetup();
}

// The notes and what the form allows, from its own choices and the game on the board.
export function renderSetup() {
  const fields = form();
  const computer = fields.opponent.value === "computer";
  const online = fields.opponent.value === "online";
  $("level-field").hidden = !computer;
  $("level-note").textContent = t(`levelNotes.${fields.level.value}`);
  $("side-note").textContent = computer ? t("setup.sideNoteComputer", { color: colorName("white") })
    : online ? t("online.sideNote") : t("setup.sideNoteLocal");
  // Online rooms always start from the standard position; a random side is theirs alone.
  fields.side.options[2].hidden = !online;
  if (!online && fields.side.value === "random") fields.side.value = "red";
  for (const name of ["position", "seed"]) fields[name].closest(".field").hidden = online;
  $("time-control-field").hidden = !online; // the host of a room picks its time control
  const seed = fields.seed.value.trim();
  const reason = online ? "" : !seed ? t("setup.seedBlank") : seed.length > 96 ? t("setup.seedLong") : "";
  $("seed-reason").textContent = reason;
  $("start").disabled = Boolean(reason);
  fields.seed.setAttribute("aria-invalid", reason ? "true" : "false");
}

// Put config's choices in the form (the saved ones at start, the game's on New game).
export function loadSetupForm(config) {
  const fields = form();
  for (const key of Object.keys(DEFAULT_SETUP)) if (config[key] !== undefined) fields[key].value = config[key];
  if (!fields.level.value) fields.level.value = DEFAULT_SETUP.level;
  renderSetup();
}

// A new seed for the next game (New seed), kept like a typed one.
export function chooseSeed(seed) {
  form().seed.value = seed;
  renderSetup();
  remember();
}

// The form describes the next game: the game's own choices without its seed, or during the daily
// game (whose choices are the day's, not the player's) the player's last ones.
export function showSetupFor(match) {
  if (!match) return;
  loadSetupForm(isDaily() ? session.prefs.setup : { ...match.config, seed: session.prefs.setup.seed });
}

// confirm(title, text, action) -> Promise<bool>: the page's confirmation dialog. Every choice of
// the form, the level too, is for the next game: only Start match starts it (after asking, when it
// would leave an online room).
export function mountSetup(confirm) {
  const fields = form();
  fields.addEventListener("submit", async (event) => {
    event.preventDefault();
    sound.unlock();
    renderSetup();
    if ($("start").disabled) return;
    remember();
    const config = formConfig();
    if (!(await mayLeaveRoom(confirm)) || !(await leaveGame(confirm, false))) return;
    if (config.opponent === "online") import("./online.js").then((online) => online.createRoom(config)).catch(failed);
    else start(config);
  });
  for (const name of ["opponent", "level", "side", "rules", "position"]) {
    fields[name].addEventListener("change", () => {
      renderSetup();
      remember();
    });
  }
  fields.seed.addEventListener("input", () => {
    renderSetup();
    remember();
  });
}
