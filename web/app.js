// The playground page: reads the fields, asks the gpufp WebAssembly module (crates/gpufp-web)
// and shows what it returns. Nothing here knows what an instruction means; it only lays the
// module's answers out, keeps the state in the URL, and flips operand bits on click.
import init, * as gpufp from './pkg/gpufp_web.js';

const $ = (id) => document.getElementById(id);
const NAMES = ['a', 'b', 'c'];
const DEFAULT = {
  instr: 'fma.rn.f16x2',
  operands: ['{1.5, 2048}', '{-2, 1}', '{0.25, nan}'],
  target: '',
  ptx: '',
  policies: [],
  three: false,
};

await init();
window.gpufpTiming = { wasmReady: performance.now() };

let state = fromUrl(new URLSearchParams(location.search)) ?? { ...DEFAULT };
let active = -1;
let evaluations = 0;
const policyList = gpufp.policies();

function fromUrl(q) {
  if (!q.has('i')) return null;
  return {
    instr: q.get('i'),
    operands: q.getAll('o'),
    target: q.get('t') ?? '',
    ptx: q.get('p') ?? '',
    policies: q.getAll('pol'),
    three: q.get('n') === '3',
  };
}

function toUrl() {
  const q = new URLSearchParams();
  q.set('i', state.instr);
  for (const o of state.operands) q.append('o', o);
  if (state.target) q.set('t', state.target);
  if (state.ptx) q.set('p', state.ptx);
  for (const p of state.policies) q.append('pol', p);
  if (state.three) q.set('n', '3');
  return `${location.pathname}?${q}`;
}

function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  e.append(...children);
  return e;
}

function setup() {
  $('version').textContent = gpufp.version();
  for (const t of gpufp.targets()) $('target').append(el('option', { value: t, textContent: t }));
  for (const v of gpufp.ptx_versions()) $('ptx').append(el('option', { value: v, textContent: v }));
  const groups = new Map();
  gpufp.examples().forEach((ex, k) => {
    if (!groups.has(ex.section)) {
      groups.set(ex.section, el('optgroup', { label: `PTX ISA ${ex.section}` }));
      $('examples').append(groups.get(ex.section));
    }
    const text = `${ex.instr} ${ex.operands.join(', ')}: ${ex.shows}`;
    groups.get(ex.section).append(el('option', { value: String(k), textContent: text }));
  });
  // The vISA policy has no effect on a PTX instruction.
  for (const p of policyList.filter((q) => !q.name.startsWith('visa_'))) {
    const field = p.choices
      ? el('select', {}, ...p.choices.map((c) => el('option', { value: c, textContent: c })))
      : el('input', { type: 'text', placeholder: p.default, size: 8 });
    field.dataset.policy = p.name;
    field.dataset.default = p.default;
    field.value = p.default;
    field.addEventListener('change', () => {
      state.policies = [...document.querySelectorAll('[data-policy]')]
        .filter((f) => f.value.trim() !== '' && f.value !== f.dataset.default)
        .map((f) => `${f.dataset.policy}=${f.value.trim()}`);
      update();
    });
    $('policies').append(el('div', { className: 'policy' },
      el('label', {}, `${p.name} (${p.status}; default ${p.default})`, field),
      el('div', { className: 'evidence', textContent: p.evidence })));
  }
  $('examples').addEventListener('change', () => {
    const ex = gpufp.examples()[Number($('examples').value)];
    if (!ex) return;
    state = { ...state, instr: ex.instr, operands: [...ex.operands], target: ex.target ?? '', ptx: '', three: ex.operands.length === 3 && /^(min|max)\./.test(ex.instr) };
    toFields();
    update();
  });
  $('instr').addEventListener('input', () => { state.instr = $('instr').value; update(); showCompletions(); });
  $('instr').addEventListener('focus', showCompletions);
  $('instr').addEventListener('blur', () => setTimeout(hideCompletions, 150));
  $('instr').addEventListener('keydown', completionKeys);
  $('target').addEventListener('change', () => { state.target = $('target').value; update(); });
  $('ptx').addEventListener('change', () => { state.ptx = $('ptx').value; update(); });
  $('three').addEventListener('change', () => { state.three = $('three').checked; update(); });
  $('share').addEventListener('click', share);
  window.addEventListener('popstate', () => {
    state = fromUrl(new URLSearchParams(location.search)) ?? { ...DEFAULT };
    toFields();
    update();
  });
}

/// Puts the state into the fields that are not rebuilt on every update.
function toFields() {
  $('instr').value = state.instr;
  $('target').value = state.target;
  $('ptx').value = state.ptx;
  $('three').checked = state.three;
  const chosen = new Map(state.policies.map((p) => p.split('=').map((s) => s.trim())));
  for (const f of document.querySelectorAll('[data-policy]')) {
    f.value = chosen.get(f.dataset.policy) ?? f.dataset.default;
  }
}

// Completion of the instruction text: the module lists the words that keep it valid.
function showCompletions() {
  const c = gpufp.complete($('instr').value, state.target, state.ptx);
  const list = $('completions');
  list.replaceChildren();
  active = -1;
  const typed = $('instr').value.slice(c.start);
  const only = c.candidates.length === 1 && c.candidates[0].word === typed;
  if (c.candidates.length === 0 || only) return hideCompletions();
  c.candidates.forEach((cand) => {
    const li = el('li', { textContent: cand.word, className: cand.complete ? 'complete' : '' });
    li.setAttribute('role', 'option');
    li.addEventListener('mousedown', (ev) => { ev.preventDefault(); accept(cand); });
    li.dataset.text = cand.text;
    li.dataset.complete = cand.complete ? '1' : '';
    list.append(li);
  });
  list.hidden = false;
}

function hideCompletions() {
  $('completions').hidden = true;
  active = -1;
}

function accept(cand) {
  $('instr').value = cand.text + (cand.complete ? '' : '.');
  state.instr = $('instr').value;
  update();
  showCompletions();
  $('instr').focus();
}

function completionKeys(ev) {
  const items = [...$('completions').children];
  if ($('completions').hidden || items.length === 0) return;
  if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
    ev.preventDefault();
    active = (active + (ev.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length;
    items.forEach((li, k) => li.classList.toggle('active', k === active));
    items[active].scrollIntoView({ block: 'nearest' });
  } else if (ev.key === 'Tab' || (ev.key === 'Enter' && active >= 0)) {
    ev.preventDefault();
    const li = items[Math.max(active, 0)];
    accept({ text: li.dataset.text, complete: li.dataset.complete === '1' });
  } else if (ev.key === 'Escape') {
    hideCompletions();
  }
}

// Bits: one lane's bits, top bit first, coloured by field; operand bits are buttons.
function laneView(lane, k, layout, operand) {
  const bits = BigInt(lane.bits);
  const row = el('div', { className: 'bits' });
  for (let i = layout.bits - 1; i >= 0; i--) {
    const field = i === layout.bits - 1 ? 'sign' : i >= layout.fraction ? 'exponent' : 'fraction';
    const one = (bits >> BigInt(i)) & 1n;
    const props = { className: `bit ${field}`, textContent: one ? '1' : '0', title: `${field}, bit ${i}` };
    const bit = operand === undefined ? el('span', props) : el('button', { ...props, type: 'button' });
    if (operand !== undefined) {
      bit.dataset.operand = String(operand);
      bit.dataset.bit = String(k * layout.bits + i);
      bit.addEventListener('click', () => flip(operand, k * layout.bits + i));
    }
    row.append(bit);
  }
  const name = layout.lanes > 1 ? `lane ${k}: ` : '';
  return el('div', { className: 'lane' },
    el('span', { className: 'lane-name', textContent: `${name}${lane.bits}` }),
    row,
    el('span', { className: 'value', textContent: lane.value }));
}

function lanesView(value, layout, operand) {
  return value.lanes.map((lane, k) => laneView(lane, k, layout, operand));
}

function flip(operand, bit) {
  const e = lastEvaluation;
  const width = e.layout.bits * e.layout.lanes;
  const bits = BigInt(e.operands[operand].bits) ^ (1n << BigInt(bit));
  state.operands[operand] = `0x${bits.toString(16).padStart(width / 4, '0')}`;
  update();
}

let lastEvaluation = null;

function operandBlocks(n) {
  const box = $('operands');
  while (box.children.length > n) box.lastChild.remove();
  while (box.children.length < n) {
    const k = box.children.length;
    const input = el('input', { type: 'text', id: `op${k}`, spellcheck: false, autocomplete: 'off' });
    input.placeholder = '0x bits, 0f/0d literal, decimal, or {lane0, lane1}';
    input.addEventListener('input', () => { state.operands[k] = input.value; update(); });
    box.append(el('div', { className: 'operand' },
      el('label', { htmlFor: `op${k}`, textContent: `operand ${NAMES[k]}` }),
      input,
      el('div', { className: 'lanes', id: `op${k}-lanes` }),
      el('div', { className: 'error', id: `op${k}-error` })));
  }
  for (let k = 0; k < n; k++) {
    const input = $(`op${k}`);
    state.operands[k] ??= '';
    if (input.value !== state.operands[k]) input.value = state.operands[k];
  }
}

function list(id, items) {
  $(id).replaceChildren(...items.map((t) => el('li', { textContent: t })));
}

function update() {
  try {
    render();
  } catch (err) {
    $('check').textContent = `internal error: ${err}`;
    $('check').className = 'check bad';
  }
}

function render() {
  const c = gpufp.check(state.instr, state.target, state.ptx, 0);
  $('three-box').hidden = !(c.ok && c.three);
  if (c.ok && !c.three) state.three = false;
  const n = c.ok ? (c.three && state.three ? 3 : c.inputs) : $('operands').children.length || 1;
  operandBlocks(n);
  if (c.ok) {
    const needs = `needs ${c.min_target}, PTX ISA ${c.min_ptx}`;
    $('check').textContent = c.effective ? `valid (means ${c.effective}); ${needs}` : `valid; ${needs}`;
    $('check').className = 'check ok';
  } else {
    $('check').textContent = c.error.message;
    $('check').className = 'check bad';
  }
  const operands = state.operands.slice(0, n);
  const e = c.ok ? gpufp.evaluate(state.instr, operands, state.target, state.ptx, state.policies) : null;
  lastEvaluation = e && e.ok ? e : null;
  for (let k = 0; k < $('operands').children.length; k++) {
    const bad = e && !e.ok && e.error.operand === k;
    $(`op${k}-error`).textContent = bad ? e.error.message : '';
    $(`op${k}-lanes`).replaceChildren(...(lastEvaluation ? lanesView(e.operands[k], e.layout ?? c.layout, k) : []));
  }
  $('result').hidden = !lastEvaluation;
  if (e && !e.ok && e.error.operand == null) {
    $('check').textContent = e.error.message;
    $('check').className = 'check bad';
  }
  $('command').textContent = e ? `$ ${gpufp.command(state.instr, operands, state.target, state.ptx, state.policies)}` : '';
  $('cli-text').textContent = lastEvaluation ? e.text : e ? `error: ${e.error.message}` : '';
  if (lastEvaluation) showResult(e);
  history.replaceState(null, '', toUrl());
  document.body.dataset.key = JSON.stringify([state.instr, operands, state.target, state.ptx, state.policies]);
  document.body.dataset.evaluations = String(++evaluations);
  if (evaluations === 1) {
    window.gpufpTiming.firstResult = performance.now();
    $('timing').textContent = `First result ${window.gpufpTiming.firstResult.toFixed(0)} ms after the page started loading.`;
  }
}

function showResult(e) {
  $('result-lanes').replaceChildren(...(e.layout ? lanesView(e, e.layout) : []));
  $('result-bits').textContent = e.result;
  $('result-value').textContent = e.value ?? (e.result === '1' ? 'true' : 'false');
  $('exact').textContent = e.exact ? 'every bit determined by the manual' : '';
  $('effective').hidden = !e.effective;
  $('effective').textContent = e.effective ? `means ${e.effective}` : '';
  list('warnings', e.warnings);
  list('rules', e.rules.length ? e.rules : ['none beyond the operation itself']);
  list('guarantees', e.guarantees.map((g, k) => (e.guarantees.length > 1 ? `lane ${k}: ${g}` : g)));
  list('alternatives', e.alternatives.length
    ? e.alternatives.map((a) => `with ${a.policy} = ${a.value}, the result is ${a.result}`)
    : ['no other value of any unverified policy changes this result']);
}

async function share() {
  const url = new URL(toUrl(), location.href).href;
  try {
    await navigator.clipboard.writeText(url);
    $('share-note').textContent = 'copied';
  } catch {
    $('share-note').textContent = url;
  }
}

setup();
toFields();
update();
