/* Small progressive helpers; every page works without them.
   The words they show come from the page (data- attributes the templates fill in the
   page's language), so this file holds no language of its own. */
(function () {
  "use strict";

  /* The counter's text from the field's data-count-<kind>-one / -other ("{n}": the number).
     "-one" is the form for exactly 1 (as Indonesian and English have it). */
  function countText(field, kind, n) {
    var one = field.getAttribute("data-count-" + kind + "-one");
    var other = field.getAttribute("data-count-" + kind + "-other") || one || "{n}";
    return (n === 1 && one ? one : other).split("{n}").join(String(n));
  }

  function setupCounter(field) {
    var max = parseInt(field.getAttribute("data-maxlength"), 10);
    if (!max) { return; }
    var counter = document.createElement("p");
    counter.className = "char-count";
    counter.id = field.id + "-count";
    counter.setAttribute("aria-live", "polite");
    field.insertAdjacentElement("afterend", counter);
    var described = field.getAttribute("aria-describedby");
    field.setAttribute("aria-describedby", (described ? described + " " : "") + counter.id);
    function update() {
      var left = max - field.value.length;
      counter.textContent = left >= 0 ? countText(field, "left", left) : countText(field, "over", -left);
      counter.classList.toggle("over", left < 0);
    }
    field.addEventListener("input", update);
    update();
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.className = "visually-hidden";
      document.body.appendChild(area);
      area.select();
      var ok = document.execCommand && document.execCommand("copy");
      document.body.removeChild(area);
      if (ok) { resolve(); } else { reject(new Error("copy failed")); }
    });
  }

  function setupCopy(button) {
    var target = document.getElementById(button.getAttribute("data-copy-target"));
    if (!target) { return; }
    var status = button.parentNode.querySelector(".copy-status");
    button.hidden = false;
    button.addEventListener("click", function () {
      copyText(target.textContent.trim()).then(function () {
        if (status) { status.textContent = button.getAttribute("data-copied") || ""; }
      }, function () {
        if (status) { status.textContent = button.getAttribute("data-copy-failed") || ""; }
      });
    });
  }

  function focusErrorSummary() {
    var summary = document.getElementById("ringkasan-kesalahan");
    if (summary) { summary.focus(); }
  }

  /* A reply template fills the message field at once (without script: the "Pakai templat" button reloads). */
  function setupTemplatePicker(select) {
    var field = document.getElementById(select.getAttribute("data-fills"));
    if (!field) { return; }
    select.addEventListener("change", function () {
      var chosen = select.options[select.selectedIndex];
      field.value = chosen.getAttribute("data-body") || "";
      field.dispatchEvent(new Event("input"));
      field.focus();
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("select[data-fills]"), setupTemplatePicker);
    Array.prototype.forEach.call(document.querySelectorAll("[data-maxlength]"), setupCounter);
    Array.prototype.forEach.call(document.querySelectorAll("[data-copy-target]"), setupCopy);
    focusErrorSummary();
  });
})();
