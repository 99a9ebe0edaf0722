#!/usr/bin/python3
"""Seed corpora for the libFuzzer targets (docs/testing.md#fuzzing), one folder per
target under OUT, made from what the tests already generate (nothing is committed):
  load, pipeline  the conformance models (tests/conformance/generate.py's DATA/node/*/model.onnx),
                  the exported models under MODELS if given, and small models built here
  ir              the golden IR files (tests/golden/cases: each # input and # expected
                  section) and, with INGOT, `inspect --dump-ir` of some conformance models
  tensor          the conformance test data (.pb) and .npy files of every dtype made here
  image           the ImageDecoder test images (tests/driver/imgdec_images.py), each
                  behind a format byte (fuzz_image.c: RGB, BGR, gray)
Usage: make_seeds.py OUT ONNX_TESTS [--ingot INGOT] [--models DIR] [--max N]
--max N keeps every Nth file of the large sets so that a short run (CI's) reads
its corpus quickly."""
import argparse
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def put(out, name, data):
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data)


def thin(files, cap):
    files = sorted(files)
    if cap and len(files) > cap:
        step = len(files) / cap
        files = [files[int(i * step)] for i in range(cap)]
    return files


def small_models(out):
    """A few graphs the conformance set lacks: an If, a Loop, external-free initializers."""
    import numpy as np
    import onnx
    from onnx import helper as h, numpy_helper, TensorProto as T
    cond = h.make_tensor_value_info('c', T.BOOL, [])
    x = h.make_tensor_value_info('x', T.FLOAT, [2, 3])
    y = h.make_tensor_value_info('y', T.FLOAT, [2, 3])
    then_g = h.make_graph([h.make_node('Relu', ['x'], ['t'])], 'then', [],
                          [h.make_tensor_value_info('t', T.FLOAT, [2, 3])])
    else_g = h.make_graph([h.make_node('Neg', ['x'], ['e'])], 'else', [],
                          [h.make_tensor_value_info('e', T.FLOAT, [2, 3])])
    g = h.make_graph([h.make_node('If', ['c'], ['y'], then_branch=then_g, else_branch=else_g)],
                     'if', [cond, x], [y])
    put(out, 'small_if.onnx', h.make_model(g, opset_imports=[h.make_opsetid('', 17)]).SerializeToString())
    w = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(3, 4), 'w')
    nodes = [h.make_node('MatMul', ['x', 'w'], ['m']), h.make_node('Relu', ['m'], ['r']),
             h.make_node('Softmax', ['r'], ['y'], axis=-1)]
    g = h.make_graph(nodes, 'mlp', [x], [h.make_tensor_value_info('y', T.FLOAT, [2, 4])], [w])
    put(out, 'small_mlp.onnx', h.make_model(g, opset_imports=[h.make_opsetid('', 13)]).SerializeToString())


def npy_seeds(out):
    import numpy as np
    import io
    for dt in ('float32', 'float64', 'float16', 'int8', 'uint8', 'int16', 'int32', 'int64',
               'uint16', 'uint32', 'uint64', 'bool', '>f4', '>i8'):
        for shape in ((), (3,), (2, 3)):
            b = io.BytesIO()
            np.save(b, np.arange(int(np.prod(shape)), dtype=np.int64).astype(dt).reshape(shape))
            put(out, 'npy_%s_%d.npy' % (dt.replace('>', 'be'), len(shape)), b.getvalue())
    b = io.BytesIO()
    np.lib.format.write_array(b, np.ones((2, 2), np.float32), version=(2, 0))
    put(out, 'npy_v2.npy', b.getvalue())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('onnx_tests')
    ap.add_argument('--ingot')
    ap.add_argument('--models')
    ap.add_argument('--max', type=int, default=0)
    a = ap.parse_args()
    subprocess.check_call(['/usr/bin/python3', os.path.join(ROOT, 'tests/conformance/generate.py'),
                           a.onnx_tests])
    dirs = {t: os.path.join(a.out, t) for t in ('load', 'pipeline', 'ir', 'tensor', 'image')}
    for d in dirs.values():
        os.makedirs(d, exist_ok=True)
    models = thin(glob.glob(os.path.join(a.onnx_tests, 'node/*/model.onnx')), a.max)
    if a.models:
        models += sorted(p for p in glob.glob(os.path.join(a.models, '*/model.onnx'))
                         if os.path.getsize(p) < (1 << 20))
    for m in models:
        data = open(m, 'rb').read()
        name = os.path.basename(os.path.dirname(m)) + '.onnx'
        put(dirs['load'], name, data)
        put(dirs['pipeline'], name, data)
    small_models(dirs['load'])
    small_models(dirs['pipeline'])

    for g in sorted(glob.glob(os.path.join(ROOT, 'tests/golden/cases/*.golden'))):
        section, parts = None, {}
        for line in open(g):
            if line.startswith('# input') or line.startswith('# expected'):
                section = line.split()[1]
                parts[section] = []
            elif section and not line.startswith('# '):
                parts[section].append(line)
        for s, lines in parts.items():
            put(dirs['ir'], '%s_%s.ir' % (os.path.basename(g)[:-7], s), ''.join(lines).encode())
    if a.ingot:
        for m in thin(models, 120):
            r = subprocess.run([a.ingot, 'inspect', '--dump-ir', '-', m], capture_output=True)
            if r.returncode == 0 and len(r.stdout) < (64 << 10):
                put(dirs['ir'], os.path.basename(os.path.dirname(m)) + '.ir', r.stdout)

    pbs = thin(glob.glob(os.path.join(a.onnx_tests, 'node/*/test_data_set_0/*.pb')), a.max * 2)
    for p in pbs:
        parts = p.split(os.sep)
        put(dirs['tensor'], parts[-3] + '_' + parts[-1], open(p, 'rb').read())
    npy_seeds(dirs['tensor'])

    sys.path.insert(0, os.path.join(ROOT, 'tests/driver'))
    import imgdec_images
    for k, case in enumerate(imgdec_images.all_cases()):
        name, data = case[0], case[1]
        if len(data) < (256 << 10):
            put(dirs['image'], '%s.bin' % name.replace('/', '_'), bytes([k % 3]) + data)
    for t, d in dirs.items():
        print('%s: %d seeds' % (t, len(os.listdir(d))))


if __name__ == '__main__':
    main()
