/** The page's one style sheet (its hash is in the page's Content-Security-Policy): system fonts only. */
export const PAGE_STYLE = `
:root {
  color-scheme: light dark;
  --text: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --page: #ffffff; --side: #f6f8fa;
  --accent: #0969da; --code: #eff2f5;
  --get: #0969da; --post: #1a7f37; --patch: #9a6700; --put: #8250df; --delete: #cf222e; --head: #59636e;
  --ok: #1a7f37; --redirect: #8250df; --client: #9a6700; --server: #cf222e;
  --sans: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  --mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
}
@media (prefers-color-scheme: dark) {
  :root {
    --text: #e6edf3; --muted: #9198a1; --line: #3d444d; --soft: #151b23; --page: #0d1117; --side: #010409;
    --accent: #4493f8; --code: #1f242c;
    --get: #4493f8; --post: #3fb950; --patch: #d29922; --put: #ab7df8; --delete: #f85149; --head: #9198a1;
    --ok: #3fb950; --redirect: #ab7df8; --client: #d29922; --server: #f85149;
  }
}
* { box-sizing: border-box; }
html { scroll-padding-top: 1rem; }
body { margin: 0; font: 15px/1.6 var(--sans); color: var(--text); background: var(--page); display: grid; grid-template-columns: 19rem minmax(0, 1fr); }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
code, pre, input, textarea, select { font-family: var(--mono); font-size: 13px; }
code { background: var(--code); border-radius: 4px; padding: 0.1em 0.35em; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 0.75rem 1rem; overflow: auto; line-height: 1.45; }
pre code { background: none; padding: 0; }
nav { position: sticky; top: 0; height: 100vh; overflow-y: auto; background: var(--side); border-right: 1px solid var(--line); padding: 1.25rem 1rem 2rem; }
nav .brand { font-size: 1.15rem; font-weight: 700; margin: 0; }
nav .version { color: var(--muted); font-size: 0.85rem; margin: 0 0 1rem; }
nav h2 { font-size: 0.75rem; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted); margin: 1.25rem 0 0.4rem; }
nav ul { list-style: none; margin: 0; padding: 0; }
nav li a { display: flex; gap: 0.5rem; align-items: center; padding: 0.2rem 0.4rem; border-radius: 6px; color: var(--text); font-size: 0.85rem; }
nav li a:hover { background: var(--code); text-decoration: none; }
nav li a .path { font-family: var(--mono); font-size: 12px; overflow-wrap: anywhere; }
#credential-box { background: var(--page); border: 1px solid var(--line); border-radius: 8px; padding: 0.6rem 0.7rem; }
#credential-box label { display: block; font-size: 0.8rem; font-weight: 600; margin-bottom: 0.3rem; }
#credential-box p { margin: 0.35rem 0 0; font-size: 0.75rem; color: var(--muted); line-height: 1.4; }
main { padding: 2rem 3rem 4rem; max-width: 68rem; }
main > header h1 { font-size: 2rem; margin: 0 0 0.25rem; }
main > header .lead { color: var(--muted); font-size: 1.1rem; margin-top: 0; }
h2.tag { font-size: 1.4rem; margin: 3rem 0 0.25rem; padding-bottom: 0.3rem; border-bottom: 1px solid var(--line); text-transform: capitalize; }
section.operation, section.schema { border: 1px solid var(--line); border-radius: 10px; padding: 0.25rem 1.5rem 1rem; margin: 1.25rem 0; background: var(--page); }
section.operation h3 { font-size: 1.1rem; margin: 1rem 0 0.25rem; }
section.operation h3 a { color: var(--text); }
section.operation .summary { font-size: 1.05rem; font-weight: 600; margin: 0 0 0.5rem; }
h4 { font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.05em; color: var(--muted); margin: 1.4rem 0 0.5rem; }
.method { display: inline-block; min-width: 4.2em; text-align: center; font: 700 11px/1 var(--sans); letter-spacing: 0.04em; color: #fff; border-radius: 4px; padding: 0.35em 0.5em; vertical-align: 0.15em; }
.method-get { background: var(--get); } .method-post { background: var(--post); } .method-patch { background: var(--patch); }
.method-put { background: var(--put); } .method-delete { background: var(--delete); } .method-head { background: var(--head); }
.answer-status { font: 700 0.95rem var(--mono); display: inline-block; border-radius: 6px; padding: 0.3rem 0.7rem; color: #fff; background: var(--head); }
.status { display: inline-block; font: 700 12px/1 var(--mono); border-radius: 999px; padding: 0.3em 0.6em; color: #fff; }
.status-2xx { background: var(--ok); } .status-3xx { background: var(--redirect); } .status-4xx { background: var(--client); } .status-5xx { background: var(--server); }
.required { color: var(--delete); font-size: 0.8em; font-weight: 600; }
.access { border-left: 3px solid var(--patch); padding-left: 0.75rem; color: var(--muted); }
.table { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; margin: 0.5rem 0; }
th, td { text-align: left; vertical-align: top; border-bottom: 1px solid var(--line); padding: 0.4rem 0.6rem; }
th { font-size: 0.8rem; color: var(--muted); font-weight: 600; }
td p { margin: 0; }
td:first-child code { white-space: nowrap; }
.pattern { font-size: 0.8rem; color: var(--muted); overflow-wrap: anywhere; }
details { margin: 0.4rem 0; }
details > summary { cursor: pointer; padding: 0.3rem 0; }
details.outcome { border-top: 1px solid var(--line); padding-top: 0.2rem; }
details.outcome > summary { font-weight: 500; }
.headers, .media { font-size: 0.85rem; color: var(--muted); margin: 0.4rem 0; }
.headers code { margin-right: 0.2rem; }
form.try { margin-top: 1.5rem; border-top: 2px dashed var(--line); }
form.try .fields { display: grid; grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); gap: 0.75rem; }
form.try label { display: flex; flex-direction: column; gap: 0.25rem; font-size: 0.85rem; font-weight: 600; }
form.try label small { color: var(--muted); font-weight: 400; }
form.try label.wide { grid-column: 1 / -1; }
input, textarea, select { width: 100%; color: var(--text); background: var(--page); border: 1px solid var(--line); border-radius: 6px; padding: 0.45rem 0.55rem; }
input:focus, textarea:focus, select:focus { outline: 2px solid var(--accent); outline-offset: -1px; }
button { margin-top: 0.9rem; font: 600 0.9rem var(--sans); color: #fff; background: var(--post); border: 0; border-radius: 6px; padding: 0.55rem 1rem; cursor: pointer; }
button:hover { filter: brightness(1.1); }
.answer { margin-top: 1rem; }
.answer-headers { font-size: 12px; max-height: 16rem; }
@media (max-width: 60rem) {
  body { display: block; }
  nav { position: static; height: auto; border-right: 0; border-bottom: 1px solid var(--line); }
  main { padding: 1.5rem 1rem 3rem; }
}
`;
