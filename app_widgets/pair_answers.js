// The pair on screen and its answers, in the browser (app_widgets/pair_answers.py).  A key or a click
// answers the pair shown when it happened and shows the next pair the server sent ahead at once; the
// answer goes to the server in the state value "events", every event not yet confirmed each time, so
// that none is lost when several are sent before the server reads them.
const held = { events: [], count: 0, tab: Math.random().toString(36).slice(2, 10), view: null };

const KEYS = { a: "a", b: "b", e: "equal", s: "skip", u: "undo" };

function typing(target) {
  const tag = (target && target.tagName) || "";
  return target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(tag));
}

function pending() {
  return new Set(held.events.filter((event) => event.pair).map((event) => event.pair.join("-")));
}

function shown(view) {
  const answered = pending();
  return view.data.pairs.find((entry) => !answered.has(entry.pair.join("-"))) || null;
}

function send(view, choice) {
  if (!view.data.enabled || !view.root.isConnected) return;
  const entry = choice === "undo" ? null : shown(view);
  if (choice !== "undo" && entry === null) return;
  held.count += 1;
  held.events.push({ id: `${held.tab}-${held.count}`, choice, pair: entry ? entry.pair : null });
  draw(view);
  view.setStateValue("events", held.events.slice());
}

function table(entry) {
  const head = `<tr>${entry.head.map((cell) => `<th>${cell}</th>`).join("")}</tr>`;
  const rows = entry.rows
    .map(([name, a, b, diff, sign]) => `<tr><th>${name}</th><td>${a}</td><td>${b}</td><td class="d${sign}">${diff}</td></tr>`)
    .join("");
  return `<table>${head}${rows}</table>`;
}

function draw(view) {
  const entry = shown(view);
  const root = view.root;
  root.querySelector(".caption").textContent = entry
    ? entry.caption
    : view.data.pairs.length ? "The next pairs are on their way…" : "";
  root.querySelector(".table").innerHTML = entry ? table(entry) : "";
  root.querySelectorAll("button").forEach((button) => {
    button.disabled = !view.data.enabled || (button.dataset.choice !== "undo" && entry === null);
  });
  root.dataset.pair = entry ? entry.pair.join("-") : "";
}

function onKey(event) {
  const view = held.view;
  const choice = KEYS[event.key && event.key.toLowerCase()];
  if (!view || !choice || event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
  event.preventDefault();
  send(view, choice);
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const root = parentElement.querySelector(".pair-answers");
  const confirmed = new Set(data.confirmed);
  held.events = held.events.filter((event) => !confirmed.has(event.id));
  const view = { data, root, setStateValue };
  held.view = view;
  root.querySelectorAll("button").forEach((button) => {
    button.onclick = () => send(view, button.dataset.choice);
  });
  draw(view);
  if (!held.listening) {
    document.addEventListener("keydown", onKey, true);
    held.listening = true;
  }
}
