// The GoNative (Median) store page: when the app calls gonative_info_ready(info), the store's
// localized prices (info.inAppPurchases.products[].priceFormatted) are shown next to each
// product's button; when it says canMakePurchases: false, the purchase buttons are hidden and a
// sentence says why. Without the app, or without JavaScript, the page is a plain list.
(function () {
  "use strict";
  function showPrices(info) {
    var purchases = info && info.inAppPurchases;
    var products = (purchases && purchases.products) || [];
    if (purchases && purchases.canMakePurchases === false) {
      document.querySelectorAll("[data-product-id]").forEach(function (button) {
        button.parentNode.hidden = true;
      });
      var note = document.getElementById("cannot-buy");
      if (note) note.hidden = false;
    }
    products.forEach(function (product) {
      var id = product.productID || product.productId;
      if (!id || !product.priceFormatted) return;
      document.querySelectorAll("[data-price-for]").forEach(function (slot) {
        if (slot.getAttribute("data-price-for") === id) slot.textContent = " · " + product.priceFormatted;
      });
    });
  }
  window.gonative_info_ready = showPrices;
  window.median_info_ready = showPrices;
})();
