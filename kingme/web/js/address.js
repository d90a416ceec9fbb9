// The page's address: each view has its own (/, /daily, /puzzle, /puzzle/ID, /room/ID), so a
// reload or Back shows it again.

export function navigate(path) {
  if (window.location.pathname !== path) window.history.pushState(null, "", path);
}
