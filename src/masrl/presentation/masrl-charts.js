/* Draws the book's interactive charts (figure.masrl-interactive) with vega-embed, from the
   specification each figure carries, so that a reader can hover a mark for its details.
   Each figure carries two: its wide layout and its narrow one (masrl.presentation.
   chart_layouts); the one drawn fits the figure's width (under data-narrow-below px, the
   narrow one), and the chart is drawn again when the width crosses that line. The static SVGs
   stay in the page and are hidden only once the live chart is drawn: without JavaScript, or if
   drawing fails, the reader sees the same chart without tooltips. */
(function () {
  "use strict";

  function layout(figure) {
    var below = parseFloat(figure.getAttribute("data-narrow-below") || "0");
    var narrow = figure.querySelector("script.masrl-spec-narrow");
    return narrow && figure.clientWidth < below ? "narrow" : "wide";
  }

  function draw(figure) {
    var chosen = layout(figure);
    var source = figure.querySelector(
      chosen === "narrow" ? "script.masrl-spec-narrow" : "script.masrl-spec");
    var target = figure.querySelector(".masrl-live");
    if (!source || !target || figure.getAttribute("data-drawn") === chosen) {
      return;
    }
    figure.setAttribute("data-drawn", chosen);
    var spec = JSON.parse(source.textContent);
    window.vegaEmbed(target, spec, {
      mode: "vega-lite",
      renderer: "svg",
      actions: false,
      tooltip: { theme: "light" }
    }).then(function () {
      figure.classList.add("masrl-live-ready");
    }).catch(function (error) {
      target.remove();
      if (window.console) {
        window.console.warn("masrl: interactive chart not drawn, the static one stays", error);
      }
    });
  }

  function drawAll() {
    if (typeof window.vegaEmbed !== "function") {
      return;
    }
    var figures = document.querySelectorAll("figure.masrl-interactive");
    figures.forEach(draw);
    if (typeof window.ResizeObserver === "function") {
      var watcher = new window.ResizeObserver(function (entries) {
        entries.forEach(function (entry) { draw(entry.target); });
      });
      figures.forEach(function (figure) { watcher.observe(figure); });
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
