import { startServer } from './scripts/serve.mjs';
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
const code = readFileSync('simulations/lessons/code.generated.ts', 'utf8');
const m = code.match(/export const LESSON_CODE[^=]*= (\{[\s\S]*\});/);
const LESSON_CODE = JSON.parse(m[1].replace(/,\s*}/g, '}'));
const server = await startServer({ dir: 'out', port: 0, host: '127.0.0.1' });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const wait = { timeout: 180000 };
try {
  for (const [w, hgt, scheme] of [[1366, 768, 'light'], [1366, 768, 'dark']]) {
    const ctx = await browser.newContext({ viewport: { width: w, height: hgt }, colorScheme: scheme, deviceScaleFactor: 1, reducedMotion: 'reduce' });
    const page = await ctx.newPage();
    page.on('pageerror', (e) => console.log('pageerror', e.message));
    await page.goto(new URL('/lab/lease-expiry/', server.url).href);
    await page.waitForFunction(() => { const b = document.querySelector('[data-action="run"]'); return b && !b.disabled && window.__eoLab; }, undefined, wait);
    await page.evaluate((c) => window.__eoLab.setCode(c), LESSON_CODE['lease-expiry'].solution);
    await page.getByLabel('Speed').selectOption('instant');
    await page.locator('[data-action="run"]').click();
    await page.waitForFunction(() => /Held|Violated/.test(document.querySelector('[aria-label="Verdict"]')?.textContent ?? ''), undefined, wait);
    await page.locator('[role="group"][aria-label^="Timeline"] [role="button"][aria-label^="Event 8,"]').click();
    await page.waitForTimeout(500);
    await page.screenshot({ path: `/tmp/story/shots/lab-${w}-${scheme}.png` });
    await ctx.close();
  }
  for (const [w, hgt] of [[1280, 720], [1920, 1080], [1024, 768]]) {
    const ctx = await browser.newContext({ viewport: { width: w, height: hgt }, deviceScaleFactor: 1, reducedMotion: 'reduce' });
    const page = await ctx.newPage();
    await page.goto(new URL('/demo/lease-expiry/', server.url).href);
    await page.waitForFunction(() => document.querySelector('[data-action="step"]')?.disabled === false, undefined, wait);
    await page.getByRole('group', { name: 'Which code runs' }).getByRole('button', { name: 'Solution' }).click();
    for (let i = 1; i <= 8; i++) {
      await page.keyboard.press('PageDown');
      await page.waitForFunction((n) => new RegExp(`^Event ${n} of`).test(document.querySelector('[data-testid="presenter-status"]')?.textContent ?? ''), i, wait);
    }
    await page.waitForTimeout(500);
    await page.screenshot({ path: `/tmp/story/shots/demo-${w}.png` });
    await ctx.close();
  }
} finally {
  await browser.close();
  await server.close();
}
