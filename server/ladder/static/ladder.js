/* The ladder's live view: the page arrives rendered; each "live" event replaces the rows of the
   matches being played and the counts (HTML the server built and escaped). */
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  arena.live("/live/events", {
    live(data) {
      document.getElementById("live-rows").innerHTML = data.rows;
      document.getElementById("live-counts").textContent = data.counts;
      const state = document.getElementById("ladder-state");
      state.replaceChildren(
        arena.el("span", { class: `state state-${data.ladder}` }, data.ladder), " ", data.state);
    },
  });
});
