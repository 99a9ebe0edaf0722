// Runs models with onnxruntime-node for tests/ort/make_tests.py: reads MANIFEST.json
// ([{dir, inputs: [{name, dtype, dims, file}]}]), runs DIR/model.onnx on the raw
// little-endian input files and writes DIR/ort_out_N.bin (raw data) and DIR/ort_out.json
// ([{name, dtype, dims}]) for every output, in the model's output order. String
// tensors travel as JSON arrays of strings instead of raw data (ort_out_N.json).
// usage: node run_ort.mjs MANIFEST.json ORT_DIR
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [manifestPath, ortDir] = process.argv.slice(2);
if (!manifestPath || !ortDir) {
  console.error('usage: node run_ort.mjs MANIFEST.json ORT_DIR');
  process.exit(2);
}
const require = createRequire(join(ortDir, 'package.json'));
let ort;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  console.error(`run_ort: cannot load onnxruntime-node from ${ortDir}: ${e.message}`);
  process.exit(1);
}
const ARRAYS = { float32: Float32Array, float64: Float64Array, int64: BigInt64Array,
                 int32: Int32Array, uint8: Uint8Array, int8: Int8Array, bool: Uint8Array,
                 int16: Int16Array, uint16: Uint16Array, uint32: Uint32Array,
                 uint64: BigUint64Array, float16: Uint16Array /* the bits, as ORT takes them */ };

const cases = JSON.parse(readFileSync(manifestPath, 'utf8'));
let failed = 0;
for (const c of cases) {
  try {
    const session = await ort.InferenceSession.create(join(c.dir, 'model.onnx'),
                                                      { intraOpNumThreads: 1 });
    const feeds = {};
    for (const inp of c.inputs) {
      const b = readFileSync(inp.file);
      if (inp.dtype === 'string') {
        feeds[inp.name] = new ort.Tensor('string', JSON.parse(b.toString('utf8')), inp.dims);
        continue;
      }
      const T = ARRAYS[inp.dtype];
      const data = new T(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
      feeds[inp.name] = new ort.Tensor(inp.dtype, data, inp.dims);
    }
    const res = await session.run(feeds);
    const meta = [];
    session.outputNames.forEach((name, i) => {
      const t = res[name];
      const d = t.data;
      if (t.type === 'string')
        writeFileSync(join(c.dir, `ort_out_${i}.json`), JSON.stringify(Array.from(d)));
      else
        writeFileSync(join(c.dir, `ort_out_${i}.bin`),
                      Buffer.from(d.buffer, d.byteOffset, d.byteLength));
      meta.push({ name, dtype: t.type, dims: t.dims.map(Number) });
    });
    writeFileSync(join(c.dir, 'ort_out.json'), JSON.stringify(meta));
  } catch (e) {
    console.error(`run_ort: ${c.dir}: ${String(e.message || e).split('\n')[0]}`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
