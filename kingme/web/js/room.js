// An online room's actions on the state (state.js): the room's game replaces the one on this
// device, and a refused move drops the pick. Loaded with the online driver (online.js), which
// calls them; the session's other actions (adopt, changed) serve the room as they serve a game
// here.

import { cancelPending, changed, playing } from "./session.js";
import { DEFAULT_SETUP, session } from "./state.js";

// An online room's first state: its game replaces the one on this device (which stays saved).
export function enterRoom(driver, first) {
  cancelPending();
  session.remote = driver;
  playing({
    config: { ...DEFAULT_SETUP, opponent: "online", rules: first.variant, seed: first.record.setup.seed },
    setup: first.record.setup, record: first.record, undoable: 0, flipped: false, counted: true,
  }, first);
  changed();
}

// The room refused this page's move: the pick is dropped, the board is the room's again.
export function moveRefused() {
  session.ui.busy = false;
  session.ui.partial = [];
  changed();
}
