// Shared by the pages of the browser game: tiles drawn as SVG, small helpers.
"use strict";

// Where the pips of each number lie on a half, as (column, row) in a 3x3 grid
// (the same spots as the library's SVG figures).
const PIP_SPOTS = [
  [],
  [[1, 1]],
  [[2, 0], [0, 2]],
  [[2, 0], [1, 1], [0, 2]],
  [[0, 0], [2, 0], [0, 2], [2, 2]],
  [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]],
  [[0, 0], [0, 1], [0, 2], [2, 0], [2, 1], [2, 2]],
];

const SVG_NS = "http://www.w3.org/2000/svg";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child);
  }
  return node;
}

function svgEl(tag, attrs) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  return node;
}

// "[1|4]" -> [1, 4]
function tileValues(text) {
  const match = /^\[(\d)\|(\d)\]$/.exec(text);
  return match ? [Number(match[1]), Number(match[2])] : null;
}

// An upright tile (low half on top), `size` pixels wide.
function tileSvg(text, size) {
  const [low, high] = tileValues(text);
  const w = size, h = size * 2;
  const svg = svgEl("svg", { viewBox: `0 0 ${w} ${h}`, width: w, height: h, class: "tile-face" });
  svg.append(svgEl("rect", { x: 1, y: 1, width: w - 2, height: h - 2, rx: 4, class: "tile-body" }));
  svg.append(svgEl("line", { x1: 4, y1: h / 2, x2: w - 4, y2: h / 2, class: "tile-line" }));
  [[low, 0], [high, w]].forEach(([value, top]) => {
    for (const [column, row] of PIP_SPOTS[value]) {
      svg.append(svgEl("circle", {
        cx: w * (0.25 + 0.25 * column), cy: top + w * (0.25 + 0.25 * row),
        r: Math.max(1.6, w / 11), class: "pip",
      }));
    }
  });
  const title = svgEl("title", {});
  title.textContent = text;
  svg.append(title);
  return svg;
}

// A face-down tile, for the hands one may not see.
function backSvg(size) {
  const svg = svgEl("svg", { viewBox: `0 0 ${size} ${size * 2}`, width: size, height: size * 2, class: "tile-back" });
  svg.append(svgEl("rect", { x: 1, y: 1, width: size - 2, height: size * 2 - 2, rx: 3 }));
  return svg;
}

// The rules by seat, from rules.js (which tools/batch_header.py writes from
// american_sniff.rules): a seat's scoring side, its partner (null without
// partnerships), and whether the seats play in partnerships.
function sideOf(players, seat) {
  return RULES.sideOf[players][seat];
}

function partnerOf(players, seat) {
  return RULES.partnerOf[players][seat];
}

function hasPartners(players) {
  return partnerOf(players, 0) !== null;
}

function sideName(players, side) {
  if (hasPartners(players)) return `seats ${side} + ${partnerOf(players, side)}`;
  return `seat ${side}`;
}

function kindName(kind) {
  return kind === "human" ? "person" : `${kind} bot`;
}

async function fetchJson(url, options) {
  const response = await fetch(url, options);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || `the server said ${response.status}`);
  return body;
}

// Which of the table's figures a box shows: the portrait one (drawn on a narrow
// page) when the box is narrow, so that the arms turn sooner and the tiles stay
// large. Before the box is laid out, the window's width decides.
function tableWanted(box) {
  return (box.clientWidth || window.innerWidth) < 560 ? "narrow" : "wide";
}

// The figure for a box, of those given (the game page is sent only the one it
// asked for; the replay gets both).
function tableFor(box, wide, narrow) {
  if (!wide || !narrow) return wide || narrow || "";
  return box.clientWidth < 560 ? narrow : wide;
}

// Fit a table figure to its box: as large as the box's width and `maxHeight`
// allow, up to twice its natural size (a short table fills the panel too).
function fitFigure(svg, maxHeight) {
  if (!svg) return;
  const width = Number(svg.getAttribute("width")), height = Number(svg.getAttribute("height"));
  const box = svg.parentElement;
  if (!width || !height || !box) return;
  const room = box.clientWidth || width;
  // (a phone gives the table a little over half its height, a desktop 60%: the
  // seats above and below it, the hint and the sum line stay on the screen)
  const tall = maxHeight || window.innerHeight * (window.innerWidth < 560 ? 0.55 : 0.6);
  const scale = Math.min(room / width, tall / height, 2);
  svg.setAttribute("width", String(Math.floor(width * scale)));
  svg.setAttribute("height", String(Math.floor(height * scale)));
  svg.style.marginInline = "auto";
}

// The number on an open point, from its engine name: "[1|4] high" is a 4.
function pointNumber(point) {
  const match = /^\[(\d)\|(\d)\] (\w+)$/.exec(point);
  if (!match) return null;
  return Number(match[3] === "high" ? match[2] : match[1]);
}

// The centre of an SVG element's box, in the figure's own units.
function svgCentre(node) {
  const box = node.getBBox();
  return [box.x + box.width / 2, box.y + box.height / 2];
}

// A player's words for every open point of a drawn table figure (the
// library's render_svg), by the point's engine name: "the 1 on the right",
// "the Sniff's upper branch". Where the point lies is read from the figure,
// against the opening tile, the first its title names (for the Sniff's
// branches, against the Sniff).
function pointWordsOf(svg) {
  const words = new Map();
  const title = svg ? svg.querySelector(":scope > title") : null;
  const first = title ? /\[\d\|\d\]/.exec(title.textContent) : null;
  if (!first) return words;
  const opener = svg.querySelector(`g.tile[data-tile="${CSS.escape(first[0])}"] rect`);
  const sniffRect = svg.querySelector("g.tile.sniff rect");
  if (!opener) return words;
  const [ox, oy] = svgCentre(opener);
  for (const group of svg.querySelectorAll("g.point")) {
    const point = group.dataset.point;
    const circle = group.querySelector("circle");
    const [cx, cy] = [Number(circle.getAttribute("cx")), Number(circle.getAttribute("cy"))];
    if (/ branch_[ab]$/.test(point) && sniffRect) {
      const [sx, sy] = svgCentre(sniffRect);
      const across = Math.abs(cx - sx) > Math.abs(cy - sy);
      const where = across ? (cx < sx ? "left" : "right") : (cy < sy ? "upper" : "lower");
      words.set(point, `the Sniff's ${where} branch`);
      continue;
    }
    const dx = cx - ox, dy = cy - oy;
    const where = Math.abs(dx) >= Math.abs(dy) ? (dx < 0 ? "on the left" : "on the right")
      : (dy < 0 ? "at the top" : "at the bottom");
    words.set(point, `the ${pointNumber(point)} ${where}`);
  }
  // Two points with the same words (an arm that turned back): tell them apart.
  const counts = new Map();
  for (const text of words.values()) counts.set(text, (counts.get(text) || 0) + 1);
  for (const [point, text] of words) {
    if (counts.get(text) > 1) words.set(point, `${text} (${point.split(" ")[0]})`);
  }
  return words;
}


// A placement's join in a player's words: "[4|6] on [1|4] high" is "on the 4
// of [1|4]"; a double's in-line side is "on the double [3|3]" (or "the Sniff"),
// a branch "on a branch of the Sniff [3|3]".
function joinWords(move, sniff) {
  const match = /^\[\d\|\d\] on (\[(\d)\|(\d)\]) (\w+)$/.exec(move);
  if (!match) return null;
  const [, tile, low, high, side] = match;
  if (side === "low" || side === "high") return `on the ${side === "low" ? low : high} of ${tile}`;
  if (side.startsWith("branch")) return `on a branch of the Sniff ${tile}`;
  return tile === sniff ? `on the Sniff ${tile}` : `on the double ${tile}`;
}
