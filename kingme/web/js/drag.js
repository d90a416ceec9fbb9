// Drag and drop on a BoardView (board.js), with the mouse or a finger: a piece that can move is
// carried to a square, and the drop is the click on that square (after the piece's own click when
// it was not already picked), so the controller sees the same selections as with click-click.
// Loaded on the first press of a piece.

import { CELL } from "./board.js";

// How far (CSS px) a pressed pointer moves before the press is a drag rather than a click: more
// than a finger's wobble on a tap.
const DRAG_PX = 8;

// The pointer in board units (the SVG's 800 × 800).
function boardPoint(view, event) {
  return new DOMPoint(event.clientX, event.clientY).matrixTransform(view.svg.getScreenCTM().inverse());
}

// The playable square under a point in board units, or null (a light square, off the board).
function squareAt(view, { x, y }) {
  for (let square = 1; square <= 32; square += 1) {
    const [left, top] = view.xy(square);
    if (x >= left && x < left + CELL && y >= top && y < top + CELL) return square;
  }
  return null;
}

// Follow the press `down` on `cell` until the pointer is released.
export function carry(view, down, cell) {
  const { svg } = view;
  const from = Number(cell.dataset.square);
  const piece = cell.querySelector(".piece");
  let ghost = null;

  function move(event) {
    if (!ghost) {
      if (Math.hypot(event.clientX - down.clientX, event.clientY - down.clientY) < DRAG_PX) return;
      try {
        svg.setPointerCapture(event.pointerId); // the drop lands on the board wherever it is
      } catch {
        // a pointer the browser no longer tracks: the board's own listeners still see it
      }
      if (!piece.classList.contains("lifted")) view.handlers.onActivate(from);
      ghost = piece.cloneNode(true);
      ghost.classList.add("ghost");
      view.layer.appendChild(ghost);
      svg.classList.add("dragging");
    }
    const at = boardPoint(view, event);
    ghost.setAttribute("transform", `translate(${at.x - CELL / 2} ${at.y - CELL / 2})`);
  }

  function end(event) {
    svg.removeEventListener("pointermove", move);
    svg.removeEventListener("pointerup", end);
    svg.removeEventListener("pointercancel", end);
    if (!ghost) return;
    ghost.remove();
    svg.classList.remove("dragging");
    if (event.type !== "pointerup") return;
    view.dragged = true; // the click the browser may still send is not a second selection
    window.setTimeout(() => { view.dragged = false; }, 0);
    const square = squareAt(view, boardPoint(view, event));
    if (square && square !== from) view.handlers.onActivate(square);
  }

  svg.addEventListener("pointermove", move);
  svg.addEventListener("pointerup", end);
  svg.addEventListener("pointercancel", end);
}
