// The page of `rams serve`. Everything it shows comes from the server's JSON states, which hold only
// the viewing seat's view() (rams_env/serve.py); text is set with textContent, never parsed as HTML.
"use strict";

const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const $ = (id) => document.getElementById(id);
let meta = null;
let current = null; // the last state received
let pictureCounter = 0;

function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "data") Object.assign(node.dataset, value);
    else node[key] = value;
  }
  for (const child of children) node.append(child);
  return node;
}

function cardText(card) {
  const rank = card[0] === "T" ? "10" : card[0];
  return rank + SUITS[card[1]];
}

function cardNode(card, tag = "span", small = false) {
  const red = card[1] === "D" || card[1] === "H";
  return el(tag, {
    class: "card" + (red ? " red" : "") + (small ? " small" : ""),
    text: cardText(card),
    data: { card },
    title: card,
  });
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.classList.toggle("hidden", !message);
}

async function api(method, url, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  setBusy(true);
  try {
    const response = await fetch(url, options);
    const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
    if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
    showError("");
    return data;
  } catch (err) {
    showError(err.message);
    throw err;
  } finally {
    setBusy(false);
  }
}

function setBusy(busy) {
  $("busy").classList.toggle("hidden", !busy);
  document.body.classList.toggle("is-busy", busy);
  for (const button of document.querySelectorAll("#table button, .setup button")) {
    if (busy) button.disabled = true;
  }
  if (!busy && current) render(current); // restores the buttons the state allows
  if (!busy) for (const button of document.querySelectorAll(".setup button")) button.disabled = false;
  if (!busy) $("watch-log").disabled = $("log-list").options.length === 0;
}

// ----------------------------------------------------------------------------- setup forms
function fillSelect(select, values, chosen) {
  select.replaceChildren(...values.map((v) => el("option", { value: v, text: v, selected: v === chosen })));
}

function agentInputs(fieldset, seats, prefix) {
  const old = [...fieldset.querySelectorAll("input")].map((input) => input.value);
  fieldset.querySelectorAll("label").forEach((label) => label.remove());
  seats.forEach((seat, k) => {
    const input = el("input", { value: old[k] || "heuristic", id: `${prefix}-${seat}` });
    input.setAttribute("list", "agent-list");
    input.dataset.seat = seat;
    fieldset.append(el("label", {}, [`player_${seat}`, input]));
  });
}

function playSeats() {
  const n = Number($("num-players").value) || 4;
  const me = Number($("seat").value) || 0;
  agentInputs($("agent-inputs"), [...Array(n).keys()].filter((s) => s !== me), "agent");
}

function evalSeats() {
  const n = Number($("eval-num-players").value) || 4;
  agentInputs($("eval-agent-inputs"), [...Array(n).keys()], "eval-agent");
}

async function loadMeta() {
  meta = await api("GET", "/api/meta");
  const variants = Object.keys(meta.variants);
  for (const prefix of ["", "eval-"]) {
    fillSelect($(prefix + "variant"), variants, "mattmar");
    fillSelect($(prefix + "episode"), meta.episodes, "deal");
    fillSelect($(prefix + "scores"), meta.scores, "start");
  }
  $("agent-list").replaceChildren(...meta.agents.map((a) => el("option", { value: a })));
  playSeats();
  evalSeats();
  await loadLogs();
}

async function loadLogs() {
  const { logs } = await api("GET", "/api/logs");
  fillSelect($("log-list"), logs, logs[logs.length - 1]);
  $("watch-log").disabled = logs.length === 0;
}

function showTab(name) {
  $("setup").classList.remove("hidden");
  $("tab-play").classList.toggle("active", name === "play");
  $("tab-watch").classList.toggle("active", name === "watch");
  $("setup-play").classList.toggle("hidden", name !== "play");
  $("setup-watch").classList.toggle("hidden", name !== "watch");
  if (name === "watch") loadLogs().catch(() => {});
}

function optionalNumber(id) {
  const text = $(id).value.trim();
  return text === "" ? null : Number(text);
}

async function startGame(event) {
  event.preventDefault();
  const agents = [...$("agent-inputs").querySelectorAll("input")].map((input) => input.value.trim());
  const body = {
    variant: $("variant").value,
    num_players: Number($("num-players").value),
    seat: Number($("seat").value),
    episode: $("episode").value,
    scores: $("scores").value,
    agents,
  };
  const seed = optionalNumber("seed");
  if (seed !== null) body.seed = seed;
  show(await api("POST", "/api/games", body));
}

async function watchLog(event) {
  event.preventDefault();
  show(await api("POST", "/api/replays", { name: $("log-list").value }));
}

async function uploadLog() {
  const file = $("log-file").files[0];
  if (!file) return;
  let log;
  try {
    log = JSON.parse(await file.text());
  } catch (err) {
    showError(`${file.name} is not JSON: ${err.message}`);
    return;
  }
  $("log-file").value = "";
  show(await api("POST", "/api/replays", { log }));
}

async function watchAgents(event) {
  event.preventDefault();
  const agents = [...$("eval-agent-inputs").querySelectorAll("input")].map((input) => input.value.trim());
  show(
    await api("POST", "/api/replays", {
      variant: $("eval-variant").value,
      num_players: Number($("eval-num-players").value),
      episode: $("eval-episode").value,
      scores: $("eval-scores").value,
      seed: Number($("eval-seed").value),
      deck: Number($("eval-deck").value),
      agents,
    }),
  );
}

// ----------------------------------------------------------------------------- the table
function show(state) {
  current = state;
  render(state);
  $("table").classList.remove("hidden");
  $("setup").classList.add("hidden"); // the tabs bring the forms back
}

function seatPanel(state, s) {
  const v = state.view;
  const replay = state.kind === "replay";
  const roles = [];
  if (s === v.dealer) roles.push("dealer");
  if (s === v.forehand) roles.push("forehand");
  const status = { true: "knocked", false: "passed", null: "" }[String(v.active[s])];
  const played = v.trick.find(([seat]) => seat === s);
  const me = s === state.seat;
  const name = `player_${s}` + (me ? (replay ? " (seen)" : " (you)") : "");
  const panel = el("div", { class: "seat" + (v.to_act === s ? " to-act" : "") + (me ? " me" : ""), id: `seat-${s}` }, [
    el("div", { class: "name", text: name }),
    el("div", { class: "agent", text: state.seats[s] }),
    el("div", { class: "line role", text: roles.join(", ") || " " }),
    el("div", { class: "line" }, ["score ", el("b", { class: "score", text: String(v.scores[s]) })]),
    el("div", { class: "line" }, ["tricks ", el("b", { class: "tricks", text: String(v.tricks[s]) })]),
    el("div", { class: "line status status-" + (status || "none"), text: status || "undecided" }),
    el("div", { class: "backs", text: me ? "" : `${state.counts[s]} card${state.counts[s] === 1 ? "" : "s"}` }),
  ]);
  if (played) panel.append(el("div", { class: "line" }, ["played ", cardNode(played[1], "span", true)]));
  return panel;
}

function trickNodes(cards) {
  return cards.map(([seat, card]) => el("div", { class: "played" }, [cardNode(card, "span", true), `player_${seat}`]));
}

function render(state) {
  const v = state.view;
  const replay = state.kind === "replay";
  const n = state.num_players;
  const who = v.to_act === null ? "nobody" : v.to_act === state.seat && !replay ? "you" : `player_${v.to_act}`;
  $("status-line").textContent =
    `${replay ? state.title + " — " : ""}${state.variant}, ${n} players, episode ${state.episode} — ` +
    `rams ${v.rams + 1}, deal ${v.deal + 1} — phase: ${v.phase} — to act: ${who}`;
  $("seats").replaceChildren(...[...Array(n).keys()].map((s) => seatPanel(state, s)));
  $("trump").replaceChildren(el("b", { class: v.trump === "D" || v.trump === "H" ? "red-text" : "", text: SUITS[v.trump] + " " + v.trump }));
  $("turned").replaceChildren(v.turned_card ? cardNode(v.turned_card, "span", true) : "—");
  $("talon").textContent = `${v.talon} cards`;
  $("trick").replaceChildren(...trickNodes(v.trick));
  const last = v.completed_tricks[v.completed_tricks.length - 1];
  $("last-trick").replaceChildren(
    ...(last ? [...trickNodes(last.cards), el("div", { class: "played", text: `taken by player_${last.winner}` })] : []),
  );

  // the seat's own hand, with its legal moves when it is a person's turn
  $("own-title").textContent = replay ? `player_${state.seat}'s hand` : `Your hand (player_${state.seat})`;
  const legal = replay ? [] : state.legal;
  const byCard = new Map(legal.filter((m) => m.kind === "card").map((m) => [m.name, m]));
  $("hand").classList.toggle("choosing", legal.length > 0); // unplayable cards greyed only while choosing
  $("hand").replaceChildren(
    ...v.hand.map((card) => {
      const node = cardNode(card, "button");
      const move = byCard.get(card);
      node.type = "button";
      node.disabled = !move;
      if (move) {
        node.classList.add("legal");
        node.dataset.action = move.id;
        node.title = move.label;
        node.addEventListener("click", () => act(move.id));
      }
      return node;
    }),
  );
  $("calls").replaceChildren(
    ...legal
      .filter((m) => m.kind === "call")
      .map((m) => {
        const button = el("button", { type: "button", text: m.label, data: { action: m.id, name: m.name } });
        button.addEventListener("click", () => act(m.id));
        return button;
      }),
  );
  $("hint").textContent = replay ? "" : state.hint;

  // what is over
  const banner = $("banner");
  let text = "";
  if (state.error) text = state.error;
  else if (v.phase === "over") {
    const points = (state.deal_points || []).map((p, s) => `player_${s} ${p >= 0 ? "+" : ""}${p}`).join(", ");
    text = state.over || (replay && state.step === state.steps) ? "Game over" : "Deal over";
    if (v.rams_over) text += " — the rams is over";
    if (points) text += ` — points this deal: ${points}`;
    if (v.winners) text += ` — winners: ${v.winners.map((s) => `player_${s}`).join(", ")}`;
  }
  banner.textContent = text;
  banner.classList.toggle("hidden", !text);

  $("controls-play").classList.toggle("hidden", replay);
  $("controls-watch").classList.toggle("hidden", !replay);
  if (replay) {
    const select = $("view-seat");
    if (select.options.length !== n) {
      select.replaceChildren(...[...Array(n).keys()].map((s) => el("option", { value: s, text: `player_${s}` })));
    }
    select.value = String(state.seat);
    $("step-slider").max = String(state.steps);
    $("step-slider").value = String(state.step);
    $("step-label").textContent = `${state.step} / ${state.steps}`;
    $("first").disabled = $("prev").disabled = state.step === 0;
    $("next").disabled = $("last").disabled = state.step === state.steps;
  } else {
    $("next-deal").classList.toggle("hidden", !state.next_deal);
    $("next-deal").disabled = false;
    $("watch-this").classList.toggle("hidden", !state.over);
    $("watch-this").disabled = false;
    $("new-game").classList.toggle("hidden", !state.over);
    $("new-game").disabled = false;
  }

  const events = $("events");
  events.replaceChildren(...state.events.map((line) => el("li", { text: line })));
  events.classList.toggle("plain", replay); // a replay's lines carry their step numbers
  events.scrollTop = events.scrollHeight;
  if ($("picture-box").open) refreshPicture();
}

function pictureUrl() {
  if (!current) return "";
  if (current.kind === "replay") {
    return `/api/replays/${current.id}/table.png?step=${current.step}&seat=${current.seat}`;
  }
  return `/api/games/${current.id}/table.png?n=${current.actions}-${pictureCounter++}`;
}

function refreshPicture() {
  $("picture").src = pictureUrl();
}

async function act(action) {
  show(await api("POST", `/api/games/${current.id}/act`, { action }));
}

async function step(to, seat = current.seat) {
  if (!current || current.kind !== "replay") return;
  const target = Math.max(0, Math.min(current.steps, to));
  show(await api("GET", `/api/replays/${current.id}?step=${target}&seat=${seat}`));
}

function quiet(promise) {
  promise.catch(() => {}); // the error is on the page already
}

window.addEventListener("DOMContentLoaded", () => {
  $("tab-play").addEventListener("click", () => showTab("play"));
  $("tab-watch").addEventListener("click", () => showTab("watch"));
  $("num-players").addEventListener("change", playSeats);
  $("seat").addEventListener("change", playSeats);
  $("eval-num-players").addEventListener("change", evalSeats);
  $("play-form").addEventListener("submit", (e) => quiet(startGame(e)));
  $("log-form").addEventListener("submit", (e) => quiet(watchLog(e)));
  $("log-file").addEventListener("change", () => quiet(uploadLog()));
  $("eval-form").addEventListener("submit", (e) => quiet(watchAgents(e)));
  $("next-deal").addEventListener("click", () => quiet(api("POST", `/api/games/${current.id}/next`).then(show)));
  $("watch-this").addEventListener("click", () => quiet(api("POST", `/api/games/${current.id}/replay`).then(show)));
  $("new-game").addEventListener("click", () => showTab("play"));
  $("first").addEventListener("click", () => quiet(step(0)));
  $("prev").addEventListener("click", () => quiet(step(current.step - 1)));
  $("next").addEventListener("click", () => quiet(step(current.step + 1)));
  $("last").addEventListener("click", () => quiet(step(current.steps)));
  $("step-slider").addEventListener("change", (e) => quiet(step(Number(e.target.value))));
  $("view-seat").addEventListener("change", (e) => quiet(step(current.step, Number(e.target.value))));
  $("picture-box").addEventListener("toggle", () => $("picture-box").open && refreshPicture());
  document.addEventListener("keydown", (e) => {
    if (!current || current.kind !== "replay" || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    const moves = { ArrowLeft: current.step - 1, ArrowRight: current.step + 1, Home: 0, End: current.steps };
    if (e.key in moves) {
      e.preventDefault();
      quiet(step(moves[e.key]));
    }
  });
  quiet(loadMeta());
});
