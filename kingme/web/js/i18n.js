// Translations: every string the page shows comes from /i18n/<language>.json.
// Text is always inserted with textContent, never as HTML.

import { http } from "./api.js";

export const LANGUAGES = ["en", "es", "fr", "de", "pt"];

let strings = {};
let fallback = {};
let current = "en";

// Parts of the page loaded later (the review and the archive) bring their words in their own
// files, /i18n/<part>/<language>.json, so the first visit does not download them.
// Each part's loading, kept so that a second view asking for a part still being loaded waits
// for the same words instead of going on without them.
const parts = new Map();

async function load(language, part = "") {
  const url = part ? `/i18n/${part}/${language}.json` : `/i18n/${language}.json`;
  const { status, data } = await http("GET", url);
  if (status !== 200) throw new Error(`no translation file for ${language}`);
  return data;
}

// A part's table added to the words: a section both have (online) gets the part's keys too.
function merge(words, table) {
  for (const [key, value] of Object.entries(table)) {
    const both = typeof value === "object" && typeof words[key] === "object" && !Array.isArray(value);
    words[key] = both ? { ...words[key], ...value } : value;
  }
  return words;
}

// The words of a language: the page's, and those of every part loaded so far.
async function words(language) {
  const tables = await Promise.all([load(language), ...[...parts.keys()].map((part) => load(language, part))]);
  return tables.reduce(merge, {});
}

// A part's words, in English and in the chosen language, before the part shows anything.
export function loadPart(part) {
  if (!parts.has(part)) {
    parts.set(part, (async () => {
      const [english, chosen] = await Promise.all([load("en", part), current === "en" ? null : load(current, part)]);
      merge(fallback, english);
      if (chosen) merge(strings, chosen);
    })());
  }
  return parts.get(part);
}

export async function setLanguage(language) {
  const chosen = LANGUAGES.includes(language) ? language : "en";
  if (!Object.keys(fallback).length) fallback = await words("en");
  strings = chosen === "en" ? fallback : await words(chosen);
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
