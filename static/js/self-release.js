/* "Buka blokir sendiri": compute the page's proof of work in the background, show how far it got,
   then send the form. The words come from the page's data- attributes (its language); without
   JavaScript, or without WebCrypto and workers, the page's own text points to the appeal form. */
(function () {
  "use strict";

  function start(form) {
    var status = document.getElementById("lepas-status");
    var bar = document.getElementById("lepas-kemajuan");
    var unsupported = document.getElementById("lepas-tidak-didukung");
    var challenge = JSON.parse(form.getAttribute("data-challenge"));
    var expected = parseInt(form.getAttribute("data-expected-attempts"), 10) || 1;
    if (!(window.crypto && window.crypto.subtle && window.Worker)) {
      unsupported.hidden = false;
      return;
    }
    var panel = document.getElementById("lepas-proses");
    panel.hidden = false;
    status.textContent = form.getAttribute("data-text-working");
    var count = Math.max(1, Math.min(navigator.hardwareConcurrency || 2, 4));
    var workers = [];
    var tried = 0;
    var began = Date.now();
    var workerUrl = form.getAttribute("data-worker");

    function stopAll() {
      workers.forEach(function (worker) { worker.terminate(); });
    }

    function fail() {
      stopAll();
      panel.hidden = true;
      unsupported.hidden = false;
    }

    function done(solution) {
      stopAll();
      bar.value = 100;
      status.textContent = form.getAttribute("data-text-done");
      var payload = { challenge: challenge,
                      solution: { counter: solution.counter, derivedKey: solution.derivedKey,
                                  time: Date.now() - began } };
      form.elements.altcha.value = btoa(JSON.stringify(payload));
      form.submit();
    }

    for (var i = 0; i < count; i += 1) {
      var worker = new Worker(workerUrl);
      worker.onmessage = function (event) {
        var message = event.data;
        if (message.tried) {
          tried += message.tried;
          /* The exact count is a secret of the challenge: the bar estimates, and waits at 95. */
          bar.value = Math.min(95, Math.round(100 * tried / expected));
        } else if (message.solution) {
          done(message.solution);
        } else {
          fail();
        }
      };
      worker.onerror = fail;
      worker.postMessage({ parameters: challenge.parameters, start: i, step: count });
      workers.push(worker);
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("lepas-sendiri");
    if (!form || !form.getAttribute("data-challenge")) {
      return;
    }
    if (form.getAttribute("data-autostart") !== "false") {
      start(form);
      return;
    }
    /* After a refusal the page holds a fresh challenge; the visitor starts it (never a loop). */
    var again = document.getElementById("lepas-ulang");
    again.hidden = false;
    document.getElementById("lepas-mulai").addEventListener("click", function () {
      again.hidden = true;
      start(form);
    });
  });
}());
