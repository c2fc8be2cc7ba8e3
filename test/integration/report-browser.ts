import { spawn, spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';

/** Headless Chromium from the Debian package (`apt-get install chromium`), or null when none is installed. */
export function findChromium(): string | null {
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim()) return found.stdout.trim();
  }
  return null;
}

function run(binary: string, args: string[], timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.resume();
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(timer);
      if (status === 0) resolve(stdout);
      else reject(new Error(`${binary} exited with ${String(status)}`));
    });
  });
}

const BASE_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--hide-scrollbars'];

/** A PNG of the page's first screen at the given window size. */
export async function screenshot(
  binary: string,
  file: string,
  png: string,
  size = '1280,900',
): Promise<void> {
  await run(binary, [...BASE_FLAGS, `--screenshot=${png}`, `--window-size=${size}`, `file://${file}`]);
}

export interface FirstScreenProbe {
  viewport: { width: number; height: number };
  /** Per selector: the element's box lies wholly inside the first screen. */
  inFirstScreen: Record<string, boolean>;
  /** Per selector: top of the element in page pixels (-1 when missing). */
  top: Record<string, number>;
  backgrounds: Record<string, string>;
  /** `td.date` cells whose text takes more than one line. */
  wrappedDates: number;
  dateCells: number;
}

/**
 * Lays the page out in Chromium at the window size and measures it: a copy of the page gets a small script that
 * writes the measurements into the DOM, which `--dump-dom` prints once the page has loaded.
 */
export async function probeFirstScreen(
  binary: string,
  html: string,
  copyPath: string,
  selectors: string[],
  size = '1280,900',
): Promise<FirstScreenProbe> {
  const script = `<script>
addEventListener('load', () => {
  const selectors = ${JSON.stringify(selectors)};
  const out = { viewport: { width: innerWidth, height: innerHeight }, inFirstScreen: {}, top: {}, backgrounds: {}, wrappedDates: 0, dateCells: 0 };
  for (const selector of selectors) {
    const el = document.querySelector(selector);
    const box = el ? el.getBoundingClientRect() : null;
    out.inFirstScreen[selector] = !!box && box.top >= 0 && box.bottom <= innerHeight && box.left >= 0 && box.right <= innerWidth;
    out.top[selector] = box ? Math.round(box.top + scrollY) : -1;
    out.backgrounds[selector] = el ? getComputedStyle(el).backgroundColor : '';
  }
  for (const cell of document.querySelectorAll('td.date')) {
    if (!cell.textContent) continue;
    out.dateCells += 1;
    const range = document.createRange();
    range.selectNodeContents(cell);
    const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    if (lines.size > 1) out.wrappedDates += 1;
  }
  document.body.setAttribute('data-probe', btoa(JSON.stringify(out)));
});
</script>`;
  await writeFile(copyPath, html.replace('</body>', `${script}</body>`), 'utf8');
  const dom = await run(binary, [...BASE_FLAGS, `--window-size=${size}`, '--dump-dom', `file://${copyPath}`]);
  const encoded = /data-probe="([^"]+)"/.exec(dom)?.[1];
  if (!encoded) throw new Error('Chromium did not run the probe script');
  return JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as FirstScreenProbe;
}
