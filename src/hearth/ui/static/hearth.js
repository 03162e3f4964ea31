// The review page works without this file: it only counts the ticked boxes
// ("N selected") beside the batch actions, as a person ticks them.
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
