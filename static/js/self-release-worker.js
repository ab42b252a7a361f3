/* A Web Worker searching one share of the counters (start, start + step, ...) of a proof of work. */
importScripts("self-release-solver.js");

self.onmessage = function (event) {
  "use strict";
  var task = event.data;
  var reported = 0;
  guardsvcSolver.solve(task.parameters, task.start, task.step, function (tried) {
    self.postMessage({ tried: tried - reported });
    reported = tried;
  }).then(function (solution) {
    self.postMessage({ solution: solution });
  }, function (error) {
    self.postMessage({ error: String(error) });
  });
};
