#!/usr/bin/env python3
"""cpu_tuning: `--target host` reads the machine and `--cpu` describes a core. inspect
--target host --json reports the vendor, family, model and processor count of
/proc/cpuinfo and the L1d/L2 of sysfs (read here independently); the generated
ukernel.h's k-block follows the core (skylake-avx512 and sapphirerapids differ in
L1d, so in UK_KC); the same --cpu twice writes byte-identical output."""
import filecmp
import json
import os
import re

from onnx import TensorProto, helper

from common import Fail, check, init, main, model, randf, rng, run_ok, save, vi

F = TensorProto.FLOAT


def sysfs_kib(level):
    root = "/sys/devices/system/cpu/cpu0/cache"
    for i in range(16):
        d = os.path.join(root, "index%d" % i)
        try:
            lv = open(os.path.join(d, "level")).read().strip()
            ty = open(os.path.join(d, "type")).read().strip()
            size = open(os.path.join(d, "size")).read().strip()
            shared = open(os.path.join(d, "shared_cpu_list")).read().strip()
        except OSError:
            continue
        if lv != str(level) or ty == "Instruction":
            continue
        kib = int(size.rstrip("KM")) * (1024 if size.endswith("M") else 1)
        n = 0
        for part in shared.split(","):
            a, _, b = part.partition("-")
            n += int(b or a) - int(a) + 1
        return kib // max(n, 1)
    return None


def ukernel_kc(out_dir):
    text = open(os.path.join(out_dir, "kernels", "x86", "ukernel.h")).read()
    m = re.search(r"#define UK_KC (\d+)", text)
    check(m, "no UK_KC in %s" % out_dir)
    return int(m.group(1))


def test(ingot, work):
    r = rng(3)
    m = model([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], [vi("x", F, [64, 96])],
              [vi("y", F, [64, 80])], [init("w", randf(r, 96, 80))])
    p = save(m, os.path.join(work, "mm.onnx"))

    out, _ = run_ok([ingot, "inspect", p, "--target", "host", "--json"])
    obj = json.loads(out)
    info = open("/proc/cpuinfo").read()
    first = info.split("\n\n")[0]

    def field(key):
        mm = re.search(r"^%s\s*:\s*(.*)$" % re.escape(key), first, re.M)
        return mm.group(1).strip() if mm else None

    cpu = obj.get("cpu")
    check(cpu and cpu["detected"], "inspect --target host --json has no detected cpu: %r" % out)
    if field("vendor_id"):
        check(cpu["vendor"] == field("vendor_id"), "vendor %r, /proc/cpuinfo %r" % (cpu["vendor"],
                                                                                 field("vendor_id")))
        check(cpu["family"] == int(field("cpu family")) and cpu["model"] == int(field("model")),
              "family/model %d/%d, /proc/cpuinfo %s/%s" % (cpu["family"], cpu["model"],
                                                          field("cpu family"), field("model")))
        for flag in ("avx512f", "avx512_vnni", "avx512_fp16", "amx_tile"):
            check((flag in cpu["extensions"].split()) == (flag in field("flags").split()),
                  "extension %s: inspect %r" % (flag, cpu["extensions"]))
    check(cpu["cores"] == os.cpu_count(), "cores %d, os.cpu_count %d" % (cpu["cores"], os.cpu_count()))
    for level, key in ((1, "l1d_kib"), (2, "l2_kib")):
        want = sysfs_kib(level)
        if want:
            check(cpu[key] == want, "%s %d, sysfs %d" % (key, cpu[key], want))
    txt, _ = run_ok([ingot, "inspect", p, "--target", "host"])
    check("blocking:" in txt and "cpu:" in txt, "inspect --target host prints no cpu/blocking: %r" % txt)

    # two cores of one target: the k-block follows their L1d; the same core twice: same bytes
    dirs = {}
    for cpu_name, tag in (("skylake-avx512", "skx"), ("sapphirerapids", "spr"), ("sapphirerapids", "spr2")):
        d = os.path.join(work, tag)
        run_ok([ingot, "compile", p, "--target", "x86-avx512", "--cpu", cpu_name, "--name", "mm", "-o", d])
        dirs[tag] = d
    kc_skx, kc_spr = ukernel_kc(dirs["skx"]), ukernel_kc(dirs["spr"])
    check(kc_skx < kc_spr, "UK_KC %d (skylake-avx512, 32 KiB L1d) vs %d (sapphirerapids, 48 KiB)"
          % (kc_skx, kc_spr))
    cmp = filecmp.dircmp(dirs["spr"], dirs["spr2"])
    check(not cmp.diff_files and not cmp.left_only and not cmp.right_only,
          "--cpu sapphirerapids twice differs: %r" % cmp.diff_files)
    ji = json.loads(run_ok([ingot, "inspect", p, "--target", "x86-avx512", "--cpu", "skylake-avx512",
                            "--json"])[0])["cpu"]
    check(ji["kc"] == kc_skx and not ji["detected"], "inspect --cpu says kc %d, ukernel.h %d" % (ji["kc"], kc_skx))


if __name__ == "__main__":
    main(test)
