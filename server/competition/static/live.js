/* The live view of one running match: the replay viewer (replay/viewer/viewer.js, inlined by
   the page as window.dungeonViewer) run again on a fresh copy of the page, at the newest step,
   each time the server sends the match as played so far ("frames"), and a last time with the
   whole match ("over"). The viewer drops the listeners and timer of its previous run itself. */
"use strict";
(function () {
  const root = document.documentElement;
  const pristine = document.body.innerHTML;
  const viewer = window.dungeonViewer;
  // The viewer says "replay" and, on a log that has not ended, "no result": while the match is
  // played this page says "live" and that the result is still to come.
  function mark(over) {
    const brand = document.querySelector(".brand .dim");
    if (brand) brand.textContent = over ? "replay" : "live";
    const result = document.getElementById("result");
    if (result && !over) result.textContent = "live: the match is being played, no result yet";
  }
  function show(data, over) {
    document.body.innerHTML = pristine;
    document.getElementById("match-data").textContent = JSON.stringify(data);
    const last = Math.max(0, data.frames.length - 1);
    history.replaceState(null, "", location.pathname + "?step=" + last);
    viewer();
    mark(over);
    root.dataset.live = over ? "over" : "running";
    root.dataset.frames = String(data.frames.length);
    root.dataset.redraws = String(Number(root.dataset.redraws || 0) + 1);
  }
  history.replaceState(null, "", location.pathname + "?step=999999");
  viewer();
  mark(false);
  root.dataset.live = "running";
  const source = new EventSource(location.pathname + "/events");
  source.addEventListener("frames", (event) => show(JSON.parse(event.data), false));
  source.addEventListener("over", (event) => {
    source.close();
    show(JSON.parse(event.data), true);
  });
})();
