// The game page: one WebSocket to the server, which sends this seat's view (or the
// spectator view) after every change. Everything drawn here comes from that message.
"use strict";

const matchId = location.pathname.split("/").pop();
const token = decodeURIComponent(location.hash.slice(1));
let socket = null;
let current = null;     // the last "state" message
let selected = null;    // the tile picked in the hand, as text
let hint = null;        // the move the hint button suggested
let closedRound = 0;    // a spectator's last settlement closed
let closedEnd = false;  // the match's end closed

const $ = (id) => document.getElementById(id);

function prettySide(text) {
  return text.replace(/_a\b/, " A").replace(/_b\b/, " B");
}

function seatName(seat, withKind) {
  if (!current) return `seat ${seat}`;
  const view = current.view;
  const kind = current.seats[seat];
  if (seat === current.you) return "you";
  let name = `seat ${seat}`;
  if (view.players === 4 && typeof current.you === "number" && (current.you + 2) % 4 === seat) {
    name += " (your partner)";
  } else if (withKind) {
    name += ` (${kindName(kind)})`;
  }
  return name;
}

function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function sideLabel(side) {
  const players = current.view.players;
  if (typeof current.you === "number") {
    const mine = players === 4 ? current.you % 2 : current.you;
    if (side === mine) return players === 4 ? "you and your partner" : "you";
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
  const verb = move.endsWith(" opens") ? `${who} opened with ${move.split(" ")[0]}`
    : `${who} placed ${prettySide(move)}`;
  return `${verb}: sum ${action.end_sum}${scored}.`;
}

// -- the connection -----------------------------------------------------------------

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws/${matchId}`);
  socket.onopen = () => socket.send(JSON.stringify({ type: "hello", token }));
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = (event) => {
    document.body.dataset.connected = "no";
    document.body.dataset.need = "wait";
    if (event.code === 4404 || event.code === 4403) return;  // no such link, or another site's page
    $("status").textContent = "The connection was lost: reconnecting…";
    setTimeout(connect, 1000);
  };
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
      selected = hint.split(" ")[0];
      draw();
    }
    return;
  }
  if (current && current.view.seq !== message.view.seq) {
    selected = null;
    hint = null;
  }
  current = message;
  document.body.dataset.connected = "yes";
  draw();
}

// -- drawing ------------------------------------------------------------------------

function myMoves() {
  const view = current.view;
  // The library's previews: for each legal move, the end sum and points it gives.
  return (view.previews || []).map((p) => ({ move: p.move, preview: p }));
}

// Which control had the focus, by what names it again after a redraw.
function focusKey() {
  const node = document.activeElement;
  if (!node || node === document.body) return null;
  for (const name of ["data-move", "data-tile", "id"]) {
    const value = node.getAttribute && node.getAttribute(name);
    if (value) return [name, value];
  }
  return null;
}

function draw() {
  const focused = focusKey();
  drawAll();
  if (focused) {
    const [name, value] = focused;
    const again = document.querySelector(`[${name}="${CSS.escape(value)}"]`);
    if (again && again !== document.activeElement && !again.disabled) again.focus();
  }
  const log = $("log");
  requestAnimationFrame(() => { log.scrollTop = log.scrollHeight; });
}

function drawAll() {
  const view = current.view;
  const moves = myMoves();
  const playable = new Set(moves.map((m) => m.move.split(" ")[0]).filter((t) => tileValues(t)));
  if (!selected && playable.size === 1) selected = [...playable][0];
  if (selected && !playable.has(selected)) selected = null;
  document.body.dataset.seq = view.seq;
  document.body.dataset.turn = (view.legal_moves || []).length > 0 ? "mine" : "other";
  $("who").textContent = current.you === "spectator" ? "Watching" : `You are seat ${current.you}`;
  drawStatus(view, moves);
  drawTable(moves);
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
    status.textContent = `The match is over: ${sideLabel(view.winner)} won.`;
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
  box.innerHTML = current.table;
  fitFigure(box.querySelector("svg"));
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
    const m = byPoint.get(group.dataset.point);
    if (!m) continue;
    group.classList.add("legal");
    if (hint === m.move) group.classList.add("chosen");
    const title = svgEl("title", {});
    title.textContent = `${prettySide(m.move)}: sum ${m.preview.end_sum}, scores ${m.preview.points}`;
    group.append(title);
    group.addEventListener("click", () => play(m.move));
  }
  const opening = mine.find((m) => m.move.endsWith(" opens"));
  const open = $("open-here");
  open.classList.toggle("shown", Boolean(opening));
  if (opening) {
    open.textContent = `Open the round with ${selected} (sum ${opening.preview.end_sum}, scores ${opening.preview.points})`;
    open.onclick = () => play(opening.move);
  }
  if (!current.view.table.placements.length && !opening) {
    box.innerHTML = '<p class="muted" style="padding:24px;text-align:center">The table is empty.</p>';
  }
}

function drawSum(view) {
  const table = view.table;
  const line = $("sum-line");
  if (!table.placements.length) {
    line.textContent = "";
    return;
  }
  const ends = table.contributions.map((c) => `${prettySide(c.point)} ${c.value}`).join(" + ");
  const last = view.last_action;
  // At a round's start the last action is the one that ended the round before.
  const placed = last && last.end_sum !== null && view.history.length ? last : null;
  // replaceChildren writes a null as the text "null": leave it out instead.
  line.replaceChildren(
    el("span", { text: `Counted ends: ${ends || "none"} = ${table.end_sum}. ` }),
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
    const button = el("button", {
      type: "button", class: "tile", "data-tile": tile, "aria-label": tile,
      onclick: () => { selected = tile; hint = null; draw(); },
    }, tileSvg(tile, 30));
    if (playable.has(tile)) button.classList.add("playable");
    else button.disabled = true;
    if (tile === selected) button.classList.add("selected");
    if (tile === view.drawn) button.classList.add("drawn");
    hand.append(button);
  }
}

function drawChoices(moves) {
  const box = $("choices");
  box.replaceChildren();
  if (!selected) return;
  for (const m of moves.filter((x) => x.move.split(" ")[0] === selected)) {
    const text = m.move.endsWith(" opens") ? "open the round" : `on ${prettySide(m.move.split(" on ")[1])}`;
    box.append(el("button", {
      type: "button", class: "choice", "data-move": m.move,
      onclick: () => play(m.move),
      text: `${text}: sum ${m.preview.end_sum}${m.preview.points ? `, scores ${m.preview.points}` : ""}`,
    }));
  }
}

function drawSeats(view) {
  const seats = $("seats");
  seats.replaceChildren();
  view.hand_sizes.forEach((size, seat) => {
    const backs = el("span", { class: "backs" });
    for (let i = 0; i < size; i++) backs.append(backSvg(9));
    const row = el("div", { class: "seat", "data-seat": seat },
      el("span", { class: "name", text: capital(seatName(seat, true)) }),
      backs,
      el("span", { class: "muted", text: `${size} tile${size === 1 ? "" : "s"}` }));
    if (view.turn === seat && view.winner === null) row.classList.add("turn");
    seats.append(row);
  });
  seats.append(el("div", { class: "muted", text: `Stock: ${view.stock_size} tiles. Round ${view.round}; target ${view.target}.` }));
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
    log.append(el("li", { class: action.points ? "score" : "", text: actionText(action) }));
  }
  log.scrollTop = log.scrollHeight;
}

function drawControls(view) {
  const seat = typeof current.you === "number";
  $("hint").disabled = !seat || !(view.legal_moves || []).length;
  $("hint").hidden = !seat;
  $("undo").disabled = !current.can_undo;
  $("undo").hidden = !seat;
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
}

function drawSettlement(view, last) {
  const how = last.end === "blocked" ? "was blocked" : `ended: ${seatName(last.finisher, false)} went out`;
  $("settlement-title").textContent = `Round ${last.round} ${how}.`;
  const rows = last.hands.map((hand, seat) => {
    const tiles = el("span", { class: "revealed" }, ...hand.map((t) => tileSvg(t, 16)));
    return el("tr", { "data-seat": seat },
      el("td", { text: capital(seatName(seat, true)) }),
      el("td", {}, hand.length ? tiles : el("span", { class: "muted", text: "no tiles" })),
      el("td", { text: last.deductions[seat] ? `−${last.deductions[seat]}` : "0" }));
  });
  const scores = last.scores.map((s, side) => `${capital(sideLabel(side))} ${s}`).join("; ");
  const picture = el("div", { class: "last-table" });
  picture.innerHTML = current.last_table || "";
  fitFigure(picture.querySelector("svg"));
  $("settlement-body").replaceChildren(
    el("table", {}, el("tr", {}, el("th", { text: "Seat" }), el("th", { text: "Hand revealed" }), el("th", { text: "Deducted" })), ...rows),
    el("p", { text: `Scores after the settlement: ${scores}.` }),
    picture,
  );
  $("go-on").textContent = "Next round";
  $("go-on").onclick = () => {
    if (typeof current.you === "number") send({ type: "continue" });
    else { closedRound = last.round; draw(); }
  };
}

function drawEnd(view) {
  $("settlement-title").textContent = `${capital(sideLabel(view.winner))} won the match in round ${view.round}.`;
  const scores = view.scores.map((s, side) => `${capital(sideLabel(side))}: ${s}`).join("; ");
  const query = `token=${encodeURIComponent(token)}`;
  $("settlement-body").replaceChildren(
    el("p", { text: `Final scores: ${scores}. The target was ${view.target}.` }),
    el("p", {},
      el("a", { href: `/api/matches/${matchId}/record?${query}`, download: "", text: "Download the record" }),
      " · ",
      el("a", { href: `/replay#match=${matchId}&${query}`, text: "Watch the replay" })),
  );
  $("go-on").textContent = "Close";
  $("go-on").onclick = () => { closedEnd = true; draw(); };
}

$("hint").addEventListener("click", () => send({ type: "hint" }));
$("undo").addEventListener("click", () => send({ type: "undo" }));
document.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && $("settlement").classList.contains("shown")) $("go-on").click();
});
connect();
