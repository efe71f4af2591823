/** What the matrix page adds to the single-run stylesheet: the checks-by-run table and its marks. */
export const MATRIX_STYLES = `
ul.columns { margin: 6px 0; padding-left: 18px; font-family: ui-monospace, monospace; font-size: 12.5px; }
table.runs th.col { text-align: center; vertical-align: bottom; min-width: 90px; }
table.runs th.col .sub { font-weight: normal; color: #57606a; }
table.runs th.title { text-align: left; }
table.runs th.col .sub.tool { color: var(--dev); }
table.runs td.title { text-align: left; max-width: 520px; color: #57606a; font-size: 12.5px; }
table.runs td.id { font-family: ui-monospace, monospace; font-weight: 600; white-space: nowrap; }
table.runs td.cell { text-align: center; font-weight: 600; }
table.runs td.cell a { color: inherit; text-decoration: none; display: block; }
table.runs td.cell.v-passed { background: #dafbe1; } table.runs td.cell.v-failed { background: #ffebe9; }
table.runs td.cell.v-error { background: #fbefff; } table.runs td.cell.v-skipped { background: #f6f8fa; }
table.runs td.cell.v-deviation { background: #fff8c5; } table.runs td.cell.v-observed { background: #ddf4ff; }
table.runs td.cell.not-run { color: #afb8c1; font-weight: normal; font-style: italic; }
table.runs td.cell.disagree { outline: 2px dashed var(--dev); outline-offset: -3px; }
table.runs td.cell.disagree a::after { content: " !"; }
table.runs tr.differs td.id .mark::before { content: "\\2260 "; color: var(--fail); }
table.runs tr.disagrees td.id .mark::before { content: "! "; color: var(--dev); }
table.runs tr.differs, table.runs tr.disagrees { box-shadow: inset 4px 0 0 var(--fail); }
section.run details.check > summary { grid-template-columns: 112px 74px 86px 1fr 70px 60px; }
section.run details.check > summary .id::before { content: var(--column) " \\00b7  "; color: #57606a; }
section.run { margin: 18px 0; } section.run h3 { font-size: 15px; margin: 8px 0; }
`;
