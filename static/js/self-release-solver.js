/* Solving an ALTCHA proof of work (PoW v2, PBKDF2) with WebCrypto: the counter whose key, derived
   from the challenge's nonce and that counter (big-endian, 32 bits) with its salt and cost, starts
   with the challenge's key prefix. Shared by the worker (self-release-worker.js) and, for the
   measurements in bench/, a page itself. No language, no page: only the arithmetic. */
var guardsvcSolver = (function () {
  "use strict";

  var HASHES = { "PBKDF2/SHA-384": "SHA-384", "PBKDF2/SHA-512": "SHA-512" };

  function hexToBytes(hex) {
    var bytes = new Uint8Array(hex.length / 2);
    for (var i = 0; i < bytes.length; i += 1) {
      bytes[i] = parseInt(hex.substr(i * 2, 2), 16);
    }
    return bytes;
  }

  function bytesToHex(bytes) {
    var out = "";
    for (var i = 0; i < bytes.length; i += 1) {
      out += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
    }
    return out;
  }

  /* Try counters start, start + step, ... until one matches; report(tried) now and then.
     Resolves {counter, derivedKey}, or null past the 32-bit counter space. */
  async function solve(parameters, start, step, report) {
    var subtle = self.crypto.subtle;
    var nonce = hexToBytes(parameters.nonce);
    var salt = hexToBytes(parameters.salt);
    var prefix = String(parameters.keyPrefix).toLowerCase();
    var password = new Uint8Array(nonce.length + 4);
    password.set(nonce);
    var view = new DataView(password.buffer);
    var derive = { name: "PBKDF2", hash: HASHES[parameters.algorithm] || "SHA-256", salt: salt,
                   iterations: parameters.cost };
    var bits = (parameters.keyLength || 32) * 8;
    var tried = 0;
    for (var counter = start; counter <= 0xFFFFFFFF; counter += step) {
      view.setUint32(nonce.length, counter, false);
      var key = await subtle.importKey("raw", password, "PBKDF2", false, ["deriveBits"]);
      var hex = bytesToHex(new Uint8Array(await subtle.deriveBits(derive, key, bits)));
      tried += 1;
      if (hex.indexOf(prefix) === 0) {
        return { counter: counter, derivedKey: hex };
      }
      if (report && tried % 25 === 0) {
        report(tried);
      }
    }
    return null;
  }

  return { solve: solve };
}());
