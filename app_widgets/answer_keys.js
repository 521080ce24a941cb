// What is being answered and its answer keys, in the browser (app_widgets/answer_keys.py).  A key or a
// click answers the target (a pair, an item) shown when it happened and shows the next of those the
// server sent ahead at once; the answer goes to the server in the state value "events", every event not
// yet confirmed each time, so that none is lost when several are sent before the server reads them.
const widgets = {}; // per widget name: { events, count, view, current }
const tab = Math.random().toString(36).slice(2, 10);

// Inputs that take no letters (a radio button, a checkbox, a slider) keep focus after a click: the keys
// still answer there; only a field the expert types into keeps them.
const NOT_TYPED = ["radio", "checkbox", "button", "submit", "reset", "range", "color", "file", "image"];

// A drop-down's search field keeps focus after an option is chosen (Streamlit's selectbox): closed, it is
// not being typed into, and the keys answer (a new user's A typed "a" into "Pairs from" and stored nothing).
function closedDropDown(target) {
  return target.getAttribute("role") === "combobox" && target.getAttribute("aria-expanded") !== "true";
}

function typing(target) {
  const tag = (target && target.tagName) || "";
  if (tag === "INPUT" && closedDropDown(target)) return false;
  if (tag === "INPUT") return !NOT_TYPED.includes((target.type || "text").toLowerCase());
  return Boolean(target) && (target.isContentEditable || ["TEXTAREA", "SELECT"].includes(tag));
}

// The target on screen stays there until a key answers it: when the server sends other targets (it draws
// them afresh after a retrain, perhaps before it has read the last keys), the one the expert is reading
// does not change under their eyes.  Only a new context (session, source, annotator) or an undo the
// server has read (it may show the undone target again) lets it go.
function shown(view) {
  const pending = new Set(view.held.events.filter((event) => event.target).map((event) => event.target.join("-")));
  const current = view.held.current;
  if (current && current.context === view.data.context && !pending.has(current.entry.target.join("-"))) {
    return current.entry;
  }
  if (view.held.switchedFrom === view.data.context) return null; // the page's choice changed: its pairs come next
  return view.data.entries.find((entry) => !pending.has(entry.target.join("-"))) || null;
}

// A change of one of the page's choices that start a new context ("Pairs from", the strategy, the
// annotator: ``data.switches``, by their Streamlit keys) is known here at once, the targets of the new
// context only when the server's run reaches this widget (seconds later under load): until then, the
// target on screen stays answerable, marked as the old choice's, and no other target of the old context
// is shown (new-user report 13, F2: a pair of the old choice appeared after a switch to a rule's audit).
function switchOf(node, switches) {
  const box = node && node.closest && node.closest('[class*="st-key-"]');
  return Boolean(box) && (switches || []).some((key) => box.classList.contains(`st-key-${key}`));
}

function onSwitch(event) {
  const target = event.target;
  let changed = false;
  if (event.type === "change") changed = target && target.tagName === "INPUT";
  else if (target && target.closest && target.closest('[role="option"]')) {
    const option = target.closest('[role="option"]'); // a drop-down's option, outside its box: the open box's
    changed = option.getAttribute("aria-selected") !== "true";
    const open = document.querySelector('input[role="combobox"][aria-expanded="true"]');
    for (const held of Object.values(widgets)) {
      if (changed && held.view && switchOf(open, held.view.data.switches)) switched(held.view);
    }
    return;
  }
  for (const held of Object.values(widgets)) {
    if (changed && held.view && switchOf(target, held.view.data.switches)) switched(held.view);
  }
}

// A change that leaves the context as it was (a choice changed and changed back before the server's run
// reached this widget) brings no new context: after this long the targets held are shown again, rather
// than waiting for pairs that are not coming (keys would do nothing meanwhile).
const SWITCH_WAIT_MS = 8000;

function switched(view) {
  const held = view.held;
  held.switchedFrom = view.data.context;
  clearTimeout(held.switchTimer);
  held.switchTimer = setTimeout(() => {
    if (held.switchedFrom === undefined || held.switchedFrom !== held.view.data.context) return;
    delete held.switchedFrom;
    draw(held.view);
  }, SWITCH_WAIT_MS);
  draw(view);
}

function send(view, choice) {
  if (!view.data.enabled || !view.root.isConnected) return;
  const entry = choice === "undo" ? null : shown(view);
  if (choice !== "undo" && entry === null) return;
  view.held.count += 1;
  const event = { id: `${tab}-${view.held.count}`, choice, target: entry ? entry.target : null, next: null };
  view.held.events.push(event);
  draw(view);
  if (choice !== "undo" && view.held.current) event.next = view.held.current.entry.target; // the server shows it first
  view.setStateValue("events", view.held.events.slice());
}

// The table's layout (new-user report 13, F5: at 1024 x 768 eleven columns, one a listing wrapped to four
// lines, pushed two of them below the fold).  A row whose value is longer than TEXT_CHARS is a free text:
// its cells are cut to a few lines (CSS .clamp), the whole text in their title (on hover) and in full on a
// click.  A table of more than HALVED_OVER lines (a text counting TEXT_LINES) shows its free texts across
// the width and its other rows in two halves side by side, tighter, the pair and its buttons on one screen;
// where the halves' values are too wide for them side by side (a longitude's 10 characters), one table,
// tighter (fitTable).
const TEXT_CHARS = 40; // longer than any number, date or category the table writes
const TEXT_LINES = 2;
const HALVED_OVER = 8; // the sample homes' 8 columns stay one table (they fit at 1024 x 768 as they are)

function table(entry, halved = true) {
  const indexes = entry.rows.map((_, i) => i);
  const isText = (i) => entry.rows[i].slice(1).some((cell) => cell.length > TEXT_CHARS);
  const texts = indexes.filter(isText);
  const others = indexes.filter((i) => !isText(i));
  if (others.length + TEXT_LINES * texts.length <= HALVED_OVER) return rowsTable(entry, entry.head, indexes);
  if (!halved) return rowsTable(entry, entry.head, [...texts, ...others], "tight");
  const middle = Math.ceil(others.length / 2);
  const head = entry.short_head || entry.head;
  const halves = others.length
    ? `<div class="halves">${rowsTable(entry, head, others.slice(0, middle))}${rowsTable(entry, head, others.slice(middle))}</div>`
    : "";
  return (texts.length ? rowsTable(entry, entry.head, texts, "texts") : "") + halves;
}

function rowsTable(entry, head, indexes, kind = "") {
  const headRow = `<tr>${head.map((cell) => `<th>${cell}</th>`).join("")}</tr>`;
  const cut = (cell) => `<div class="clamp" title="${cell}">${cell}</div>`; // cells are escaped (answer_keys.py)
  const rows = indexes
    .map((i) => {
      const [name, ...cells] = entry.rows[i];
      // The last cell (B − A) coloured by its sign, as strongly as its size against its column's spread.
      const shade = entry.shades ? entry.shades[i] : 0;
      const last = shade ? ` class="d${Math.sign(shade)}" style="--shade: ${Math.abs(shade)}"` : "";
      const text = cells.some((cell) => cell.length > TEXT_CHARS);
      const td = (cell, k) => {
        if (k === cells.length - 1 && last) return `<td${last}>${cell}</td>`;
        return text && cell ? `<td class="free">${cut(cell)}</td>` : `<td>${cell}</td>`;
      };
      const tds = cells.map(td).join("");
      return `<tr><th>${name}</th>${tds}</tr>`;
    })
    .join("");
  const classes = [entry.shades ? "differences" : "", kind].filter(Boolean).join(" ");
  return `<table class="${classes}">${headRow}${rows}</table>`;
}

// The entry's table drawn in ``box``, in two halves if they fit side by side, else in one.
function fitTable(box, entry) {
  box.innerHTML = entry && entry.rows.length ? table(entry) : "";
  const halves = box.querySelector(".halves");
  if (halves && halves.scrollWidth > halves.clientWidth + 1) box.innerHTML = table(entry, false);
}

function onResize() {
  for (const held of Object.values(widgets)) {
    if (held.view && held.view.root.isConnected) fitTable(held.view.root.querySelector(".table"), held.current && held.current.entry);
  }
}

// A click on a free text cut to a few lines shows it whole (and another click cuts it again).
function onTextClick(event) {
  const text = event.target.closest && event.target.closest(".answer-keys td.free .clamp");
  if (text) text.classList.toggle("open");
}

function draw(view) {
  const entry = shown(view);
  view.held.current = entry ? { context: view.data.context, entry } : null;
  const root = view.root;
  const switching = view.held.switchedFrom === view.data.context;
  root.querySelector(".caption").textContent = entry
    ? entry.caption
    : switching ? "The pairs of your new choice are on their way…"
    : view.data.entries.length ? "The next ones are on their way…" : "";
  const note = switching && entry ? "From your choice before the change (its answer is stored as such)." : view.data.note;
  root.querySelector(".note").textContent = entry || switching ? note || "" : "";
  root.querySelector(".note").hidden = !root.querySelector(".note").textContent;
  root.querySelector(".text").textContent = entry && entry.text ? entry.text : "";
  root.querySelector(".text").hidden = !(entry && entry.text);
  fitTable(root.querySelector(".table"), entry);
  root.querySelectorAll("button").forEach((button) => {
    button.disabled = !view.data.enabled || (button.dataset.choice !== "undo" && entry === null);
  });
  root.dataset.target = entry ? entry.target.join("-") : "";
}

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
  for (const view of Object.values(widgets).map((held) => held.view)) {
    const choice = view && view.root.isConnected ? view.data.keys[event.key && event.key.toLowerCase()] : undefined;
    if (choice !== undefined) {
      event.preventDefault();
      event.stopPropagation(); // the drop-down it came from does not open on it
      if (event.target && event.target.tagName === "INPUT") event.target.blur();
      send(view, choice);
      return;
    }
  }
}

function buttons(root, data) {
  const box = root.querySelector(".buttons");
  const wanted = JSON.stringify(data.buttons);
  if (box.dataset.buttons === wanted) return;
  box.dataset.buttons = wanted;
  box.innerHTML = "";
  for (const [choice, label, primary] of data.buttons) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.choice = choice;
    button.textContent = label;
    if (primary) button.className = "primary";
    box.appendChild(button);
  }
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const root = parentElement.querySelector(".answer-keys");
  const held = (widgets[data.name] = widgets[data.name] || { events: [], count: 0, view: null });
  const confirmed = new Set(data.confirmed);
  if (held.events.some((event) => event.choice === "undo" && confirmed.has(event.id))) held.current = null;
  if (held.switchedFrom !== undefined && held.switchedFrom !== data.context) delete held.switchedFrom;
  held.events = held.events.filter((event) => !confirmed.has(event.id));
  const view = { data, root, setStateValue, held };
  held.view = view;
  buttons(root, data);
  root.onclick = onTextClick;
  root.querySelectorAll("button").forEach((button) => {
    button.onclick = () => send(view, button.dataset.choice);
  });
  draw(view);
  if (!widgets.listening) {
    Object.defineProperty(widgets, "listening", { value: true, enumerable: false });
    document.addEventListener("keydown", onKey, true);
    document.addEventListener("change", onSwitch, true);
    document.addEventListener("click", onSwitch, true);
    window.addEventListener("resize", onResize);
  }
}
