/* cpu_detect_test.c — `--target host`'s machine reading (codegen/cpu.c) on fixtures:
 * /proc/cpuinfo text of an x86 server (two processors) and of an ARM board, and a
 * sysfs cache folder this test writes; then the blocking cg_target_tune + ukgen derive
 * for two --cpu values of one target (they must differ where the caches do) and for
 * the same value twice (they must agree). Exit 0 on success, 1 with a message. */
#include "codegen.h"
#include "ukgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int fails;

/* a Zen 5 guest (AMD EPYC, family 26 model 2) whose VM hides the cache topology */
static const char zen5_fixture[] =
	"processor\t: 0\n"
	"vendor_id\t: AuthenticAMD\n"
	"cpu family\t: 26\n"
	"model\t\t: 2\n"
	"model name\t: AMD EPYC\n"
	"flags\t\t: fpu sse2 avx2 fma avx512f avx512dq avx512bw avx512vl avx_vnni avx512_vnni avx512_bf16\n";

#define CHECK(cond, ...) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr); \
			fails++; \
		} \
	} while (0)

static const char x86_fixture[] =
	"processor\t: 0\n"
	"vendor_id\t: GenuineIntel\n"
	"cpu family\t: 6\n"
	"model\t\t: 143\n"
	"model name\t: Intel(R) Xeon(R) Platinum 8480+\n"
	"flags\t\t: fpu sse2 avx2 fma avx512f avx512dq avx512bw avx512vl avx512_vnni avx_vnni "
	"avx512_bf16 avx512_fp16 amx_tile amx_int8 amx_bf16\n"
	"vmx flags\t: vnmi ept\n"
	"\n"
	"processor\t: 1\n"
	"vendor_id\t: GenuineIntel\n"
	"cpu family\t: 6\n"
	"model\t\t: 143\n"
	"flags\t\t: fpu\n";

static const char arm_fixture[] =
	"processor\t: 0\n"
	"BogoMIPS\t: 108.00\n"
	"Features\t: fp asimd evtstrm aes crc32 atomics fphp asimdhp asimddp\n"
	"CPU implementer\t: 0x41\n"
	"CPU architecture: 8\n"
	"CPU part\t: 0xd0b\n"
	"\n"
	"processor\t: 1\n"
	"Features\t: fp asimd\n"
	"CPU implementer\t: 0x41\n"
	"CPU part\t: 0xd0b\n"
	"processor\t: 2\n"
	"processor\t: 3\n";

static void put(const char *dir, const char *name, const char *text)
{
	char path[1024];
	FILE *f;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static void cache(const char *root, int i, const char *level, const char *type, const char *size,
                  const char *shared)
{
	char dir[1024];
	snprintf(dir, sizeof dir, "%s/index%d", root, i);
	mkdir(dir, 0755);
	put(dir, "level", level);
	put(dir, "type", type);
	put(dir, "size", size);
	put(dir, "shared_cpu_list", shared);
}

int main(int argc, char **argv)
{
	CpuInfo c;
	char ext[512];
	if (argc != 2) {
		fprintf(stderr, "usage: cpu_detect_test WORKDIR\n");
		return 2;
	}
	cg_cpu_parse_cpuinfo(x86_fixture, &c);
	CHECK(strcmp(c.vendor, "GenuineIntel") == 0, "vendor '%s'", c.vendor);
	CHECK(c.family == 6 && c.model == 143, "family %d model %d", c.family, c.model);
	CHECK(strstr(c.brand, "8480+") != NULL, "brand '%s'", c.brand);
	CHECK(c.cores == 2, "%d processors", c.cores);
	CHECK(c.cpu && strcmp(c.cpu, "sapphirerapids") == 0, "matched '%s'", c.cpu ? c.cpu : "(none)");
	CHECK((c.ext & (CPU_AVX512F | CPU_AVX512VNNI | CPU_AVXVNNI | CPU_AVX512FP16 | CPU_AVX512BF16 |
	                CPU_AMXTILE | CPU_AMXINT8 | CPU_AMXBF16)) ==
	      (CPU_AVX512F | CPU_AVX512VNNI | CPU_AVXVNNI | CPU_AVX512FP16 | CPU_AVX512BF16 | CPU_AMXTILE |
	       CPU_AMXINT8 | CPU_AMXBF16), "extensions %s", cg_cpu_ext_names(c.ext, ext, sizeof ext));
	CHECK(!(c.ext & CPU_ASIMD), "an x86 fixture has no asimd");

	cg_cpu_parse_cpuinfo(zen5_fixture, &c);
	CHECK(c.cpu && strcmp(c.cpu, "znver5") == 0, "Zen 5 matched '%s'", c.cpu ? c.cpu : "(none)");
	CHECK((c.ext & (CPU_AVX512VNNI | CPU_AVXVNNI)) == (CPU_AVX512VNNI | CPU_AVXVNNI) && !(c.ext & CPU_AMXTILE),
	      "Zen 5 extensions %s", cg_cpu_ext_names(c.ext, ext, sizeof ext));
	/* the legacy leaves' ecx as that guest answers them: 48 KiB L1d, 1 MiB L2 */
	memset(&c, 0, sizeof c);
	cg_cpu_amd_legacy_caches(0x300c0140u, 0x04006140u, &c);
	CHECK(c.l1d_kib == 48 && c.l2_kib == 1024 && c.l3_kib == 0, "AMD legacy caches %d %d %d", c.l1d_kib,
	      c.l2_kib, c.l3_kib);

	cg_cpu_parse_cpuinfo(arm_fixture, &c);
	CHECK(strcmp(c.vendor, "ARM") == 0 && c.family == 0x41 && c.model == 0xd0b, "ARM %s %x %x", c.vendor,
	      c.family, c.model);
	CHECK(c.cpu && strcmp(c.cpu, "cortex-a76") == 0, "matched '%s'", c.cpu ? c.cpu : "(none)");
	CHECK(c.cores == 4, "%d processors", c.cores);
	CHECK((c.ext & (CPU_ASIMD | CPU_ASIMDDP | CPU_FPHP)) == (CPU_ASIMD | CPU_ASIMDDP | CPU_FPHP) &&
	      !(c.ext & CPU_I8MM), "extensions %s", cg_cpu_ext_names(c.ext, ext, sizeof ext));

	/* sysfs: L1d 48K, L1i ignored, L2 2048K per core, L3 105M shared by 0-55 */
	char root[1024];
	snprintf(root, sizeof root, "%s", argv[1]);
	mkdir(root, 0755);
	cache(root, 0, "1\n", "Data\n", "48K\n", "0,56\n");
	cache(root, 1, "1\n", "Instruction\n", "32K\n", "0,56\n");
	cache(root, 2, "2\n", "Unified\n", "2048K\n", "0,56\n");
	cache(root, 3, "3\n", "Unified\n", "107520K\n", "0-55\n");
	memset(&c, 0, sizeof c);
	cg_cpu_parse_sysfs_cache(root, &c);
	/* the size over the CPUs that share it: 2 hyperthreads for L1 and L2 */
	CHECK(c.l1d_kib == 24 && c.l2_kib == 1024 && c.l3_kib == 107520 / 56, "caches %d %d %d", c.l1d_kib,
	      c.l2_kib, c.l3_kib);

	/* the blocking follows the core: two --cpu of x86-avx512 with different caches */
	const Target *t = cg_target_lookup("x86-avx512");
	Target skx, spr, spr2, bad;
	CHECK(cg_target_tune(t, "skylake-avx512", NULL, &skx) == 0, "skylake-avx512 is an x86-avx512 cpu");
	CHECK(cg_target_tune(t, "sapphirerapids", NULL, &spr) == 0, "sapphirerapids is an x86-avx512 cpu");
	CHECK(cg_target_tune(t, "sapphirerapids", NULL, &spr2) == 0, "sapphirerapids twice");
	CHECK(cg_target_tune(t, "cortex-a76", NULL, &bad) == -1, "cortex-a76 is not an x86-avx512 cpu");
	const SimdIsa *isa = ukgen_isa(t);
	CHECK(isa != NULL, "x86-avx512 has microkernels");
	if (isa) {
		CHECK(skx.l1d_kib < spr.l1d_kib, "L1d %d vs %d", skx.l1d_kib, spr.l1d_kib);
		CHECK(ukgen_kc(&skx, isa) < ukgen_kc(&spr, isa), "KC %d (skylake-avx512) vs %d (sapphirerapids)",
		      ukgen_kc(&skx, isa), ukgen_kc(&spr, isa));
		CHECK(ukgen_kc(&spr, isa) == ukgen_kc(&spr2, isa) && ukgen_mc(&spr, isa) == ukgen_mc(&spr2, isa),
		      "the same --cpu gives the same blocking");
		/* a machine whose caches the OS reports: they win over the table */
		CpuInfo host;
		memset(&host, 0, sizeof host);
		host.l1d_kib = 64;
		Target h;
		cg_target_tune(t, "skylake-avx512", &host, &h);
		CHECK(h.l1d_kib == 64 && h.l2_kib == skx.l2_kib, "host caches %d %d", h.l1d_kib, h.l2_kib);
		CHECK(ukgen_kc(&h, isa) > ukgen_kc(&skx, isa), "KC from a 64 KiB L1d %d", ukgen_kc(&h, isa));
		/* the FMA latency sets how many accumulators a tile needs: a core that would
		 * need more than any tile keeps is given the largest */
		int mr, nv, mr2, nv2;
		Target slow = spr;
		slow.fma_latency = 40;
		ukgen_blocking(&spr, isa, &mr, &nv);
		ukgen_blocking(&slow, isa, &mr2, &nv2);
		CHECK(mr * nv >= spr.fma_ports * spr.fma_latency, "tile %dx%d hides %d FMAs", mr, nv,
		      spr.fma_ports * spr.fma_latency);
		CHECK(mr2 * nv2 >= mr * nv && mr2 * nv2 + nv2 + 1 <= isa->regs, "the largest tile %dx%d", mr2, nv2);
	}
	if (fails)
		return 1;
	printf("cpu_detect: ok\n");
	return 0;
}
