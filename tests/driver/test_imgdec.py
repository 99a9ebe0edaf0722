#!/usr/bin/python3
"""ImageDecoder (opset 20) end to end. ONNX Runtime 1.30 has no ImageDecoder kernel,
so expected pixels come from imgdec_images.py (PIL and hand-made files).
usage: test_imgdec.py INGOT WORKDIR [e2e | fuzz FUZZ_BIN]
- e2e: one model per pixel format with a run-time input, the bound from symbolic
  output dims (--dim), run on every test image padded into one fixed-size buffer;
  every image must match PIL exactly (JPEG too: imgdec_images.JPEG_TOL is 0, the
  decoder computing what libjpeg-turbo computes);
  an image over the bound (--shape OUT=HxWxC) gives INGOT_ERANGE, corrupt data
  INGOT_EINVAL; a missing bound is a compile error naming the node; a constant
  image is decoded at compile time (folded) or, as a graph output, gets static dims.
- fuzz: every test image, damaged many ways, through the kernel (FUZZ_BIN, built
  from tests/fuzz/fuzz_imgdec.c; under ASan in the sanitizer build)."""
import os
import sys
import warnings

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (Fail, check, check_all_pass, ingot_compile, init, main, run, run_ok, save,  # noqa: E402
                    vi, write_test_dir)

try:
    import imgdec_images as images
except ImportError as e:   # PIL missing: a failure, never a skip
    print("FAIL: the ImageDecoder tests need python3-pil (%s)" % e)
    sys.exit(1)

FORMATS = [('RGB', 3), ('BGR', 3), ('Grayscale', 1)]


def decoder_model(fmt, out_shape, inits=(), in_shape=('nbytes',), tail=None):
    """bytes -> ImageDecoder -> image (or a tail of nodes after it)."""
    nodes = [helper.make_node('ImageDecoder', ['bytes'], ['image'], name='decode',
                              pixel_format=fmt)]
    inputs = [] if inits else [vi('bytes', TensorProto.UINT8, list(in_shape))]
    outputs = [vi('image', TensorProto.UINT8, out_shape)]
    if tail:
        nodes += tail[0]
        inputs += tail[1]
        outputs = tail[2]
    g = helper.make_graph(nodes, 'g', inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 20)])
    m.ir_version = 9
    return m


def run_exe(exe, work, data, n):
    """Runs the model on data zero-padded to n bytes: (rc, output or None, stderr)."""
    buf = np.zeros(n, np.uint8)
    buf[:len(data)] = np.frombuffer(data, np.uint8)
    inp, out_dir = os.path.join(work, 'in.npy'), os.path.join(work, 'out')
    os.makedirs(out_dir, exist_ok=True)
    np.save(inp, buf)
    if os.path.exists(os.path.join(out_dir, 'output_0.npy')):
        os.remove(os.path.join(out_dir, 'output_0.npy'))
    rc, _, err = run([exe, '--input', inp, '--output-dir', out_dir])
    return rc, (np.load(os.path.join(out_dir, 'output_0.npy')) if rc == 0 else None), err


WORST_MEAN = [0.0]   # the largest mean difference of a lossy (JPEG) case, printed


def compare(name, got, want, tol):
    """exact where tol is 0; else within tol levels and 0.05 on average (docs/ops.md)"""
    check(got.shape == want.shape, '%s: shape %s, expected %s' % (name, got.shape, want.shape))
    d = np.abs(got.astype(np.int32) - want.astype(np.int32))
    if tol:
        WORST_MEAN[0] = max(WORST_MEAN[0], float(d.mean()))
    check(d.max() <= tol and (tol == 0 or d.mean() <= 0.05),
          '%s: max difference %d, mean %.3f (tolerance %d, mean 0.05)' % (name, d.max(), d.mean(), tol))


def e2e(ingot, work):
    cases = images.all_cases()
    n = max(len(c[1]) for c in cases) + 16
    max_h = max(c[2].shape[0] for c in cases)
    max_w = max(c[2].shape[1] for c in cases)
    kinds = set(c[0].split('_')[0] for c in cases)
    check(kinds == {'png', 'jpeg', 'bmp', 'pnm'}, 'missing formats: %s' % kinds)
    for fmt, ch in FORMATS:
        d = os.path.join(work, fmt)
        m = save(decoder_model(fmt, ['H', 'W', ch]), os.path.join(work, fmt + '.onnx'))
        ingot_compile(ingot, m, d, 'dec', '--emit', 'exe', '--shape', 'bytes=%d' % n,
                      '--dim', 'H=%d' % (max_h + 3), '--dim', 'W=%d' % (max_w + 5))
        header = open(os.path.join(d, 'dec.h')).read()
        check('#define DEC_IMAGE_MAX_DIMS {%d, %d, %d}' % (max_h + 3, max_w + 5, ch) in header,
              'dec.h lacks the bound of the image')
        for name, data, rgb, gray, tol in cases:
            want = gray if ch == 1 else rgb[..., ::-1] if fmt == 'BGR' else rgb
            rc, got, err = run_exe(os.path.join(d, 'dec'), work, data, n)
            check(rc == 0, '%s %s: exit %d\n%s' % (fmt, name, rc, err))
            compare('%s %s' % (fmt, name), got, want, tol)
    print('%d images x %d pixel formats match (JPEG: mean difference at most %.4f)' %
          (len(cases), len(FORMATS), WORST_MEAN[0]))
    errors(ingot, work, cases)
    constants(ingot, work, cases)


def errors(ingot, work, cases):
    png = next(c for c in cases if c[0] == 'png_c2_d8_z6')   # 13 x 17
    big = next(c for c in cases if c[0] == 'png_pil_rgb')    # 61 x 90
    small = os.path.join(work, 'small')
    m = save(decoder_model('RGB', None), os.path.join(work, 'small.onnx'))
    ingot_compile(ingot, m, small, 'small', '--emit', 'exe', '--shape', 'bytes=16384',
                  '--shape', 'image=13x17x3')
    exe = os.path.join(small, 'small')
    rc, got, err = run_exe(exe, work, png[1][:len(png[1]) - 30], 16384)   # truncated
    check(rc != 0 and 'invalid argument' in err, 'truncated PNG: exit %d, %s' % (rc, err))
    rc, got, err = run_exe(exe, work, big[1], 16384)
    check(rc != 0 and 'exceeds its bound' in err, 'image over the bound: exit %d, %s' % (rc, err))
    rc, got, err = run_exe(exe, work, png[1], 16384)                      # exactly the bound
    check(rc == 0, 'an image of the bound: exit %d, %s' % (rc, err))
    compare('image of the bound', got, png[2], 0)
    rc, got, err = run_exe(exe, work, b'GIF89a' + bytes(40), 16384)
    check(rc != 0 and 'invalid argument' in err, 'unknown format: exit %d, %s' % (rc, err))
    one = next(c for c in cases if c[0] == 'png_1x1')
    rc, got, err = run_exe(exe, work, one[1], 16384)
    check(rc == 0, 'a 1x1 image under a 13x17 bound: exit %d, %s' % (rc, err))
    compare('1x1 under a bound', got, one[2], 0)
    # no bound at all: a compile error naming the node and the ways to give one
    rc, out, err = run([ingot, 'compile', m, '-o', os.path.join(work, 'nobound'), '--shape',
                        'bytes=16384'])
    check(rc == 1 and "'decode'" in err and '--shape image=HxWx3' in err,
          'missing bound: exit %d\n%s' % (rc, err))
    rc, out, err = run([ingot, 'compile', m, '-o', os.path.join(work, 'badshape'), '--shape',
                        'bytes=16384', '--shape', 'nothing=2x2x3'])
    check(rc == 2 and "'nothing'" in err, '--shape of an unknown name: exit %d\n%s' % (rc, err))
    print('errors: truncated, over the bound, unknown format, no bound: as expected')
    # `ingot check` on the backend-test layout: the declared output shape is the bound
    tests = []
    for name, data, rgb, _, _ in (png, next(c for c in cases if c[0] == 'bmp_4_palette')):
        m = decoder_model('BGR', list(rgb.shape))
        tests.append(write_test_dir(work, 'check_' + name, m, [np.frombuffer(data, np.uint8)],
                                    [np.ascontiguousarray(rgb[..., ::-1])]))
    check_all_pass(ingot, tests)


def constants(ingot, work, cases):
    png = next(c for c in cases if c[0] == 'png_c3_d4_adam7_z9')
    jpg = next(c for c in cases if c[0] == 'jpeg_420_q95')
    # folded: constant bytes -> ImageDecoder -> Cast -> Add(x)
    for name, data, rgb, _, tol in (png, jpg):
        const = init('bytes', np.frombuffer(data, np.uint8))
        tail = ([helper.make_node('Cast', ['image'], ['f'], to=TensorProto.FLOAT),
                 helper.make_node('Add', ['f', 'x'], ['y'])],
                [vi('x', TensorProto.FLOAT, [1])], [vi('y', TensorProto.FLOAT, None)])
        m = save(decoder_model('RGB', None, [const], tail=tail), os.path.join(work, name + '.onnx'))
        d = os.path.join(work, 'fold_' + name)
        ingot_compile(ingot, m, d, 'folded', '--emit', 'exe', '--dump-ir', d + '.ir')
        ir = open(d + '.ir').read()
        check('ImageDecoder' not in ir and 'ingot_image_decoder' not in
              open(os.path.join(d, 'folded.c')).read(), name + ': the constant image was not folded')
        x = np.array([0.5], np.float32)
        np.save(os.path.join(d, 'x.npy'), x)
        os.makedirs(os.path.join(d, 'out'))
        run_ok([os.path.join(d, 'folded'), '--input', os.path.join(d, 'x.npy'), '--output-dir',
                os.path.join(d, 'out')])
        y = np.load(os.path.join(d, 'out', 'output_0.npy'))
        compare('folded ' + name, np.round(y - 0.5).astype(np.int32), rgb.astype(np.int32), tol)
    # a constant image that is itself the graph output: static dims, decoded at run time
    m = save(decoder_model('Grayscale', None, [init('bytes', np.frombuffer(png[1], np.uint8))]),
             os.path.join(work, 'static.onnx'))
    d = os.path.join(work, 'static')
    ingot_compile(ingot, m, d, 'st', '--emit', 'c')
    h = open(os.path.join(d, 'st.h')).read()
    check('MAX_DIMS' not in h and 'ingot_image_decoder' in open(os.path.join(d, 'st.c')).read(),
          'a constant image output should keep static dims and run the kernel')
    # a corrupt constant image is a compile error
    bad = init('bytes', np.frombuffer(png[1][:40], np.uint8))
    tail = ([helper.make_node('Cast', ['image'], ['y'], to=TensorProto.FLOAT)], [],
            [vi('y', TensorProto.FLOAT, None)])
    m = save(decoder_model('RGB', None, [bad], tail=tail), os.path.join(work, 'bad.onnx'))
    rc, out, err = run([ingot, 'compile', m, '-o', os.path.join(work, 'bad')])
    check(rc == 1 and "'decode'" in err and 'corrupt' in err,
          'corrupt constant image: exit %d\n%s' % (rc, err))
    print('constant images: folded, static output, corrupt rejected')


def fuzz(ingot, work, fuzz_bin):
    check(os.access(fuzz_bin, os.X_OK), 'no fuzz binary at %s' % fuzz_bin)
    paths = []
    for name, data, *_ in images.all_cases():
        paths.append(os.path.join(work, name))
        with open(paths[-1], 'wb') as f:
            f.write(data)
    out, err = run_ok([fuzz_bin, '400'] + paths, timeout=1200)
    print(out.strip().splitlines()[-1])
    print('%d images x 400 damaged variants: no crash, only 0/EINVAL/ERANGE' % len(paths))


def test(ingot, work, case='e2e', *rest):
    warnings.simplefilter('ignore')   # PIL's palette-transparency note
    if case == 'e2e':
        e2e(ingot, work)
    elif case == 'fuzz' and rest:
        fuzz(ingot, work, os.path.abspath(rest[0]))
    else:
        raise Fail('unknown case %s' % case)


if __name__ == '__main__':
    main(test)
