// The help dialog: how to play, the rules, strategy, controls, online play, the daily game, the
// puzzles and the FAQ, all from the translation files (lists and pairs), built with textContent only.

import { entry, t } from "./i18n.js";

const TABS = ["howto", "rules", "strategy", "controls", "online", "daily", "puzzle", "faq"];
let chosen = "howto";

function add(parent, tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  parent.appendChild(node);
  return node;
}

function list(parent, tag, items) {
  const node = add(parent, tag);
  for (const item of items || []) add(node, "li", item);
  return node;
}

function fill(content, tab) {
  content.textContent = "";
  if (tab === "howto") list(content, "ol", entry("help.howto"));
  if (tab === "rules") {
    add(content, "p", t("help.rulesIntro"));
    list(content, "ul", entry("help.rules"));
    add(content, "p", t("help.endingsIntro"));
    list(content, "ol", entry("help.endings"));
  }
  if (["strategy", "online", "daily", "puzzle"].includes(tab)) list(content, "ul", entry(`help.${tab}`));
  if (tab === "controls") {
    add(content, "p", t("help.controlsIntro"));
    const table = add(content, "table", undefined, "keys");
    for (const [input, action] of entry("help.controls") || []) {
      const row = add(table, "tr");
      add(row, "th", input).scope = "row";
      add(row, "td", action);
    }
  }
  if (tab === "faq") {
    for (const [question, answer] of entry("help.faq") || []) {
      const details = add(content, "details");
      add(details, "summary", question);
      add(details, "p", answer);
    }
  }
}

export function mountHelp(tabs, content) {
  tabs.textContent = "";
  for (const tab of TABS) {
    const button = add(tabs, "button", t(`help.tabs.${tab}`), "tab");
    button.type = "button";
    button.setAttribute("role", "tab");
    button.dataset.tab = tab;
    button.setAttribute("aria-selected", String(tab === chosen));
    button.addEventListener("click", () => {
      chosen = tab;
      for (const other of tabs.children) other.setAttribute("aria-selected", String(other === button));
      fill(content, tab);
    });
  }
  fill(content, chosen);
}
