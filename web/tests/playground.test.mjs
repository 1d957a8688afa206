// Browser tests of the playground (docs/web.md): the page built by scripts/build-web.sh, served
// from target/web by a static server started here, driven in headless Chromium (Debian's
// package) through playwright-core. Every result the page shows is checked against the
// `gpufp eval` command line ($GPUFP_BIN, else target/debug/gpufp) run in the same test.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, statSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SITE = join(ROOT, 'target/web');
const OUT = join(ROOT, 'target/web-test');
const GPUFP = process.env.GPUFP_BIN ?? join(ROOT, 'target/debug/gpufp');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
};

let server;
let base;
let context;
let profile;

before(async () => {
  for (const [path, how] of [[join(SITE, 'index.html'), 'bash scripts/build-web.sh'],
    [GPUFP, 'cargo build -p gpufp-cli']]) {
    assert.ok(statSync(path, { throwIfNoEntry: false }), `${path} is missing: run ${how} first`);
  }
  server = createServer((req, res) => {
    const path = normalize(join(SITE, decodeURIComponent(new URL(req.url, 'http://x').pathname)));
    const file = path.endsWith('/') ? join(path, 'index.html') : path;
    if (!file.startsWith(SITE) || !statSync(file, { throwIfNoEntry: false })?.isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${server.address().port}/`;
  profile = mkdtempSync(join(tmpdir(), 'gpufp-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-quic'],
    viewport: { width: 1200, height: 1400 },
  });
  mkdirSync(OUT, { recursive: true });
});

after(async () => {
  await context?.close();
  server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** `gpufp eval` on a case: its stdout, or its stderr (exit status 1) for an error. */
function cli({ instr, operands, target = '', policies = [] }) {
  const args = ['eval'];
  if (target) args.push('--target', target);
  for (const p of policies) args.push('--policy', p);
  const r = spawnSync(GPUFP, [...args, instr, ...operands], { encoding: 'utf8' });
  return r.status === 0 ? { ok: true, text: r.stdout } : { ok: false, text: r.stderr };
}

async function openPage(url = base) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  await page.waitForFunction(() => Number(document.body.dataset.evaluations) >= 1);
  return { page, errors };
}

/** Sets the page up as a user would: target, instruction typed key by key, operands. */
async function enter(page, c) {
  await page.selectOption('#target', c.target ?? '');
  // Each policy as the case selects it, else its default.
  const chosen = new Map((c.policies ?? []).map((p) => p.split('=')));
  await page.$eval('#policies-box', (d) => { d.open = true; });
  for (const [name, value, def] of await page.$$eval('[data-policy]', (fs) =>
    fs.map((f) => [f.dataset.policy, f.value, f.dataset.default]))) {
    const want = chosen.get(name) ?? def;
    if (value !== want) await page.selectOption(`[data-policy="${name}"]`, want);
  }
  await page.fill('#instr', '');
  await page.locator('#instr').pressSequentially(c.instr);
  await page.keyboard.press('Escape');
  if (c.three) await page.check('#three');
  for (const [k, v] of c.operands.entries()) await page.fill(`#op${k}`, v);
  const key = JSON.stringify([c.instr, c.operands, c.target ?? '', '', c.policies ?? []]);
  try {
    await page.waitForFunction((k) => document.body.dataset.key === k, key, { timeout: 5000 });
  } catch (e) {
    const shown = await page.evaluate(() => [document.body.dataset.key, document.querySelector('#check').textContent]);
    throw new Error(`waiting for ${key}, the page shows ${shown.join(': ')}`);
  }
}

const CASES = [
  // testp
  { instr: 'testp.notanumber.f32', operands: ['nan'] },
  { instr: 'testp.subnormal.f64', operands: ['0x0000000000000001'] },
  { instr: 'testp.normal.f32', operands: ['0f00800000'] },
  // copysign, abs, neg
  { instr: 'copysign.f32', operands: ['-1', '2.5'] },
  { instr: 'copysign.f64', operands: ['0d8000000000000000', 'nan'] },
  { instr: 'abs.ftz.f32', operands: ['0f80000001'] },
  { instr: 'neg.bf16x2', operands: ['{1, -0.0}'], target: 'sm_90' },
  { instr: 'abs.f16', operands: ['0xfc01'] },
  // add, sub, mul
  { instr: 'add.rz.ftz.f32', operands: ['1', '0f33800000'] },
  { instr: 'add.rn.f16', operands: ['2048', '1'] },
  { instr: 'add.rp.ftz.f32x2', operands: ['{1, -1}', '{0f33800000, 0f33800000}'], target: 'sm_100' },
  { instr: 'sub.rm.f64', operands: ['1', '1'] },
  { instr: 'sub.bf16x2', operands: ['{1, 3}', '{0.0078125, inf}'] },
  { instr: 'mul.rn.ftz.sat.f32', operands: ['0x3F7FFFFE', '2'] },
  { instr: 'mul.rn.ftz.f32', operands: ['0x3F7FFFFE', '0x00800001'] },
  { instr: 'mul.rn.ftz.f32', operands: ['0x3F7FFFFE', '0x00800001'], policies: ['ftz_tininess=BeforeRounding'] },
  { instr: 'mul.rn.f16x2', operands: ['0x7bff3c00', '0x40004000'] },
  // fma, mad
  { instr: 'fma.rn.f16x2', operands: ['{1.5, 2048}', '{-2, 1}', '{0.25, nan}'] },
  { instr: 'fma.rn.ftz.sat.f32', operands: ['0.75', '2', '-0.25'] },
  { instr: 'fma.rn.relu.bf16x2', operands: ['0x7fff3c00', '0x3c00c000', '0x3c00c000'] },
  { instr: 'fma.rn.oob.f16', operands: ['0x7fff', '0xc000', '0x3c00'], target: 'sm_90' },
  { instr: 'fma.rm.f64', operands: ['0x3ff0000000000001', '0x3ff0000000000001', '-1'] },
  { instr: 'mad.f32', operands: ['0f3F800800', '0f3F800800', '-1'], target: 'sm_13' },
  { instr: 'mad.rn.f32', operands: ['0f3F800800', '0f3F800800', '-1'] },
  // div
  { instr: 'div.rn.f32', operands: ['1', '3'] },
  { instr: 'div.full.ftz.f32', operands: ['1', '3'] },
  { instr: 'div.approx.f32', operands: ['0f40C90FDB', '3.14159'] },
  { instr: 'div.rz.f64', operands: ['-1', '0'] },
  // min, max
  { instr: 'min.NaN.xorsign.abs.f16x2', operands: ['{-2, nan}', '{3, 1}'] },
  { instr: 'max.ftz.f32', operands: ['0f00000001', '-0.0'] },
  { instr: 'min.f32', operands: ['2', '-3', '0.5'], three: true, target: 'sm_100' },
  { instr: 'max.NaN.bf16', operands: ['0x7fc1', '1'] },
  { instr: 'min.f64', operands: ['nan', '1.5'] },
  // approximations
  { instr: 'rcp.approx.ftz.f32', operands: ['3'] },
  { instr: 'rcp.rn.f64', operands: ['3'] },
  { instr: 'sqrt.rn.f32', operands: ['2'] },
  { instr: 'rsqrt.approx.ftz.f64', operands: ['4'] },
  { instr: 'sin.approx.f32', operands: ['0.5'] },
  { instr: 'cos.approx.ftz.f32', operands: ['-1e-30'] },
  { instr: 'lg2.approx.f32', operands: ['0.5'] },
  { instr: 'ex2.approx.ftz.bf16x2', operands: ['0x3f803f00'] },
  { instr: 'tanh.approx.f16x2', operands: ['{0.5, -inf}'] },
  { instr: 'ex2.approx.f16', operands: ['0.5'] },
];

test('the page loads, shows a first result, and is measured', async () => {
  const start = Date.now();
  const { page, errors } = await openPage();
  const timing = await page.evaluate(() => window.gpufpTiming);
  const wasm = statSync(join(SITE, 'pkg/gpufp_web_bg.wasm')).size;
  console.log(`# wasm ${wasm} bytes; first result ${timing.firstResult.toFixed(0)} ms after navigation ` +
    `(module ready at ${timing.wasmReady.toFixed(0)} ms); ${Date.now() - start} ms from the test's goto`);
  assert.equal(await page.inputValue('#instr'), 'fma.rn.f16x2');
  assert.deepEqual(errors, []);
  await page.close();
});

test(`${CASES.length} cases across every family show the bits gpufp eval prints`, async () => {
  assert.ok(CASES.length >= 30);
  const { page, errors } = await openPage();
  for (const c of CASES) {
    await enter(page, c);
    const want = cli(c);
    assert.ok(want.ok, `${c.instr}: ${want.text}`);
    const label = `${c.target ?? ''} ${c.instr} ${c.operands.join(' ')} ${c.policies ?? ''}`;
    assert.equal(await page.textContent('#cli-text'), want.text, label);
    const first = want.text.split('\n')[0];
    assert.equal(await page.textContent('#result-bits'), first, label);
    if (!c.instr.startsWith('testp')) {
      // The coloured bits, lane 0 rightmost, read back as one number.
      const shown = await page.$$eval('#result-lanes .bits', (rows) =>
        rows.map((r) => [...r.children].map((b) => b.textContent).join('')).reverse().join(''));
      assert.equal(BigInt(`0b${shown}`), BigInt(first), label);
    }
    // The lists show each rule, guarantee and alternative the command line prints.
    const lines = (prefix) => want.text.split('\n').filter((l) => l.startsWith(prefix))
      .map((l) => l.slice(prefix.length));
    const items = (id) => page.$$eval(`#${id} li`, (li) => li.map((l) => l.textContent));
    const rules = lines('rule: ');
    assert.deepEqual(await items('rules'), rules.length ? rules : ['none beyond the operation itself'], label);
    const alternatives = lines('policy: depends on unverified policy ').map((l) =>
      l.replace(/^`(\w+)`: with `(\w+)` the result is (\S+)$/, 'with $1 = $2, the result is $3'));
    assert.deepEqual(await items('alternatives'), alternatives.length ? alternatives
      : ['no other value of any unverified policy changes this result'], label);
    const guarantees = lines('guarantee: ');
    if (guarantees.length) assert.deepEqual(await items('guarantees'), guarantees, label);
    // The command line the page shows prints the same when a shell runs it.
    const command = (await page.textContent('#command')).replace(/^\$ /, '');
    const shell = execFileSync('sh', ['-c', command], {
      encoding: 'utf8', env: { ...process.env, PATH: `${dirname(GPUFP)}:${process.env.PATH}` },
    });
    assert.equal(shell, want.text, `${label}: ${command}`);
  }
  // The picture: a packed fma, whose lanes round differently.
  await enter(page, CASES.find((c) => c.instr === 'fma.rn.f16x2'));
  assert.equal(await page.isHidden('#three-box'), true);
  await page.screenshot({ path: join(OUT, 'playground.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test("an illegal instruction or operand shows the validator's message", async () => {
  const { page } = await openPage();
  for (const c of [
    { instr: 'min.xorsign.f64', operands: ['1', '2'] },
    { instr: 'add.foo.f32', operands: ['1', '2'] },
    { instr: 'fma.rn.f32x2', operands: ['1', '2', '3'], target: 'sm_90' },
    { instr: 'testp.nan.f32', operands: ['1'] },
  ]) {
    const { instr } = c;
    await page.selectOption('#target', c.target ?? '');
    await page.fill('#instr', instr);
    await page.waitForFunction((i) => JSON.parse(document.body.dataset.key)[0] === i, instr);
    const want = cli(c);
    assert.ok(!want.ok);
    // The command line says `error: column N: MESSAGE`; the page names the text instead.
    const message = want.text.trim().replace(/^error: column \d+: /, '');
    await page.waitForFunction(() => document.querySelector('#check').className.includes('bad'));
    const shown = await page.textContent('#check');
    assert.ok(shown.includes(message), `${instr}: page says ${shown}, gpufp says ${message}`);
    assert.ok(shown.includes(instr), shown);
    assert.equal(await page.isHidden('#result'), true);
  }
  await page.selectOption('#target', '');
  await enter(page, { instr: 'add.rn.f32', operands: ['1', 'zz'] });
  const want = cli({ instr: 'add.rn.f32', operands: ['1', 'zz'] });
  assert.equal(await page.textContent('#op1-error'), want.text.trim().replace(/^error: /, ''));
  await page.close();
});

test('completion offers the words that keep the instruction valid', async () => {
  const { page } = await openPage();
  await page.fill('#instr', '');
  await page.locator('#instr').pressSequentially('fma.r');
  await page.waitForSelector('#completions:not([hidden])');
  const words = await page.$$eval('#completions li', (li) => li.map((l) => l.textContent));
  assert.deepEqual(words, ['rn', 'rz', 'rm', 'rp', 'relu']);
  await page.keyboard.press('Tab');
  assert.equal(await page.inputValue('#instr'), 'fma.rn.');
  await page.locator('#instr').pressSequentially('f16');
  const next = await page.$$eval('#completions li', (li) => li.map((l) => [l.textContent, l.className]));
  assert.deepEqual(next, [['f16', 'complete'], ['f16x2', 'complete']]);
  await page.click('#completions li:nth-child(2)');
  assert.equal(await page.inputValue('#instr'), 'fma.rn.f16x2');
  await page.close();
});

test('a shared URL restores the same state, and the page works offline once loaded', async () => {
  const c = {
    instr: 'mul.rn.ftz.f32', operands: ['0x3F7FFFFE', '0x00800001'], target: 'sm_80',
    policies: ['ftz_tininess=BeforeRounding'],
  };
  const { page } = await openPage();
  await enter(page, c);
  const url = page.url();
  const text = await page.textContent('#cli-text');
  assert.equal(text, cli(c).text);
  await page.close();
  const { page: again, errors } = await openPage(url);
  assert.equal(await again.inputValue('#instr'), c.instr);
  assert.equal(await again.inputValue('#op0'), c.operands[0]);
  assert.equal(await again.inputValue('#op1'), c.operands[1]);
  assert.equal(await again.inputValue('#target'), c.target);
  assert.equal(await again.inputValue('[data-policy="ftz_tininess"]'), 'BeforeRounding');
  assert.equal(await again.textContent('#cli-text'), text);
  // Offline: a clicked bit (operand a's sign) is evaluated on the page alone.
  await context.setOffline(true);
  await again.click('#op0-lanes button[data-bit="31"]');
  await again.waitForFunction(() => document.querySelector('#op0').value === '0xbf7ffffe');
  const flipped = { ...c, operands: ['0xbf7ffffe', c.operands[1]] };
  assert.equal(await again.textContent('#cli-text'), cli(flipped).text);
  await context.setOffline(false);
  assert.deepEqual(errors, []);
  await again.close();
});
