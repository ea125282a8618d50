// The script of a `gdlc view` page: it reads the match from the JSON in #match-data and draws
// the chosen step (the boards, the other facts, the moves) when a button, the slider, the
// timeline or an arrow key changes it. It needs nothing from the network.
"use strict";
(function () {
  const M = JSON.parse(document.getElementById("match-data").textContent);
  const last = M.steps.length - 1;
  let current = 0;

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function header() {
    document.getElementById("title").textContent = M.title;
    const kinds = { match: "match record", rtgdl: "real-time match record", trace: "reference trace" };
    const meta = document.getElementById("meta");
    meta.textContent = kinds[M.kind] + " · " + M.steps.length + " states";
    const roles = document.getElementById("roles");
    M.roles.forEach((role, i) => {
      const player = M.players[i];
      const goal = M.goals[i];
      const li = el("li", { class: "role" });
      li.appendChild(el("b", {}, role));
      if (player) li.appendChild(el("span", { class: "player" }, " " + player));
      if (goal !== undefined && goal !== null) li.appendChild(el("span", { class: "goal" }, " goal " + goal));
      roles.appendChild(li);
    });
    if (!M.states) {
      document.getElementById("notes").appendChild(
        el("p", { class: "warning" }, "This record holds no states: give the game (--game) to see them."));
    }
    for (const note of M.notes) document.getElementById("notes").appendChild(el("p", { class: "note" }, note));
  }

  function drawBoards(step) {
    const holder = document.getElementById("boards");
    holder.replaceChildren();
    const cells = M.boards.map((board) => {
      const size = Math.max(18, Math.min(80, Math.floor(440 / Math.max(board.columns.length, board.rows.length))));
      const wrap = el("figure", { class: "board-wrap" });
      const grid = el("div", { class: "board", "data-name": board.name });
      grid.style.gridTemplateColumns = "22px repeat(" + board.columns.length + ", " + size + "px)";
      grid.style.gridTemplateRows = "repeat(" + board.rows.length + ", " + size + "px) 20px";
      grid.style.fontSize = Math.round(size * 0.7) + "px";
      const cells = [];
      board.rows.forEach((row, r) => {
        grid.appendChild(el("div", { class: "label" }, row));
        cells.push(board.columns.map((column, c) => {
          const cell = el("div", { class: "cell " + ((r + c) % 2 ? "dark" : "light"), "data-row": row, "data-column": column });
          grid.appendChild(cell);
          return cell;
        }));
      });
      grid.appendChild(el("div", { class: "label" }));
      for (const column of board.columns) grid.appendChild(el("div", { class: "label" }, column));
      wrap.appendChild(grid);
      wrap.appendChild(el("figcaption", {}, board.name + (current > 0 ? " · outlined: changed by the last move" : "")));
      holder.appendChild(wrap);
      return cells;
    });
    // The cells whose value changed since the previous state are outlined: the last move.
    const before = new Map();
    if (current > 0) {
      for (const fact of M.steps[current - 1].state) {
        const place = M.places[fact];
        if (place) before.set(place.board + ":" + place.row + ":" + place.column, place.value);
      }
    }
    const now = new Map();
    const used = new Set();
    for (const fact of step.state) {
      const place = M.places[fact];
      if (!place) continue;
      const value = M.values[place.value];
      const cell = cells[place.board][place.row][place.column];
      cell.title = M.facts[fact];
      now.set(place.board + ":" + place.row + ":" + place.column, place.value);
      if (value.glyph === "") continue;
      used.add(place.value);
      cell.replaceChildren(piece(value));
    }
    if (current > 0) {
      for (const key of new Set([...before.keys(), ...now.keys()])) {
        if (before.get(key) === now.get(key)) continue;
        const [b, r, c] = key.split(":").map(Number);
        cells[b][r][c].classList.add("changed");
      }
    }
    drawLegend(used);
  }

  function piece(value) {
    return el("span", { class: value.outline ? "piece outline" : "piece", style: "color:" + value.colour }, value.glyph);
  }

  function drawLegend(used) {
    const legend = document.getElementById("legend");
    legend.replaceChildren();
    M.values.forEach((value, i) => {
      if (!used.has(i)) return;
      const item = el("li", {});
      item.appendChild(piece(value));
      item.appendChild(document.createTextNode(" " + value.text));
      legend.appendChild(item);
    });
  }

  function drawFacts(step) {
    const list = document.getElementById("facts");
    list.replaceChildren();
    step.state.forEach((fact, i) => {
      if (M.places[fact]) return;
      const lifetime = step.lifetimes[i];
      const text = M.facts[fact] + (lifetime && lifetime !== "infinity" ? "  (for " + lifetime + " s)" : "");
      list.appendChild(el("li", { class: "fact" }, text));
    });
    document.getElementById("facts-title").hidden = list.children.length === 0;
  }

  function drawMoves(step, index) {
    const box = document.getElementById("moves");
    box.replaceChildren();
    const rt = M.kind === "rtgdl";
    const title = rt ? "Moves at this event (t = " + step.label + " s)" : index === last ? "Final state" : "Joint move played in this state";
    box.appendChild(el("h2", {}, title));
    const table = el("table", { id: "joint" });
    if (step.joint.length === 0) table.hidden = true;
    M.roles.forEach((role, r) => {
      const tr = el("tr", {});
      tr.appendChild(el("th", {}, role));
      const mv = step.joint[r];
      tr.appendChild(el("td", { class: "move" }, mv === undefined ? "" : mv === null ? "—" : mv));
      const info = [];
      if (step.legal[r] !== undefined) info.push(step.legal[r] + " legal");
      if (step.reply_ms[r] !== undefined) info.push(step.reply_ms[r] + " ms");
      tr.appendChild(el("td", { class: "info" }, info.join(", ")));
      table.appendChild(tr);
    });
    box.appendChild(table);
    for (const s of step.substitutions) box.appendChild(el("p", { class: "substitution" }, s));
    if (step.expired.length) box.appendChild(el("p", { class: "expired" }, "expired: " + step.expired.join(" ")));
    if (step.percepts.length) {
      box.appendChild(el("h2", {}, "What each role saw"));
      const seen = el("table", { id: "percepts" });
      M.roles.forEach((role, r) => {
        const tr = el("tr", {});
        tr.appendChild(el("th", {}, role));
        tr.appendChild(el("td", {}, (step.percepts[r] || []).join(" ") || "nothing"));
        seen.appendChild(tr);
      });
      box.appendChild(seen);
    }
    if (index === last && M.goals.length) {
      const goals = M.roles.map((role, r) => role + " " + (M.goals[r] === null ? "—" : M.goals[r]));
      box.appendChild(el("p", { class: "goals" }, "Goals: " + goals.join(", ")));
    }
  }

  function drawTimeline() {
    const line = document.getElementById("timeline");
    if (M.kind !== "rtgdl") return;
    line.hidden = false;
    const end = Math.max(1e-9, ...M.steps.map((s) => s.time || 0));
    M.steps.forEach((step, i) => {
      const mark = el("button", { class: "event", "data-step": i, title: "t = " + step.label + " s" });
      mark.style.left = ((step.time || 0) / end) * 100 + "%";
      mark.addEventListener("click", () => show(i));
      line.appendChild(mark);
    });
  }

  function show(index) {
    current = Math.max(0, Math.min(last, index));
    const step = M.steps[current];
    document.getElementById("slider").value = current;
    const time = M.kind === "rtgdl" ? " · t = " + step.label + " s" : "";
    document.getElementById("step-label").textContent = "step " + current + " / " + last + time;
    document.body.dataset.step = current;
    drawBoards(step);
    drawFacts(step);
    drawMoves(step, current);
    for (const mark of document.querySelectorAll("#timeline .event")) {
      mark.classList.toggle("current", Number(mark.dataset.step) === current);
    }
  }

  function controls() {
    const slider = document.getElementById("slider");
    slider.max = last;
    slider.addEventListener("input", () => show(Number(slider.value)));
    document.getElementById("first").addEventListener("click", () => show(0));
    document.getElementById("prev").addEventListener("click", () => show(current - 1));
    document.getElementById("next").addEventListener("click", () => show(current + 1));
    document.getElementById("last").addEventListener("click", () => show(last));
    document.addEventListener("keydown", (e) => {
      if (e.key === "ArrowLeft") show(current - 1);
      if (e.key === "ArrowRight") show(current + 1);
    });
  }

  header();
  controls();
  drawTimeline();
  const asked = /step=(\d+)/.exec(location.hash);
  show(asked ? Number(asked[1]) : 0);
})();
