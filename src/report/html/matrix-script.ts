/**
 * The matrix page's only script, inlined: a cell opens its run's check section and scrolls to it (also
 * for a link followed from elsewhere, by its #hash), and the filters hide rows without a reload. A row
 * stays when its suite and level are ticked and one of its verdicts is.
 */
export const MATRIX_SCRIPT = `
(() => {
  const rows = [...document.querySelectorAll('tr.row')];
  const boxes = [...document.querySelectorAll('.filters input[data-group]')];
  const onlyDiffering = document.getElementById('only-differing');
  const shown = document.getElementById('shown');
  const apply = () => {
    const on = { suite: new Set(), verdict: new Set(), level: new Set() };
    for (const b of boxes) if (b.checked) on[b.dataset.group].add(b.value);
    let n = 0;
    for (const r of rows) {
      const verdicts = r.dataset.verdicts.split(' ').filter(Boolean);
      const keep = on.suite.has(r.dataset.suite) && on.level.has(r.dataset.level) &&
        verdicts.some((v) => on.verdict.has(v)) && (!onlyDiffering.checked || r.dataset.state !== 'same');
      r.classList.toggle('hidden', !keep);
      if (keep) n += 1;
    }
    shown.textContent = n + ' of ' + rows.length + ' checks shown';
  };
  const reveal = (id) => {
    const target = document.getElementById(id);
    if (!target || target.tagName !== 'DETAILS') return;
    target.open = true;
    target.scrollIntoView({ block: 'start' });
  };
  for (const b of boxes) b.addEventListener('change', apply);
  onlyDiffering.addEventListener('change', apply);
  document.addEventListener('click', (e) => {
    const link = e.target.closest('td.cell a');
    if (!link) return;
    e.preventDefault();
    const id = link.getAttribute('href').slice(1);
    history.replaceState(null, '', '#' + id);
    reveal(id);
  });
  if (location.hash) reveal(decodeURIComponent(location.hash.slice(1)));
  apply();
})();
`;
