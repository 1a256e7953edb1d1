(function () {
  "use strict";
  // The viewer's shell, one for every game: the header (players, seed, result), the timeline
  // (slider, strip of marks, step controls, speed, keys), links (?step=N, ?slide=N, ?play,
  // ?result) and the live mode. The board, its legend and the game's own side cards are the
  // game's drawing: window.arenaDrawing(data, kit), inlined before this script.
  const VIEWER_SCHEMA = @@SCHEMA@@;
  const data = JSON.parse(document.getElementById("match-data").textContent);
  const html = document.documentElement;
  const banner = document.getElementById("banner");
  const NS = "http://www.w3.org/2000/svg";

  if (data.schema !== VIEWER_SCHEMA) {
    banner.hidden = false;
    banner.className = "refused";
    banner.textContent = "This viewer reads match data of schema version " + VIEWER_SCHEMA +
      ", but this file holds schema version " + data.schema + ". Render the log with the " +
      "dungeon-arena release that wrote it (arena replay render).";
    document.getElementById("stage").hidden = true;
    document.getElementById("controls").hidden = true;
    html.dataset.refused = "schema";
    return;
  }

  // A live page of a long match holds only its newest frames at first ("base": the index of the
  // first one); the older ones are fetched once the newest step is drawn ("history").
  let frames = data.frames;
  const base = data.base || 0;
  if (base > 0) {
    frames = new Array(base);
    data.frames.forEach((frame) => frames.push(frame));
    data.frames = frames;
  }
  // A long match's file holds its first frames here and the others (up to "total") in
  // #more-frames, after this script: read once the first step is drawn.
  if (data.total > frames.length) frames.length = data.total;

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, (c) =>
      ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
  }
  function el(name, attrs, parent) {
    const node = document.createElementNS(NS, name);
    for (const key in attrs) node.setAttribute(key, attrs[key]);
    if (parent) parent.appendChild(node);
    return node;
  }

  // A page may run this script again (a test, an old live page): the listeners on document and
  // window and the play timer of the previous run go first.
  if (window.arenaViewerRun) window.arenaViewerRun.abort();
  const listening = window.arenaViewerRun = new AbortController();
  const signal = listening.signal;

  // --- the map's scale: markers are drawn in screen pixels, scaled by --glyph ---------------
  const map = document.getElementById("map");
  const legendBox = document.getElementById("legend");
  let unit = 1;
  function measure() {
    const box = map.getBoundingClientRect();
    const view = map.viewBox.baseVal;
    const pixels = Math.min(box.width / (view.width || 1), box.height / (view.height || 1));
    unit = pixels > 0 ? Math.max(0.05, 1 / pixels) : 1;
    map.style.setProperty("--glyph", unit.toFixed(4));
    const legend = legendBox.getBoundingClientRect();
    const inside = legend.bottom <= window.innerHeight + 0.5 && legend.right <= window.innerWidth + 0.5;
    html.dataset.legend = inside ? "visible" : "cut";  // what the browser tests check
  }

  // --- seats: each player's colour and name -------------------------------------------------
  const players = Array.isArray(data.players) ? data.players.map(String) : [];
  const colors = Array.isArray(data.colors) ? data.colors : [];
  colors.forEach((color, seat) => html.style.setProperty("--seat" + seat, color));
  const seatName = (seat) => players[seat] !== undefined ? players[seat] : "seat " + seat;
  // A player's name as HTML: escaped, in its seat's colour.
  const seatHtml = (seat) => '<span class="seat" style="color: var(--seat' + (seat | 0) + ')">' +
    escapeHtml(seatName(seat)) + "</span>";

  const kit = {
    el, escapeHtml, seatHtml, seatName, svg: map, legend: legendBox,
    unit: () => unit,
    card(title, id) {  // a side card of the game's, under "At this step"
      const card = document.createElement("div");
      card.className = "card";
      const head = document.createElement("div");
      head.className = "card-title";
      head.textContent = title;
      const body = document.createElement(id.startsWith("table:") ? "table" : "div");
      body.id = id.replace(/^table:/, "");
      if (body.tagName === "TABLE") body.className = "score";
      card.append(head, body);
      document.getElementById("panel").appendChild(card);
      return body;
    },
  };
  const drawing = window.arenaDrawing(data, kit);
  legendBox.innerHTML = (drawing.legend || []).map(([shape, text]) =>
    '<span><svg viewBox="0 0 20 20" aria-hidden="true">' + shape + "</svg>" + escapeHtml(text) +
    "</span>").join("");
  measure();

  // --- header -------------------------------------------------------------------------------
  let last = frames.length - 1;
  let live = Boolean(data.live);
  const facts = [];
  if (data.title) facts.push(["match", escapeHtml(data.title)]);
  if (players.length) {
    facts.push([players.length === 2 ? "players" : "players", players.map((_, seat) => seatHtml(seat))
      .join(players.length === 2 ? " <span class='dim'>vs</span> " : ", ")]);
  }
  if (data.seed !== null && data.seed !== undefined) facts.push(["seed", escapeHtml(data.seed)]);
  for (const [key, value] of data.facts || []) facts.push([escapeHtml(key), escapeHtml(value)]);
  const factsBox = document.getElementById("facts");
  function drawFacts() {
    factsBox.innerHTML = facts.concat([["steps", '<span id="steps">' + last + "</span>"]]).map(
      ([k, v]) => "<span>" + k + " <b>" + v + "</b></span>").join("");
  }
  drawFacts();
  if (data.standings) {
    const home = document.getElementById("home");
    home.href = data.standings;
    home.hidden = false;
  }
  const mode = document.getElementById("mode");

  // The result stays hidden until the last step (a replay is watched to learn how it ends);
  // the button shows it at any time, and ?result opens with it shown. A live match has none yet.
  const result = document.getElementById("result");
  const reveal = document.getElementById("reveal");
  let revealed = new URLSearchParams(window.location.search).has("result");
  function setResult(outcome) {
    result.className = "";
    result.removeAttribute("style");
    if (live) {
      result.textContent = "live: the match is being played";
      result.classList.add("pending");
    } else if (data.running) {
      result.textContent = "still being played: reload for more";
      result.classList.add("pending");
    } else if (!outcome) {
      result.textContent = "no result: the log ends before the match does";
      result.classList.add("pending");
    } else {
      result.textContent = outcome.text;
      if (Number.isInteger(outcome.winner)) {
        result.style.color = result.style.borderColor = "var(--seat" + outcome.winner + ")";
        result.classList.add("team" + outcome.winner);
      }
    }
    mode.textContent = live || data.running ? "live" : "replay";
    mode.classList.toggle("live", live || Boolean(data.running));
    html.dataset.live = live ? "running" : (html.dataset.live ? "over" : "");
  }
  function showResult(step) {
    const pending = live || Boolean(data.running);
    const shown = pending || revealed || step === last;
    result.hidden = !shown;
    reveal.hidden = pending || step === last;
    reveal.textContent = revealed ? "hide result" : "show result";
    reveal.setAttribute("aria-pressed", String(revealed));
    html.dataset.result = pending ? "live" : shown ? "shown" : "hidden";
  }
  reveal.addEventListener("click", () => { revealed = !revealed; showResult(current); });
  function setWarning(text) {
    banner.hidden = !text;
    banner.className = "";
    banner.textContent = text || "";
  }
  setResult(data.result);
  setWarning(data.warning);

  // --- the step at the cursor ----------------------------------------------------------------
  const notes = document.getElementById("notes");
  const cursor = document.getElementById("cursor");
  const slider = document.getElementById("slider");
  const stepno = document.getElementById("stepno");
  const decorate = drawing.decorate || escapeHtml;
  let current = 0;

  function draw(step) {
    step = Math.max(0, Math.min(last, step | 0));
    while (frames[step] === undefined && step < last) step += 1;  // not fetched yet
    while (frames[step] === undefined && step > 0) step -= 1;  // not read yet
    const frame = frames[step];
    current = step;
    drawing.draw(step, frame);
    const at = frame.t === undefined ? "" : " · t <b>" + Number(frame.t).toFixed(3) + " s</b>";
    const where = drawing.where ? drawing.where(step, frame) : "";
    cursor.innerHTML = "step <b>" + step + "</b> of " + last + at + (where ? " · " + where : "");
    const list = frame.notes || [];
    notes.innerHTML = list.length ? list.map(([kind, text]) =>
      '<li class="' + escapeHtml(kind) + '">' + decorate(String(text)) + "</li>").join("") :
      '<li class="seen">nothing moved</li>';
    slider.value = String(step);
    stepno.textContent = step + " / " + last;
    html.dataset.step = String(step);
    showResult(step);
  }

  // --- the strip above the slider: when things happened (one path per kind of mark) --------
  const strip = document.getElementById("strip");
  function drawStrip() {
    strip.textContent = "";
    // A long match has several steps to a tenth of the strip's unit: one mark for them.
    const paths = {}, drawn = {};
    frames.forEach((frame, index) => {
      const x = last === 0 ? 0 : Math.round(index / last * 9960);
      const marks = drawing.marks ? drawing.marks(frame, index) : [];
      if (!live && index === last && data.result) marks.push(["tick-end", 0, 12]);
      for (const [cls, y, h] of marks) {
        const seen = drawn[cls + " " + y + " " + h] ||= new Uint8Array(9961);
        if (seen[x]) continue;
        seen[x] = 1;
        paths[cls] = (paths[cls] || "") + "M" + (x / 10).toFixed(1) + " " + y + "h4v" + h + "h-4z";
      }
    });
    for (const cls in paths) el("path", {d: paths[cls], class: cls}, strip);
    el("title", {}, strip).textContent = drawing.stripTitle || "what happened when";
  }
  drawStrip();
  strip.addEventListener("click", (event) => {
    const box = strip.getBoundingClientRect();
    stop();
    draw(Math.round((event.clientX - box.left) / box.width * last));
  });

  // --- controls -------------------------------------------------------------------------------
  let timer = null;
  const play = document.getElementById("play");
  const speed = document.getElementById("speed");
  const BASE_STEPS_PER_SECOND = drawing.stepsPerSecond || 3;
  const PLAY_ICON = '<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M4 2v12l10-6z" fill="currentColor"/></svg>';
  const PAUSE_ICON = '<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M3 2h4v12H3zM9 2h4v12H9z" fill="currentColor"/></svg>';
  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    play.innerHTML = PLAY_ICON; play.classList.remove("playing"); play.setAttribute("aria-label", "play");
  }
  function start() {
    if (current >= last && !live) draw(0);
    const rate = BASE_STEPS_PER_SECOND * Number(speed.value);
    html.style.setProperty("--move-ms", Math.round(Math.min(320, 900 / rate)) + "ms");
    timer = setInterval(() => { if (current >= last) { if (!live) stop(); } else draw(current + 1); }, 1000 / rate);
    play.innerHTML = PAUSE_ICON; play.classList.add("playing"); play.setAttribute("aria-label", "pause");
  }
  signal.addEventListener("abort", () => { if (timer !== null) clearInterval(timer); });
  play.addEventListener("click", () => (timer === null ? start() : stop()), {signal});
  speed.addEventListener("change", () => { if (timer !== null) { stop(); start(); } }, {signal});
  slider.addEventListener("input", () => { stop(); draw(Number(slider.value)); }, {signal});
  document.getElementById("prev").addEventListener("click", () => { stop(); draw(current - 1); }, {signal});
  document.getElementById("next").addEventListener("click", () => { stop(); draw(current + 1); }, {signal});
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLSelectElement) return;
    if (event.key === " ") { event.preventDefault(); timer === null ? start() : stop(); }
    else if (event.key === "ArrowRight") { stop(); draw(current + 1); }
    else if (event.key === "ArrowLeft") { stop(); draw(current - 1); }
    else if (event.key === "Home") { stop(); draw(0); }
    else if (event.key === "End") { stop(); draw(last); }
  }, {signal});
  window.addEventListener("resize", () => { measure(); draw(current); }, {signal});
  stop();

  // --- live: follow the match as it is played --------------------------------------------------
  // The server sends "frames" ({from, frames, warning}) as the match goes on, then "over" (the
  // same, with the result). A viewer at the newest step follows it; one looking back stays.
  function extend(update) {
    const following = current === last;
    const from = Math.min(update.from, frames.length);
    frames = frames.slice(0, from).concat(update.frames);
    data.frames = frames;
    last = frames.length - 1;
    slider.max = String(last);
    if (drawing.extend) drawing.extend(frames, from);
    drawFacts();
    drawStrip();
    draw(following ? last : current);
    html.dataset.frames = String(frames.length);
    html.dataset.redraws = String(Number(html.dataset.redraws || 0) + 1);
  }
  if (live && typeof EventSource !== "undefined") {
    // The stream starts after the frames this page holds.
    const source = new EventSource(data.live + (data.live.includes("?") ? "&" : "?") + "from=" + frames.length);
    signal.addEventListener("abort", () => source.close());
    source.addEventListener("frames", (event) => extend(JSON.parse(event.data)));
    source.addEventListener("over", (event) => {
      source.close();
      const update = JSON.parse(event.data);
      live = false;
      data.result = update.result;
      extend(update);
      setResult(update.result);
      setWarning(update.warning);
      showResult(current);
    });
  }

  if (base > 0 && data.history) {
    html.dataset.history = "loading";
    fetch(data.history + (data.history.includes("?") ? "&" : "?") + "to=" + base)
      .then((answer) => answer.json())
      .then((older) => {
        older.slice(0, base).forEach((frame, index) => { frames[index] = frame; });
        if (drawing.extend) drawing.extend(frames, 0);
        drawStrip();
        draw(current);
        html.dataset.history = "loaded";
      })
      .catch(() => { html.dataset.history = "failed"; });
  }

  // The frames packed by column (replay/framepack.py), read back as frames whose fields are
  // read from the columns when asked (getters): the page keeps the columns, not a copy of every
  // frame's arrays, and a frame gives the values it was written with.
  function unpackFrames(packed) {
    if (packed.packed !== 1) throw new Error("frames packed in version " + packed.packed);
    const count = packed.count;
    const INDEX = Symbol("frame");
    function PackedFrame(index) { this[INDEX] = index; }
    const field = (key, get) => Object.defineProperty(PackedFrame.prototype, key,
      {enumerable: true, get() { return get(this[INDEX]); }});
    const numbers = (list) => list.every((x) => typeof x === "number");
    for (const key in packed.columns) {
      const column = packed.columns[key], v = column.v;
      if (column.kind === "delta" || column.kind === "ms") {
        const values = new Float64Array(count), scale = column.kind === "ms" ? 1000 : 1;
        let sum = 0;
        for (let i = 0; i < count; i++) { sum += v[i]; values[i] = scale === 1 ? sum : sum / scale; }
        field(key, (i) => values[i]);
      } else if (column.kind === "diff" && numbers(column.first) && v.every(numbers)) {
        const width = column.first.length, values = new Float64Array(count * width);
        values.set(column.first);
        for (let i = 1; i < count; i++) {
          const changes = v[i - 1], at = i * width;
          values.copyWithin(at, at - width, at);
          for (let j = 0; j < changes.length; j += 2) values[at + changes[j]] = changes[j + 1];
        }
        field(key, (i) => Array.from(values.subarray(i * width, (i + 1) * width)));
      } else if (column.kind === "diff") {
        const values = [column.first];
        for (let i = 1; i < count; i++) {
          const value = values[i - 1].slice(), changes = v[i - 1];
          for (let j = 0; j < changes.length; j += 2) value[changes[j]] = changes[j + 1];
          values.push(value);
        }
        field(key, (i) => values[i].slice());
      } else if (column.kind === "rows") {
        const {counts, width, strings} = column, starts = new Int32Array(count);
        const text = [];
        for (const j of column.text || []) text[j] = true;
        let at = 0;
        for (let i = 0; i < count; i++) { starts[i] = at; at += counts[i] * Math.max(width, 1); }
        field(key, (i) => {
          const list = new Array(counts[i]);
          let at = starts[i];
          for (let n = 0; n < list.length; n++) {
            if (width === 0) { list[n] = v[at++]; continue; }
            const item = new Array(width);
            for (let j = 0; j < width; j++, at++) item[j] = text[j] ? strings[v[at]] : v[at];
            list[n] = item;
          }
          return list;
        });
      } else if (column.kind === "notes") {
        // A chunk's numbers are read (and where each frame's start found) when first asked.
        const {counts, templates, chunk} = column, read = [];
        const starts = new Int32Array(count);
        const numbers = (i) => {
          const c = Math.floor(i / chunk);
          if (read[c] === undefined) {
            read[c] = JSON.parse(v[c]);
            let at = 0;
            for (let f = c * chunk; f < Math.min(count, (c + 1) * chunk); f++) {
              starts[f] = at;
              for (let n = counts[f]; n > 0; n--) at += templates[read[c][at]][1].length;
            }
          }
          return read[c];
        };
        field(key, (i) => {
          const list = [], values = numbers(i);
          let at = starts[i];
          for (let n = counts[i]; n > 0; n--) {
            const [kind, parts] = templates[values[at++]];
            let text = parts[0];
            for (let j = 1; j < parts.length; j++) text += String(values[at++]) + parts[j];
            list.push([kind, text]);
          }
          return list;
        });
      } else if (column.kind === "raw") {
        field(key, (i) => v[i]);
      } else {
        throw new Error("frames packed as " + column.kind);
      }
    }
    const frames = [];
    for (let i = 0; i < count; i++) frames.push(new PackedFrame(i));
    return frames;
  }
  // The text of #more-frames: JSON, or (data-encoding="gzip+base64") packed frames compressed.
  async function moreFrames(more) {
    if (more.dataset.encoding !== "gzip+base64") return JSON.parse(more.textContent);
    const text = more.textContent.trim();
    const bytes = Uint8Array.fromBase64 ? Uint8Array.fromBase64(text) :
      Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return unpackFrames(JSON.parse(await new Response(stream).text()));
  }
  async function readMore() {
    const more = document.getElementById("more-frames");
    if (!more) return;
    const start = frames.findIndex((frame) => frame === undefined);
    let rest;
    try {
      rest = await moreFrames(more);
    } catch (error) {
      html.dataset.history = "failed";
      setWarning("This page could not read the match's later steps (" + error.message +
        "): it shows the first " + start + ".");
      return;
    }
    rest.forEach((frame, index) => { frames[start + index] = frame; });
    more.remove();
    if (drawing.extend) drawing.extend(frames, 0);
    drawStrip();
    draw(wanted === null ? current : wanted);
    html.dataset.history = "loaded";
  }
  if (data.total > 0 && data.total > data.frames.filter((f) => f !== undefined).length) {
    html.dataset.history = "loading";
    const later = () => setTimeout(readMore, 0);
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", later, {signal});
    else later();
  }

  // Links into a match: ?step=N opens at step N (a live match opens at its newest step);
  // ?slide=N then moves the slider to N as a user's drag does; ?play starts playing.
  const query = new URLSearchParams(window.location.search);
  slider.max = String(last);
  map.classList.add("instant");  // the first frame is placed, not animated in from a corner
  // A step past the frames read so far is drawn once they are read.
  const wanted = query.has("step") ? Number(query.get("step")) : null;
  draw(wanted !== null ? wanted : live ? last : 0);
  map.getBoundingClientRect();
  map.classList.remove("instant");
  if (query.has("slide")) {
    slider.value = query.get("slide");
    slider.dispatchEvent(new Event("input"));
  }
  if (query.has("play")) start();
  // Milliseconds from the start of navigation until the first step is drawn (bench/bench_viewer.py).
  html.dataset.readyMs = String(Math.round(performance.now()));
  html.dataset.ready = "1";
})();
