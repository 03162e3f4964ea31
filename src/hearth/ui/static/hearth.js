// The review page works without this file: it counts the ticked boxes
// ("N selected") beside the batch actions, as a person ticks them, and takes
// a browser that is logged in back to its session's pages (below).
(function () {
  var out = document.getElementById("n-selected");
  if (!out) return;
  var boxes = document.querySelectorAll("input[type=checkbox][form=batch][name=keys]");
  function count() {
    var n = 0;
    boxes.forEach(function (b) { if (b.checked) n += 1; });
    out.textContent = n + " selected";
  }
  boxes.forEach(function (b) { b.addEventListener("change", count); });
  count();
})();

// A logged-in browser's pages live at its session's secret place
// (/ui/s/<place>/), which is also its cookie's path, so that no server on
// another port of this host is ever sent the cookie. This origin's own
// storage (kept apart by port, unlike cookies) remembers the place, so that
// /ui/ opened again goes there rather than to the login form; a place that no
// longer opens (logged out, the server restarted) is forgotten when the server
// says so.
// Nothing here is a credential: without the cookie a place is the login form.
(function () {
  try {
    var here = location.pathname.match(/^\/ui\/s\/[A-Za-z0-9_-]+/);
    var out = document.querySelector("form[action$='/logout']");
    if (here && out) {
      localStorage.setItem("hearth.place", here[0]);
      out.addEventListener("submit", function () { localStorage.removeItem("hearth.place"); });
      return;
    }
    // The server sends a place that no longer opens to the login form with
    // ?gone: forget it. Only a page's redirect (it names the page: ?next=) goes
    // back, not the form opened on purpose (to log in with another token).
    var asked = new URLSearchParams(location.search);
    if (asked.has("gone")) { localStorage.removeItem("hearth.place"); return; }
    var next = document.querySelector("form[action='/ui/login'] input[name=next]");
    var place = localStorage.getItem("hearth.place");
    if (!next || !place || !asked.has("next") || document.querySelector("[role=alert]")) return;
    location.replace(place + next.value.slice(3) + location.hash);
  } catch (e) { /* no storage: the login form stays */ }
})();
