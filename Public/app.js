/* Progressive enhancement for the code pages; every page works without it.
   - [data-copy]: a hidden button is shown; a click copies its value, then says so in the
     element [data-copy-status] (texts come from the template: data-copied, data-copy-failed).
   - [data-auto-open]: on a phone, opens the app's link once per tab when the page loads
     (the template decides where: the success page its Open button's target, the /redeem landing
     the app's scheme; a refresh or Back does not try again, so it never loops). A web link is
     followed only on this page's own origin (the universal link of a well-configured base_url):
     a link elsewhere could leave the buyer on a page that does not load, and the code is here. */
(function () {
  "use strict";

  function say(button, text) {
    var status = document.querySelector("[data-copy-status]");
    if (status) { status.textContent = text || ""; }
  }

  function selectCode(button) {
    var target = document.getElementById(button.getAttribute("aria-controls") || "");
    var selection = window.getSelection ? window.getSelection() : null;
    if (!target || !selection) { return false; }
    var range = document.createRange();
    range.selectNodeContents(target);
    selection.removeAllRanges();
    selection.addRange(range);
    return true;
  }

  function legacyCopy(button) {
    try {
      return selectCode(button) && document.execCommand("copy");
    } catch (error) {
      return false;
    }
  }

  function copy(button) {
    var value = button.getAttribute("data-copy") || "";
    var done = function () { say(button, button.getAttribute("data-copied")); };
    var failed = function () {
      if (legacyCopy(button)) { done(); return; }
      selectCode(button);
      say(button, button.getAttribute("data-copy-failed"));
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(value).then(done, failed);
    } else {
      failed();
    }
  }

  function setUpCopy() {
    var buttons = document.querySelectorAll("[data-copy]");
    for (var i = 0; i < buttons.length; i++) {
      var button = buttons[i];
      button.hidden = false;
      button.addEventListener("click", function (event) { copy(event.currentTarget); });
    }
    var fallbacks = document.querySelectorAll("[data-copy-fallback]");
    for (var j = 0; j < fallbacks.length; j++) { fallbacks[j].hidden = true; }
  }

  function sameOrigin(url) {
    var anchor = document.createElement("a");
    anchor.href = url;
    return anchor.protocol === window.location.protocol && anchor.host === window.location.host;
  }

  function autoOpen() {
    var link = document.querySelector("[data-auto-open]");
    if (!link) { return; }
    var target = link.getAttribute("data-auto-open");
    if (!target) { return; }
    if (/^https?:/i.test(target) && !sameOrigin(target)) { return; }
    var key = "tollgate-opened:" + target;
    try {
      if (window.sessionStorage.getItem(key)) { return; }
      window.sessionStorage.setItem(key, "1");
    } catch (error) {
      return; /* no storage (private mode, blocked): do not risk a loop, the button is there */
    }
    window.location.href = target;
  }

  function start() {
    try { setUpCopy(); } catch (error) { /* the code stays selectable */ }
    try { autoOpen(); } catch (error) { /* the button stays */ }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
