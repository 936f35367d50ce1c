// The page of `rams serve`. Everything it shows comes from the server's JSON states, which hold only
// the viewing seat's view() (rams_env/apps/serve/seat_view.py); text is set with textContent, never parsed as HTML.
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

// Card names in a line of text (``play JH``) written as the cards show them (``play J♥``).
function withSuits(line) {
  return line.replace(/\b([2-9TJQKA])([CDHS])\b/g, (_, rank, suit) => cardText(rank + suit));
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

const THINKING = "the agents are thinking…";
const LOADING = "loading…";

async function api(method, url, body, waiting = THINKING) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  setBusy(true, waiting);
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

function setBusy(busy, waiting = THINKING) {
  $("busy").textContent = busy ? waiting : "";
  $("busy").classList.toggle("hidden", !busy);
  document.body.classList.toggle("is-busy", busy);
  for (const button of document.querySelectorAll("#table button, .setup button")) {
    if (busy) button.disabled = true;
  }
  if (!busy && current) render(current); // restores the buttons the state allows
  if (!busy) for (const button of document.querySelectorAll(".setup button")) button.disabled = !meta;
  if (!busy) $("watch-log").disabled = $("log-list").options.length === 0;
}

// ----------------------------------------------------------------------------- setup forms
function fillSelect(select, values, chosen) {
  select.replaceChildren(...values.map((v) => el("option", { value: v, text: v, selected: v === chosen })));
}

const BUILTIN = [
  { spec: "heuristic", label: "heuristic (rules of thumb)" },
  { spec: "random", label: "random (a legal move at random)" },
  { spec: "search", label: "search (determinized rollouts)" },
  { spec: "search:200", label: "search:200 (more rollouts, slower)" },
];
const KINDS = {
  strongest: "Strongest (a search over the flagship, slower)",
  flagship: "Flagships of the zoo",
  search: "Searches over the flagship (slower)",
  ensemble: "Ensembles",
  checkpoint: "Other checkpoints",
};

// The trained agents whose model cards fit these rules: the variant and the table size.
function cardsFor(variant, players) {
  return ((meta && meta.agent_cards) || []).filter((c) => c.variant === variant && c.sizes.includes(players));
}

function cardOf(spec) {
  return ((meta && meta.agent_cards) || []).find((c) => c.spec === spec);
}

function pickerOptions(select, variant, players, value) {
  const rules = `${variant}/${players}`;
  if (select.dataset.rules === rules) {
    const known = [...select.options].some((o) => o.value === value && value !== "");
    select.value = known ? value : "";
    return; // the same suggestions: the options stay (a choice being made is not lost)
  }
  select.dataset.rules = rules;
  const groups = [el("optgroup", { label: "Built in" }, BUILTIN.map((b) => el("option", { value: b.spec, text: b.label })))];
  const cards = cardsFor(variant, players);
  for (const [kind, label] of Object.entries(KINDS)) {
    const here = cards.filter((c) => c.kind === kind);
    if (here.length) {
      groups.push(el("optgroup", { label }, here.map((c) => el("option", { value: c.spec, text: c.name + (c.ensemble && kind !== "ensemble" ? " (ensemble)" : ""), title: c.spec }))));
    }
  }
  groups.push(el("optgroup", { label: "Anything else" }, [el("option", { value: "", text: "type a spec or a path…" })]));
  select.replaceChildren(...groups);
  const known = [...select.options].some((o) => o.value === value && value !== "");
  select.value = known ? value : "";
}

// Under a picker: the chosen agent's whole name and file, and its card's headline (wrapped, never cut).
function showCard(input, note) {
  const card = cardOf(input.value.trim());
  note.replaceChildren(
    ...(card
      ? [
          el("div", { class: "headline", text: `${card.name}: ${card.headline || "no headline on its card"}` }),
          el("div", { class: "spec", text: card.spec }),
        ]
      : []),
  );
  note.title = card ? `model card: ${card.card}` : "";
}

function agentInputs(fieldset, seats, prefix, variant, players) {
  const rows = [...fieldset.querySelectorAll(".agent-row")];
  if (rows.length && rows.map((row) => Number(row.dataset.seat)).join() === seats.join()) {
    // the same seats: keep the fields (and a choice being made), offer what fits the rules now
    for (const row of rows) {
      row.rules = { variant, players };
      pickerOptions(row.querySelector("select"), variant, players, row.querySelector("input").value.trim());
      row.showTyped();
    }
    return;
  }
  const old = [...fieldset.querySelectorAll("input")].map((input) => input.value);
  fieldset.querySelectorAll("label, .agent-row").forEach((node) => node.remove());
  seats.forEach((seat, k) => {
    // the picker shows the agent; the field for a typed spec only under "type a spec or a path…"
    const input = el("input", { value: old[k] || "heuristic", id: `${prefix}-${seat}`, className: "agent-spec",
      placeholder: "a spec (search:100) or a checkpoint path", title: `player_${seat}'s agent` });
    input.dataset.seat = seat;
    const select = el("select", { className: "agent-pick", title: "suggested agents for these rules" });
    select.dataset.seat = seat;
    const note = el("div", { class: "agent-card" });
    const row = el("div", { class: "agent-row", data: { seat } }, [el("label", {}, [`player_${seat}`, select]), input, note]);
    row.rules = { variant, players };
    row.showTyped = () => input.classList.toggle("hidden", select.value !== "");
    pickerOptions(select, variant, players, input.value);
    row.showTyped();
    select.addEventListener("change", () => {
      if (select.value) input.value = select.value;
      row.showTyped();
      showCard(input, note);
      if (!select.value) input.focus();
    });
    input.addEventListener("input", () => {
      pickerOptions(select, row.rules.variant, row.rules.players, input.value.trim());
      showCard(input, note);
    });
    showCard(input, note);
    fieldset.append(row);
  });
}

function playSeats() {
  const n = Number($("num-players").value) || 4;
  const me = Number($("seat").value) || 0;
  agentInputs($("agent-inputs"), [...Array(n).keys()].filter((s) => s !== me), "agent", $("variant").value, n);
}

function evalSeats() {
  const n = Number($("eval-num-players").value) || 4;
  agentInputs($("eval-agent-inputs"), [...Array(n).keys()], "eval-agent", $("eval-variant").value, n);
}

async function loadMeta() {
  meta = await api("GET", "/api/meta", undefined, "loading the game options…");
  $("loading").classList.add("hidden");
  $("start").disabled = false;
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
  const { logs } = await api("GET", "/api/logs", undefined, LOADING);
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
  const agents = [...$("agent-inputs").querySelectorAll("input.agent-spec")].map((input) => input.value.trim());
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
  if (current && current.kind === "game") body.previous = current.id; // your last game may make room now
  show(await api("POST", "/api/games", body));
}

async function watchLog(event) {
  event.preventDefault();
  show(await api("POST", "/api/replays", { name: $("log-list").value }, LOADING));
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
  show(await api("POST", "/api/replays", { log }, LOADING));
}

async function watchAgents(event) {
  event.preventDefault();
  const agents = [...$("eval-agent-inputs").querySelectorAll("input.agent-spec")].map((input) => input.value.trim());
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
let marked = new Set(); // cards marked for discarding: sent only when the draw is confirmed

function show(state) {
  if (!current || current.id !== state.id || current.actions !== state.actions) marked = new Set();
  current = state;
  // the table shows before it is drawn: the seats are placed for the felt's size, which a hidden felt lacks
  $("table").classList.remove("hidden");
  $("setup").classList.add("hidden"); // the tabs bring the forms back
  render(state);
}

// Seat s's place around the oval, seen from the viewing seat: it sits at the bottom, the next seat to
// its left, and so on clockwise (as render_rgb draws the table). Percentages of the felt.
function place(state, s) {
  const n = state.num_players;
  const r = (s - state.seat + n) % n;
  const angle = Math.PI / 2 + (2 * Math.PI * r) / n;
  return { x: Math.cos(angle), y: Math.sin(angle), r };
}

const GAP = 4; // pixels kept between two things on the felt, and between a seat and the felt's edge

// A box (centre x, y and size w, h, in pixels of the felt) moved to lie wholly inside the felt.
function clampInto(b, W, H) {
  b.x = Math.min(Math.max(b.x, b.w / 2 + GAP), Math.max(b.w / 2 + GAP, W - b.w / 2 - GAP));
  b.y = Math.min(Math.max(b.y, b.h / 2 + GAP), Math.max(b.h / 2 + GAP, H - b.h / 2 - GAP));
}

// Boxes pushed apart where they overlap (each other, and the fixed ones: the piles, the last trick), along
// the shorter way out, and kept inside the felt; a few rounds settle the seven seats of a small felt.
function relax(boxes, fixed, W, H) {
  for (let round = 0; round < 60; round++) {
    let moved = false;
    const push = (a, b, share) => {
      const ox = (a.w + b.w) / 2 + GAP - Math.abs(a.x - b.x);
      const oy = (a.h + b.h) / 2 + GAP - Math.abs(a.y - b.y);
      if (ox <= 0.5 || oy <= 0.5) return;
      moved = true;
      if (ox < oy) {
        const side = Math.sign(a.x - b.x) || 1;
        a.x += side * ox * share;
        b.x -= side * ox * (1 - share);
      } else {
        const side = Math.sign(a.y - b.y) || 1;
        a.y += side * oy * share;
        b.y -= side * oy * (1 - share);
      }
    };
    boxes.forEach((a, i) => boxes.slice(0, i).forEach((b) => push(a, b, 0.5)));
    for (const a of boxes) for (const b of fixed) push(a, { ...b }, 1);
    for (const b of boxes) clampInto(b, W, H);
    if (!moved) break;
  }
}

// The box of a node of the felt, in pixels of the felt (centre and size).
function feltBox(node, felt) {
  const r = node.getBoundingClientRect(), f = felt.getBoundingClientRect();
  return { x: r.left - f.left + r.width / 2, y: r.top - f.top + r.height / 2, w: r.width, h: r.height };
}

// The seats and the trick placed for the felt as it is now: called once everything else is drawn (the
// banner and the dock take their room first) and whenever the felt changes size. Each seat sits on an
// ellipse that keeps it wholly inside the felt, where place() puts it, pushed clear of its neighbours, the
// piles and the last trick; the trick's cards on a smaller ellipse inside the seats, each towards its
// player, pushed clear of the seats and of each other.
function layoutTable() {
  const felt = $("felt");
  const W = felt.clientWidth, H = felt.clientHeight;
  if (!W || !H) return; // hidden: placed when it shows
  const fixed = [...felt.querySelectorAll("#centre .pile, .trick-box:not(.hidden)")].map((n) => feltBox(n, felt));
  // a node with its bubble, if it has one: the size of both, and the offset of their centre from the node's
  const extent = (n) => {
    const p = n.getBoundingClientRect();
    const bubble = n.querySelector(".said");
    if (!bubble) return { w: n.offsetWidth, h: n.offsetHeight, ox: 0, oy: 0 }; // (a card dealt in is scaled a while)
    const b = bubble.getBoundingClientRect();
    const left = Math.min(p.left, b.left), right = Math.max(p.right, b.right);
    const top = Math.min(p.top, b.top), bottom = Math.max(p.bottom, b.bottom);
    return { w: right - left, h: bottom - top, ox: (left + right - p.left - p.right) / 2, oy: (top + bottom - p.top - p.bottom) / 2 };
  };
  const arrange = (nodes, rx, ry, obstacles) => {
    const boxes = nodes.map((n) => {
      const b = extent(n);
      b.x = W / 2 + rx(b) * Number(n.dataset.dx) + b.ox;
      b.y = H / 2 + ry(b) * Number(n.dataset.dy) + b.oy;
      clampInto(b, W, H);
      return b;
    });
    relax(boxes, obstacles, W, H);
    nodes.forEach((n, k) => {
      n.style.left = `${boxes[k].x - boxes[k].ox}px`;
      n.style.top = `${boxes[k].y - boxes[k].oy}px`;
    });
    return boxes;
  };
  const panels = [...$("seats").children];
  const pw = Math.max(0, ...panels.map((n) => n.offsetWidth)), ph = Math.max(0, ...panels.map((n) => n.offsetHeight));
  const seatX = Math.max(0, W / 2 - pw / 2 - GAP), seatY = Math.max(0, H / 2 - ph / 2 - GAP);
  const seats = arrange(panels, () => seatX, () => seatY, fixed);
  const played = [...$("trick").children];
  const inner = (r, size, b) => Math.max(0, r - size / 2 - b / 2 - GAP);
  arrange(played, (b) => inner(seatX, pw, b.w), (b) => inner(seatY, ph, b.h), [...fixed, ...seats]);
}

function backs(count) {
  return el("span", { class: "backs", title: `${count} card${count === 1 ? "" : "s"}` }, [
    ...Array.from({ length: Math.min(count, 8) }, () => el("span", { class: "card back mini" })),
    el("span", { class: "count", text: count ? `×${count}` : "no cards" }),
  ]);
}

function said(line) {
  return withSuits(line.replace(/^(you|player_\d+): /, ""));
}

// A seat's moves in one bubble: its discards counted ("discard 3 · draw 3"), the rest as they were said.
function summarize(lines) {
  const out = [];
  for (const line of lines) {
    const last = out[out.length - 1];
    if (line.startsWith("discard") && last && last.startsWith("discard")) {
      const count = Number((last.match(/^discard (\d+)$/) || [0, 1])[1]);
      out[out.length - 1] = `discard ${count + 1}`;
    } else out.push(line.startsWith("discard a card") ? "discard 1" : line);
  }
  return out.join(" · ");
}

function seatPanel(state, s) {
  const v = state.view;
  const replay = state.kind === "replay";
  const status = { true: "knocked", false: "passed", null: "" }[String(v.active[s])];
  const me = s === state.seat;
  // "(you)" is left out on a phone, where the agent's line under the name says "you"
  const tag = me ? el("span", { class: "you-tag", text: replay ? " (seen)" : " (you)" }) : "";
  const marks = el("span", { class: "marks" });
  if (s === v.dealer) marks.append(el("span", { class: "mark dealer", text: "D", title: "dealer" }));
  if (s === v.forehand) marks.append(el("span", { class: "mark forehand", text: "F", title: "forehand" }));
  const moved = (state.recent || []).filter((m) => m.seat === s);
  const classes = ["seat"];
  if (v.to_act === s) classes.push("to-act");
  if (me) classes.push("me");
  if (moved.length) classes.push("moved");
  const where = place(state, s);
  const agent = me && !replay ? "you" : state.seats[s];
  const panel = el("div", { class: classes.join(" "), id: `seat-${s}`, data: { seat: s } }, [
    el("div", { class: "name" }, [el("span", {}, [`player_${s}`, tag]), marks]),
    el("div", { class: "agent", text: agent, title: agent }),
    el("div", { class: "line" }, [
      "score ",
      el("b", { class: "score", text: String(v.scores[s]) }),
      " · tricks ",
      el("b", { class: "tricks", text: String(v.tricks[s]) }),
    ]),
    el("div", { class: "line state" }, [
      el("span", { class: "status status-" + (status || "none"), text: status || "undecided" }),
      me ? el("span", { class: "backs" }) : backs(state.counts[s]),
    ]),
  ]);
  if (moved.length) {
    const side = where.x < -0.45 ? " left" : where.x > 0.45 ? " right" : "";
    const bubble = el("div", { class: `said${where.y < -0.3 ? " below" : ""}${side}` });
    bubble.textContent = summarize(moved.map((m) => said(m.line)));
    panel.append(bubble);
  }
  panel.dataset.dx = String(where.x); // where on the ellipse: layoutTable() places it
  panel.dataset.dy = String(where.y);
  return panel;
}

// The trick in the middle: each card pushed out towards the seat that played it, with its order and player.
function trickNodes(state) {
  const v = state.view;
  const fresh = new Set((state.recent || []).filter((m) => / play /.test(` ${said(m.line)}`)).map((m) => m.seat));
  let delay = 0;
  return v.trick.map(([seat, card], k) => {
    const where = place(state, seat);
    const node = el("div", { class: "played", data: { seat } }, [
      cardNode(card),
      // "2. player_3", or "2. p3" where seven seats crowd a phone (the letters between are hidden there)
      el("span", { class: "who", title: `card ${k + 1} of the trick, played by player_${seat}` },
        [`${k + 1}. p`, el("span", { class: "long", text: "layer_" }), String(seat)]),
    ]);
    node.dataset.dx = String(where.x); // layoutTable() places it
    node.dataset.dy = String(where.y);
    if (fresh.has(seat)) {
      node.classList.add("fresh");
      node.style.animationDelay = `${0.25 * delay++}s`;
    }
    return node;
  });
}

function lastTrick(v) {
  const last = v.completed_tricks[v.completed_tricks.length - 1];
  if (!last) return [];
  return last.cards.map(([seat, card]) => el("div", { class: "played small" }, [cardNode(card, "span", true), `p${seat}`]));
}

function buyButton(state) {
  const rules = state.buy;
  const k = marked.size;
  const drawn = rules.draw ? Math.max(0, k - rules.fewer) : 0;
  let text = rules.draw ? (k ? `Discard ${k} and draw ${drawn}` : "Keep all: draw none") : `Discard ${k || 1}`;
  if (rules.draw && rules.fewer && k) text += " (you keep the turned card)";
  const draw = state.legal.find((m) => m.name === "DRAW");
  const button = el("button", { type: "button", id: "confirm-buy", class: "confirm", text });
  if (draw) button.dataset.action = draw.id;
  button.dataset.name = "DRAW";
  button.disabled = k < rules.min || k > rules.max;
  button.addEventListener("click", () => quiet(buy([...marked])));
  return button;
}

function render(state) {
  const v = state.view;
  const replay = state.kind === "replay";
  const n = state.num_players;
  const who = v.to_act === null ? "nobody" : v.to_act === state.seat && !replay ? "you" : `player_${v.to_act}`;
  $("status-text").textContent =
    `${replay ? state.title + " — " : ""}${state.variant}, ${n} players, episode ${state.episode} — ` +
    `rams ${v.rams + 1}, deal ${v.deal + 1} — phase: ${v.phase} — to act: ${who}`;
  $("felt").dataset.players = String(n);
  $("seats").replaceChildren(...[...Array(n).keys()].map((s) => seatPanel(state, s)));
  const red = v.trump === "D" || v.trump === "H";
  $("trump").replaceChildren(el("span", { class: red ? "red-text" : "", text: SUITS[v.trump], title: `trump ${v.trump}` }));
  $("turned").replaceChildren(
    v.turned_card ? cardNode(v.turned_card, "span", true) : el("span", { class: "card small gone", text: "gone" }),
  );
  $("talon").textContent = String(v.talon);
  $("talon-card").classList.toggle("empty", v.talon === 0); // an empty place, not a card back
  $("talon-card").title = v.talon ? `${v.talon} cards in the talon` : "the talon is empty";
  $("trick").replaceChildren(...trickNodes(state));
  $("last-trick").replaceChildren(...lastTrick(v));
  const last = v.completed_tricks[v.completed_tricks.length - 1];
  $("last-taken").textContent = last ? `taken by player_${last.winner}` : "";
  $("last-trick-box").classList.toggle("hidden", !v.completed_tricks.length);

  // the seat's own hand, with its legal moves when it is a person's turn
  $("own-title").textContent = replay ? `player_${state.seat}'s hand` : `Your hand (player_${state.seat})`;
  const legal = replay ? [] : state.legal;
  const buying = !replay && state.buy && legal.length > 0;
  const byCard = new Map(legal.filter((m) => m.kind === "card").map((m) => [m.name, m]));
  $("hand").classList.toggle("choosing", legal.length > 0); // unplayable cards greyed only while choosing
  $("hand").classList.toggle("buying", Boolean(buying));
  $("hand").replaceChildren(
    ...v.hand.map((card) => {
      const node = cardNode(card, "button");
      const move = byCard.get(card);
      node.type = "button";
      node.disabled = !move;
      if (move) {
        node.classList.add("legal");
        node.dataset.action = move.id;
        node.title = buying ? `mark ${card} for discarding (click again to keep it)` : move.label;
        if (buying) {
          node.classList.toggle("selected", marked.has(card));
          node.setAttribute("aria-pressed", String(marked.has(card)));
          node.addEventListener("click", () => toggleMark(card));
        } else {
          node.addEventListener("click", () => act(move.id));
        }
      }
      return node;
    }),
  );
  const calls = legal.filter((m) => m.kind === "call" && !(buying && m.name === "DRAW"));
  $("calls").replaceChildren(
    ...calls.map((m) => {
      const button = el("button", { type: "button", text: m.label, data: { action: m.id, name: m.name } });
      button.addEventListener("click", () => act(m.id));
      return button;
    }),
    ...(buying ? [buyButton(state)] : []),
  );
  const hint = buying ? `${state.hint} ${state.buy.note}` : state.hint;
  $("hint").textContent = replay ? "" : [state.note, hint].filter(Boolean).join(" "); // a move played for you first
  // a deal that is over: the dock shows its end (the banner) and what comes next; the hand only if cards are left
  const over = v.phase === "over";
  $("own").classList.toggle("over", over);
  $("own").classList.toggle("hidden", over && !v.hand.length && !legal.length);

  renderBanner(state);
  renderChart(state);

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
  const first = state.events_start || 0;
  events.replaceChildren(
    ...state.events.map((line, k) =>
      el("li", {}, [el("span", { class: "n", text: replay ? "" : `${first + k + 1}.` }), el("span", { class: "text", text: withSuits(line) })]),
    ),
  );
  events.classList.toggle("plain", replay); // a replay's lines carry their step numbers
  events.scrollTop = events.scrollHeight;
  if ($("picture-box").open) refreshPicture();
  layoutTable(); // last: the felt has its size only once the banner and the dock are drawn
}

function toggleMark(card) {
  if (marked.has(card)) marked.delete(card);
  else marked.add(card);
  render(current);
}

// What is over: each seat's score change the way the game counts it (10 → 6, 4 tricks), and why.
function renderBanner(state) {
  const v = state.view;
  const replay = state.kind === "replay";
  const summary = state.deal_summary;
  let title = "";
  if (state.error) title = state.error;
  else if (v.phase === "over") {
    title = state.over || (replay && state.step === state.steps) ? "Game over" : "Deal over";
    if (summary) title += ` — ${summary.ended} — ${summary.result}`; // who won, ties named
  }
  $("banner-title").textContent = title;
  const rows = summary && !state.error ? summary.seats : [];
  $("deal-summary").replaceChildren(
    ...rows.map((row) =>
      // a flight the cap makes free is no penalty: not coloured as one
      el("li", { class: row.flew ? (row.after > row.before ? "flight" : "free-flight") : "", data: { seat: row.seat } }, [
        // the name in its line's colour: the rows are the chart's legend
        el("b", { class: `seat-${row.seat}`, text: `player_${row.seat}${row.seat === state.seat && !replay ? " (you)" : ""}: ` }),
        el("span", { class: "change", text: row.change }),
        row.flew ? el("span", { class: "flight-mark", text: row.after > row.before ? " ✈ flight" : " ✈ flight, free",
          title: "knocked and took no trick" }) : "",
        el("span", { class: "why", text: ` — ${row.why}` }),
      ]),
    ),
  );
  $("banner").classList.toggle("hidden", !title);
}

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attributes = {}, text = "") {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text) node.textContent = text;
  return node;
}

// Every seat's score at the start of each rams and after each deal, one line per seat.
function renderChart(state) {
  const points = state.score_chart || [];
  $("chart-box").classList.toggle("hidden", points.length < 2);
  const chart = $("score-chart");
  if (points.length < 2) {
    chart.replaceChildren();
    return;
  }
  const n = state.num_players;
  const W = 340, H = 120, L = 30, R = 8, T = 8, B = 22;
  const all = points.flatMap((p) => p.scores);
  const high = Math.max(...all, 1), low = Math.min(...all, 0);
  const x = (k) => L + ((W - L - R) * k) / (points.length - 1);
  const y = (value) => T + ((H - T - B) * (high - value)) / (high - low || 1);
  const nodes = [
    svg("line", { x1: L, x2: W - R, y1: y(0), y2: y(0), class: "zero" }),
    svg("text", { x: L - 6, y: y(high) + 4, class: "axis y-label", "text-anchor": "end" }, String(high)),
    svg("text", { x: L - 6, y: y(low) + 3, class: "axis y-label", "text-anchor": "end" }, String(low)),
    svg("text", { x: L - 6, y: H - 4, class: "axis x-caption", "text-anchor": "end" }, "deal"),
  ];
  // x labels under the plot: the deals of each rams, 0 its start (the caption "deal" at their left); a new
  // rams is a dotted line, named at its top; when the deals are many, only each rams' start is numbered
  const every = points.length > 18 ? Infinity : 1;
  points.forEach((p, k) => {
    if (k && p.deal === 0) {
      nodes.push(svg("line", { x1: x(k), x2: x(k), y1: T, y2: H - B, class: "rams-break" }));
      nodes.push(svg("text", { x: x(k) + 3, y: T + 8, class: "axis rams-label" }, `rams ${p.rams + 1}`));
    }
    if (p.deal !== 0 && p.deal % every) return;
    const anchor = k === points.length - 1 && k ? "end" : "middle";
    nodes.push(svg("text", { x: x(k) + (anchor === "end" ? 3 : 0), y: H - 4, class: "axis x-label", "text-anchor": anchor }, String(p.deal)));
  });
  // seats at the same score would hide each other's lines: each seat's line is moved a little off the others
  const dodge = (s) => (s - (n - 1) / 2) * 1.6;
  for (let s = 0; s < n; s++) {
    // a rams starts from fresh scores: its line does not join the previous rams' last point
    let path = "";
    points.forEach((p, k) => {
      path += `${k === 0 || p.deal === 0 ? "M" : "L"}${x(k).toFixed(1)},${(y(p.scores[s]) + dodge(s)).toFixed(1)} `;
    });
    nodes.push(svg("path", { d: path, class: `series seat-${s}${s === state.seat ? " mine" : ""}`, "data-seat": s }));
    points.forEach((p, k) => {
      nodes.push(svg("circle", { cx: x(k), cy: y(p.scores[s]) + dodge(s), r: 2.5, class: `dot seat-${s}` }));
    });
  }
  chart.replaceChildren(...nodes);
  // the banner's rows name the seats in their lines' colours: the legend is for a chart without them
  $("chart-legend").classList.toggle("hidden", Boolean(state.deal_summary && !state.error));
  $("chart-legend").replaceChildren(
    ...[...Array(n).keys()].map((s) =>
      el("span", { class: `legend seat-${s}`, text: `player_${s} ${points[points.length - 1].scores[s]}` }),
    ),
  );
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

// The whole purchase at once: the marked cards are discarded and the draw made only now.
async function buy(cards) {
  const state = await api("POST", `/api/games/${current.id}/buy`, { discards: cards });
  marked = new Set();
  show(state);
}

async function step(to, seat = current.seat) {
  if (!current || current.kind !== "replay") return;
  const target = Math.max(0, Math.min(current.steps, to));
  show(await api("GET", `/api/replays/${current.id}?step=${target}&seat=${seat}`, undefined, LOADING));
}

function quiet(promise) {
  promise.catch(() => {}); // the error is on the page already
}

window.addEventListener("DOMContentLoaded", () => {
  $("tab-play").addEventListener("click", () => showTab("play"));
  $("tab-watch").addEventListener("click", () => showTab("watch"));
  $("num-players").addEventListener("change", playSeats);
  $("variant").addEventListener("change", playSeats);
  $("eval-variant").addEventListener("change", evalSeats);
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
  $("rules-link").addEventListener("click", () => ($("rules-tip").open = true)); // then the link scrolls to it
  $("picture-box").addEventListener("toggle", () => $("picture-box").open && refreshPicture());
  document.addEventListener("keydown", (e) => {
    if (!current || current.kind !== "replay" || e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    const moves = { ArrowLeft: current.step - 1, ArrowRight: current.step + 1, Home: 0, End: current.steps };
    if (e.key in moves) {
      e.preventDefault();
      quiet(step(moves[e.key]));
    }
  });
  new ResizeObserver(layoutTable).observe($("felt")); // a window turned or resized, a banner come or gone
  quiet(loadMeta());
});
