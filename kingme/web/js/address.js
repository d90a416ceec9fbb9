// The page's address: each view has its own (/, /daily, /puzzle, /puzzle/ID, /room/ID), so a
// reload or Back shows it again.

export function navigate(path) {
  if (window.location.pathname + window.location.search !== path) window.history.pushState(null, "", path);
}

// A room's page is /room/ID (links written /?room=ID by older pages still open it).
export function roomInUrl() {
  const path = window.location.pathname.match(/^\/room\/([^/]+)\/?$/);
  const id = path ? path[1] : new URLSearchParams(window.location.search).get("room");
  return id && /^[A-Za-z0-9_-]{1,64}$/.test(id) ? id : null;
}

export function roomPath(id) {
  return `/room/${encodeURIComponent(id)}`;
}
