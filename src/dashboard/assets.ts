// The dashboard's only stylesheet and script, served by the worker itself (no CDN, works
// offline) from /dashboard/assets/, which lets the CSP allow 'self' and nothing inline.
// The pages work without the script: it only adds copy buttons and confirmations.

export const DASHBOARD_CSS = `
:root{--bg:#f7f7f8;--card:#fff;--text:#1b1d22;--muted:#5b6170;--line:#d9dce3;--accent:#3347d6;--accent-text:#fff;
--danger:#b42318;--ok:#067647;--warn-bg:#fff7e0;--warn-line:#e2b33c;--focus:#c2410c;--bar:#3347d6;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#121316;--card:#1c1e23;--text:#eceef2;--muted:#a4aab6;--line:#343842;
--accent:#8c9bff;--accent-text:#0d0f1a;--danger:#ff8a80;--ok:#6ee7a8;--warn-bg:#2e2710;--warn-line:#9c7a16;--focus:#ffa94d;--bar:#8c9bff}}
*{box-sizing:border-box}
[hidden]{display:none!important}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--text)}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:var(--card);padding:.5rem 1rem;z-index:10}
.skip:focus{left:.5rem}
header.top{background:var(--card);border-bottom:1px solid var(--line)}
.bar{max-width:72rem;margin:0 auto;padding:.6rem 1rem;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.25rem}
.brand{font-weight:700;font-size:1.15rem;text-decoration:none;color:var(--text);margin-right:auto}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem}
nav a{display:inline-block;padding:.4rem .7rem;border-radius:.4rem;text-decoration:none;color:var(--text)}
nav a[aria-current=page]{background:var(--accent);color:var(--accent-text)}
.who{display:flex;align-items:center;gap:.5rem;font-size:.95rem;color:var(--muted)}
.who img{width:28px;height:28px;border-radius:50%}
main{max-width:72rem;margin:0 auto;padding:1.25rem 1rem 3rem}
h1{font-size:1.6rem;margin:.25rem 0 1rem}
h2{font-size:1.2rem;margin:1.5rem 0 .75rem}
.card>h2:first-child,.card>h1:first-child{margin-top:0}
.card{background:var(--card);border:1px solid var(--line);border-radius:.6rem;padding:1rem 1.25rem;margin:0 0 1rem}
.narrow{max-width:28rem;margin:2rem auto}
.grid{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr))}
.stat dt{color:var(--muted);font-size:.9rem}
.stat dd{margin:0;font-size:1.6rem;font-weight:700}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
.hint{display:block;font-weight:400;color:var(--muted);font-size:.9rem}
input,select,textarea{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--line);border-radius:.4rem;padding:.5rem .6rem;width:100%;max-width:100%}
textarea{min-height:5rem}
input[type=checkbox]{width:auto}
.check{display:flex;gap:.5rem;align-items:center;font-weight:400}
button,.button{font:inherit;font-weight:600;border:1px solid var(--accent);background:var(--accent);color:var(--accent-text);border-radius:.4rem;padding:.5rem 1rem;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:transparent;color:var(--accent)}
button.danger{background:transparent;border-color:var(--danger);color:var(--danger)}
button.link{background:none;border:none;color:var(--accent);padding:0;font-weight:400;text-decoration:underline}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;margin-top:1rem}
.error{color:var(--danger);font-weight:600}
.alert{border:1px solid var(--danger);border-left-width:6px;padding:.75rem 1rem;border-radius:.4rem;background:var(--card);margin:0 0 1rem}
.notice{border:1px solid var(--ok);border-left-width:6px;padding:.75rem 1rem;border-radius:.4rem;background:var(--card);margin:0 0 1rem}
.warning{background:var(--warn-bg);border:1px solid var(--warn-line);border-left-width:6px;padding:.75rem 1rem;border-radius:.4rem;margin:0 0 1rem}
.secret{display:flex;gap:.5rem;flex-wrap:wrap}
.secret input{font-family:ui-monospace,Menlo,Consolas,monospace;flex:1 1 20rem}
code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}
pre{background:var(--bg);border:1px solid var(--line);border-radius:.4rem;padding:.75rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
.table-wrap{overflow-x:auto;border:1px solid var(--line);border-radius:.5rem;background:var(--card)}
table{border-collapse:collapse;width:100%;font-size:.95rem}
caption{text-align:left;padding:.6rem .75rem;color:var(--muted)}
th,td{text-align:left;padding:.5rem .75rem;border-top:1px solid var(--line);vertical-align:top}
thead th{border-top:none;background:var(--bg);white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.muted{color:var(--muted)}
.ok{color:var(--ok)}.bad{color:var(--danger)}
.prompt{min-width:14rem;max-width:22rem;overflow-wrap:anywhere}
.prompt details{margin-top:.25rem}
.prompt-full{max-height:12rem;overflow:auto;white-space:pre-wrap}
.filters{display:grid;gap:0 1rem;grid-template-columns:repeat(auto-fit,minmax(10rem,1fr));align-items:end}
.pager{display:flex;gap:1rem;align-items:center;justify-content:space-between;flex-wrap:wrap;margin:.75rem 0}
.tabs{list-style:none;padding:0;margin:0 0 1rem;display:flex;flex-wrap:wrap;gap:.4rem}
.tabs a{display:inline-block;padding:.35rem .7rem;border:1px solid var(--line);border-radius:999px;text-decoration:none;color:var(--text);background:var(--card)}
.tabs a[aria-current=page]{border-color:var(--accent);background:var(--accent);color:var(--accent-text)}
.result img{max-width:100%;height:auto;border:1px solid var(--line);border-radius:.4rem;background:repeating-conic-gradient(#ccc 0 25%,#fff 0 50%) 0 0/16px 16px}
.chart{margin:0}
.chart svg{width:100%;height:auto;display:block}
.chart .axis{stroke:var(--line)}
.chart .bar-rect{fill:var(--bar)}
.chart text{fill:var(--muted);font-size:11px}
.empty{padding:1.5rem;text-align:center;color:var(--muted)}
.visually-hidden{position:absolute!important;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.oauth{display:grid;gap:.5rem;margin-top:1rem}
.oauth a{text-align:center}
@media (max-width:40rem){.chart text{font-size:22px}h1{font-size:1.35rem}.stat dd{font-size:1.35rem}.bar{padding:.5rem .75rem}main{padding:1rem .75rem 2rem}}
`;

export const DASHBOARD_JS = `
"use strict";
(function () {
  var live = document.getElementById("live");
  function say(text) { if (live) { live.textContent = ""; setTimeout(function () { live.textContent = text; }, 30); } }
  document.querySelectorAll("[data-copy]").forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () {
      var field = document.getElementById(button.getAttribute("data-copy"));
      if (!field) return;
      field.select();
      var done = function () { button.textContent = "Copied"; say("Copied to the clipboard."); };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(field.value).then(done, function () { document.execCommand("copy"); done(); });
      } else { document.execCommand("copy"); done(); }
    });
  });
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (!window.confirm(form.getAttribute("data-confirm"))) event.preventDefault();
    });
  });
  // A prompt's live character count. Over the limit the form is not sent (the API would refuse
  // it at no charge anyway); nothing is ever cut.
  document.querySelectorAll("textarea[data-maxchars]").forEach(function (area) {
    var max = Number(area.getAttribute("data-maxchars"));
    var count = document.getElementById(area.id + "-count");
    var format = function (n) { return n.toLocaleString("en"); };
    var update = function () {
      var over = area.value.length - max;
      if (count) {
        count.textContent = format(area.value.length) + " / " + format(max) + " characters" + (over > 0 ? ": " + format(over) + " too many" : "");
        count.className = over > 0 ? "hint error" : "hint";
      }
      if (over > 0) area.setAttribute("aria-invalid", "true"); else area.removeAttribute("aria-invalid");
    };
    area.addEventListener("input", update);
    update();
    if (area.form) area.form.addEventListener("submit", function (event) {
      if (area.value.length <= max) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      say("The prompt has " + format(area.value.length) + " characters; the limit is " + format(max) + ". Shorten it to run.");
      area.focus();
    });
  });
  // A chosen file over the upload limit is named with its size, and the form is not sent.
  document.querySelectorAll("input[type=file][data-maxbytes]").forEach(function (input) {
    var max = Number(input.getAttribute("data-maxbytes"));
    var note = document.getElementById(input.id + "-size");
    var hint = note ? note.textContent : "";
    var megabytes = function (n) { return (n / 1048576).toLocaleString("en", { maximumFractionDigits: 1 }) + " MB"; };
    var tooLarge = function () { var file = input.files && input.files[0]; return file && file.size > max ? file : null; };
    var update = function () {
      var file = tooLarge();
      if (note) {
        note.textContent = file ? "“" + file.name + "” is " + megabytes(file.size) + "; files can be at most " + megabytes(max) + ". Choose a smaller file." : hint;
        note.className = file ? "hint error" : "hint";
      }
      if (file) input.setAttribute("aria-invalid", "true"); else input.removeAttribute("aria-invalid");
    };
    input.addEventListener("change", update);
    update();
    if (input.form) input.form.addEventListener("submit", function (event) {
      if (!tooLarge()) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      update();
      say(note ? note.textContent : "The file is too large.");
      input.focus();
    });
  });
  // A form is sent once: a second press while the first is on its way (a double click) sends
  // nothing more. Coming Back to the page makes it usable again.
  document.querySelectorAll("form[data-busy]").forEach(function (form) {
    var button = form.querySelector("button[type=submit]");
    var label = button ? button.textContent : "";
    form.addEventListener("submit", function (event) {
      if (form.getAttribute("data-sent") === "true") { event.preventDefault(); return; }
      form.setAttribute("data-sent", "true");
      if (button) { button.setAttribute("aria-disabled", "true"); button.textContent = form.getAttribute("data-busy"); }
    });
    window.addEventListener("pageshow", function () {
      form.removeAttribute("data-sent");
      if (button) { button.removeAttribute("aria-disabled"); button.textContent = label; }
    });
  });
})();
`;
