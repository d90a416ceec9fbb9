// The evaluation graph of a review: Black's (the first mover's) winning chances after every ply
// as a filled area over the whole game, the moves judged inaccuracy, mistake or blunder as dots
// in lichess's colours, and the ply shown as a line. A click anywhere picks the nearest ply; each
// dot is a button of its own (Tab, Enter), named for its move. Drawn from plain data with
// createElementNS and textContent only; the graph knows nothing of the game's rules.

const SVG = "http://www.w3.org/2000/svg";
// The drawing's units: about as wide as the side panel in pixels, a third as high.
const WIDTH = 400;
const HEIGHT = 130;
// A dot is big enough to see and to hit, and lies wholly inside the drawing (PAD around it).
const DOT_RADIUS = 8;
const PAD = DOT_RADIUS + 2;

function el(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

// graph: { initial: EVAL | null, plies: [PLY…] (those known so far), total: plies in the game,
// shown: the ply on the board, label(ply): a dot's accessible name, pick(ply): a ply chosen }.
export function drawGraph(svg, { initial, plies, total, shown, label, pick }) {
  // A dot that had the focus keeps it across the redraw (Enter on a dot redraws the graph).
  const focused = svg.contains(document.activeElement) ? document.activeElement.dataset?.ply : undefined;
  svg.textContent = "";
  svg.setAttribute("viewBox", `0 0 ${WIDTH} ${HEIGHT}`);
  const x = (ply) => PAD + (total ? (ply / total) * (WIDTH - 2 * PAD) : 0);
  const y = (win) => HEIGHT - PAD - (win / 100) * (HEIGHT - 2 * PAD);
  const back = el("rect", { width: WIDTH, height: HEIGHT, class: "graph-back" }, svg);
  back.addEventListener("click", (event) => {
    const box = svg.getBoundingClientRect();
    const ply = Math.round((((event.clientX - box.left) / box.width) * WIDTH - PAD) / (WIDTH - 2 * PAD) * total);
    pick(Math.min(plies.length, Math.max(0, ply)));
  });
  if (initial) {
    const points = [[x(0), y(initial.win)], ...plies.map((ply) => [x(ply.ply), y(ply.eval.win)])];
    const line = points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(" L");
    const last = points[points.length - 1][0].toFixed(1);
    el("path", { d: `M${PAD},${HEIGHT} L${line} L${last},${HEIGHT} Z`, class: "graph-area" }, svg);
    el("path", { d: `M${line}`, class: "graph-line" }, svg);
  }
  el("line", { x1: 0, x2: WIDTH, y1: HEIGHT / 2, y2: HEIGHT / 2, class: "graph-middle" }, svg);
  el("line", { x1: x(shown), x2: x(shown), y1: 0, y2: HEIGHT, class: "graph-shown" }, svg);
  for (const ply of plies) {
    if (!ply.verdict) continue;
    const dot = el("g", { class: `graph-dot verdict-${ply.verdict}`, tabindex: "0", role: "button", "data-ply": ply.ply }, svg);
    dot.setAttribute("aria-label", label(ply));
    el("circle", { cx: x(ply.ply), cy: y(ply.eval.win), r: DOT_RADIUS }, dot);
    dot.addEventListener("click", (event) => {
      event.stopPropagation();
      pick(ply.ply);
    });
    dot.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" && event.key !== " ") return;
      event.preventDefault();
      pick(ply.ply);
    });
    if (focused === String(ply.ply)) dot.focus();
  }
}
