// A result page's standing among the site's results of its SoC and tool versions: the SoC's
// standing file (assets/standing/SOC.js) calls this with every result's lines, by id.
window.TRUEBENCH_STANDING = function (m) {
  var box = document.getElementById("tb-standing");
  if (!box) return;
  var lines = m[box.getAttribute("data-id")];
  var at = box.querySelector(".muted");
  if (!lines || !lines.length) {
    at.textContent = "no other result of the same SoC and tool versions to rank it among";
    return;
  }
  var ul = document.createElement("ul");
  lines.forEach(function (t) {
    var li = document.createElement("li");
    li.textContent = t;
    ul.appendChild(li);
  });
  box.replaceChild(ul, at);
};
