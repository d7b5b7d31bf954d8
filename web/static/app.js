// vulnkeeper UI: small enhancements over forms that work without JavaScript.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  // Copy buttons: data-copy names the element whose text goes to the clipboard.
  document.querySelectorAll("button[data-copy]").forEach(function (b) {
    b.hidden = false;
    b.addEventListener("click", function () {
      var el = document.getElementById(b.getAttribute("data-copy"));
      if (!el || !navigator.clipboard) { return; }
      navigator.clipboard.writeText(el.textContent.trim()).then(function () {
        b.textContent = "Copied";
        setTimeout(function () { b.textContent = "Copy"; }, 1500);
      }, function () { b.textContent = "Select and copy by hand"; });
    });
  });
  // Confirmations: a form with data-confirm asks before it is sent.
  document.querySelectorAll("form[data-confirm]").forEach(function (f) {
    f.addEventListener("submit", function (e) {
      if (!window.confirm(f.getAttribute("data-confirm"))) { e.preventDefault(); }
    });
  });
  // Filters: a changed select applies at once.
  document.querySelectorAll("form.filters select").forEach(function (s) {
    s.addEventListener("change", function () { s.form.requestSubmit(); });
  });
  // Bulk selection: a header checkbox toggles every row's.
  document.querySelectorAll("input[data-select-all]").forEach(function (all) {
    all.hidden = false;
    all.addEventListener("change", function () {
      document.querySelectorAll("input[name='" + all.getAttribute("data-select-all") + "']").forEach(function (c) {
        c.checked = all.checked;
      });
    });
  });
});
