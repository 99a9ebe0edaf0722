"""Test images for ImageDecoder, made at test time (no image file is committed).

Each case is (name, encoded bytes, expected RGB uint8 [H, W, 3], expected gray
uint8 [H, W, 1], tolerance). Expected pixels never come from ingot:
- PNG is written by our own small encoder (every color type, bit depth, filter,
  Adam7, stored/fixed/dynamic deflate blocks, split IDAT) from known samples, and
  the 8-bit ones are also decoded by PIL, which must agree;
- JPEG (baseline and progressive) is written and decoded by PIL (libjpeg-turbo);
  restart markers are added by jpegtran. IDCTs differ between decoders, so JPEG compares within a tolerance;
- BMP is written by PIL or by hand and decoded by PIL;
- PNM with maxval 255 by PIL; other maxvals by hand, scaled as documented
  (v * 255 / maxval, rounded half up).
Gray is ITU-R 601 luma in PIL's fixed point, (19595 R + 38470 G + 7471 B + 2^15) >> 16,
which PIL's convert('L') must reproduce on every 8-bit RGB case."""
import io
import os
import struct
import subprocess
import tempfile
import zlib

import numpy as np
from PIL import Image

JPEG_TOL = 0      # max |ingot - libjpeg-turbo| per sample (exact: the same IDCT, upsampling and color)


def luma(rgb):
    r, g, b = (rgb[..., k].astype(np.uint32) for k in range(3))
    return ((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16).astype(np.uint8)[..., None]


def gray3(g):
    return np.repeat(g[..., None], 3, axis=2)


def smooth(rng, h, w, c):
    """A picture with gradients, edges and noise (JPEG-friendly but not trivial)."""
    y, x = np.mgrid[0:h, 0:w]
    img = np.stack([(x * 255 // max(w - 1, 1)), (y * 255 // max(h - 1, 1)),
                    ((x + y) * 7) % 256], axis=2)[..., :c].astype(np.int32)
    img[h // 3: h // 2, w // 4: w // 2] = 200
    img += rng.integers(-12, 13, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


# ---- PNG, our own encoder -----------------------------------------------------

N_CHAN = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
         (0, 1, 1, 2)]


def chunk(t, data):
    return struct.pack('>I', len(data)) + t + data + struct.pack('>I', zlib.crc32(t + data))


def pack_row(samples, depth):
    """One row of samples (1-D ints) as bytes at a bit depth."""
    if depth == 16:
        return samples.astype('>u2').tobytes()
    if depth == 8:
        return samples.astype(np.uint8).tobytes()
    per = 8 // depth
    pad = (-len(samples)) % per
    s = np.concatenate([samples, np.zeros(pad, samples.dtype)]).reshape(-1, per)
    out = np.zeros(len(s), np.uint32)
    for k in range(per):
        out |= s[:, k].astype(np.uint32) << (8 - depth * (k + 1))
    return out.astype(np.uint8).tobytes()


def filter_row(ftype, cur, prev, bpp):
    cur = np.frombuffer(cur, np.uint8).astype(np.int32)
    prev = np.frombuffer(prev, np.uint8).astype(np.int32) if prev is not None else np.zeros_like(cur)
    a = np.concatenate([np.zeros(bpp, np.int32), cur[:-bpp]]) if len(cur) > bpp else np.zeros_like(cur)
    if len(cur) <= bpp:
        a = np.zeros_like(cur)
    c = np.concatenate([np.zeros(bpp, np.int32), prev[:-bpp]]) if len(cur) > bpp else np.zeros_like(cur)
    if ftype == 0:
        pred = 0
    elif ftype == 1:
        pred = a
    elif ftype == 2:
        pred = prev
    elif ftype == 3:
        pred = (a + prev) >> 1
    else:
        p = a + prev - c
        pa, pb, pc = abs(p - a), abs(p - prev), abs(p - c)
        pred = np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, prev, c))
    return bytes([ftype]) + ((cur - pred) & 255).astype(np.uint8).tobytes()


def png_encode(samples, ctype, depth, rng, interlace=0, palette=None, level=6, n_idat=1,
               extra=b''):
    h, w = samples.shape[:2]
    nc = N_CHAN[ctype]
    flat = samples.reshape(h, w, nc)
    bpp = max(1, nc * depth // 8)
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    raw = b''
    for x0, y0, dx, dy in passes:
        sub = flat[y0::dy, x0::dx]
        if sub.shape[0] == 0 or sub.shape[1] == 0:
            continue
        prev = None
        for row in sub:
            cur = pack_row(row.reshape(-1), depth)
            raw += filter_row(int(rng.integers(0, 5)), cur, prev, bpp)
            prev = cur
    z = zlib.compress(raw, level)
    out = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, ctype, 0, 0,
                                                              interlace))
    out += chunk(b'gAMA', struct.pack('>I', 45455)) + extra
    if palette is not None:
        out += chunk(b'PLTE', palette.astype(np.uint8).tobytes())
        out += chunk(b'tRNS', bytes([128] * min(3, len(palette))))
    cuts = sorted(set([0, len(z)] + [int(v) for v in rng.integers(0, len(z) + 1, n_idat - 1)]))
    for a, b in zip(cuts[:-1], cuts[1:]):
        out += chunk(b'IDAT', z[a:b])
    return out + chunk(b'tEXt', b'Comment\x00after the data') + chunk(b'IEND', b'')


def png_cases(rng):
    cases = []
    h, w = 13, 17       # odd sizes: partial bytes, partial Adam7 passes
    for ctype, depths in [(0, [1, 2, 4, 8, 16]), (2, [8, 16]), (3, [1, 2, 4, 8]), (4, [8, 16]),
                          (6, [8, 16])]:
        for depth in depths:
            for interlace in (0, 1):
                nc = N_CHAN[ctype]
                top = (1 << depth) - 1 if ctype != 3 else (1 << depth) - 1
                s = rng.integers(0, top + 1, (h, w, nc)).astype(np.uint32)
                pal = None
                if ctype == 3:
                    pal = rng.integers(0, 256, ((1 << depth), 3))
                    rgb = pal[s[..., 0]].astype(np.uint8)
                elif ctype in (0, 4):
                    g = s[..., 0]
                    g = g >> 8 if depth == 16 else g * 255 // top if depth < 8 else g
                    rgb = gray3(g.astype(np.uint8))
                else:
                    c = s[..., :3]
                    rgb = (c >> 8 if depth == 16 else c).astype(np.uint8)
                gray = rgb[..., :1].copy() if ctype in (0, 4) else luma(rgb)
                level = [0, 1, 6, 9][int(rng.integers(0, 4))]
                data = png_encode(s, ctype, depth, rng, interlace, pal, level,
                                  n_idat=int(rng.integers(1, 4)))
                name = 'png_c%d_d%d%s_z%d' % (ctype, depth, '_adam7' if interlace else '', level)
                if depth == 8:   # PIL decodes these the same way
                    ref = np.array(Image.open(io.BytesIO(data)).convert('RGB'))
                    assert (ref == rgb).all(), name + ': PIL disagrees with the test encoder'
                cases.append((name, data, rgb, gray, 0))
    # a bigger one through PIL's own encoder, and a 1x1
    img = smooth(rng, 61, 90, 3)
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, 'PNG', optimize=True)
    cases.append(('png_pil_rgb', buf.getvalue(), img, luma(img), 0))
    one = np.array([[[9, 99, 199]]], np.uint8)
    cases.append(('png_1x1', png_encode(one, 2, 8, rng), one, luma(one), 0))
    return cases


# ---- JPEG, PIL (libjpeg-turbo) ---------------------------------------------------

def pil_bytes(img, fmt, **kw):
    buf = io.BytesIO()
    img.save(buf, fmt, **kw)
    return buf.getvalue()


def jpeg_case(name, data):
    im = Image.open(io.BytesIO(data))
    rgb = np.array(im.convert('RGB'))
    gray = np.array(im.convert('L'))[..., None]
    return (name, data, rgb, gray, JPEG_TOL)


def jpegtran(data, *args, scans=None):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, 'in.jpg')
        with open(src, 'wb') as f:
            f.write(data)
        if scans:
            with open(os.path.join(d, 'scans'), 'w') as f:
                f.write(scans)
            args += ('-scans', os.path.join(d, 'scans'))
        return subprocess.run(['jpegtran', *args, src], check=True, capture_output=True).stdout


def jpeg_cases(rng):
    cases = []
    img = Image.fromarray(smooth(rng, 45, 70, 3))
    for sub, label in [(0, '444'), (1, '422'), (2, '420')]:
        for q in (75, 95):
            cases.append(jpeg_case('jpeg_%s_q%d' % (label, q),
                                   pil_bytes(img, 'JPEG', quality=q, subsampling=sub)))
    base = pil_bytes(img, 'JPEG', quality=90, subsampling=2)
    cases.append(jpeg_case('jpeg_420_restart_rows', jpegtran(base, '-restart', '1')))
    cases.append(jpeg_case('jpeg_420_restart_5blocks', jpegtran(base, '-restart', '5B')))
    # baseline, one scan per component (not interleaved)
    cases.append(jpeg_case('jpeg_420_noninterleaved', jpegtran(base, scans='0;\n1;\n2;\n')))
    gray = Image.fromarray(smooth(rng, 33, 41, 1)[..., 0])
    cases.append(jpeg_case('jpeg_gray', pil_bytes(gray, 'JPEG', quality=90)))
    cases.append(jpeg_case('jpeg_gray_restart', jpegtran(pil_bytes(gray, 'JPEG', quality=80),
                                                         '-restart', '2B')))
    for sub, label in [(0, '444'), (2, '420')]:
        cases.append(jpeg_case('jpeg_progressive_%s' % label,
                               pil_bytes(img, 'JPEG', quality=88, subsampling=sub, progressive=True)))
    cases.append(jpeg_case('jpeg_progressive_restart',
                           jpegtran(base, '-progressive', '-restart', '3B')))
    cases.append(jpeg_case('jpeg_progressive_gray', pil_bytes(gray, 'JPEG', quality=85,
                                                              progressive=True)))
    odd = Image.fromarray(smooth(rng, 17, 9, 3))
    cases.append(jpeg_case('jpeg_420_odd_size', pil_bytes(odd, 'JPEG', quality=92, subsampling=2)))
    # chroma rows of 2 samples or fewer: libjpeg replicates them instead of interpolating
    for h, w in ((3, 4), (5, 3)):
        tiny = Image.fromarray(smooth(rng, h, w, 3))
        for sub, label in [(1, '422'), (2, '420')]:
            cases.append(jpeg_case('jpeg_%s_%dx%d' % (label, w, h),
                                   pil_bytes(tiny, 'JPEG', quality=90, subsampling=sub)))
    return cases


# ---- BMP and PNM ------------------------------------------------------------

def bmp_16bit_565(rgb16):
    """A top-down 16-bit BI_BITFIELDS (5-6-5) BMP, by hand."""
    h, w = rgb16.shape
    stride = (w * 2 + 3) // 4 * 4
    rows = b''.join(rgb16[y].astype('<u2').tobytes().ljust(stride, b'\0') for y in range(h))
    info = struct.pack('<IiiHHIIiiII', 40, w, -h, 1, 16, 3, len(rows), 2835, 2835, 0, 0)
    masks = struct.pack('<III', 0xf800, 0x07e0, 0x001f)
    off = 14 + len(info) + len(masks)
    return b'BM' + struct.pack('<IHHI', off + len(rows), 0, 0, off) + info + masks + rows


def bmp_4bit(idx, pal):
    """A bottom-up 4-bit palette BMP, by hand."""
    h, w = idx.shape
    stride = ((w * 4 + 31) // 32) * 4
    rows = b''.join(pack_row(idx[y], 4).ljust(stride, b'\0') for y in reversed(range(h)))
    info = struct.pack('<IiiHHIIiiII', 40, w, h, 1, 4, 0, len(rows), 0, 0, len(pal), 0)
    paldata = b''.join(bytes([b, g, r, 0]) for r, g, b in pal)
    off = 14 + len(info) + len(paldata)
    return b'BM' + struct.pack('<IHHI', off + len(rows), 0, 0, off) + info + paldata + rows


def pil_case(name, data):
    im = Image.open(io.BytesIO(data))
    rgb = np.array(im.convert('RGB'))
    gray = np.array(im.convert('L'))[..., None] if im.mode in ('L', '1') else luma(rgb)
    return (name, data, rgb, gray, 0)


def bmp_cases(rng):
    img = smooth(rng, 11, 23, 3)
    cases = [pil_case('bmp_24', pil_bytes(Image.fromarray(img), 'BMP')),
             pil_case('bmp_8_palette', pil_bytes(Image.fromarray(img).convert(
                 'P', palette=Image.Palette.ADAPTIVE, colors=50), 'BMP')),
             pil_case('bmp_8_gray', pil_bytes(Image.fromarray(img[..., 0]), 'BMP')),
             pil_case('bmp_1', pil_bytes(Image.fromarray(img[..., 0] > 128), 'BMP')),
             pil_case('bmp_32', pil_bytes(Image.fromarray(
                 np.concatenate([img, img[..., :1]], axis=2), 'RGBA'), 'BMP'))]
    v16 = rng.integers(0, 1 << 16, (7, 9)).astype(np.uint16)
    cases.append(pil_case('bmp_16_565_topdown', bmp_16bit_565(v16)))
    pal = [tuple(int(c) for c in rng.integers(0, 256, 3)) for _ in range(16)]
    cases.append(pil_case('bmp_4_palette', bmp_4bit(rng.integers(0, 16, (5, 13)), pal)))
    return cases


def pnm_cases(rng):
    img = smooth(rng, 9, 14, 3)
    cases = [pil_case('pnm_p6', pil_bytes(Image.fromarray(img), 'PPM')),
             pil_case('pnm_p5', pil_bytes(Image.fromarray(img[..., 1]), 'PPM'))]
    for maxval in (100, 1000, 65535):
        s = rng.integers(0, maxval + 1, (6, 5, 3)).astype(np.uint32)
        dt = '>u2' if maxval > 255 else 'u1'
        hdr = b'P6\n# a comment\n5 6\n%d\n' % maxval
        scaled = ((s * 510 + maxval) // (2 * maxval)).astype(np.uint8)
        cases.append(('pnm_p6_max%d' % maxval, hdr + s.astype(dt).tobytes(), scaled, luma(scaled), 0))
    g = rng.integers(0, 1001, (4, 7)).astype(np.uint32)
    gs = ((g * 510 + 1000) // 2000).astype(np.uint8)
    cases.append(('pnm_p5_max1000', b'P5 7 4 1000 ' + g.astype('>u2').tobytes(), gray3(gs),
                  gs[..., None], 0))
    return cases


def all_cases(seed=20261130):
    rng = np.random.default_rng(seed)
    cases = png_cases(rng) + jpeg_cases(rng) + bmp_cases(rng) + pnm_cases(rng)
    for name, _, rgb, gray, tol in cases:   # the gray rule is PIL's convert('L')
        if tol == 0 and not name.startswith(('png_c0', 'png_c4', 'pnm_p5', 'bmp_8_gray', 'bmp_1')):
            ref = np.array(Image.fromarray(rgb).convert('L'))[..., None]
            assert (ref == gray).all(), name + ': gray rule disagrees with PIL'
    return cases
