// The start page: set up a match (who sits where), then hand out its links.
"use strict";

const KINDS = ["human", "random", "greedy", "search-quick", "search", "search-strong"];
const $ = (id) => document.getElementById(id);

function seatRows() {
  const players = Number($("players").value);
  const box = $("seat-rows");
  const before = [...box.querySelectorAll("select")].map((s) => s.value);
  const names = [...box.querySelectorAll("input.name")].map((s) => s.value);
  box.replaceChildren();
  for (let seat = 0; seat < players; seat++) {
    const select = el("select", { id: `seat-${seat}`, name: `seat-${seat}` },
      ...KINDS.map((k) => el("option", { value: k, text: k === "human" ? "a person" : `${k} bot` })));
    select.value = before[seat] || (seat === 0 ? "human" : "search");
    // A person's seat takes a name (at most 24 characters), shown to everyone at the table.
    const name = el("input", {
      id: `name-${seat}`, class: "name", maxlength: "24", autocomplete: "off",
      placeholder: "name (optional)", "aria-label": `Seat ${seat}: the person's name`,
    });
    name.value = names[seat] || "";
    const showName = () => { name.hidden = select.value !== "human"; };
    select.addEventListener("change", showName);
    showName();
    const team = hasPartners(players) ? ` (partner of seat ${partnerOf(players, seat)})` : "";
    box.append(el("div", { class: "row" },
      el("label", { for: `seat-${seat}`, text: `Seat ${seat}${team}` }), select, name));
  }
}

// Copy a link to the clipboard; the button says whether it worked.
async function copyLink(button, input) {
  let copied = false;
  try {
    await navigator.clipboard.writeText(input.value);
    copied = true;
  } catch {
    input.focus();
    input.select();
    copied = document.execCommand && document.execCommand("copy");
  }
  button.textContent = copied ? "Copied" : "Select the link and copy it";
  button.dataset.copied = copied ? "yes" : "no";
}

function linkRow(label, url) {
  const input = el("input", { value: url, readonly: "", "aria-label": label, onfocus: (e) => e.target.select() });
  const copy = el("button", { type: "button", class: "copy", "aria-label": `Copy the link: ${label}`, text: "Copy" });
  copy.addEventListener("click", () => copyLink(copy, input));
  return el("div", { class: "link" },
    el("div", {}, el("strong", { text: label }), " ", el("a", { href: url, text: "open", target: "_blank" })),
    el("div", { class: "row" }, input, copy));
}

$("players").addEventListener("change", seatRows);
$("setup").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("error").textContent = "";
  const players = Number($("players").value);
  const seats = [];
  const names = [];
  for (let seat = 0; seat < players; seat++) {
    seats.push($(`seat-${seat}`).value);
    names.push(seats[seat] === "human" ? $(`name-${seat}`).value.trim() : "");
  }
  const seed = $("seed").value.trim();
  try {
    const made = await fetchJson("/api/matches", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ players, seats, names, seed: seed === "" ? null : seed }),
    });
    const links = $("links");
    links.replaceChildren(
      ...made.seats.map((s) => linkRow(`Seat ${s.seat}${s.name ? ` (${s.name})` : ""}`, s.url)),
      linkRow("Spectators", made.spectator));
    $("links-panel").hidden = false;
    if (made.seats.length === 1) location.href = made.seats[0].url;
  } catch (error) {
    $("error").textContent = error.message;
  }
});

// One stored match in the operator's list: its seats' links, or why its log no longer replays.
function storedMatch(m, key) {
  if (m.broken) return el("div", { class: "stored broken", text: `${m.id}: broken (${m.broken})` });
  const state = m.winner === null ? `round ${m.round}, scores ${m.scores.join(" : ")}` : `over, ${sideName(m.players, m.winner)} won`;
  const record = `/api/matches/${m.id}/record?key=${encodeURIComponent(key)}`;
  return el("div", { class: "stored" },
    el("div", { text: `${m.players} players (${m.kinds.map(kindName).join(", ")}): ${state}` }),
    ...m.seats.map((s) => el("a", { href: s.url, text: `seat ${s.seat} ` })),
    el("a", { href: m.spectator, text: "watch " }),
    el("a", { href: record, download: "", text: "record " }),
    el("a", { href: `/replay#match=${m.id}&key=${encodeURIComponent(key)}`, text: "replay" }));
}

// The operator's list of stored matches, newest first, a page at a time: the
// server sends a page and the id to ask for the next one after ("next"), which
// "More matches" asks for.
async function storedMatches(after) {
  const key = new URLSearchParams(location.hash.slice(1)).get("key");
  if (!key) return;
  // The operator's key lets the replay viewer open any record file.
  for (const link of document.querySelectorAll('a[href="/replay"]')) link.href = `/replay#key=${encodeURIComponent(key)}`;
  const from = after ? `&after=${encodeURIComponent(after)}` : "";
  const listed = await fetchJson(`/api/matches?key=${encodeURIComponent(key)}${from}`);
  const box = $("matches");
  const entries = listed.matches.map((m) => storedMatch(m, key));
  if (after) box.append(...entries);
  else box.replaceChildren(...entries);
  const more = $("more-matches");
  more.hidden = listed.next === null;
  more.onclick = () => {
    more.hidden = true;
    storedMatches(listed.next).catch((error) => { $("error").textContent = error.message; });
  };
  $("matches-panel").hidden = box.children.length === 0;
}

seatRows();
storedMatches().catch((error) => { $("error").textContent = error.message; });
