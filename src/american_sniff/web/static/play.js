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
  if (view.players === 4 && typeof current.you === "number" && (current.you + 2) % 4 === seat) {
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
  const join = notation ? null : joinWords(move, current.view.table.sniff);
  const verb = move.endsWith(" opens") ? `${who} opened with ${move.split(" ")[0]}`
    : `${who} placed ${join ? `${move.split(" ")[0]} ${join}` : prettySide(move)}`;
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
    const before = new Set(current ? placedTiles(current.view) : []);
    freshTiles = new Set(current ? placedTiles(message.view).filter((t) => !before.has(t)) : []);
  }
  current = message;
  if (askedRematch && message.rematch) {
    location.href = `/play/${message.rematch}#${encodeURIComponent(token)}`;
    return;
  }
  document.body.dataset.connected = "yes";
  draw();
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

// What just happened: the placements since the start of your last turn (for
// a spectator, of the last turn of every seat), as {tile, seat, points}.
function recentPlacements(view) {
  const history = view.history;
  let start = Math.max(0, history.length - view.players);
  if (typeof current.you === "number") {
    start = 0;
    let at = history.length - 1;
    while (at >= 0 && !(history[at].seat === current.you && history[at].move !== "draw")) at--;
    // back over the draws of that turn
    while (at > 0 && history[at - 1].seat === current.you && history[at - 1].move === "draw") at--;
    if (at >= 0) start = at;
  }
  return history.slice(start)
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
  const svg = box.querySelector("svg");
  fitFigure(svg);
  words = pointWordsOf(svg);
  if (svg) {
    svg.setAttribute("role", "group");
    svg.setAttribute("aria-label", "The table");
    markRecent(svg, view);
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
      const why = selected ? `: ${selected} does not go here` : "";
      group.setAttribute("aria-label", `${capital(pointName(point))}, ${counts}${why}`);
      group.addEventListener("click", () => {
        $("error").textContent = selected ? `${selected} does not go on ${pointName(point)}.`
          : `Pick a tile of your hand first, then ${pointName(point)}.`;
      });
      continue;
    }
    group.classList.add("legal");
    if (hint === m.move) group.classList.add("chosen");
    const scores = m.preview.points ? `, scores ${m.preview.points}` : ", scores 0";
    group.setAttribute("aria-label",
      `Place ${selected} on ${pointName(point)}: sum ${m.preview.end_sum}${scores}`);
    group.addEventListener("click", () => play(m.move));
    group.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        play(m.move);
      }
    });
  }
  const opening = mine.find((m) => m.move.endsWith(" opens"));
  const open = $("open-here");
  open.classList.toggle("shown", Boolean(opening));
  if (opening) {
    open.textContent = `Open the round with ${selected} (sum ${opening.preview.end_sum}, scores ${opening.preview.points})`;
    open.onclick = () => play(opening.move);
  }
  if (!view.table.placements.length && !opening) {
    box.innerHTML = '<p class="muted empty-table">The table is empty.</p>';
  }
  drawnSeq = view.seq;
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
    const badge = svgEl("g", { class: "seat-badge" });
    badge.append(svgEl("circle", { cx: x + 2, cy: y + 2, r: 8, fill: colour }));
    const number = svgEl("text", {
      x: x + 2, y: y + 6, "text-anchor": "middle", "font-size": 11, "font-weight": "bold",
      fill: "#ffffff",
    });
    number.textContent = String(seat);
    badge.append(number);
    group.append(badge);
    const title = group.querySelector("title");
    if (title) title.textContent += `, placed by ${seatName(seat, false)}${points ? `, scored ${points}` : ""}`;
    if (points) {
      // Beside an upright tile, above one that lies across: off the arm's line.
      const upright = h > w;
      const gain = svgEl("text", {
        x: upright ? x + w + 5 : x + w / 2, y: upright ? y + h / 2 + 5 : y - 6,
        "text-anchor": upright ? "start" : "middle", "font-size": 15, "font-weight": "bold",
        class: "gain", fill: "#1b5e20",
      });
      gain.textContent = `+${points}`;
      svg.append(gain);
    }
  }
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
  const history = view.history;
  let start = Math.max(0, history.length - view.players);
  if (typeof current.you === "number") {
    start = 0;
    let at = history.length - 1;
    while (at >= 0 && !(history[at].seat === current.you && history[at].move !== "draw")) at--;
    while (at > 0 && history[at - 1].seat === current.you && history[at - 1].move === "draw") at--;
    if (at >= 0) start = at;
  }
  const done = new Map();
  for (const action of history.slice(start)) {
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
    const side = view.players === 4 ? seat % 2 : seat;
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
  const mine = view.players === 4 ? current.you % 2 : current.you;
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
$("undo").addEventListener("click", () => send({ type: "undo" }));
document.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && $("settlement").classList.contains("shown")) $("go-on").click();
});
window.addEventListener("resize", () => { if (current) draw(); });
connect();
