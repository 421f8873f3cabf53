// The web console's page and style, served by `serve` at `/` (its script is console-script.ts). Plain HTML, no
// build step, nothing fetched from elsewhere; every value of a run is written as text, never as HTML. The page says
// where the Temporal UI is (for the link to a run), in a meta tag the script reads.

export interface ConsoleSettings {
  /** The Temporal Web UI's address (e.g. http://localhost:8233): the run page links to the run there. */
  temporalUi?: string;
  namespace: string;
}

const attr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function consoleHtml(settings: ConsoleSettings): string {
  return CONSOLE_HTML.replace(
    '<!--settings-->',
    `<meta name="temporal-ui" content="${attr(settings.temporalUi ?? '')}">\n<meta name="temporal-namespace" content="${attr(settings.namespace)}">`,
  );
}

const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>durable-agent</title>
<!--settings-->
<style>
  [hidden] { display: none !important; }
  :root { font-family: system-ui, sans-serif; color: #1d1d1f; background: #fafafa; }
  body { margin: 0 auto; max-width: 1100px; padding: 1rem; }
  header { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; margin-bottom: 1rem; }
  header h1 { font-size: 1.2rem; margin: 0; }
  header a { color: inherit; }
  table { border-collapse: collapse; width: 100%; background: #fff; }
  th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid #e5e5e5; font-size: .9rem; }
  td.num { text-align: right; font-variant-numeric: tabular-nums; }
  .status { font-weight: 600; }
  .msg { background: #fff; border: 1px solid #e5e5e5; border-radius: 6px; padding: .6rem .8rem; margin: .5rem 0; white-space: pre-wrap; }
  .msg.user { border-left: 4px solid #4a7bd0; }
  .msg.assistant { border-left: 4px solid #3c9a5f; }
  .msg .role { font-size: .75rem; color: #666; text-transform: uppercase; }
  details { margin: .3rem 0; } pre { white-space: pre-wrap; word-break: break-word; margin: .3rem 0; font-size: .85rem; }
  #approval { border: 2px solid #d08a1e; background: #fff8ec; padding: .6rem .8rem; border-radius: 6px; margin: .5rem 0; }
  #streaming { color: #555; font-style: italic; white-space: pre-wrap; }
  button, input, textarea { font: inherit; padding: .3rem .6rem; }
  button:focus-visible, a:focus-visible, input:focus-visible { outline: 3px solid #4a7bd0; outline-offset: 2px; }
  .row { display: flex; gap: .5rem; flex-wrap: wrap; align-items: center; margin: .5rem 0; }
  .error { color: #b00020; }
  .muted { color: #666; font-size: .85rem; }
  td a { word-break: break-all; }
  summary { cursor: pointer; } summary:focus-visible, select:focus-visible, textarea:focus-visible { outline: 3px solid #4a7bd0; outline-offset: 2px; }
  details.thinking > summary { color: #6b4fa0; font-style: italic; }
  .marker { margin: .8rem 0; padding: .3rem .6rem; border-top: 2px dashed #9a7bd0; color: #5a3f90; font-size: .85rem; }
  .subagent { border: 1px solid #c9b8e8; background: #f7f3ff; border-radius: 6px; padding: .4rem .6rem; margin: .3rem 0; }
  #usage-chart { margin: .5rem 0; background: #fff; border: 1px solid #e5e5e5; border-radius: 6px; padding: .4rem .6rem; }
  #usage-chart svg { display: block; width: 100%; height: 90px; }
  #usage-chart figcaption { font-size: .85rem; color: #444; }
  .bar-prompt { fill: #8fb0e8; } .bar-output { fill: #3c9a5f; }
  .msg, pre, h2 { overflow-wrap: anywhere; }
  th, td.num, td.status { white-space: nowrap; }
  table caption { text-align: left; padding: .2rem 0; }
  #sign-in { max-width: 40rem; background: #fff; border: 1px solid #e5e5e5; border-radius: 6px; padding: .8rem 1rem; }
  #sign-in h2 { margin-top: 0; }
  code { font-size: .9em; background: #f0f0f0; padding: 0 .2em; border-radius: 3px; overflow-wrap: anywhere; }
  @media (max-width: 640px) {
    body { padding: .5rem; }
    th:nth-child(n+5), td:nth-child(n+5) { display: none; }
    input[size] { width: 100%; box-sizing: border-box; }
  }
</style>
</head>
<body>
<header>
  <h1><a href="#/">durable-agent runs</a></h1>
  <span id="error" class="error" role="alert"></span>
</header>
<main id="main" aria-live="polite"></main>
<script src="console.js"></script>
</body>
</html>
`;
