/* Tables that fit, or say they scroll (book/_ext/fitting.py). A table wider than its column
   scrolls inside its own box. On a phone (a box under STACK_BELOW px), a table of the book
   (table.masrl-table, whose cells carry their column's name) is shown row by row instead
   (class masrl-stacked; see masrl.css) and no longer scrolls. Any other table still too wide
   gets its box marked (class masrl-scrolls, with masrl-more-left / masrl-more-right while
   columns are hidden on that side, which the stylesheet draws as a shadow) and one visible
   line before it saying that it scrolls sideways. It looks again when the window or the table
   changes size. Without JavaScript the table still scrolls; only the cue is missing. */
(function () {
  "use strict";

  var CUE = "masrl-scroll-cue";
  var STACK_BELOW = 600;  // px of a table's box under which a wide book table goes row by row

  function scroller(table) {
    for (var up = table.parentElement; up && !up.matches("article"); up = up.parentElement) {
      var overflow = window.getComputedStyle(up).overflowX;
      if (overflow === "auto" || overflow === "scroll") {
        return up;
      }
    }
    return null;
  }

  function anchor(box) {
    return box.closest(".dt-scroll") || box;  // a DataTables table: its head and body together
  }

  function cueOf(box) {
    var before = anchor(box).previousElementSibling;
    return before && before.classList.contains(CUE) ? before : null;
  }

  function stack(box) {
    var table = box.querySelector(":scope > table.masrl-table");
    if (!table || box.clientWidth === 0) {
      return;
    }
    if (box.clientWidth >= STACK_BELOW) {
      table.classList.remove("masrl-stacked");
    } else if (box.scrollWidth > box.clientWidth + 1) {
      table.classList.add("masrl-stacked");
    }
  }

  function update(box) {
    stack(box);
    var scrolls = box.scrollWidth > box.clientWidth + 1;
    var cue = cueOf(box);
    box.classList.toggle("masrl-scrolls", scrolls);
    box.style.setProperty("--masrl-box-width", box.clientWidth + "px");
    box.classList.toggle("masrl-more-left", scrolls && box.scrollLeft > 1);
    box.classList.toggle("masrl-more-right",
                         scrolls && box.scrollLeft + box.clientWidth < box.scrollWidth - 1);
    if (scrolls && !cue) {
      cue = document.createElement("p");
      cue.className = CUE;
      cue.textContent = "This table is wider than the page: scroll it sideways for every column.";
      anchor(box).parentNode.insertBefore(cue, anchor(box));
    }
    if (cue) {
      cue.hidden = !scrolls;
    }
  }

  var boxes = [];
  var watcher = typeof window.ResizeObserver === "function"
    ? new window.ResizeObserver(function () { boxes.forEach(update); }) : null;

  function scan() {
    document.querySelectorAll("article.bd-article table").forEach(function (table) {
      var box = scroller(table);
      if (!box || boxes.indexOf(box) >= 0) {
        return;
      }
      boxes.push(box);
      box.addEventListener("scroll", function () { update(box); }, { passive: true });
      if (watcher) {
        watcher.observe(box);
        watcher.observe(table);
      }
    });
    boxes.forEach(update);
  }

  function start() {
    scan();
    // tables drawn by a script after the page loaded (the pool explorer) are found too
    var article = document.querySelector("article.bd-article");
    if (article && typeof window.MutationObserver === "function") {
      var pending = null;
      new window.MutationObserver(function () {
        if (pending === null) {
          pending = window.setTimeout(function () { pending = null; scan(); }, 100);
        }
      }).observe(article, { childList: true, subtree: true });
    }
    window.addEventListener("load", scan);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
