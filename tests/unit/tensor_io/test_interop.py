#!/usr/bin/python3
"""Interop tests of runtime-stubs/ingot_tensor_io.c against onnx and numpy themselves.

usage: test_interop.py TIO_TOOL ONNX_TESTS_DIR
Files are generated here at test time (nothing binary is committed): TensorProtos from
onnx.numpy_helper.from_array (raw_data) and onnx.helper.make_tensor (typed fields),
.npy files from numpy (versions 1.0, 2.0, 3.0, big-endian); every one is read by
TIO_TOOL and compared with what onnx/numpy decode, then converted by TIO_TOOL and read
back with onnx.load_tensor / numpy.load. Every input/output .pb of the ONNX node tests
under ONNX_TESTS_DIR/node (the build's onnx-tests, generated here by
tests/conformance/generate.py when absent) is read too (every third test's in the
sanitizer build); without that data the test fails. Exits 77 (skip) without onnx/numpy.
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:  # pragma: no cover
    print('skipping: %s' % e)
    sys.exit(77)

if len(sys.argv) != 3:
    sys.exit(__doc__)
TOOL, ONNX_TESTS = sys.argv[1], sys.argv[2]
GENERATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'conformance',
                        'generate.py')
failures = []

DTYPES = [  # (ONNX data_type, numpy dtype)
    (TensorProto.FLOAT, np.float32), (TensorProto.UINT8, np.uint8),
    (TensorProto.INT8, np.int8), (TensorProto.UINT16, np.uint16),
    (TensorProto.INT16, np.int16), (TensorProto.INT32, np.int32),
    (TensorProto.INT64, np.int64), (TensorProto.BOOL, np.bool_),
    (TensorProto.FLOAT16, np.float16), (TensorProto.DOUBLE, np.float64),
    (TensorProto.UINT32, np.uint32), (TensorProto.UINT64, np.uint64),
]
NP_TO_ONNX = {np.dtype(n): o for o, n in DTYPES}
SHAPES = [(), (3,), (2, 3), (2, 1, 3), (1, 2, 3, 2), (0, 3)]
rng = np.random.default_rng(7)


def fail(what):
    failures.append(what)
    print('FAIL ' + what)


def sample(dt, shape):
    dt = np.dtype(dt)
    n = int(np.prod(shape)) if shape else 1
    if dt == np.bool_:
        a = rng.integers(0, 2, n).astype(np.bool_)
    elif dt.kind == 'f':
        a = (rng.standard_normal(n) * 100).astype(dt)
        special = np.array([np.nan, np.inf, -np.inf, -0.0, np.finfo(dt).max,
                            np.finfo(dt).tiny], dtype=dt)
        a[:min(n, len(special))] = special[:n]
    else:
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        a[:min(n, 2)] = [info.min, info.max][:n]
    return a.reshape(shape)


def tool(*args):
    return subprocess.run([TOOL] + list(args), capture_output=True, text=True)


def parse_line(line, raw):
    """(meta dict, data bytes) or (None, error line) for one line of `tio_tool read`"""
    if not line.startswith('dtype='):
        return None, line + '\n'
    head, name = line.split(' name=', 1)   # the name may hold spaces
    meta = dict(kv.split('=', 1) for kv in head.split())
    meta['name'] = name
    with open(raw, 'rb') as f:
        return meta, f.read()


def tool_read_many(pairs):
    r = tool('read', *[x for p in pairs for x in p])
    lines = r.stdout.split('\n')
    if r.returncode not in (0, 1) or r.stderr or len(lines) != len(pairs) + 1:
        return [(None, 'tool crashed (rc %d): %s' % (r.returncode, r.stderr))] * len(pairs)
    return [parse_line(line, raw) for line, (_, raw) in zip(lines, pairs)]


def tool_read(path, raw):
    return tool_read_many([(path, raw)])[0]


def slots(strings):
    """string elements as ingot stores them: INGOT_STRING_CAP (64) byte slots"""
    return b''.join(bytes(w).ljust(64, b'\0') for w in strings)


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def check_read(label, path, want_dtype, want_shape, want_bytes, want_name, tmp, got=None):
    meta, data = got or tool_read(path, os.path.join(tmp, 'raw.bin'))
    if meta is None:
        fail('%s: read failed: %s' % (label, data.strip()))
        return False
    dims = ','.join(str(d) for d in want_shape)
    got = (int(meta['dtype']), meta['dims'], data, meta['name'])
    want = (want_dtype, dims, want_bytes, want_name)
    if got != want:
        fail('%s: got dtype=%s dims=%s name=%r bytes=%r, expected dtype=%s dims=%s name=%r bytes=%r'
             % (label, got[0], got[1], got[3], got[2][:32], want[0], want[1], want[3], want[2][:32]))
        return False
    return True


def check_convert(label, src, arr, tmp, name=''):
    """src converted to .pb and .npy by the tool reads back as arr in onnx and numpy"""
    out_pb, out_npy = os.path.join(tmp, 'conv.pb'), os.path.join(tmp, 'conv.npy')
    for out in (out_pb, out_npy):
        r = tool('convert', src, out)
        if r.returncode != 0:
            fail('%s -> %s: %s' % (label, out, r.stderr.strip()))
            return
    t = onnx.load_tensor(out_pb)
    back = numpy_helper.to_array(t)
    if not same(back, arr) or not t.HasField('raw_data') or t.name != name:
        fail('%s: .pb written by the tool reads back as %r (name %r)' % (label, back, t.name))
    back = np.load(out_npy)
    if not same(back, arr):
        fail('%s: .npy written by the tool reads back as %r' % (label, back))


def expect_error(label, path, want, tmp, got=None):
    meta, msg = got or tool_read(path, os.path.join(tmp, 'raw.bin'))
    if meta is not None:
        fail('%s: read succeeded, expected an error' % label)
    elif want not in msg or msg.count('\n') != 1 or not msg.startswith('error: '):
        fail('%s: expected a one-line error with %r, got %r' % (label, want, msg))


def run(tmp):
    pb, npy = os.path.join(tmp, 'x.pb'), os.path.join(tmp, 'x.npy')
    for onnx_dt, np_dt in DTYPES:
        for shape in SHAPES:
            arr = sample(np_dt, shape)
            lab = '%s%s' % (np.dtype(np_dt).name, list(shape))
            # raw_data, as from_array writes it
            onnx.save_tensor(numpy_helper.from_array(arr, 'in_' + lab), pb)
            if check_read(lab + ' from_array', pb, onnx_dt, shape, arr.tobytes(), 'in_' + lab, tmp):
                check_convert(lab + ' from_array', pb, arr, tmp, 'in_' + lab)
            # typed fields, as make_tensor writes them
            t = helper.make_tensor('typed', onnx_dt, shape, arr.flatten().tolist())
            onnx.save_tensor(t, pb)
            if t.HasField('raw_data'):
                fail(lab + ': make_tensor wrote raw_data')
            want = numpy_helper.to_array(t)
            if check_read(lab + ' make_tensor', pb, onnx_dt, shape, want.tobytes(), 'typed', tmp):
                check_convert(lab + ' make_tensor', pb, want, tmp, 'typed')
            # numpy files, every version, and big-endian
            np.save(npy, arr)
            if check_read(lab + ' np.save', npy, onnx_dt, shape, arr.tobytes(), '', tmp):
                check_convert(lab + ' np.save', npy, arr, tmp)
            for version in ((2, 0), (3, 0)):
                with open(npy, 'wb') as f:
                    np.lib.format.write_array(f, arr, version=version)
                check_read('%s npy v%d' % (lab, version[0]), npy, onnx_dt, shape, arr.tobytes(), '', tmp)
            if np.dtype(np_dt).itemsize > 1:
                np.save(npy, arr.astype(np.dtype(np_dt).newbyteorder('>')))
                check_read(lab + ' big-endian npy', npy, onnx_dt, shape, arr.tobytes(), '', tmp)

    # bfloat16: no numpy dtype; onnx gives float32 values, the tool the uint16 bits
    for shape in SHAPES:
        f32 = sample(np.float32, shape)
        lab = 'bfloat16%s' % list(shape)
        for raw in (False, True):
            if raw:
                bits = (f32.view(np.uint32) >> 16).astype(np.uint16)
                t = helper.make_tensor('bf', TensorProto.BFLOAT16, shape, bits.tobytes(), raw=True)
            else:
                t = helper.make_tensor('bf', TensorProto.BFLOAT16, shape, f32.flatten().tolist())
            onnx.save_tensor(t, pb)
            ref = numpy_helper.to_array(t).astype(np.float32)
            bits = (ref.view(np.uint32) >> 16).astype(np.uint16)
            if not check_read('%s raw=%s' % (lab, raw), pb, TensorProto.BFLOAT16, shape,
                              bits.tobytes(), 'bf', tmp):
                continue
            out_pb, out_npy = os.path.join(tmp, 'bf.pb'), os.path.join(tmp, 'bf.npy')
            if tool('convert', pb, out_pb).returncode or tool('convert', pb, out_npy).returncode:
                fail(lab + ': convert failed')
                continue
            t2 = onnx.load_tensor(out_pb)
            back = numpy_helper.to_array(t2)
            if t2.data_type != TensorProto.BFLOAT16 or back.tobytes() != ref.tobytes() \
                    or back.shape != shape:
                fail(lab + ': .pb written by the tool differs')
            back = np.load(out_npy)
            if not same(back, bits):
                fail(lab + ': .npy written by the tool is not the uint16 bits')

    # errors: one line each, never a crash
    arr = sample(np.float32, (4, 5))
    blob = numpy_helper.from_array(arr, 'w').SerializeToString()
    for cut in (1, 3, len(blob) // 2, len(blob) - 1):
        with open(pb, 'wb') as f:
            f.write(blob[:cut])
        expect_error('truncated .pb at %d' % cut, pb, '', tmp)
    np.save(npy, arr)
    with open(npy, 'rb') as f:
        data = f.read()
    for cut, want in ((5, ''), (9, 'truncated'), (40, 'truncated .npy header'),
                      (len(data) - 4, 'expected 80')):
        with open(npy, 'wb') as f:
            f.write(data[:cut])
        expect_error('truncated .npy at %d' % cut, npy, want, tmp)
    np.save(npy, np.asfortranarray(arr))
    expect_error('fortran .npy', npy, 'Fortran order', tmp)
    np.save(npy, np.ones(3, np.complex64))
    expect_error('complex .npy', npy, "'<c8'", tmp)
    np.save(npy, np.array(['ab', 'c']))
    expect_error('unicode .npy', npy, "'<U2'", tmp)
    np.save(npy, np.array([{}, 1], dtype=object), allow_pickle=True)
    expect_error('object .npy', npy, "'|O'", tmp)
    np.save(npy, np.zeros(2, dtype=[('a', '<f4'), ('b', '<i4')]))
    expect_error('structured .npy', npy, 'structured', tmp)
    # strings: zero-padded 64-byte slots, written back as string_data (and not as .npy)
    words = [b'a', b'', 'caf\u00e9'.encode(), b'x' * 63]
    onnx.save_tensor(helper.make_tensor('s', TensorProto.STRING, [2, 2], words), pb)
    if check_read('string tensor', pb, TensorProto.STRING, (2, 2), slots(words), 's', tmp):
        out_pb = os.path.join(tmp, 'conv.pb')
        r = tool('convert', pb, out_pb)
        back = onnx.load_tensor(out_pb) if r.returncode == 0 else None
        if back is None or list(back.string_data) != words or list(back.dims) != [2, 2]:
            fail('string tensor: the .pb written by the tool differs (%s)' % r.stderr.strip())
        r = tool('convert', pb, os.path.join(tmp, 'conv.npy'))
        if r.returncode == 0 or '.pb only' not in r.stderr:
            fail('string tensor: writing .npy should fail, got %r' % r.stderr)
    onnx.save_tensor(helper.make_tensor('s', TensorProto.STRING, [1], [b'y' * 64]), pb)
    expect_error('string longer than a slot', pb, 'has 64 bytes, at most 63 fit', tmp)
    onnx.save_tensor(helper.make_tensor('c', TensorProto.COMPLEX64, [1], [1 + 2j]), pb)
    expect_error('complex tensor', pb, 'complex64', tmp)
    t = TensorProto(name='e', data_type=TensorProto.FLOAT, dims=[2])
    t.data_location = TensorProto.EXTERNAL
    e = t.external_data.add()
    e.key, e.value = 'location', 'weights.bin'
    onnx.save_tensor(t, pb)
    expect_error('external data', pb, 'external data', tmp)
    t = numpy_helper.from_array(arr, 'w')
    t.dims[0] = 5
    onnx.save_tensor(t, pb)
    expect_error('dims vs raw_data', pb, 'raw_data has 80 bytes, expected 100 for float32[5,5]', tmp)
    t = TensorProto(name='m', data_type=TensorProto.INT64, dims=[3], int64_data=[1, 2])
    onnx.save_tensor(t, pb)
    expect_error('too few int64_data', pb, 'int64_data has 2 values, expected 3', tmp)
    t = TensorProto(name='m', data_type=TensorProto.INT64, dims=[-1])
    onnx.save_tensor(t, pb)
    expect_error('negative dim', pb, 'negative', tmp)
    with open(pb, 'wb') as f:
        f.write(b'\xff' * 16)
    expect_error('garbage', pb, 'varint', tmp)
    expect_error('missing file', os.path.join(tmp, 'nope.pb'), 'nope.pb', tmp)


def node_tests(tmp):
    """every input/output .pb of the ONNX backend node tests reads as onnx reads it"""
    r = subprocess.run([sys.executable, GENERATE, ONNX_TESTS])
    root = os.path.join(ONNX_TESTS, 'node')
    if r.returncode or not os.path.isdir(root):
        fail('node-test data: %s absent and generate.py failed (rc %d)' % (root, r.returncode))
        return
    n = 0
    # the sanitizer build (INGOT_TEST_SANITIZED=1, meson's test setup) reads every third
    # test's files under ASan: the plain build reads them all
    step = 3 if os.environ.get('INGOT_TEST_SANITIZED') == '1' else 1
    for test in sorted(os.listdir(root))[::step]:
        ds = os.path.join(root, test, 'test_data_set_0')
        if not os.path.isdir(ds):
            continue
        paths = [os.path.join(ds, fn) for fn in sorted(os.listdir(ds)) if fn.endswith('.pb')]
        if not paths:
            continue
        results = tool_read_many([(p, os.path.join(tmp, 'raw%d.bin' % i))
                                  for i, p in enumerate(paths)])
        for path, got in zip(paths, results):
            t = onnx.load_tensor(path)
            if t.data_type == 0:          # a sequence or optional, not a TensorProto
                continue
            lab = '%s/%s' % (test, os.path.basename(path))
            if t.data_type == TensorProto.STRING:
                check_read(lab, path, t.data_type, tuple(t.dims), slots(t.string_data), t.name,
                           tmp, got)
                n += 1
                continue
            if t.data_type in (TensorProto.COMPLEX64, TensorProto.COMPLEX128):
                expect_error(lab, path, 'not supported', tmp, got)
                continue
            try:
                ref = numpy_helper.to_array(t)
            except ValueError:            # a SequenceProto/OptionalProto read as a tensor
                expect_error(lab, path, '', tmp, got)
                continue
            if t.data_type == TensorProto.BFLOAT16:
                ref = (ref.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
            check_read(lab, path, t.data_type, tuple(t.dims), ref.tobytes(), t.name, tmp, got)
            n += 1
    print('node-test data: %d tensors checked' % n)
    if n < 2500 // step:                  # ONNX 1.12's 922 tests hold 2,809
        fail('node-test data: only %d tensors under %s' % (n, root))


def main():
    with tempfile.TemporaryDirectory(prefix='ingot-tio-') as tmp:
        run(tmp)
        node_tests(tmp)
    if failures:
        print('%d failure(s)' % len(failures))
        sys.exit(1)
    print('tensor_io interop: all checks passed')


if __name__ == '__main__':
    main()
