/* Draws the book's interactive charts (figure.masrl-interactive) with vega-embed, from the
   specification each figure carries, so that a reader can hover a mark for its details.
   The static SVG stays in the page and is hidden only once the live chart is drawn: without
   JavaScript, or if drawing fails, the reader sees the same chart without tooltips. */
(function () {
  "use strict";

  function draw(figure) {
    var source = figure.querySelector("script.masrl-spec");
    var target = figure.querySelector(".masrl-live");
    if (!source || !target) {
      return;
    }
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
    document.querySelectorAll("figure.masrl-interactive").forEach(draw);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
