/* The book's own script, added to every page by tools/sphinx_offline.py.
 *
 * Explorer frames: click (or tap, or Enter on the focused frame) to see the figure at its
 * full size, which then scrolls sideways inside its own box on a narrow screen; click again
 * to fit it to the width. On a 390 px phone a frame fitted to the width is too small to read.
 */
(function () {
  "use strict";
  function zoomable(img) {
    if (img.parentNode.classList.contains("ic-explorer-frame-box")) return;
    var box = document.createElement("div");
    box.className = "ic-explorer-frame-box";
    img.parentNode.insertBefore(box, img);
    box.appendChild(img);
    img.tabIndex = 0;
    img.title = "Click to show the figure at full size; click again to fit it to the page";
    function toggle() { box.classList.toggle("ic-zoomed"); }
    img.addEventListener("click", toggle);
    img.addEventListener("keydown", function (e) {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(); }
    });
  }
  function init() {
    Array.prototype.forEach.call(document.querySelectorAll(".ic-explorer img.ic-explorer-frame"), zoomable);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
