// The replay viewer: a record's frames (from the server), stepped through with the keyboard.
"use strict";

const $ = (id) => document.getElementById(id);
let replay = null;
let index = 0;

function show(at) {
  if (!replay) return;
  index = Math.max(0, Math.min(replay.frames.length - 1, at));
  const frame = replay.frames[index];
  const players = replay.players;
  $("slider").value = index;
  document.body.dataset.frame = index;
  const action = frame.action;
  $("replay-frame").innerHTML = tableFor($("replay-frame"), frame.table, frame.table_narrow);
  const svg = $("replay-frame").querySelector("svg");
  const what = action ? actionWords(action, svg) : "The deal.";
  $("replay-title").textContent = `Action ${index} of ${replay.frames.length - 1}, round ${frame.round}. ${what}`;
  $("replay-title").title = action ? `${replay.names[action.seat]}: ${action.text}` : "";
  fitFigure(svg);
  // The ends in a player's words ("the 1 on the right"), the engine's names as the tooltip.
  const words = pointWordsOf(svg);
  const engine = frame.ends.map((e) => e.replace(/_a\b/, " A").replace(/_b\b/, " B")).join(" + ");
  const ends = frame.ends.map((e) => {
    const at = e.lastIndexOf(" ");
    const point = e.slice(0, at), value = Number(e.slice(at + 1));
    const name = words.get(point) || point;
    return pointNumber(point) === value ? name : `${name} (counts ${value})`;
  }).join(" + ");
  $("replay-ends").textContent = frame.ends.length ? `Counted ends: ${ends} = ${frame.end_sum}.` : "";
  $("replay-ends").title = engine;
  const scores = frame.scores.map((s, side) => `${sideName(players, side)} ${s}`).join("; ");
  $("replay-sum").textContent = `Scores: ${scores}.` + (frame.stock_size === null ? "" : ` Stock: ${frame.stock_size}.`);
  $("replay-hands").replaceChildren(...frame.hands.map((hand, seat) => el("div", { class: "seat" + (frame.turn === seat ? " turn" : "") },
    el("span", { class: "name", text: replay.names[seat] }), ...hand.map((t) => tileSvg(t, 18)))));
  const settled = frame.settlement;
  let text = "";
  if (settled) {
    const how = settled.end === "blocked" ? "The round was blocked." : `${replay.names[settled.finisher]} went out.`;
    const taken = settled.deductions.map((d, seat) => `${replay.names[seat]} ${d ? `\u2212${d}` : "0"}`).join(", ");
    const after = settled.scores.map((s, side) => `${sideName(players, side)} ${s}`).join("; ");
    text = `${how} Each hand's pips, rounded to a five, come off its side's score: ${taken}. Scores after the settlement: ${after}.`;
  } else if (frame.winner !== null) {
    text = `${sideName(players, frame.winner)} won the match.`;
  }
  $("replay-settlement").textContent = text;
}

// An action in a player's words, as the game's log tells it: "seat 1 placed
// [2|5] on the 4 of [1|4]" (the engine's notation is the line's tooltip).
function actionWords(action, svg) {
  const who = replay.names[action.seat];
  const [move, ...rest] = action.text.split(" ");
  const text = action.text;
  let what;
  if (move === "draw") {
    const tile = rest.join(" ");
    what = tile ? `${who} drew ${tile}.` : `${who} drew a tile.`;
  } else if (move === "pass") {
    what = `${who} passed.`;
  } else if (text.endsWith(" opens")) {
    what = `${who} opened with ${move}`;
  } else {
    const sniff = svg ? svg.querySelector("g.tile.sniff") : null;
    const join = joinWords(text, sniff ? sniff.dataset.tile : null);
    what = `${who} placed ${move} ${join || text}`;
  }
  if (action.end_sum === null) return what;
  return `${what}: sum ${action.end_sum}${action.points ? `, scores ${action.points}` : ""}.`;
}

function roundStep(direction) {
  if (!replay) return;
  const round = replay.frames[index].round;
  let at = index;
  while (at + direction >= 0 && at + direction < replay.frames.length && replay.frames[at + direction].round === round) at += direction;
  show(at === index ? index + direction : at + (direction > 0 ? direction : 0));
}

function open(frames) {
  replay = frames;
  $("viewer").hidden = false;
  $("slider").max = frames.frames.length - 1;
  show(0);
}

// The server sends a replay a page of frames at a time: ask for pages until all are here.
async function allFrames(page) {
  const replay = await page(0);
  while (replay.frames.length < replay.total) {
    const next = await page(replay.frames.length);
    if (!next.frames.length) break;
    replay.frames.push(...next.frames);
  }
  return replay;
}

const params = new URLSearchParams(location.hash.slice(1));
// Who may replay: the operator's key, or a link of one of the server's matches.
const auth = params.get("key") ? `key=${encodeURIComponent(params.get("key"))}`
  : `match=${encodeURIComponent(params.get("match") || "")}&token=${encodeURIComponent(params.get("token") || "")}`;

$("file").addEventListener("change", async () => {
  $("error").textContent = "";
  const file = $("file").files[0];
  if (!file) return;
  try {
    const body = await file.text();
    open(await allFrames((start) => fetchJson(`/api/replay?${auth}&start=${start}`, { method: "POST", body })));
  } catch (error) {
    $("error").textContent = error.message;
  }
});
window.addEventListener("resize", () => show(index));
$("first").onclick = () => show(0);
$("prev").onclick = () => show(index - 1);
$("next").onclick = () => show(index + 1);
$("last").onclick = () => show(Infinity);
$("slider").oninput = () => show(Number($("slider").value));
document.addEventListener("keydown", (event) => {
  if (event.target.tagName === "INPUT" && event.target.type !== "range") return;
  const steps = { ArrowRight: () => show(index + 1), ArrowLeft: () => show(index - 1), Home: () => show(0),
    End: () => show(Infinity), PageDown: () => roundStep(1), PageUp: () => roundStep(-1) };
  if (steps[event.key]) { event.preventDefault(); steps[event.key](); }
});

if (params.get("match")) {
  const query = params.get("key") ? `key=${encodeURIComponent(params.get("key"))}` : `token=${encodeURIComponent(params.get("token") || "")}`;
  allFrames((start) => fetchJson(`/api/matches/${params.get("match")}/frames?${query}&start=${start}`)).then(open)
    .catch((error) => { $("error").textContent = error.message; });
}
