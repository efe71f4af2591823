/** The page's only stylesheet, inlined: the report is one file with no network access. */
export const STYLES = `
:root { --pass:#1a7f37; --fail:#cf222e; --err:#8250df; --skip:#6e7781; --dev:#9a6700; --obs:#0969da; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1f2328; background: #f6f8fa; }
header, main { max-width: 1280px; margin: 0 auto; padding: 12px 20px; }
header { background: #fff; border-bottom: 1px solid #d0d7de; max-width: none; }
h1 { font-size: 20px; margin: 4px 0 8px; }
h2 { font-size: 16px; margin: 18px 0 8px; }
.verdict { display: inline-block; padding: 2px 10px; border-radius: 12px; color: #fff; font-weight: 600; }
.exit-0 { background: var(--pass); } .exit-1 { background: var(--fail); } .exit-2 { background: var(--err); }
dl.props { display: grid; grid-template-columns: max-content 1fr max-content 1fr; gap: 2px 14px; margin: 8px 0; }
dl.props dt { color: #57606a; } dl.props dd { margin: 0; font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
table { border-collapse: collapse; background: #fff; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
td.zero { color: #afb8c1; }
.filters { display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: center; margin: 12px 0; }
.filters fieldset { border: 1px solid #d0d7de; border-radius: 6px; padding: 2px 8px; margin: 0; background: #fff; }
.filters legend { font-size: 12px; color: #57606a; }
.filters label { margin-right: 8px; white-space: nowrap; }
details.check { background: #fff; border: 1px solid #d0d7de; border-left-width: 5px; border-radius: 6px; margin: 4px 0; }
details.check > summary { cursor: pointer; padding: 5px 10px; display: grid;
  grid-template-columns: 82px 74px 86px 1fr 70px 60px; gap: 8px; align-items: baseline; }
details.check[data-verdict="passed"] { border-left-color: var(--pass); }
details.check[data-verdict="failed"] { border-left-color: var(--fail); }
details.check[data-verdict="error"] { border-left-color: var(--err); }
details.check[data-verdict="skipped"] { border-left-color: var(--skip); }
details.check[data-verdict="deviation"] { border-left-color: var(--dev); }
details.check[data-verdict="observed"] { border-left-color: var(--obs); }
.v-passed { color: var(--pass); } .v-failed { color: var(--fail); } .v-error { color: var(--err); }
.v-skipped { color: var(--skip); } .v-deviation { color: var(--dev); } .v-observed { color: var(--obs); }
.id { font-weight: 600; font-family: ui-monospace, monospace; } .num { text-align: right; color: #57606a; }
.body { padding: 4px 14px 12px; border-top: 1px solid #eaeef2; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f8fa; padding: 6px 8px; border-radius: 4px; margin: 4px 0; font-size: 12.5px; }
pre.message { background: #ffebe9; }
.known { background: #fff8c5; padding: 4px 8px; border-radius: 4px; }
.segment { margin: 10px 0; } .segment h4 { margin: 4px 0; font-size: 13px; }
.segment.violated { outline: 2px solid var(--fail); outline-offset: 3px; border-radius: 4px; }
.segment.violated h4 { color: var(--fail); }
.scroll { overflow-x: auto; }
svg.seq { font: 11px ui-monospace, monospace; display: block; }
svg.seq .lane { stroke: #8c959f; stroke-dasharray: 3 3; }
svg.seq .lane-head { fill: #ddf4ff; stroke: #54aeff; }
svg.seq .lane-label { text-anchor: middle; font-weight: 600; }
svg.seq .busy { fill: #54aeff; opacity: .35; }
svg.seq .gap { fill: #eaeef2; } svg.seq .gap-label { text-anchor: end; fill: #57606a; font-style: italic; }
svg.seq .t { text-anchor: end; fill: #57606a; }
svg.seq .note { fill: #57606a; font-style: italic; }
svg.seq g line { stroke-width: 1.4; } svg.seq g text { text-anchor: middle; }
svg.seq .call line { stroke: #0969da; } svg.seq .call polygon { fill: #0969da; }
svg.seq .reply line { stroke: #1a7f37; stroke-dasharray: 5 3; } svg.seq .reply polygon { fill: #1a7f37; }
svg.seq .reply.bad line { stroke: #cf222e; } svg.seq .reply.bad polygon, svg.seq .reply.bad text { fill: #cf222e; }
svg.seq .event line { stroke: #8250df; } svg.seq .event polygon { fill: #8250df; }
svg.seq .fault line { stroke: #cf222e; stroke-dasharray: 2 2; } svg.seq .fault polygon, svg.seq .fault text { fill: #cf222e; }
.diff td.regression { color: var(--fail); font-weight: 600; } .diff td.fix { color: var(--pass); font-weight: 600; }
.hidden { display: none; }
`;
