/* Passkeys (WebAuthn): optional. Every page works without this script (passwords, codes).
 *
 * A button marked data-passkey="create" or "get" asks its data-options URL for the
 * ceremony's options (POST, with the page's CSRF token), lets the browser create or
 * use a passkey, writes the answer as JSON into the "credential" field of the form
 * named by data-form, and submits that form. The server checks everything.
 * Buttons stay hidden where the browser has no WebAuthn; on a page opened at another
 * address than data-origin (where the passkeys live) the way there is shown instead.
 */
(function () {
  "use strict";

  function toBytes(text) {
    var base64 = text.replace(/-/g, "+").replace(/_/g, "/");
    while (base64.length % 4) { base64 += "="; }
    var binary = atob(base64);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i += 1) { bytes[i] = binary.charCodeAt(i); }
    return bytes.buffer;
  }

  function toText(buffer) {
    if (!buffer) { return null; }
    var bytes = new Uint8Array(buffer);
    var binary = "";
    for (var i = 0; i < bytes.length; i += 1) { binary += String.fromCharCode(bytes[i]); }
    return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function descriptors(list) {
    return (list || []).map(function (item) {
      return { type: item.type, id: toBytes(item.id), transports: item.transports };
    });
  }

  function creationOptions(options) {
    options.challenge = toBytes(options.challenge);
    options.user.id = toBytes(options.user.id);
    options.excludeCredentials = descriptors(options.excludeCredentials);
    return { publicKey: options };
  }

  function requestOptions(options) {
    options.challenge = toBytes(options.challenge);
    options.allowCredentials = descriptors(options.allowCredentials);
    return { publicKey: options };
  }

  function answer(credential) {
    var response = credential.response;
    var json = {
      id: credential.id,
      rawId: toText(credential.rawId),
      type: credential.type,
      authenticatorAttachment: credential.authenticatorAttachment || null,
      clientExtensionResults: credential.getClientExtensionResults ? credential.getClientExtensionResults() : {},
      response: { clientDataJSON: toText(response.clientDataJSON) }
    };
    if (response.attestationObject) {
      json.response.attestationObject = toText(response.attestationObject);
      json.response.transports = response.getTransports ? response.getTransports() : [];
    } else {
      json.response.authenticatorData = toText(response.authenticatorData);
      json.response.signature = toText(response.signature);
      json.response.userHandle = toText(response.userHandle);
    }
    return JSON.stringify(json);
  }

  function csrfToken() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.getAttribute("content") : "";
  }

  function fetchOptions(url) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Accept": "application/json", "X-CSRFToken": csrfToken() }
    }).then(function (reply) {
      var type = reply.headers.get("Content-Type") || "";
      if (reply.redirected || !reply.ok || type.indexOf("application/json") !== 0) {
        // Re-authentication needed, or the half-finished sign-in expired: follow the page there.
        if (reply.redirected) { window.location.assign(reply.url); }
        var refused = new Error("options refused");
        refused.name = "OptionsRefused";
        throw refused;
      }
      return reply.json();
    });
  }

  // The browser's refusal, in words that do not blame the person where the cause is elsewhere.
  function failureAttribute(error, create) {
    var name = error && error.name;
    if (name === "SecurityError") { return "data-failed-address"; }
    if (name === "InvalidStateError" && create) { return "data-failed-exists"; }
    if (name === "OptionsRefused" || name === "TypeError") { return "data-failed-server"; }
    return "data-failed";
  }

  // Passkeys belong to the address the service names (its BASE_URL): elsewhere, point there instead.
  function openedElsewhere(button) {
    var expected = button.getAttribute("data-origin");
    if (!expected || expected === window.location.origin) { return false; }
    var note = document.getElementById(button.getAttribute("data-elsewhere"));
    if (note) {
      var link = note.querySelector("[data-passkey-elsewhere-link]");
      if (link) {
        link.href = expected + window.location.pathname + window.location.search + window.location.hash;
      }
      note.hidden = false;
    }
    return true;
  }

  function setUp(button) {
    var form = document.getElementById(button.getAttribute("data-form"));
    var status = document.getElementById(button.getAttribute("data-status"));
    if (!form || !form.elements.credential) { return; }
    if (openedElsewhere(button)) { return; }
    var create = button.getAttribute("data-passkey") === "create";
    button.hidden = false;
    function say(attribute) {
      if (!status) { return; }
      // The live region is shown only once there is something to say (then it is filled, so it is announced).
      status.hidden = false;
      window.setTimeout(function () { status.textContent = button.getAttribute(attribute) || ""; }, 50);
    }
    button.addEventListener("click", function () {
      button.disabled = true;
      say("data-waiting");
      fetchOptions(button.getAttribute("data-options")).then(function (options) {
        return create ? navigator.credentials.create(creationOptions(options))
                      : navigator.credentials.get(requestOptions(options));
      }).then(function (credential) {
        form.elements.credential.value = answer(credential);
        form.submit();
      }).catch(function (error) {
        button.disabled = false;
        say(failureAttribute(error, create));
      });
    });
  }

  function start() {
    if (!window.PublicKeyCredential || !navigator.credentials || !window.fetch) { return; }
    Array.prototype.forEach.call(document.querySelectorAll("[data-passkey]"), setUp);
    Array.prototype.forEach.call(document.querySelectorAll("[data-passkey-without-script]"), function (note) {
      note.hidden = true;
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-passkey-with-script]"), function (note) {
      note.hidden = false;
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
}());
