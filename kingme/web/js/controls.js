// The actions of the game's controls: Undo, Hint, Pause and Resume (which hold the computer's
// answer), Resign. Like every action of the session they change the state (state.js) and end
// with changed(); an asynchronous answer is dropped when a newer action has begun (the epoch).

import { api } from "./api.js";
import { t } from "./i18n.js";
import { adopt, announce, cancelPending, changed, failed, pending } from "./session.js";
import { active, humanColor, interactive, isDaily, midJump, resigner, session, undoTurns, vsComputer } from "./state.js";

const ui = session.ui;

export async function undo() {
  if (!active()) return;
  if (midJump()) {
    ui.partial = [];
    changed();
    return;
  }
  const turns = ui.thinking ? 1 : undoTurns();
  if (!turns || session.match.undoable < turns) return;
  cancelPending();
  const epoch = pending.epoch;
  try {
    const next = await api.undo(session.match.record, turns);
    if (epoch !== pending.epoch) return;
    session.match.undoable -= turns;
    adopt(next);
    announce(t("announce.undone"));
  } catch (error) {
    failed(error);
  }
}

export async function hint() {
  if (!interactive()) return;
  const epoch = pending.epoch;
  ui.busy = true;
  changed();
  try {
    const answer = await api.hint(session.match.record);
    if (epoch !== pending.epoch) return;
    ui.partial = [];
    ui.hint = answer.path;
    const joiner = answer.captures.length ? t("history.capture") : t("history.step");
    ui.hintText = t("status.hint", { move: answer.path.join(joiner) });
    announce(ui.hintText);
  } catch (error) {
    failed(error);
  } finally {
    if (epoch === pending.epoch) ui.busy = false;
    changed();
  }
}

// Pausing holds the position (the computer's answer waits); an online game cannot be paused.
export function pause() {
  if (!active() || ui.paused || session.remote) return false;
  ui.paused = true;
  announce(t("announce.paused"));
  changed();
  return true;
}

export function resume() {
  if (!ui.paused) return false;
  ui.paused = false;
  for (const resolve of pending.resumeWaiters.splice(0)) resolve();
  announce(t("announce.resumed"));
  changed();
  return true;
}

// Whether the game on the board may be left for another (restarting, or Start match), leaving it
// so that it is not escaped: an unfinished game against the computer that the player has moved in
// counts as lost, as resigning would — as the big sites count a started rated game abandoned; a
// game with two players on this device, or not yet moved in, is simply left. Restarting always
// asks; starting another game asks when the game would count. False when the player says no.
// confirm(title, text, action) -> Promise<bool> is the page's confirmation dialog.
export async function leaveGame(confirm, restarting) {
  if (!active() || session.remote) return true;
  const loses = vsComputer() && !isDaily() && session.state.standard
    && session.state.history.some((item) => item.color === humanColor());
  if (!restarting && !loses) return true;
  const title = t(restarting ? "dialog.restartTitle" : "dialog.newGameTitle");
  const action = t(restarting ? "dialog.restartConfirm" : "dialog.newGameConfirm");
  if (!(await confirm(title, t(loses ? "dialog.leaveLoses" : "dialog.leaveText"), action))) return false;
  if (loses) await resign();
  return !loses || !active(); // a resignation the server refused leaves the game where it was
}

export async function resign() {
  if (!active()) return;
  if (session.remote) {
    session.remote.resign();
    return;
  }
  cancelPending();
  ui.paused = false;
  const epoch = pending.epoch;
  try {
    const next = await api.state({ ...session.match.record, ending: { resigned: resigner() } });
    if (epoch === pending.epoch) adopt(next);
  } catch (error) {
    failed(error);
  }
}
