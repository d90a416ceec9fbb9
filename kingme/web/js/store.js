// Local storage of the unfinished game, the preferences and the totals. When the browser
// refuses storage (private mode, blocked cookies) everything is kept in memory for this visit.

const PREFIX = "kingme.";
const memory = new Map();

function probe() {
  try {
    const storage = window.localStorage;
    const key = `${PREFIX}probe`;
    storage.setItem(key, "1");
    storage.removeItem(key);
    return storage;
  } catch {
    return null;
  }
}

const storage = probe();

export const storageAvailable = storage !== null;

export function load(name, fallback) {
  try {
    const text = storage ? storage.getItem(PREFIX + name) : memory.get(name);
    if (text == null) return fallback;
    const value = JSON.parse(text);
    return value ?? fallback;
  } catch {
    return fallback;
  }
}

// Whether the value went to the browser's storage (false: it is kept for this visit only).
export function save(name, value) {
  const text = JSON.stringify(value);
  if (storage) {
    try {
      storage.setItem(PREFIX + name, text);
      return true;
    } catch {
      // quota exceeded or storage revoked: keep it for this visit
    }
  }
  memory.set(name, text);
  return false;
}

export function remove(name) {
  memory.delete(name);
  try {
    storage?.removeItem(PREFIX + name);
  } catch {
    // nothing more to do
  }
}
