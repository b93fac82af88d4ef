/* The search page opened from disk (file://): a browser refuses to fetch the result pages
   Sphinx reads its snippets from, so results are listed without snippets and one line says how
   to get them (book/_ext/quiet_pages.py). Served over HTTP, nothing changes. */
(function () {
  "use strict";
  if (window.location.protocol !== "file:" || typeof DOCUMENTATION_OPTIONS === "undefined") {
    return;
  }
  DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;

  function addNote() {
    var results = document.getElementById("search-results");
    if (!results || document.querySelector(".masrl-search-note")) {
      return;
    }
    var note = document.createElement("p");
    note.className = "masrl-search-note";
    note.appendChild(document.createTextNode(
      "Opened from disk, results come without snippets; for snippets, run "));
    var command = document.createElement("code");
    command.textContent = "python -m http.server";
    note.appendChild(command);
    note.appendChild(document.createTextNode(" in _build/html and open localhost:8000."));
    results.parentNode.insertBefore(note, results);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", addNote);
  } else {
    addNote();
  }
})();
