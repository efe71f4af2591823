/**
 * The page's only script, inlined: filters by suite, verdict and level without a reload, and
 * expand/collapse all. It only toggles classes and the open attribute; the content is all in the HTML.
 */
export const CLIENT_SCRIPT = `
(() => {
  const checks = [...document.querySelectorAll('details.check')];
  const boxes = [...document.querySelectorAll('.filters input[type=checkbox]')];
  const shown = document.getElementById('shown');
  const apply = () => {
    const on = { suite: new Set(), verdict: new Set(), level: new Set() };
    for (const b of boxes) if (b.checked) on[b.dataset.group].add(b.value);
    let n = 0;
    for (const c of checks) {
      const keep = on.suite.has(c.dataset.suite) && on.verdict.has(c.dataset.verdict) && on.level.has(c.dataset.level);
      c.classList.toggle('hidden', !keep);
      if (keep) n += 1;
    }
    shown.textContent = n + ' of ' + checks.length + ' checks shown';
  };
  for (const b of boxes) b.addEventListener('change', apply);
  document.getElementById('expand-all').addEventListener('click', () => {
    for (const c of checks) if (!c.classList.contains('hidden')) c.open = true;
  });
  document.getElementById('collapse-all').addEventListener('click', () => {
    for (const c of checks) c.open = false;
  });
  apply();
})();
`;
