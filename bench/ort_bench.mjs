// The ONNX Runtime side of the benchmark: loads a model into onnxruntime-node (installed
// under bench/.ort by run.sh), times `await session.run()` and, through the binding's own
// synchronous run (what the async API wraps in setImmediate), the run without the promise
// and event-loop overhead; prints one `ort ...` line a shell script can parse.
//
// usage: node ort_bench.mjs MODEL.onnx --input X.npy [--input ...] [--threads N]
//        [--warmup W] [--runs N | --time-ms T] [--once] [--output-dir D] [--ort-dir DIR]
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function usage(msg) {
  if (msg) console.error(`ort_bench: ${msg}`);
  console.error('usage: node ort_bench.mjs MODEL.onnx --input X.npy [--input ...] [--threads N]\n' +
                '       [--warmup W] [--runs N | --time-ms T] [--once] [--output-dir D] [--ort-dir DIR]');
  process.exit(2);
}

const args = { inputs: [], threads: 1, warmup: 10, runs: 0, timeMs: 2000, once: false,
               outDir: null, ortDir: join(dirname(fileURLToPath(import.meta.url)), '.ort'),
               model: null };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  const val = () => (++i < process.argv.length ? process.argv[i] : usage(`${a} needs a value`));
  const num = () => { const v = Number(val()); if (!(v > 0)) usage(`${a} needs a positive number`); return v; };
  if (a === '--input') args.inputs.push(val());
  else if (a === '--threads') args.threads = num();
  else if (a === '--warmup') args.warmup = Number(val());
  else if (a === '--runs') args.runs = num();
  else if (a === '--time-ms') args.timeMs = num();
  else if (a === '--once') args.once = true;
  else if (a === '--output-dir') args.outDir = val();
  else if (a === '--ort-dir') args.ortDir = val();
  else if (!a.startsWith('-') && !args.model) args.model = a;
  else usage(`unknown argument '${a}'`);
}
if (!args.model) usage('no model');

const require = createRequire(join(args.ortDir, 'package.json'));
let ort, nativeBinding;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  console.error(`ort_bench: cannot load onnxruntime-node from ${args.ortDir} (run bench/run.sh ` +
                `to install it): ${e.message}`);
  process.exit(1);
}
try {
  nativeBinding = require('onnxruntime-node/dist/binding.js');   // internal; pinned version
} catch {
  nativeBinding = null;
}

// .npy (versions 1-3, C order, little-endian) -> ort.Tensor
const NPY_TYPES = { '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
                    '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array],
                    '|u1': ['uint8', Uint8Array], '|i1': ['int8', Int8Array], '|b1': ['bool', Uint8Array] };
function readNpy(path) {
  const b = readFileSync(path);
  if (b.length < 10 || b.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(`${path}: not a .npy file`);
  const hlen = b[6] === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const hoff = b[6] === 1 ? 10 : 12;
  const h = b.toString('latin1', hoff, hoff + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(h)?.[1];
  const shape = (/'shape':\s*\(([^)]*)\)/.exec(h)?.[1] ?? '').split(',').filter(s => s.trim()).map(Number);
  if (/'fortran_order':\s*True/.test(h)) throw new Error(`${path}: Fortran order is not supported`);
  const t = NPY_TYPES[descr];
  if (!t) throw new Error(`${path}: dtype ${descr} is not supported`);
  const n = shape.reduce((x, y) => x * y, 1);
  const data = new t[1](n);
  const off = hoff + hlen;
  new Uint8Array(data.buffer).set(b.subarray(off, off + data.byteLength));
  return new ort.Tensor(t[0], t[0] === 'bool' ? Uint8Array.from(data) : data, shape);
}

function writeNpy(path, tensor) {
  const descr = Object.entries(NPY_TYPES).find(([, v]) => v[0] === tensor.type)?.[0];
  if (!descr) throw new Error(`output type ${tensor.type} cannot be written as .npy`);
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let h = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  h += ' '.repeat(63 - ((h.length + 10) % 64)) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1; head[7] = 0;
  head.writeUInt16LE(h.length, 8);
  const data = tensor.data;
  writeFileSync(path, Buffer.concat([head, Buffer.from(h, 'latin1'),
                                     Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

const nowUs = () => Number(process.hrtime.bigint()) / 1000;
const pct = (s, p) => s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))];
const stats = t => { const s = [...t].sort((a, b) => a - b); return [s[s.length >> 1], pct(s, 10), pct(s, 90)]; };
const fmt = v => v.toFixed(2);

const options = { intraOpNumThreads: args.threads, interOpNumThreads: 1,
                  graphOptimizationLevel: 'all', executionMode: 'sequential',
                  executionProviders: ['cpu'] };
const session = await ort.InferenceSession.create(args.model, options);
if (args.inputs.length !== session.inputNames.length)
  usage(`model has ${session.inputNames.length} inputs, got ${args.inputs.length} --input files`);
const feeds = {};
session.inputNames.forEach((name, i) => { feeds[name] = readNpy(args.inputs[i]); });

if (args.once) {
  const out = await session.run(feeds);
  if (args.outDir)
    session.outputNames.forEach((name, i) => writeNpy(join(args.outDir, `output_${i}.npy`), out[name]));
  console.log(`ort once ok outputs=${session.outputNames.length} maxrss_kb=${process.resourceUsage().maxRSS}`);
  process.exit(0);
}

// warm-up, also estimating a run's time so that --time-ms picks the count
let t0 = nowUs();
for (let i = 0; i < args.warmup; i++) await session.run(feeds);
const est = args.warmup > 0 ? (nowUs() - t0) / args.warmup : 1000;
const runs = args.runs || Math.max(5, Math.min(5000, Math.round((args.timeMs * 1000) / Math.max(est, 1))));

const asyncT = [];
for (let i = 0; i < runs; i++) {
  t0 = nowUs();
  await session.run(feeds);
  asyncT.push(nowUs() - t0);
}
// peak RSS of the process with one session, before the second session below exists
const maxRss = process.resourceUsage().maxRSS;
await session.release();

let syncPart = 'sync_median_us=na';
if (nativeBinding && nativeBinding.binding && nativeBinding.initOrt) {
  nativeBinding.initOrt();
  const s = new nativeBinding.binding.InferenceSession();
  s.loadModel(args.model, options);
  const fetches = {};
  for (const m of s.outputMetadata) fetches[m.name] = null;
  for (let i = 0; i < args.warmup; i++) s.run(feeds, fetches, {});
  const syncT = [];
  for (let i = 0; i < runs; i++) {
    t0 = nowUs();
    s.run(feeds, fetches, {});
    syncT.push(nowUs() - t0);
  }
  s.dispose();
  const [m, p10, p90] = stats(syncT);
  syncPart = `sync_median_us=${fmt(m)} sync_p10_us=${fmt(p10)} sync_p90_us=${fmt(p90)}`;
}
const [m, p10, p90] = stats(asyncT);
console.log(`ort version=${ort.env.versions?.node ?? 'unknown'} threads=${args.threads} runs=${runs} ` +
            `median_us=${fmt(m)} p10_us=${fmt(p10)} p90_us=${fmt(p90)} ${syncPart} maxrss_kb=${maxRss}`);
