// Translations: every string the page shows comes from /i18n/<language>.json.
// Text is always inserted with textContent, never as HTML.

import { http } from "./api.js";

export const LANGUAGES = ["en", "es", "fr", "de", "pt"];

let strings = {};
let fallback = {};
let current = "en";

async function load(language) {
  const { status, data } = await http("GET", `/i18n/${language}.json`);
  if (status !== 200) throw new Error(`no translation file for ${language}`);
  return data;
}

export async function setLanguage(language) {
  const chosen = LANGUAGES.includes(language) ? language : "en";
  if (!Object.keys(fallback).length) fallback = await load("en");
  strings = chosen === "en" ? fallback : await load(chosen);
  current = chosen;
  document.documentElement.lang = chosen;
  applyTo(document);
  return chosen;
}

export function language() {
  return current;
}

function lookup(table, key) {
  return key.split(".").reduce((node, part) => (node == null ? undefined : node[part]), table);
}

// The raw entry (string, list or object) for key, from the chosen language or English.
export function entry(key) {
  const value = lookup(strings, key);
  return value === undefined ? lookup(fallback, key) : value;
}

// The string for key with {name} placeholders filled from vars.
export function t(key, vars = {}) {
  const value = entry(key);
  if (typeof value !== "string") return key;
  return value.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

// Fill the static text of the page: data-i18n (text) and data-i18n-aria-label (accessible name).
export function applyTo(root) {
  if (root === document) document.title = `kingme · ${t("app.title")}`;
  for (const element of root.querySelectorAll("[data-i18n]")) element.textContent = t(element.dataset.i18n);
  for (const element of root.querySelectorAll("[data-i18n-aria-label]")) {
    element.setAttribute("aria-label", t(element.dataset.i18nAriaLabel));
  }
}
