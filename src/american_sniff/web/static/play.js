// The game page: one WebSocket to the server, which sends this seat's view (or the
// spectator view) after every change. Everything drawn here comes from that message.
"use strict";

const matchId = location.pathname.split("/").pop();
const token = decodeURIComponent(location.hash.slice(1));
let socket = null;
let current = null;     // the last "state" message
let selected = null;    // the tile picked in the hand, as text
let hint = null;        // the move the hint button suggested
let hintReason = "";    // why, in a line of words (the server's)
let closedRound = 0;    // a spectator's last settlement closed
let closedEnd = false;  // the match's end closed
let words = new Map();  // a player's words for each open point, by its engine name
let notation = localStorage.getItem("sniff-notation") === "yes";  // engine names instead
let drawnSeq = null;    // the seq the table was last drawn at
let freshTiles = new Set();  // tiles new on the table in the last state received
let askedRematch = false;    // this page asked for the rematch: it goes there when made
let parked = null;      // the control the page itself last moved the focus to
let returnTo = null;    // where the focus was when a dialog opened: it goes back there
let askedTable = null;  // the drawing of the table the server sends: "wide" or "narrow"
let failures = 0;       // connections in a row that closed before a state came
const SPEEDS = ["instant", "normal", "slow"];
let speed = SPEEDS.includes(localStorage.getItem("sniff-speed")) ? localStorage.getItem("sniff-speed") : "normal";

const $ = (id) => document.getElementById(id);

function prettySide(text) {
  return text.replace(/_a\b/, " A").replace(/_b\b/, " B");
}

// How an open point is named to the player: in words, or in the engine's notation.
function pointName(point) {
  return notation ? prettySide(point) : words.get(point) || prettySide(point);
}

// Where a move goes, in the player's words ("on the 4 on the right").
function moveWhere(move) {
  if (move.endsWith(" opens")) return "open the round";
  return `on ${pointName(move.split(" on ")[1])}`;
}

function seatName(seat, withKind) {
  if (!current) return `seat ${seat}`;
  const view = current.view;
  const kind = current.seats[seat];
  if (seat === current.you) return "you";
  const given = (current.names || [])[seat];
  const notes = given ? [`seat ${seat}`] : [];
  if (typeof current.you === "number" && partnerOf(view.players, current.you) === seat) {
    notes.push("your partner");
  } else if (withKind && !given) {  // a name is a person's: no need to say so
    notes.push(kindName(kind));
  }
  const name = given || `seat ${seat}`;
  return notes.length ? `${name} (${notes.join(", ")})` : name;
}

function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function sideLabel(side) {
  const players = current.view.players;
  if (typeof current.you === "number") {
    const mine = sideOf(players, current.you);
    if (side === mine) return hasPartners(players) ? "you and your partner" : "you";
  }
  return sideName(players, side);
}

function actionText(action) {
  const who = capital(seatName(action.seat, false));
  const move = action.move;
  if (move === "draw") {
    return action.tile ? `${who} drew ${action.tile}.` : `${who} drew a tile.`;
  }
  if (move === "pass") return `${who} passed.`;
  const scored = action.points ? `, scores ${action.points}` : "";
  const join = notation ? null : joinWords(move, current.view.table.sniff);
  const verb = move.endsWith(" opens") ? `${who} opened with ${move.split(" ")[0]}`
    : `${who} placed ${join ? `${move.split(" ")[0]} ${join}` : prettySide(move)}`;
  return `${verb}: sum ${action.end_sum}${scored}.`;
}

// -- the connection -----------------------------------------------------------------

// How long to wait before reconnecting, in ms, after a close with ``code`` and
// ``failed`` connections in a row that brought no state: 1 s, doubled for each
// failure up to 30 s; at least 10 s after a refusal for reconnecting too often
// (4429). A random part of up to a quarter either way keeps the pages of a
// server that restarted from all coming back at the same instant.
function reconnectWait(code, failed) {
  const base = Math.max(Math.min(1000 * 2 ** failed, 30000), code === 4429 ? 10000 : 0);
  return Math.round(base * (0.75 + Math.random() / 2));
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/${matchId}`);
  socket.onopen = () => {
    askedTable = tableWanted($("table"));
    // "changed": each drawing comes only where it differs from the last one sent
    // on this socket (keptPictures keeps the others).
    socket.send(JSON.stringify({ type: "hello", token, speed, table: askedTable, pictures: "changed" }));
  };
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = (event) => {
    document.body.dataset.connected = "no";
    document.body.dataset.need = "wait";
    // no such link, another site's page, or a match the server cannot serve
    if (event.code === 4404 || event.code === 4403 || event.code === 4409) return;
    $("status").textContent = "The connection was lost: reconnecting…";
    setTimeout(connect, reconnectWait(event.code, failures));
    failures += 1;
  };
}

// The server sends the one drawing of the table the page shows (the narrow one
// for a box under 560 px): ask for the other when the box crosses that width.
function askForTable(box) {
  const wanted = tableWanted(box);
  if (askedTable === null || wanted === askedTable) return;
  if (socket && socket.readyState === WebSocket.OPEN) {
    askedTable = wanted;
    socket.send(JSON.stringify({ type: "table", table: wanted }));
  }
}

function send(message) {
  $("error").textContent = "";
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  else $("error").textContent = "Not connected to the server: reconnecting…";
}

function receive(message) {
  if (message.type === "error") {
    $("error").textContent = message.message;
    if (!current) $("status").textContent = message.message;
    return;
  }
  if (message.type === "hint") {
    if (current && message.seq === current.view.seq) {
      hint = message.move;
      hintReason = message.reason || "";
      selected = tileValues(hint.split(" ")[0]) ? hint.split(" ")[0] : null;
      draw();
    }
    return;
  }
  if (current && current.view.seq !== message.view.seq) {
    selected = null;
    hint = null;
    hintReason = "";
  }
  if (message.type === "state") {
    failures = 0;
    keptPictures(message);
    const before = new Set(current ? placedTiles(current.view) : []);
    freshTiles = new Set(current ? placedTiles(message.view).filter((t) => !before.has(t)) : []);
    const sound = current ? soundFor(current.view, message.view) : null;
    if (sound) playSound(sound);
  }
  current = message;
  if (askedRematch && message.rematch) {
    location.href = `/play/${message.rematch}#${encodeURIComponent(token)}`;
    return;
  }
  document.body.dataset.connected = "yes";
  draw();
}

// A state message leaves out each drawing that is the same as in the last one
// this socket was sent (the hello asked for "changed"): take it from the last
// message. The drawing of the table is kept only where the message carries
// neither: one that carries the other drawing replaces it.
function keptPictures(message) {
  if (!current) return;
  const drawings = "table" in message || "table_narrow" in message ? [] : ["table", "table_narrow"];
  for (const member of [...drawings, "last_table", "tallies"]) {
    if (!(member in message) && member in current) message[member] = current[member];
  }
}

// The sound for what changed between two views of the match: the round's end
// (or the match's), a placement that scored, a placement; or none (a draw, a
// pass, an undo, the same state again).
function soundFor(before, after) {
  if (after.seq <= before.seq) return null;
  if (after.round !== before.round || (after.winner !== null && before.winner === null)) return "round";
  const placed = after.history.slice(before.history.length)
    .filter((a) => a.move !== "draw" && a.move !== "pass");
  if (!placed.length) return null;
  return placed.some((a) => a.points) ? "score" : "place";
}

// -- drawing ------------------------------------------------------------------------

function myMoves() {
  const view = current.view;
  // The library's previews: for each legal move, the end sum and points it gives.
  return (view.previews || []).map((p) => ({ move: p.move, preview: p }));
}

// The tiles on the table, as text, in the order they were placed.
function placedTiles(view) {
  return view.table.placements.map((p) => p.split(" ")[0]);
}

// Where "what just happened" starts in the history: at the start of your last
// turn (its draws included); for a spectator, at the last turn of every seat.
function lastTurnStart(view) {
  const history = view.history;
  if (typeof current.you !== "number") return Math.max(0, history.length - view.players);
  let at = history.length - 1;
  while (at >= 0 && !(history[at].seat === current.you && history[at].move !== "draw")) at--;
  // back over the draws of that turn
  while (at > 0 && history[at - 1].seat === current.you && history[at - 1].move === "draw") at--;
  return Math.max(at, 0);
}

// What just happened: the placements since the start of your last turn (for
// a spectator, of the last turn of every seat), as {tile, seat, points}.
function recentPlacements(view) {
  return view.history.slice(lastTurnStart(view))
    .filter((a) => a.move !== "draw" && a.move !== "pass")
    .map((a) => ({ tile: a.move.split(" ")[0], seat: a.seat, points: a.points || 0 }));
}

// Which control had the focus, by what names it again after a redraw.
function focusKey() {
  const node = document.activeElement;
  if (!node || node === document.body) return null;
  for (const name of ["data-move", "data-tile", "data-point", "id"]) {
    const value = node.getAttribute && node.getAttribute(name);
    if (value) return [name, value];
  }
  return null;
}

function draw() {
  const focused = focusKey();
  const wasParked = parked !== null && document.activeElement === parked;
  const dialogBefore = $("settlement").classList.contains("shown");
  drawAll();
  if (focused) {
    const [name, value] = focused;
    const again = document.querySelector(`[${name}="${CSS.escape(value)}"]`);
    if (again && again !== document.activeElement && !again.disabled) again.focus();
  }
  settleFocus(wasParked, dialogBefore);
  const log = $("log");
  requestAnimationFrame(() => { log.scrollTop = log.scrollHeight; });
}

// -- the focus ----------------------------------------------------------------------
// After every change the keyboard's focus is on the next control a player
// needs: a playable tile when it is your turn, the tile's first place once one
// is picked, Undo (or the play's log) while the others play, the dialog's
// button while a settlement or the match's end is shown. The page moves it
// only when it was lost (its control went away or went out of use) or when it
// is still where the page itself last put it: a control the player chose to go
// to keeps the focus.

// Whether the player last used the keys (then a control given the focus is
// scrolled into sight) or a pointer (then the page stays where it is: on a
// phone the table stays in view).
let byKeys = false;
document.addEventListener("keydown", () => { byKeys = true; }, true);
document.addEventListener("pointerdown", () => { byKeys = false; }, true);

function moveFocus(node) {
  node.focus({ preventScroll: !byKeys });
  parked = node;
}

function usable(node) {
  return Boolean(node) && node !== document.body && node.isConnected && !node.disabled
    && !node.closest("[hidden], [inert]") && node.getClientRects().length > 0;
}

function sensibleControl() {
  if ($("settlement").classList.contains("shown")) return $("go-on");
  const view = current.view;
  if (typeof current.you === "number" && document.body.dataset.need === "place") {
    const choice = document.querySelector("#choices button, #open-here.shown");
    if (selected && choice) return choice;
    const tile = document.querySelector("#hand button.tile.playable");
    if (tile) return tile;
  }
  if (view.winner !== null && !$("replay-link").hidden) return $("replay-link");
  if (usable($("undo"))) return $("undo");
  return $("log");
}

function settleFocus(wasParked, dialogBefore) {
  const dialog = $("settlement");
  const shown = dialog.classList.contains("shown");
  const active = document.activeElement;
  if (shown && !dialogBefore) {
    // A dialog opens: it takes the focus, and keeps where it was to give it back.
    returnTo = active && !dialog.contains(active) ? active : null;
  } else if (!shown && dialogBefore) {
    const back = returnTo;
    returnTo = null;
    if (usable(back) && back.getAttribute("aria-disabled") !== "true") {
      moveFocus(back);
      return;
    }
  }
  const lost = !usable(active) || (shown && !dialog.contains(active));
  if (!lost && !(wasParked && active === parked) && !(shown && !dialogBefore)) return;
  const target = sensibleControl();
  if (target && target !== active) moveFocus(target);
  else parked = target;
}

// Tab and Shift+Tab go round the dialog's controls while it is shown (the page
// behind it is inert too).
function trapTab(event) {
  const dialog = $("settlement");
  if (event.key !== "Tab" || !dialog.classList.contains("shown")) return;
  const controls = [...dialog.querySelectorAll("a[href], button, input, select, [tabindex='0']")]
    .filter((node) => usable(node));
  if (!controls.length) return;
  const first = controls[0], last = controls[controls.length - 1];
  const at = controls.indexOf(document.activeElement);
  if (event.shiftKey && at <= 0) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (at === -1 || at === controls.length - 1)) {
    event.preventDefault();
    first.focus();
  }
}

function drawAll() {
  const view = current.view;
  const moves = myMoves();
  const playable = new Set(moves.map((m) => m.move.split(" ")[0]).filter((t) => tileValues(t)));
  if (!selected && playable.size === 1) selected = [...playable][0];
  if (selected && !playable.has(selected)) selected = null;
  document.body.dataset.seq = view.seq;
  document.body.dataset.turn = (view.legal_moves || []).length > 0 ? "mine" : "other";
  const myName = typeof current.you === "number" ? (current.names || [])[current.you] : "";
  $("who").textContent = current.you === "spectator" ? "Watching"
    : `You are seat ${current.you}${myName ? ` (${myName})` : ""}`;
  drawStatus(view, moves);
  drawTable(moves);
  drawHint(moves);
  drawSum(view);
  drawHand(view, playable);
  drawChoices(moves);
  drawSeats(view);
  drawScores(view);
  drawLog(view);
  drawControls(view);
  drawOverlay(view);
  // What the page waits for, for tests and for assistive tools: a placement,
  // going on from a settlement, nothing (the match's end), or another seat.
  const shown = $("settlement").classList.contains("shown");
  document.body.dataset.need = view.winner !== null ? "end"
    : shown ? "settlement" : playable.size ? "place" : "wait";
}

function drawStatus(view, moves) {
  const status = $("status");
  status.className = "";
  if (view.winner !== null) {
    status.textContent = `${verdict(view)}The match is over: ${sideLabel(view.winner)} won.`;
  } else if (current.waiting_for.length && !moves.length) {
    const names = current.waiting_for.map((s) => seatName(s, false)).join(", ");
    status.textContent = `Waiting for ${names} to go on from the settlement.`;
  } else if (moves.length && !moves.some((m) => m.move.includes(" "))) {
    status.textContent = moves[0].move === "draw" ? "You cannot place: you draw from the stock." : "You cannot place and the stock is empty: you pass.";
  } else if (moves.length) {
    status.className = "yours";
    status.textContent = view.drawn
      ? `You drew ${view.drawn}, which fits: place it.`
      : "Your turn: pick a tile, then one of its points on the table.";
  } else {
    status.textContent = `Round ${view.round}: ${seatName(view.turn, true)} to move.`;
  }
}

function drawTable(moves) {
  const box = $("table");
  const view = current.view;
  box.innerHTML = tableFor(box, current.table, current.table_narrow);
  document.body.dataset.table = current.table_narrow ? "narrow" : "wide";
  askForTable(box);
  const svg = box.querySelector("svg");
  words = pointWordsOf(svg);
  if (svg) {
    svg.setAttribute("role", "group");
    svg.setAttribute("aria-label", "The table");
  }
  const mine = selected ? moves.filter((m) => m.move.split(" ")[0] === selected) : [];
  const byPoint = new Map();
  for (const m of mine) {
    const at = m.move.indexOf(" on ");
    if (at >= 0) byPoint.set(m.move.slice(at + 4), m);
  }
  for (const group of box.querySelectorAll("g.point")) {
    const circle = group.querySelector("circle");
    const hit = svgEl("circle", {
      cx: circle.getAttribute("cx"), cy: circle.getAttribute("cy"), r: 20, class: "hit",
    });
    group.append(hit);
    const point = group.dataset.point;
    const title = group.querySelector("title") || svgEl("title", {});
    title.textContent = `${prettySide(point)} (the engine's name)`;
    group.append(title);
    // Every open point is a control the keyboard reaches; those the picked tile
    // cannot go on say why.
    group.setAttribute("tabindex", "0");
    group.setAttribute("role", "button");
    const m = byPoint.get(point);
    const counts = `counts ${group.dataset.value}`;
    if (!m) {
      group.setAttribute("aria-disabled", "true");
      const why = selected ? `: ${selected} does not go here${lacks(selected, point)}` : "";
      group.setAttribute("aria-label", `${capital(pointName(point))}, ${counts}${why}`);
      const refuse = () => {
        $("error").textContent = selected ? `${capital(whyNotPoint(selected, point))}.`
          : `Pick a tile of your hand first, then ${pointName(point)}.`;
      };
      group.addEventListener("click", refuse);
      group.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          refuse();
        }
      });
      continue;
    }
    group.classList.add("legal");
    if (hint === m.move) group.classList.add("chosen");
    const scores = m.preview.points ? `, scores ${m.preview.points}` : ", scores 0";
    // (the label holds the number the point's mark shows, as its visible text)
    const name = pointName(point);
    const shown = new RegExp(`\\b${group.dataset.value}\\b`).test(name) ? "" : `, ${counts}`;
    group.setAttribute("aria-label",
      `Place ${selected} on ${name}${shown}: sum ${m.preview.end_sum}${scores}`);
    group.addEventListener("click", () => play(m.move));
    group.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        play(m.move);
      }
    });
  }
  if (svg) markRecent(svg, view);
  fitFigure(svg);  // (after the marks: they may have made the figure larger)
  const opening = mine.find((m) => m.move.endsWith(" opens"));
  const open = $("open-here");
  open.classList.toggle("shown", Boolean(opening));
  if (opening) {
    open.textContent = `Open the round with ${selected} (sum ${opening.preview.end_sum}, scores ${opening.preview.points})`;
    open.onclick = () => play(opening.move);
  }
  if (!view.table.placements.length && !opening) {
    box.replaceChildren(el("p", { class: "muted empty-table", text: "The table is empty." }));
  }
  drawnSeq = view.seq;
}

// How far round an open point a tap reaches (its ring), and a seat badge's size,
// in the figure's own units (the library draws a point's mark 10.5 across).
const HIT_RADIUS = 20;
const BADGE_RADIUS = 8;

// Does a circle meet a box ({x, y, width, height})?
function circleMeetsBox(cx, cy, r, box) {
  const dx = Math.max(box.x - cx, 0, cx - (box.x + box.width));
  const dy = Math.max(box.y - cy, 0, cy - (box.y + box.height));
  return dx * dx + dy * dy < r * r;
}

function boxesMeet(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

// Where the marks of what just happened go: each seat badge on a corner of its
// tile, each "+N" beside its tile, where neither covers an open point's ring
// (the place you tap) or another mark, and best not another tile or the
// figure's edge. Of the places tried in order, the first that is clear is
// taken; if none is, the one that covers least (a ring or a mark weighs most,
// the edge less, another tile least). A mark past the edge makes the figure
// larger, so that it is not clipped.
function placeMarks(svg, marks) {
  const view = svg.viewBox.baseVal;
  const rings = [...svg.querySelectorAll("g.point")].map((group) => {
    const circle = group.querySelector("circle");
    return [Number(circle.getAttribute("cx")), Number(circle.getAttribute("cy"))];
  });
  const tiles = [...svg.querySelectorAll("g.tile > rect:first-of-type")].map((rect) => ({
    x: Number(rect.getAttribute("x")), y: Number(rect.getAttribute("y")),
    width: Number(rect.getAttribute("width")), height: Number(rect.getAttribute("height")),
  }));
  const taken = [];  // the boxes of the marks placed so far
  const inside = (box) => box.x >= view.x && box.y >= view.y
    && box.x + box.width <= view.x + view.width && box.y + box.height <= view.y + view.height;
  const cost = (box, own) => {
    let total = inside(box) ? 0 : 10;
    for (const [cx, cy] of rings) if (circleMeetsBox(cx, cy, HIT_RADIUS, box)) total += 100;
    for (const other of taken) if (boxesMeet(box, other)) total += 100;
    for (const tile of tiles) if (tile !== own && boxesMeet(box, tile)) total += 1;
    return total;
  };
  const best = (boxes, own) => {
    let chosen = boxes[0], least = Infinity;
    for (const box of boxes) {
      const c = cost(box, own);
      if (c < least) [chosen, least] = [box, c];
      if (c === 0) break;
    }
    taken.push(chosen);
    return chosen;
  };
  const square = (cx, cy, r) => ({ x: cx - r, y: cy - r, width: 2 * r, height: 2 * r });
  for (const { tile, badge, gain } of marks) {
    const own = tiles.find((t) => Math.abs(t.x - tile.x) < 0.01 && Math.abs(t.y - tile.y) < 0.01);
    // The badge: on a corner of its tile, else on the middle of a side.
    const { x, y, width: w, height: h } = tile;
    const r = BADGE_RADIUS;
    const spots = [[x + 2, y + 2], [x + w - 2, y + 2], [x + 2, y + h - 2], [x + w - 2, y + h - 2],
      [x + w / 2, y - 2], [x + w / 2, y + h + 2], [x - 2, y + h / 2], [x + w + 2, y + h / 2]];
    // (then off the tile, a badge's width out, for a tile hemmed in by open points)
    const out = r + 4;
    spots.push([x - out, y - out], [x + w + out, y - out], [x - out, y + h + out], [x + w + out, y + h + out],
      [x + w / 2, y - out], [x + w / 2, y + h + out], [x - out, y + h / 2], [x + w + out, y + h / 2]);
    const spot = best(spots.map(([cx, cy]) => square(cx, cy, r)), own);
    const [bx, by] = [spot.x + r, spot.y + r];
    badge.querySelector("circle").setAttribute("cx", bx);
    badge.querySelector("circle").setAttribute("cy", by);
    badge.querySelector("text").setAttribute("x", bx);
    badge.querySelector("text").setAttribute("y", by + 4);
    if (!gain) continue;
    // The "+N": beside an upright tile, above or below one that lies across
    // (off the arm's line), then further out, then on the corners.
    const size = gain.getBBox();
    const [tw, th] = [size.width + 2, size.height];
    const upright = h > w;
    const boxes = [];
    for (const gap of [3, 3 + HIT_RADIUS]) {
      const right = [x + w + gap + tw / 2, y + h / 2], left = [x - gap - tw / 2, y + h / 2];
      const above = [x + w / 2, y - gap - th / 2], below = [x + w / 2, y + h + gap + th / 2];
      const order = upright ? [right, left, above, below] : [above, below, right, left];
      order.push([x + w + gap + tw / 2, y - gap - th / 2], [x - gap - tw / 2, y - gap - th / 2],
        [x + w + gap + tw / 2, y + h + gap + th / 2], [x - gap - tw / 2, y + h + gap + th / 2]);
      for (const [cx, cy] of order) boxes.push({ x: cx - tw / 2, y: cy - th / 2, width: tw, height: th });
    }
    const place = best(boxes, own);
    gain.setAttribute("x", place.x + tw / 2);
    // (the text's y is its baseline: the box measured at y = 0 says how far above it the top is)
    gain.setAttribute("y", place.y - size.y);
  }
  // The figure grows to hold every mark (its natural size with it).
  const margin = 2;
  const left = Math.min(view.x, ...taken.map((b) => b.x - margin));
  const top = Math.min(view.y, ...taken.map((b) => b.y - margin));
  const right = Math.max(view.x + view.width, ...taken.map((b) => b.x + b.width + margin));
  const bottom = Math.max(view.y + view.height, ...taken.map((b) => b.y + b.height + margin));
  if (left < view.x || top < view.y || right > view.x + view.width || bottom > view.y + view.height) {
    const scale = Number(svg.getAttribute("width")) / view.width;
    svg.setAttribute("viewBox", `${left} ${top} ${right - left} ${bottom - top}`);
    svg.setAttribute("width", String((right - left) * scale));
    svg.setAttribute("height", String((bottom - top) * scale));
  }
}

// Seat tints for what just happened (each at least 4.5:1 on white).
const SEAT_COLOURS = ["#1565c0", "#6a1b9a", "#2e7d32", "#b45309"];

// What just happened on the table: each placement since your last turn gets
// its seat's tint and, as a mark that is not a colour, a badge with the seat's
// number; the points it scored show beside it ("+10"). A tile new since the
// last state moves in (not under prefers-reduced-motion: see the stylesheet).
function markRecent(svg, view) {
  const recent = recentPlacements(view);
  const again = drawnSeq === view.seq;  // a redraw of the same state: no new movement
  svg.classList.toggle("settled", again);
  const fresh = [];
  const marks = [];
  for (const { tile, seat, points } of recent) {
    const group = svg.querySelector(`g.tile[data-tile="${CSS.escape(tile)}"]`);
    if (!group) continue;
    const rect = group.querySelector("rect");
    const colour = SEAT_COLOURS[seat % SEAT_COLOURS.length];
    group.classList.add("recent", `by-seat-${seat}`);
    group.dataset.seat = seat;
    if (freshTiles.has(tile)) {
      group.classList.add("fresh");
      fresh.push(tile);
    }
    const x = Number(rect.getAttribute("x")), y = Number(rect.getAttribute("y"));
    const w = Number(rect.getAttribute("width")), h = Number(rect.getAttribute("height"));
    group.append(svgEl("rect", {
      x: x - 2, y: y - 2, width: w + 4, height: h + 4, rx: 5, class: "recent-ring",
      fill: "none", stroke: colour, "stroke-width": 3,
    }));
    const title = group.querySelector("title");
    if (title) title.textContent += `, placed by ${seatName(seat, false)}${points ? `, scored ${points}` : ""}`;
    const badge = svgEl("g", { class: "seat-badge" });
    badge.append(svgEl("circle", { cx: 0, cy: 0, r: BADGE_RADIUS, fill: colour }));
    const number = svgEl("text", {
      x: 0, y: 4, "text-anchor": "middle", "font-size": 11, "font-weight": "bold", fill: "#ffffff",
    });
    number.textContent = String(seat);
    badge.append(number);
    group.append(badge);
    let gain = null;
    if (points) {
      gain = svgEl("text", {
        x: 0, y: 0, "text-anchor": "middle", "font-size": 15, "font-weight": "bold",
        class: "gain", fill: "#1b5e20",
      });
      gain.textContent = `+${points}`;
      svg.append(gain);
    }
    marks.push({ tile: { x, y, width: w, height: h }, badge, gain });
  }
  placeMarks(svg, marks);
  document.body.dataset.fresh = fresh.join(" ");
}

// The hint in words, with its reason beside it, in a live region: a screen
// reader reads both out.
function drawHint(moves) {
  const line = $("hint-text");
  const m = hint ? moves.find((x) => x.move === hint) : null;
  let what = "";
  if (m && (hint === "draw" || hint === "pass")) what = `Hint: ${hint}.`;
  else if (m) {
    what = `Hint: play ${hint.split(" ")[0]} ${moveWhere(hint)} (sum ${m.preview.end_sum}, scores ${m.preview.points}).`;
  }
  const why = m && hintReason ? `Why: ${capital(hintReason)}.` : "";
  if (line.textContent !== (why ? `${what} ${why}` : what)) {
    line.replaceChildren(
      el("span", { class: "what", text: what }),
      ...(why ? [" ", el("span", { class: "why", id: "hint-why", text: why })] : []),
    );
  }
  line.title = m ? prettySide(hint) : "";
}

function drawSum(view) {
  const table = view.table;
  const line = $("sum-line");
  if (!table.placements.length) {
    line.textContent = "";
    return;
  }
  const ends = table.contributions.map((c) => {
    const number = pointNumber(c.point);
    return `${pointName(c.point)}${number === c.value ? "" : ` (counts ${c.value})`}`;
  }).join(" + ");
  const last = view.last_action;
  // At a round's start the last action is the one that ended the round before.
  const placed = last && last.end_sum !== null && view.history.length ? last : null;
  // replaceChildren writes a null as the text "null": leave it out instead.
  line.replaceChildren(
    el("span", {
      text: `Counted ends: ${ends || "none"} = ${table.end_sum}. `,
      title: table.contributions.map((c) => `${prettySide(c.point)} ${c.value}`).join(" + "),
    }),
    ...(placed
      ? [el("span", { class: "points", text: `The last placement scored ${placed.points}.` })]
      : []),
  );
}

function drawHand(view, playable) {
  const hand = $("hand");
  hand.replaceChildren();
  if (current.you === "spectator") {
    $("hand-panel").querySelector("h2").textContent = "Watching: the hands stay hidden";
    return;
  }
  for (const tile of view.hand) {
    const fits = playable.has(tile);
    const button = el("button", {
      type: "button", class: "tile", "data-tile": tile,
      "aria-label": fits ? tile : `${tile}, ${whyNotTile(view, tile)}`,
      onclick: () => {
        if (!playable.has(tile)) {
          $("error").textContent = `${capital(whyNotTile(current.view, tile))}.`;
          return;
        }
        selected = tile;
        hint = null;
        draw();
        const choice = document.querySelector("#choices button, #open-here.shown");
        if (choice) moveFocus(choice);
      },
    }, tileSvg(tile, 30));
    if (fits) button.classList.add("playable");
    else button.setAttribute("aria-disabled", "true");
    if (tile === selected) button.classList.add("selected");
    if (tile === view.drawn) button.classList.add("drawn");
    hand.append(button);
  }
}

// Why a tile of the hand cannot be placed now, in a player's words.
function whyNotTile(view, tile) {
  if (view.winner !== null) return "the match is over";
  if (current.waiting_for.includes(current.you)) return "go on from the settlement first";
  if (view.turn !== current.you) return `it is not your turn: ${seatName(view.turn, false)} is to move`;
  const numbers = [...new Set(view.table.contributions.map((c) => pointNumber(c.point)))]
    .filter((n) => n !== null).sort((a, b) => a - b);
  const shown = numbers.length > 1
    ? `${numbers.slice(0, -1).join(", ")} or ${numbers[numbers.length - 1]}` : String(numbers[0]);
  if (view.drawn && view.drawn !== tile) return `you drew ${view.drawn}, which fits: place it`;
  return `${tile} fits no open end: it has no ${shown}`;
}

// Why the picked tile cannot go on an open point, in a player's words.
function whyNotPoint(tile, point) {
  return `${tile} does not go on ${pointName(point)}${lacks(tile, point)}`;
}

// ": it has no 4" when the tile shows no half of the point's number.
function lacks(tile, point) {
  const number = pointNumber(point);
  const [low, high] = tileValues(tile);
  return low === number || high === number ? "" : `: it has no ${number}`;
}

function drawChoices(moves) {
  const box = $("choices");
  box.replaceChildren();
  if (!selected) return;
  for (const m of moves.filter((x) => x.move.split(" ")[0] === selected)) {
    const text = moveWhere(m.move);
    box.append(el("button", {
      type: "button", class: "choice", "data-move": m.move, title: prettySide(m.move),
      onclick: () => play(m.move),
      text: `${text}: sum ${m.preview.end_sum}${m.preview.points ? `, scores ${m.preview.points}` : ""}`,
    }));
  }
}

// Where each seat sits around the table, seen from yours (a spectator sees
// it from seat 0's): yours below; the opposite seat above; the seat after
// yours on the left and the one before it on the right (turns go clockwise).
function seatPlaces(players, me) {
  const at = (k) => (me + k) % players;
  if (players === 2) return { [me]: "bottom", [at(1)]: "top" };
  if (players === 3) return { [me]: "bottom", [at(1)]: "left", [at(2)]: "right" };
  return { [me]: "bottom", [at(1)]: "left", [at(2)]: "top", [at(3)]: "right" };
}

// What each seat did since the start of your last turn (as the table's
// marks show it), in words: "placed [3|4] (+10)", "drew 2", "passed".
function sinceYourTurn(view) {
  const done = new Map();
  for (const action of view.history.slice(lastTurnStart(view))) {
    const parts = done.get(action.seat) || { placed: [], drew: 0, passed: false };
    if (action.move === "draw") parts.drew++;
    else if (action.move === "pass") parts.passed = true;
    else {
      const tile = action.move.split(" ")[0];
      parts.placed.push(action.points ? `${tile} (+${action.points})` : tile);
    }
    done.set(action.seat, parts);
  }
  const words = new Map();
  for (const [seat, parts] of done) {
    const bits = [];
    if (parts.drew) bits.push(`drew ${parts.drew}`);
    if (parts.placed.length) bits.push(`placed ${parts.placed.join(", ")}`);
    if (parts.passed) bits.push("passed");
    words.set(seat, bits.join(", "));
  }
  return words;
}

// The seats around the table: each with its name, its tiles (face down), its
// count, its side's score, and what it did since your last turn, marked with
// the seat's tint and number as its tiles on the table are.
function drawSeats(view) {
  const ring = $("seats");
  for (const old of ring.querySelectorAll(":scope > .seat")) old.remove();
  const me = typeof current.you === "number" ? current.you : 0;
  const places = seatPlaces(view.players, me);
  const since = sinceYourTurn(view);
  ring.dataset.players = view.players;
  view.hand_sizes.forEach((size, seat) => {
    const backs = el("span", { class: "backs", "aria-hidden": "true" });
    for (let i = 0; i < Math.min(size, 12); i++) backs.append(backSvg(9));
    const side = sideOf(view.players, seat);
    const colour = SEAT_COLOURS[seat % SEAT_COLOURS.length];
    const badge = el("span", { class: "seat-mark", "aria-hidden": "true", text: String(seat) });
    badge.style.background = colour;
    const did = since.get(seat);
    const row = el("div", {
      class: "seat", "data-seat": seat, "data-place": places[seat],
      role: "group", "aria-label": capital(seatName(seat, true)),
    },
      el("span", { class: "seat-head" }, badge,
        el("span", { class: "name", text: capital(seatName(seat, true)) })),
      backs,
      el("span", { class: "count", text: `${size} tile${size === 1 ? "" : "s"}` }),
      el("span", { class: "side-score", text: `${capital(sideLabel(side))}: ${view.scores[side]}` }),
      el("span", { class: "since", text: did ? capital(did) : "" }));
    row.style.borderColor = colour;
    if (view.turn === seat && view.winner === null) {
      row.classList.add("turn");
      row.append(el("span", { class: "to-move", text: "To move" }));
    }
    ring.append(row);
  });
  $("table-info").textContent = `Stock: ${view.stock_size} tiles. Round ${view.round}; target ${view.target}.`;
}

function drawScores(view) {
  const box = $("scores");
  box.replaceChildren();
  view.scores.forEach((score, side) => {
    const picture = el("span", { class: "tally" });
    picture.innerHTML = current.tallies[side];
    box.append(el("div", { class: "score", "data-side": side },
      el("strong", { text: `${capital(sideLabel(side))}: ${score}` }), picture));
  });
}

function drawLog(view) {
  const log = $("log");
  log.replaceChildren();
  log.append(el("li", { class: "muted", text: `Round ${view.round}: ${seatName(view.opener, false)} ${view.opener === current.you ? "open" : "opens"}.` }));
  for (const action of view.history) {
    log.append(el("li", {
      class: action.points ? "score" : "", text: actionText(action), title: prettySide(action.move),
    }));
  }
  log.scrollTop = log.scrollHeight;
}

function drawControls(view) {
  const seat = typeof current.you === "number";
  $("hint").disabled = !seat || !(view.legal_moves || []).length;
  $("hint").hidden = !seat;
  $("undo").disabled = !current.can_undo;
  $("undo").hidden = !seat;
  $("speed").hidden = !seat;
  document.querySelector("label.speed").hidden = !seat;
  const people = current.seats.filter((kind) => kind === "human").length;
  $("undo-why").hidden = !seat || people < 2;
  $("undo-why").textContent = "Undo is off: with other people at the table, a move once made "
    + "stays made, since they have already seen it and played on.";
  const over = view.winner !== null;
  const query = `token=${encodeURIComponent(token)}`;
  $("download").hidden = !over;
  $("download").href = `/api/matches/${matchId}/record?${query}`;
  $("replay-link").hidden = !over;
  $("replay-link").href = `/replay#match=${matchId}&${query}`;
}

function play(move) {
  send({ type: "move", move, seq: current.view.seq });
}

// -- the settlement and the match's end ---------------------------------------------

function drawOverlay(view) {
  const overlay = $("settlement");
  const last = view.last_round;
  let show = false;
  if (view.winner !== null) {
    show = !closedEnd;
    if (show) drawEnd(view);
  } else if (last) {
    show = typeof current.you === "number"
      ? current.waiting_for.includes(current.you)
      : closedRound < last.round && view.history.length === 0;
    if (show) drawSettlement(view, last);
  }
  overlay.classList.toggle("shown", show);
  for (const behind of document.querySelectorAll("header.bar, main")) behind.inert = show;
}

function drawSettlement(view, last) {
  const how = last.end === "blocked" ? "was blocked" : `ended: ${seatName(last.finisher, false)} went out`;
  $("settlement-title").textContent = `Round ${last.round} ${how}.`;
  // Each hand's pips, rounded to the nearest five (1 and 2 down, 3 and 4 up).
  const pipsOf = (hand) => hand.reduce((sum, t) => sum + tileValues(t)[0] + tileValues(t)[1], 0);
  const rows = last.hands.map((hand, seat) => {
    const tiles = el("span", { class: "revealed" }, ...hand.map((t) => tileSvg(t, 16)));
    const pips = pipsOf(hand);
    return el("tr", { "data-seat": seat },
      el("td", { text: capital(seatName(seat, true)) }),
      el("td", {}, hand.length ? tiles : el("span", { class: "muted", text: "no tiles" })),
      el("td", { class: "pips", text: String(pips) }),
      el("td", { class: "rounded", text: pips === last.deductions[seat] ? String(pips)
        : `${pips} → ${last.deductions[seat]}` }),
      el("td", { text: last.deductions[seat] ? `−${last.deductions[seat]}` : "0" }));
  });
  // Each side's score before and after: the deductions of its seats, each hand on its own.
  const sides = last.scores.map((after, side) => {
    const taken = last.deductions.filter((_, seat) => seat % last.scores.length === side);
    const before = after + taken.reduce((a, b) => a + b, 0);
    const minus = taken.map((d) => ` − ${d}`).join("");
    return el("li", { class: "side-change", "data-side": side,
      text: `${capital(sideLabel(side))}: ${before}${minus} = ${after}` });
  });
  const scores = last.scores.map((s, side) => `${capital(sideLabel(side))} ${s}`).join("; ");
  const picture = el("div", { class: "last-table" });
  picture.innerHTML = current.last_table || "";
  fitFigure(picture.querySelector("svg"));
  $("settlement-body").replaceChildren(
    el("table", {}, el("tr", {}, el("th", { text: "Seat" }), el("th", { text: "Hand revealed" }),
      el("th", { text: "Pips" }), el("th", { text: "Rounded to a five" }), el("th", { text: "Deducted" })), ...rows),
    el("ul", { class: "side-changes" }, ...sides),
    el("p", { text: `Scores after the settlement: ${scores}.` }),
    picture,
  );
  $("go-on").textContent = "Next round";
  $("go-on").onclick = () => {
    if (typeof current.you === "number") send({ type: "continue" });
    else { closedRound = last.round; draw(); }
  };
}

// "You lost: " before the news of a match you lost (nothing for a spectator).
function verdict(view) {
  if (typeof current.you !== "number") return "";
  const mine = sideOf(view.players, current.you);
  // A win already reads "You won" ("You and your partner won"): only a loss needs saying.
  return mine === view.winner ? "" : "You lost: ";
}

function drawEnd(view) {
  $("settlement-title").textContent = `${verdict(view)}${verdict(view) ? sideLabel(view.winner) : capital(sideLabel(view.winner))} won the match in round ${view.round}.`;
  const scores = view.scores.map((s, side) => `${capital(sideLabel(side))}: ${s}`).join("; ");
  const query = `token=${encodeURIComponent(token)}`;
  // A rematch keeps the seats: the same link opens the same seat of the new match.
  const rematch = current.rematch
    ? el("a", { id: "rematch-link", href: `/play/${current.rematch}#${encodeURIComponent(token)}`,
      text: "Join the rematch (the same seats)" })
    : typeof current.you === "number"
      ? el("button", {
        type: "button", id: "rematch", text: "Rematch (the same seats)",
        onclick: () => { askedRematch = true; send({ type: "rematch" }); },
      })
      : null;
  $("settlement-body").replaceChildren(
    el("p", { text: `Final scores: ${scores}. The target was ${view.target}.` }),
    el("p", {},
      el("a", { href: `/api/matches/${matchId}/record?${query}`, download: "", text: "Download the record" }),
      " · ",
      el("a", { href: `/replay#match=${matchId}&${query}`, text: "Watch the replay" })),
    ...(rematch ? [el("p", {}, rematch)] : []),
  );
  $("go-on").textContent = "Close";
  $("go-on").onclick = () => { closedEnd = true; draw(); };
}

$("hint").addEventListener("click", () => send({ type: "hint" }));
$("notation").checked = notation;
$("notation").addEventListener("change", () => {
  notation = $("notation").checked;
  localStorage.setItem("sniff-notation", notation ? "yes" : "no");
  if (current) draw();
});
$("undo").addEventListener("click", () => {
  parked = $("undo");  // the game goes back to your turn: the focus goes on to the hand
  send({ type: "undo" });
});
$("sound").checked = soundOn();
$("sound").addEventListener("change", () => setSoundOn($("sound").checked));
$("speed").value = speed;
$("speed").addEventListener("change", () => {
  speed = $("speed").value;
  localStorage.setItem("sniff-speed", speed);
  send({ type: "speed", speed });
});
document.addEventListener("keydown", (event) => {
  trapTab(event);
  // Enter goes on from the settlement wherever the focus is (a button takes it itself).
  const onControl = event.target.closest && event.target.closest("button, a[href]");
  if (event.key === "Enter" && !onControl && $("settlement").classList.contains("shown")) $("go-on").click();
});
window.addEventListener("resize", () => { if (current) draw(); });
connect();
