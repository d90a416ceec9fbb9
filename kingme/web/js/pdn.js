// PDN export (copy and download) and import (paste a PDN game or a FEN position and continue).
// Loaded when the player first asks for either; it wires its dialog as it loads.

import { api } from "./api.js";
import { t } from "./i18n.js";
import { begin, failed } from "./session.js";
import { colorName, session } from "./state.js";
import { formConfig } from "./setup.js";

const $ = (id) => document.getElementById(id);
const dialog = $("pdn-dialog");
const text = $("pdn-text");
const error = $("pdn-error");
let mode = "export";

function today() {
  const now = new Date();
  return [now.getFullYear(), now.getMonth() + 1, now.getDate()].map((n) => String(n).padStart(2, "0"));
}

function open(which) {
  mode = which;
  error.textContent = "";
  $("pdn-title").textContent = t(which === "export" ? "pdn.exportTitle" : "pdn.importTitle");
  $("pdn-help").textContent = t(which === "export" ? "pdn.exportHelp" : "pdn.importHelp");
  text.readOnly = which === "export";
  $("pdn-copy").hidden = which !== "export";
  $("pdn-download").hidden = which !== "export";
  $("pdn-load").hidden = which === "export";
  $("pdn-review").hidden = which === "export";
  if (which === "import") text.value = "";
  dialog.showModal();
}

// The game on the board as PDN, its players named as the page names them.
export async function exportGame() {
  const { match } = session;
  if (!match || !session.state) return;
  const { config } = match;
  const player = (color) => {
    if (config.opponent !== "computer") return colorName(color);
    const human = config.side === "white" ? "white" : "black";
    return color === human ? t("players.you") : t("players.computer", { level: t(`levels.${config.level}`) });
  };
  try {
    const answer = await api.exportPdn(match.record, {
      Event: t("pdn.event"), Site: window.location.host, Date: today().join("."),
      Black: player("black"), White: player("white"),
    });
    open("export");
    text.value = answer.pdn;
  } catch (failure) {
    failed(failure);
  }
}

export function importGame() {
  open("import");
}

$("pdn-copy").addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText(text.value);
  } catch {
    text.select();
    document.execCommand("copy");
  }
  error.textContent = t("pdn.copied");
});

$("pdn-download").addEventListener("click", () => {
  const blob = new Blob([text.value], { type: "application/x-pdn" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `kingme-${today().join("")}.pdn`;
  document.body.appendChild(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(link.href), 1000);
});

// The pasted text as the server reads it (its first game, or a position), or null after saying
// in the dialog why it could not be read; the text stays for the player to mend.
async function pasted() {
  const config = formConfig();
  try {
    return await api.importText(text.value, config.rules, config.seed || "checkers-1");
  } catch (failure) {
    error.textContent = failure.message || String(failure);
    return null;
  }
}

$("pdn-load").addEventListener("click", async () => {
  if (mode !== "import") return;
  const next = await pasted();
  if (!next) return;
  dialog.close();
  begin({ ...formConfig(), position: next.standard ? "standard" : "custom" }, next);
});

// A pasted game opens in the review (the game on the board stays as it is).
$("pdn-review").addEventListener("click", async () => {
  if (mode !== "import") return;
  const next = await pasted();
  if (!next) return;
  if (!next.record.moves.length) {
    error.textContent = t("pdn.noMoves");
    return;
  }
  dialog.close();
  import("./archive-view.js").then((module) => module.reviewPasted(next)).catch(failed);
});
