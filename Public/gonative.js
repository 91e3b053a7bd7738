// The GoNative (Median) store and account pages.
// - gonative_info_ready(info): the store page shows what the store returned
//   (info.inAppPurchases.products[]: localizedTitle, localizedDescription, priceFormatted) on each
//   product's button; a product the store did not return is shown as unavailable and its button
//   no longer buys. When it says canMakePurchases: false, the purchase buttons are hidden and a
//   sentence says why.
// - gonative_iap_purchases(data): an app that verifies on the device reports its purchases; the
//   page reloads once (per set of purchases, per tab) after a moment, so it shows the state the
//   server verified from the receipt (the server stays the source of truth; nothing here grants).
// Without the app, or without JavaScript, the pages are plain lists.
(function () {
  "use strict";

  function each(selector, id, action) {
    document.querySelectorAll(selector).forEach(function (element) {
      var attribute = selector.slice(1, selector.indexOf("]"));
      if (element.getAttribute(attribute) === id) action(element);
    });
  }

  function makeUnavailable(button) {
    var id = button.getAttribute("data-product-id");
    button.removeAttribute("href");
    button.setAttribute("aria-disabled", "true");
    button.classList.add("unavailable");
    each("[data-unavailable-for]", id, function (note) { note.hidden = false; });
  }

  function showStore(product, button) {
    var id = button.getAttribute("data-product-id");
    if (product.localizedTitle) {
      each("[data-title-for]", id, function (title) { title.textContent = product.localizedTitle; });
    }
    if (product.priceFormatted) {
      each("[data-price-for]", id, function (slot) { slot.textContent = " · " + product.priceFormatted; });
    }
    if (product.localizedDescription) {
      each("[data-description-for]", id, function (text) {
        text.textContent = product.localizedDescription;
        text.hidden = false;
      });
    }
  }

  function showProducts(info) {
    var purchases = info && info.inAppPurchases;
    if (!purchases) return;
    var returned = {};
    var listed = Array.isArray(purchases.products);
    (purchases.products || []).forEach(function (product) {
      var id = product && (product.productID || product.productId || product.productIdentifier);
      if (id) returned[id] = product;
    });
    document.querySelectorAll("[data-product-id]").forEach(function (button) {
      var product = returned[button.getAttribute("data-product-id")];
      if (product) {
        showStore(product, button);
      } else if (listed) {
        makeUnavailable(button);
      }
    });
    if (purchases.canMakePurchases === false) {
      document.querySelectorAll("[data-product-id]").forEach(function (button) {
        button.parentNode.hidden = true;
      });
      var note = document.getElementById("cannot-buy");
      if (note) note.hidden = false;
    }
  }

  function refreshAfterPurchases(data) {
    var key;
    try {
      key = "tollgate-purchases:" + JSON.stringify(data === undefined ? null : data).slice(0, 2000);
      if (window.sessionStorage.getItem(key)) return;
      window.sessionStorage.setItem(key, "1");
    } catch (error) {
      return; /* no storage: never risk a reload loop; the next visit shows the state */
    }
    window.setTimeout(function () { window.location.reload(); }, 1500);
  }

  window.gonative_info_ready = showProducts;
  window.median_info_ready = showProducts;
  window.gonative_iap_purchases = refreshAfterPurchases;
  window.median_iap_purchases = refreshAfterPurchases;
})();
