// The SVG board: one ARIA grid of the 32 playable squares (8 rows of 4), drawn from a plain
// description of what to show. It knows nothing of the rules: the controller tells it which
// pieces are where, which can move, which squares are targets and which pieces can be taken.

const SVG = "http://www.w3.org/2000/svg";
export const CELL = 100;
const STEP_MS = 150;
const NUMBER_PX = 12;

function el(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

// Board row (0 = squares 1-4) and column (0-7) of square n, in the standard diagram (square 1
// top left, White at the bottom).
export function rowCol(square) {
  const row = Math.floor((square - 1) / 4);
  const index = (square - 1) % 4;
  return [row, row % 2 === 0 ? 2 * index + 1 : 2 * index];
}

const CROWN = "M-17 8 L-20 -9 L-9 -1 L0 -14 L9 -1 L20 -9 L17 8 Z";

export class BoardView {
  constructor(svg, handlers) {
    this.svg = svg;
    this.handlers = handlers;
    this.blackAtBottom = true;
    this.focusIndex = null;
    this.build();
    // Moves, hints and puzzles all name squares: their numbers stay readable (at least 12 px on
    // the screen) however small the board is drawn.
    new ResizeObserver(() => this.scaleNumbers()).observe(svg);
  }

  scaleNumbers() {
    const width = this.svg.getBoundingClientRect().width;
    if (width) this.svg.style.setProperty("--number-size", `${Math.max(16, (NUMBER_PX * 800) / width).toFixed(1)}px`);
  }

  build() {
    const svg = this.svg;
    svg.textContent = "";
    const background = el("g", { "aria-hidden": "true", class: "light-squares" }, svg);
    for (let r = 0; r < 8; r += 1) {
      for (let c = 0; c < 8; c += 1) {
        if ((r + c) % 2 === 0) el("rect", { x: c * CELL, y: r * CELL, width: CELL, height: CELL, class: "light" }, background);
      }
    }
    this.cells = [];
    for (let r = 0; r < 8; r += 1) {
      const row = el("g", { role: "row" }, svg);
      const cells = [];
      for (let k = 0; k < 4; k += 1) {
        const cell = el("g", { role: "gridcell", class: "sq", tabindex: "-1" }, row);
        // The pointer lands on the cell's hit area, drawn once and never replaced; what render()
        // draws lies in the drawing over it and takes no pointer events. A press and its release
        // must land on the same element for the browser to make a click, and a render between
        // the two (a friend's presence arriving online) replaces everything in the drawing.
        el("rect", { width: CELL, height: CELL, class: "hit" }, cell);
        el("g", { class: "drawing" }, cell);
        cell.addEventListener("click", () => {
          if (this.dragged) this.dragged = false; // the drop was the move
          else this.handlers.onActivate(Number(cell.dataset.square));
        });
        cell.addEventListener("pointerdown", (event) => this.press(event, cell));
        cell.addEventListener("focus", () => {
          this.focusIndex = [r, k];
          this.roving(cell);
        });
        cells.push(cell);
      }
      this.cells.push(cells);
    }
    this.layer = el("g", { class: "fly-layer", "aria-hidden": "true" }, svg);
    // A press that did not start a drag ends here; drag.js takes over the ones that do.
    svg.addEventListener("pointerup", () => { this.dragging = null; });
    svg.addEventListener("keydown", (event) => this.keydown(event));
    this.placeCells();
    this.roving(this.cellOf(this.blackAtBottom ? 22 : 11));
  }

  // Drag and drop lives in drag.js, loaded on the first press of a piece (not on the first visit).
  press(event, cell) {
    if (!cell.querySelector('.piece[data-movable="true"]') || event.button !== 0) return;
    const pressed = { event, cell };
    this.dragging = pressed;
    import("./drag.js").then((drag) => {
      if (this.dragging === pressed) drag.carry(this, event, cell);
    }).catch(() => {});
  }

  // Which square each display cell shows, for the current orientation.
  placeCells() {
    for (let r = 0; r < 8; r += 1) {
      for (let k = 0; k < 4; k += 1) {
        const row = this.blackAtBottom ? 7 - r : r;
        const index = this.blackAtBottom ? 3 - k : k;
        const square = row * 4 + index + 1;
        const cell = this.cells[r][k];
        cell.dataset.square = String(square);
        const [x, y] = this.xy(square);
        cell.setAttribute("transform", `translate(${x} ${y})`);
      }
    }
  }

  xy(square) {
    const [row, col] = rowCol(square);
    return this.blackAtBottom ? [(7 - col) * CELL, (7 - row) * CELL] : [col * CELL, row * CELL];
  }

  cellOf(square) {
    return this.svg.querySelector(`.sq[data-square="${square}"]`);
  }

  setOrientation(blackAtBottom) {
    if (blackAtBottom === this.blackAtBottom) return;
    const focused = document.activeElement?.closest?.(".sq")?.dataset.square;
    this.blackAtBottom = blackAtBottom;
    this.placeCells();
    if (this.last) this.render(this.last);
    if (focused) this.cellOf(Number(focused)).focus();
  }

  roving(cell) {
    for (const other of this.svg.querySelectorAll(".sq[tabindex='0']")) other.setAttribute("tabindex", "-1");
    cell.setAttribute("tabindex", "0");
  }

  focus() {
    const cell = this.svg.querySelector(".sq[tabindex='0']") || this.cells[0][0];
    cell.focus();
  }

  keydown(event) {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    const cell = event.target.closest?.(".sq");
    if (event.key in moves && cell) {
      event.preventDefault();
      const [r, k] = this.focusIndex || [0, 0];
      const [dr, dk] = moves[event.key];
      const next = this.cells[Math.min(7, Math.max(0, r + dr))][Math.min(3, Math.max(0, k + dk))];
      next.focus();
    } else if ((event.key === "Enter" || event.key === " ") && cell) {
      event.preventDefault();
      this.handlers.onActivate(Number(cell.dataset.square));
    } else if (event.key === "Escape") {
      this.handlers.onEscape();
    }
  }

  // view: { pieces: {n: {color, kind, taken}}, movable: Set, selected, targets: Map(n -> {next, numbers}),
  //         capturable: Set, lastMove: [n], hint: [n], numbers: bool, marks: bool, label(n, info) }
  render(view) {
    this.last = view;
    for (const row of this.cells) {
      for (const cell of row) this.drawCell(cell, Number(cell.dataset.square), view);
    }
  }

  drawCell(cell, square, view) {
    const drawing = cell.lastChild; // build() put it over the cell's hit area, which stays
    drawing.textContent = "";
    const piece = view.pieces[square];
    const target = view.targets.get(square);
    const movable = view.movable.has(square);
    const capturable = view.capturable.has(square);
    el("rect", { width: CELL, height: CELL, class: "dark" }, drawing);
    if (view.lastMove.includes(square)) el("rect", { width: CELL, height: CELL, class: "last-move" }, drawing);
    if (view.hint.includes(square)) el("rect", { x: 4, y: 4, width: CELL - 8, height: CELL - 8, class: "hint-mark" }, drawing);
    if (view.selected === square) el("rect", { width: CELL, height: CELL, class: "selected-square" }, drawing);
    if (target?.next) cell.setAttribute("data-target", "true");
    else cell.removeAttribute("data-target");
    if (target && view.marks) {
      el("circle", { cx: 50, cy: 50, r: target.next ? 20 : 17, class: target.next ? "target-dot" : "route-dot" }, drawing);
    }
    if (piece) this.drawPiece(drawing, piece, { movable, capturable: capturable && view.marks, selected: view.selected === square });
    // Numbers go over the pieces (a king's round trip lands where it started), outlined in black.
    if (target?.numbers.length && view.marks) {
      const label = el("text", { x: 50, y: 60, class: "landing-number" }, drawing);
      label.textContent = target.numbers.join(",");
    }
    if (view.numbers) {
      const number = el("text", { x: 5, y: 5, class: "sq-number" }, drawing);
      number.textContent = String(square);
    }
    el("rect", { x: 3, y: 3, width: CELL - 6, height: CELL - 6, rx: 6, class: "focus-ring" }, drawing);
    const state = {
      piece, target, movable, capturable, selected: view.selected === square,
      lastMove: view.lastMove.includes(square), hint: view.hint.includes(square),
    };
    cell.setAttribute("aria-label", view.label(square, state));
    cell.setAttribute("aria-selected", view.selected === square ? "true" : "false");
  }

  drawPiece(parent, piece, { movable = false, capturable = false, selected = false } = {}) {
    const group = el("g", {
      class: `piece side-${piece.color}${piece.taken ? " taken" : ""}${selected ? " lifted" : ""}`,
      "data-piece": piece.kind,
      "data-color": piece.color,
    }, parent);
    if (movable) group.setAttribute("data-movable", "true");
    if (movable) el("circle", { cx: 50, cy: 50, r: 45, class: "movable-ring" }, group);
    el("circle", { cx: 50, cy: 55, r: 36, class: "piece-shadow" }, group);
    el("circle", { cx: 50, cy: 50, r: 36, class: "piece-body" }, group);
    el("circle", { cx: 50, cy: 50, r: 27, class: "piece-groove" }, group);
    el("circle", { cx: 50, cy: 50, r: 19, class: "piece-inner" }, group);
    if (piece.kind === "king") el("path", { d: CROWN, transform: "translate(50 51)", class: "crown" }, group);
    if (capturable) {
      // A dark cross in a white outline shows on every piece colour, red ones included.
      const cross = el("g", { class: "capture-mark" }, group);
      el("path", { d: "M30 30 L70 70 M70 30 L30 70", class: "capture-halo" }, cross);
      el("path", { d: "M30 30 L70 70 M70 30 L30 70", class: "capture-core" }, cross);
    }
    return group;
  }

  // Fly the piece on path[0] along the path, removing each captured piece as it is jumped.
  async animate(path, captures, piece) {
    if (window.matchMedia("(prefers-reduced-motion: reduce)").matches || path.length < 2) return;
    const origin = this.cellOf(path[0])?.querySelector(".piece");
    if (origin) origin.classList.add("hidden");
    const flyer = el("g", { class: "flyer" }, this.layer);
    this.drawPiece(flyer, piece);
    const [x0, y0] = this.xy(path[0]);
    flyer.style.transform = `translate(${x0}px, ${y0}px)`;
    flyer.getBoundingClientRect();
    for (let i = 1; i < path.length; i += 1) {
      const [x, y] = this.xy(path[i]);
      flyer.style.transition = `transform ${STEP_MS}ms ease-in-out`;
      flyer.style.transform = `translate(${x}px, ${y}px)`;
      await new Promise((resolve) => window.setTimeout(resolve, STEP_MS));
      const jumped = captures[i - 1];
      if (jumped) this.cellOf(jumped)?.querySelector(".piece")?.classList.add("hidden");
    }
    flyer.remove();
  }
}
