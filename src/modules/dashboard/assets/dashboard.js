// The dashboard's only script (the CSP allows no inline script). Pages work without it: it
// adds charts, confirmation of destructive forms and copy buttons. Chart.js, where a page has
// a chart, is loaded by that page before this runs (both are deferred; this waits for the DOM).
'use strict';

/** <canvas data-chart='{"type":"bar","labels":[...],"series":[{"label":"...","data":[...]}],"money":true}'> */
function drawCharts() {
  if (typeof window.Chart !== 'function') return;
  for (const canvas of document.querySelectorAll('canvas[data-chart]')) {
    const spec = JSON.parse(canvas.dataset.chart);
    const palette = ['#0b57d0', '#146c2e', '#a3120b', '#7a4d00', '#6b3fa0', '#00796b'];
    const money = (cents) => (cents / 100).toLocaleString('pt-BR', { style: 'currency', currency: 'BRL' });
    new window.Chart(canvas, {
      type: spec.type,
      data: {
        labels: spec.labels,
        datasets: spec.series.map((s, i) => ({
          label: s.label,
          data: s.data,
          backgroundColor: spec.type === 'line' ? palette[i % palette.length] + '33' : palette[i % palette.length],
          borderColor: palette[i % palette.length],
          fill: spec.type === 'line',
          tension: 0.2,
        })),
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        responsive: true,
        plugins: {
          legend: { display: spec.series.length > 1 },
          tooltip: spec.money ? { callbacks: { label: (c) => `${c.dataset.label}: ${money(c.parsed.y)}` } } : {},
        },
        scales: { y: { beginAtZero: true, ticks: spec.money ? { callback: (v) => money(v) } : {} } },
      },
    });
    canvas.dataset.drawn = 'true';
  }
}

/** <form data-confirm="Cancelar este pagamento?">: asks before posting. */
function confirmForms() {
  document.addEventListener('submit', (event) => {
    const message = event.target.dataset && event.target.dataset.confirm;
    if (message && !window.confirm(message)) event.preventDefault();
  });
}

/** <button data-copy="text">: copies the text and says so in the button. */
function copyButtons() {
  document.addEventListener('click', async (event) => {
    const button = event.target.closest && event.target.closest('button[data-copy]');
    if (!button) return;
    try {
      await navigator.clipboard.writeText(button.dataset.copy);
      button.dataset.copied = 'true';
      button.textContent = button.dataset.copiedLabel || 'OK';
    } catch {
      window.prompt('', button.dataset.copy);
    }
  });
}

/**
 * <form data-evidence-form> with <input type="file" data-evidence-file>: the dashboard takes
 * url-encoded forms only, so the chosen file is read here and posted as base64 in the form's
 * hidden fields (fileName, contentType, contentBase64), the API's own shape. Without this script
 * the file input has no name and the form posts its text alone.
 */
function evidenceFiles() {
  document.addEventListener('submit', (event) => {
    const form = event.target;
    if (!form.matches || !form.matches('form[data-evidence-form]') || form.dataset.read === 'true') return;
    const input = form.querySelector('input[data-evidence-file]');
    const file = input && input.files && input.files[0];
    if (!file) return;
    event.preventDefault();
    const reader = new FileReader();
    reader.onload = () => {
      // A data: URL is "data:<type>;base64,<content>": the content is what follows the comma.
      const url = String(reader.result);
      form.elements.fileName.value = file.name;
      form.elements.contentType.value = file.type;
      form.elements.contentBase64.value = url.slice(url.indexOf(',') + 1);
      form.dataset.read = 'true';
      form.submit();
    };
    reader.readAsDataURL(file);
  });
}

document.addEventListener('DOMContentLoaded', () => {
  drawCharts();
  confirmForms();
  copyButtons();
  evidenceFiles();
});
