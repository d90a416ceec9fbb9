// PDN export (copy and download) and import (paste a PDN game or a FEN position and continue).

const $ = (id) => document.getElementById(id);

function today() {
  const now = new Date();
  return [now.getFullYear(), now.getMonth() + 1, now.getDate()].map((n) => String(n).padStart(2, "0"));
}

export function mountPdn({ api, t, colorName, current, formConfig, onLoad, onError }) {
  const dialog = $("pdn-dialog");
  const text = $("pdn-text");
  const error = $("pdn-error");
  let mode = "export";

  function open(which) {
    mode = which;
    error.textContent = "";
    $("pdn-title").textContent = t(which === "export" ? "pdn.exportTitle" : "pdn.importTitle");
    $("pdn-help").textContent = t(which === "export" ? "pdn.exportHelp" : "pdn.importHelp");
    text.readOnly = which === "export";
    $("pdn-copy").hidden = which !== "export";
    $("pdn-download").hidden = which !== "export";
    $("pdn-load").hidden = which === "export";
    if (which === "import") text.value = "";
    dialog.showModal();
  }

  $("export-pdn").addEventListener("click", async () => {
    const game = current();
    if (!game) return;
    const { config } = game;
    const player = (color) => {
      if (config.opponent !== "computer") return colorName(color);
      const human = config.side === "white" ? "white" : "black";
      return color === human ? t("players.you") : t("players.computer", { level: t(`levels.${config.level}`) });
    };
    try {
      const answer = await api.exportPdn(game.record, {
        Event: t("pdn.event"), Site: window.location.host, Date: today().join("."),
        Black: player("black"), White: player("white"),
      });
      open("export");
      text.value = answer.pdn;
    } catch (failure) {
      onError(failure);
    }
  });

  $("import-pdn").addEventListener("click", () => open("import"));

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

  $("pdn-load").addEventListener("click", async () => {
    if (mode !== "import") return;
    const config = formConfig();
    try {
      const next = await api.importText(text.value, config.rules, config.seed || "checkers-1");
      dialog.close();
      onLoad(next, { ...config, position: next.standard ? "standard" : "custom" });
    } catch (failure) {
      error.textContent = failure.message || String(failure);
    }
  });
}
