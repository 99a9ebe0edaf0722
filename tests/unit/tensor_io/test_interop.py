#!/usr/bin/python3
"""Interop tests of runtime-stubs/ingot_tensor_io.c against onnx and numpy themselves.

usage: test_interop.py TIO_TOOL ONNX_TESTS_DIR
Files are generated here at test time (nothing binary is committed): TensorProtos from
onnx.numpy_helper.from_array (raw_data) and onnx.helper.make_tensor (typed fields),
.npy files from numpy (versions 1.0, 2.0, 3.0, big-endian); every one is read by
TIO_TOOL and compared with what onnx/numpy decode, then converted by TIO_TOOL and read
back with onnx.load_tensor / numpy.load. Every input/output .pb of the ONNX node tests
under ONNX_TESTS_DIR/node (the build's onnx-tests, generated here by
tests/conformance/generate.py when absent) is read too, by one run of TIO_TOOL;
without that data the test fails. Exits 77 (skip) without onnx/numpy.
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


def tool_many(cmd, pairs):
    """one run of `tio_tool CMD` over (IN, OUT) pairs: its output line for each pair"""
    r = tool(cmd, *[x for p in pairs for x in p])
    lines = r.stdout.split('\n')
    if r.returncode not in (0, 1) or r.stderr or len(lines) != len(pairs) + 1:
        return ['tool crashed (rc %d): %s' % (r.returncode, r.stderr)] * len(pairs)
    return lines[:-1]


def tool_read_many(pairs):
    return [parse_line(line, raw) if line.startswith('dtype=') else (None, line + '\n')
            for line, (_, raw) in zip(tool_many('read', pairs), pairs)]


class Batch:
    """Reads and conversions queued with what checks their result, then run by one
    tool process each (run: a check may queue more). Every file gets a name of its
    own (path)."""
    def __init__(self, tmp):
        self.tmp, self.k, self.reads, self.converts = tmp, 0, [], []

    def path(self, ext):
        self.k += 1
        return os.path.join(self.tmp, 'f%d%s' % (self.k, ext))

    def read(self, path, then):
        """then((meta, data) or (None, error line)) once path is read"""
        self.reads.append((path, then))

    def convert(self, src, out, then):
        """then(the tool's line: 'ok' or 'error: ...') once src is written as out"""
        self.converts.append((src, out, then))

    def run(self):
        while self.reads or self.converts:
            reads, self.reads = self.reads, []
            if reads:
                got = tool_read_many([(p, self.path('.raw')) for p, _ in reads])
                for (_, then), g in zip(reads, got):
                    then(g)
            convs, self.converts = self.converts, []
            if convs:
                for (_, _, then), line in zip(convs, tool_many('convert', [(s, o) for s, o, _ in convs])):
                    then(line)


def slots(strings):
    """string elements as ingot stores them: INGOT_STRING_CAP (64) byte slots"""
    return b''.join(bytes(w).ljust(64, b'\0') for w in strings)


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def check_read(label, got, want_dtype, want_shape, want_bytes, want_name):
    meta, data = got
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


def expect_error(label, got, want):
    meta, msg = got
    if meta is not None:
        fail('%s: read succeeded, expected an error' % label)
    elif want not in msg or msg.count('\n') != 1 or not msg.startswith('error: '):
        fail('%s: expected a one-line error with %r, got %r' % (label, want, msg))


def read_check(B, label, path, dtype, shape, want_bytes, name, then=None):
    """queues path's read: it must give dtype, shape, bytes and name; then() after"""
    def done(got):
        if check_read(label, got, dtype, shape, want_bytes, name) and then:
            then()
    B.read(path, done)


def read_error(B, label, path, want):
    """queues path's read: it must fail with a one-line error holding want"""
    B.read(path, lambda got: expect_error(label, got, want))


def check_convert(B, label, src, arr, name=''):
    """src converted to .pb and .npy by the tool reads back as arr in onnx and numpy"""
    out_pb, out_npy = B.path('.pb'), B.path('.npy')

    def pb_done(line):
        if line != 'ok':
            return fail('%s -> %s: %s' % (label, out_pb, line))
        t = onnx.load_tensor(out_pb)
        back = numpy_helper.to_array(t)
        if not same(back, arr) or not t.HasField('raw_data') or t.name != name:
            fail('%s: .pb written by the tool reads back as %r (name %r)' % (label, back, t.name))

    def npy_done(line):
        if line != 'ok':
            return fail('%s -> %s: %s' % (label, out_npy, line))
        back = np.load(out_npy)
        if not same(back, arr):
            fail('%s: .npy written by the tool reads back as %r' % (label, back))
    B.convert(src, out_pb, pb_done)
    B.convert(src, out_npy, npy_done)


def save_tensor(B, t):
    pb = B.path('.pb')
    onnx.save_tensor(t, pb)
    return pb


def save_bytes(B, data, ext):
    path = B.path(ext)
    with open(path, 'wb') as f:
        f.write(data)
    return path


def save_npy(B, arr, **kw):
    path = B.path('.npy')
    np.save(path, arr, **kw)
    return path


def run(tmp):
    B = Batch(tmp)
    for onnx_dt, np_dt in DTYPES:
        for shape in SHAPES:
            arr = sample(np_dt, shape)
            lab = '%s%s' % (np.dtype(np_dt).name, list(shape))
            # raw_data, as from_array writes it
            pb = save_tensor(B, numpy_helper.from_array(arr, 'in_' + lab))
            read_check(B, lab + ' from_array', pb, onnx_dt, shape, arr.tobytes(), 'in_' + lab,
                       lambda pb=pb, lab=lab, arr=arr:
                       check_convert(B, lab + ' from_array', pb, arr, 'in_' + lab))
            # typed fields, as make_tensor writes them
            t = helper.make_tensor('typed', onnx_dt, shape, arr.flatten().tolist())
            if t.HasField('raw_data'):
                fail(lab + ': make_tensor wrote raw_data')
            pb = save_tensor(B, t)
            want = numpy_helper.to_array(t)
            read_check(B, lab + ' make_tensor', pb, onnx_dt, shape, want.tobytes(), 'typed',
                       lambda pb=pb, lab=lab, want=want:
                       check_convert(B, lab + ' make_tensor', pb, want, 'typed'))
            # numpy files, every version, and big-endian
            npy = save_npy(B, arr)
            read_check(B, lab + ' np.save', npy, onnx_dt, shape, arr.tobytes(), '',
                       lambda npy=npy, lab=lab, arr=arr: check_convert(B, lab + ' np.save', npy, arr))
            for version in ((2, 0), (3, 0)):
                npy = B.path('.npy')
                with open(npy, 'wb') as f:
                    np.lib.format.write_array(f, arr, version=version)
                read_check(B, '%s npy v%d' % (lab, version[0]), npy, onnx_dt, shape, arr.tobytes(), '')
            if np.dtype(np_dt).itemsize > 1:
                npy = save_npy(B, arr.astype(np.dtype(np_dt).newbyteorder('>')))
                read_check(B, lab + ' big-endian npy', npy, onnx_dt, shape, arr.tobytes(), '')

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
            pb = save_tensor(B, t)
            ref = numpy_helper.to_array(t).astype(np.float32)
            bits = (ref.view(np.uint32) >> 16).astype(np.uint16)

            def bf_convert(pb=pb, lab=lab, ref=ref, bits=bits, shape=shape):
                out_pb, out_npy = B.path('.pb'), B.path('.npy')

                def pb_done(line):
                    if line != 'ok':
                        return fail(lab + ': convert failed: ' + line)
                    t2 = onnx.load_tensor(out_pb)
                    back = numpy_helper.to_array(t2)
                    if t2.data_type != TensorProto.BFLOAT16 or back.tobytes() != ref.tobytes() \
                            or back.shape != shape:
                        fail(lab + ': .pb written by the tool differs')

                def npy_done(line):
                    if line != 'ok':
                        return fail(lab + ': convert failed: ' + line)
                    if not same(np.load(out_npy), bits):
                        fail(lab + ': .npy written by the tool is not the uint16 bits')
                B.convert(pb, out_pb, pb_done)
                B.convert(pb, out_npy, npy_done)
            read_check(B, '%s raw=%s' % (lab, raw), pb, TensorProto.BFLOAT16, shape, bits.tobytes(), 'bf',
                       bf_convert)

    # errors: one line each, never a crash
    arr = sample(np.float32, (4, 5))
    blob = numpy_helper.from_array(arr, 'w').SerializeToString()
    for cut in (1, 3, len(blob) // 2, len(blob) - 1):
        read_error(B, 'truncated .pb at %d' % cut, save_bytes(B, blob[:cut], '.pb'), '')
    with open(save_npy(B, arr), 'rb') as f:
        data = f.read()
    for cut, want in ((5, ''), (9, 'truncated'), (40, 'truncated .npy header'),
                      (len(data) - 4, 'expected 80')):
        read_error(B, 'truncated .npy at %d' % cut, save_bytes(B, data[:cut], '.npy'), want)
    read_error(B, 'fortran .npy', save_npy(B, np.asfortranarray(arr)), 'Fortran order')
    read_error(B, 'complex .npy', save_npy(B, np.ones(3, np.complex64)), "'<c8'")
    read_error(B, 'unicode .npy', save_npy(B, np.array(['ab', 'c'])), "'<U2'")
    read_error(B, 'object .npy', save_npy(B, np.array([{}, 1], dtype=object), allow_pickle=True), "'|O'")
    read_error(B, 'structured .npy', save_npy(B, np.zeros(2, dtype=[('a', '<f4'), ('b', '<i4')])),
               'structured')
    # strings: zero-padded 64-byte slots, written back as string_data (and not as .npy)
    words = [b'a', b'', 'caf\u00e9'.encode(), b'x' * 63]
    pb = save_tensor(B, helper.make_tensor('s', TensorProto.STRING, [2, 2], words))

    def string_convert(pb=pb):
        out_pb = B.path('.pb')

        def pb_done(line):
            back = onnx.load_tensor(out_pb) if line == 'ok' else None
            if back is None or list(back.string_data) != words or list(back.dims) != [2, 2]:
                fail('string tensor: the .pb written by the tool differs (%s)' % line)

        def npy_done(line):
            if line == 'ok' or '.pb only' not in line:
                fail('string tensor: writing .npy should fail, got %r' % line)
        B.convert(pb, out_pb, pb_done)
        B.convert(pb, B.path('.npy'), npy_done)
    read_check(B, 'string tensor', pb, TensorProto.STRING, (2, 2), slots(words), 's', string_convert)
    read_error(B, 'string longer than a slot',
               save_tensor(B, helper.make_tensor('s', TensorProto.STRING, [1], [b'y' * 64])),
               'has 64 bytes, at most 63 fit')
    read_error(B, 'complex tensor',
               save_tensor(B, helper.make_tensor('c', TensorProto.COMPLEX64, [1], [1 + 2j])), 'complex64')
    t = TensorProto(name='e', data_type=TensorProto.FLOAT, dims=[2])
    t.data_location = TensorProto.EXTERNAL
    e = t.external_data.add()
    e.key, e.value = 'location', 'weights.bin'
    read_error(B, 'external data', save_tensor(B, t), 'external data')
    t = numpy_helper.from_array(arr, 'w')
    t.dims[0] = 5
    read_error(B, 'dims vs raw_data', save_tensor(B, t),
               'raw_data has 80 bytes, expected 100 for float32[5,5]')
    t = TensorProto(name='m', data_type=TensorProto.INT64, dims=[3], int64_data=[1, 2])
    read_error(B, 'too few int64_data', save_tensor(B, t), 'int64_data has 2 values, expected 3')
    t = TensorProto(name='m', data_type=TensorProto.INT64, dims=[-1])
    read_error(B, 'negative dim', save_tensor(B, t), 'negative')
    read_error(B, 'garbage', save_bytes(B, b'\xff' * 16, '.pb'), 'varint')
    read_error(B, 'missing file', os.path.join(tmp, 'nope.pb'), 'nope.pb')
    n = B.k
    B.run()
    print('tensor files: %d written and read by two runs of the tool' % n)


def node_tests(tmp):
    """every input/output .pb of the ONNX backend node tests reads as onnx reads it"""
    r = subprocess.run([sys.executable, GENERATE, ONNX_TESTS])
    root = os.path.join(ONNX_TESTS, 'node')
    if r.returncode or not os.path.isdir(root):
        fail('node-test data: %s absent and generate.py failed (rc %d)' % (root, r.returncode))
        return
    n = 0
    # every data set 0 file of every test, read by one run of the tool (one process, so
    # the sanitizer build reads them all too)
    files = []
    for test in sorted(os.listdir(root)):
        ds = os.path.join(root, test, 'test_data_set_0')
        if os.path.isdir(ds):
            files += [(test, os.path.join(ds, fn)) for fn in sorted(os.listdir(ds)) if fn.endswith('.pb')]
    results = tool_read_many([(p, os.path.join(tmp, 'raw%d.bin' % i)) for i, (_, p) in enumerate(files)])
    for (test, path), got in zip(files, results):
        t = onnx.load_tensor(path)
        if t.data_type == 0:              # a sequence or optional, not a TensorProto
            continue
        lab = '%s/%s' % (test, os.path.basename(path))
        if t.data_type == TensorProto.STRING:
            check_read(lab, got, t.data_type, tuple(t.dims), slots(t.string_data), t.name)
            n += 1
            continue
        if t.data_type in (TensorProto.COMPLEX64, TensorProto.COMPLEX128):
            expect_error(lab, got, 'not supported')
            continue
        try:
            ref = numpy_helper.to_array(t)
        except ValueError:                # a SequenceProto/OptionalProto read as a tensor
            expect_error(lab, got, '')
            continue
        if t.data_type == TensorProto.BFLOAT16:
            ref = (ref.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
        check_read(lab, got, t.data_type, tuple(t.dims), ref.tobytes(), t.name)
        n += 1
    print('node-test data: %d tensors checked' % n)
    if n < 2500:                          # ONNX 1.12's 922 tests hold 2,809
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
