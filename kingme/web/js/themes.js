// Piece and board themes. A piece theme names the two sides (the first mover, "black" in the
// rules, and the second, "white"); the names are used everywhere, the history included.

export const PIECE_THEMES = {
  "red-white": { black: "red", white: "white" },
  "black-white": { black: "black", white: "white" },
  "black-red": { black: "black", white: "red" },
  "blue-red": { black: "blue", white: "red" },
};

export const BOARD_THEMES = ["walnut", "tournament", "slate"];

export function sideColors(theme) {
  return PIECE_THEMES[theme] || PIECE_THEMES["red-white"];
}
