/* cpu.c — what the machine ingot runs on is, for `--target host`: vendor, family and
 * model, the ISA extensions, the per-core caches and the CPU count. Linux reports
 * all of it in /proc/cpuinfo and sysfs, which the parsers below read (the tests feed
 * them fixtures); elsewhere x86's cpuid gives the same (leaf 0, 1, 7 and the cache
 * leaf 4). The compiler reads the machine; generated code never does. */
#include "codegen.h"
#include "targets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif
#if defined(__unix__)
#include <unistd.h>
#endif

static const struct { const char *name; unsigned bit; } ext_names[] = {   /* /proc/cpuinfo names */
	{ "avx2", CPU_AVX2 }, { "fma", CPU_FMA }, { "avx512f", CPU_AVX512F }, { "avx512bw", CPU_AVX512BW },
	{ "avx512dq", CPU_AVX512DQ }, { "avx512vl", CPU_AVX512VL }, { "avx512_vnni", CPU_AVX512VNNI },
	{ "avx_vnni", CPU_AVXVNNI }, { "avx512_bf16", CPU_AVX512BF16 }, { "avx512_fp16", CPU_AVX512FP16 },
	{ "amx_tile", CPU_AMXTILE }, { "amx_int8", CPU_AMXINT8 }, { "amx_bf16", CPU_AMXBF16 },
	{ "asimd", CPU_ASIMD }, { "asimddp", CPU_ASIMDDP }, { "fphp", CPU_FPHP }, { "i8mm", CPU_I8MM },
};

static const struct { const char *vendor; int family, lo, hi; const char *cpu; } models[] = {
#define X(vendor, family, lo, hi, cpu) { vendor, family, lo, hi, cpu },
	INGOT_CPU_MODELS(X)
#undef X
};

static const struct { int impl, part; const char *cpu; } arm_parts[] = {
#define X(impl, part, cpu) { impl, part, cpu },
	INGOT_ARM_PARTS(X)
#undef X
};

const char *cg_cpu_ext_names(unsigned ext, char *buf, size_t cap)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < COUNTOF(ext_names); i++)
		if ((ext & ext_names[i].bit) && n + strlen(ext_names[i].name) + 2 < cap)
			n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? " " : "", ext_names[i].name);
	return buf;
}

static void match(CpuInfo *c)
{
	c->cpu = NULL;
	if (strcmp(c->vendor, "ARM") == 0) {
		for (int i = 0; i < COUNTOF(arm_parts); i++)
			if (arm_parts[i].impl == c->family && arm_parts[i].part == c->model)
				c->cpu = arm_parts[i].cpu;
		return;
	}
	for (int i = 0; i < COUNTOF(models); i++)
		if (strcmp(models[i].vendor, c->vendor) == 0 && models[i].family == c->family &&
		    c->model >= models[i].lo && c->model <= models[i].hi)
			c->cpu = models[i].cpu;
}

/* The value of a "key<tabs>: value" line, or NULL. */
static const char *field(const char *line, const char *key, char *val, size_t cap)
{
	size_t k = strlen(key), n;
	const char *p;
	if (strncmp(line, key, k) != 0 || (line[k] != ' ' && line[k] != '\t' && line[k] != ':'))
		return NULL;
	p = strchr(line, ':');
	if (!p)
		return NULL;
	for (p++; *p == ' ' || *p == '\t'; p++)
		;
	n = strcspn(p, "\n");
	if (n >= cap)
		n = cap - 1;
	memcpy(val, p, n);
	val[n] = 0;
	return val;
}

static unsigned parse_flags(const char *list)
{
	unsigned ext = 0;
	char word[64];
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, " \t");
		if (n > 0 && n < sizeof word) {
			memcpy(word, p, n);
			word[n] = 0;
			for (int i = 0; i < COUNTOF(ext_names); i++)
				if (strcmp(word, ext_names[i].name) == 0)
					ext |= ext_names[i].bit;
		}
		p += n;
		p += strspn(p, " \t");
	}
	return ext;
}

void cg_cpu_parse_cpuinfo(const char *text, CpuInfo *c)
{
	char val[4096];
	int n_proc = 0, first = 1;
	memset(c, 0, sizeof *c);
	for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (field(line, "processor", val, sizeof val)) {
			n_proc++;
			if (n_proc > 1)
				first = 0;   /* the first processor's block describes the core */
		}
		if (!first)
			continue;
		if (field(line, "vendor_id", val, sizeof val))
			snprintf(c->vendor, sizeof c->vendor, "%s", val);
		else if (field(line, "cpu family", val, sizeof val))
			c->family = (int)strtol(val, NULL, 0);
		else if (field(line, "model name", val, sizeof val))   /* before "model" */
			snprintf(c->brand, sizeof c->brand, "%s", val);
		else if (field(line, "model", val, sizeof val))
			c->model = (int)strtol(val, NULL, 0);
		else if (field(line, "flags", val, sizeof val) || field(line, "Features", val, sizeof val))
			c->ext |= parse_flags(val);
		else if (field(line, "CPU implementer", val, sizeof val)) {
			snprintf(c->vendor, sizeof c->vendor, "ARM");
			c->family = (int)strtol(val, NULL, 0);
		} else if (field(line, "CPU part", val, sizeof val))
			c->model = (int)strtol(val, NULL, 0);
	}
	c->cores = n_proc;
	match(c);
}

/* The first line of DIR/NAME into buf, or NULL. */
static const char *read_line(const char *dir, const char *name, char *buf, size_t cap)
{
	char path[1024];
	FILE *f;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	if (!fgets(buf, (int)cap, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

/* CPUs in a list such as "0-3,8", at least 1 */
static int count_cpus(const char *list)
{
	int n = 0;
	for (const char *p = list; *p;) {
		char *end;
		long a = strtol(p, &end, 10), b = a;
		if (end == p)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		n += b >= a ? (int)(b - a + 1) : 1;
		p = *end == ',' ? end + 1 : end;
		if (*end != ',')
			break;
	}
	return n > 0 ? n : 1;
}

void cg_cpu_parse_sysfs_cache(const char *dir, CpuInfo *c)
{
	for (int i = 0; i < 16; i++) {
		char sub[1024], level[32], type[32], size[32], shared[256];
		snprintf(sub, sizeof sub, "%s/index%d", dir, i);
		if (!read_line(sub, "level", level, sizeof level) || !read_line(sub, "type", type, sizeof type) ||
		    !read_line(sub, "size", size, sizeof size))
			continue;
		char *end;
		long kib = strtol(size, &end, 10);
		if (*end == 'M')
			kib *= 1024;
		if (kib <= 0 || strcmp(type, "Instruction") == 0)
			continue;
		if (read_line(sub, "shared_cpu_list", shared, sizeof shared))
			kib /= count_cpus(shared);   /* the core's share */
		if (level[0] == '1')
			c->l1d_kib = (int)kib;
		else if (level[0] == '2')
			c->l2_kib = (int)kib;
		else if (level[0] == '3')
			c->l3_kib = (int)kib;
	}
}

/* AMD's legacy cache leaves: 0x80000005's ecx has the L1d size in KiB in bits 31:24,
 * 0x80000006's ecx the L2's in bits 31:16. Its L3 (edx) is the socket's, with no word of
 * how many cores share it, so it is left to the --cpu row. */
void cg_cpu_amd_legacy_caches(unsigned ecx_80000005, unsigned ecx_80000006, CpuInfo *c)
{
	c->l1d_kib = (int)(ecx_80000005 >> 24);
	c->l2_kib = (int)(ecx_80000006 >> 16);
}

#if defined(__x86_64__) && defined(__GNUC__)
/* cpuid, where there is no /proc/cpuinfo: leaves 0, 1, 7 and the caches of leaf 4
 * (Intel) or 0x8000001d (AMD; its legacy leaves where that one is empty) */
static void cpuid_detect(CpuInfo *c)
{
	unsigned a, b, d, cx, leaf, ecx5;
	int amd;
	if (!__get_cpuid_count(0, 0, &a, &b, &cx, &d))
		return;
	memcpy(c->vendor, &b, 4);
	memcpy(c->vendor + 4, &d, 4);
	memcpy(c->vendor + 8, &cx, 4);
	c->vendor[12] = 0;
	if (__get_cpuid_count(1, 0, &a, &b, &cx, &d)) {
		int fam = (int)((a >> 8) & 15), mod = (int)((a >> 4) & 15);
		if (fam == 15)
			fam += (int)((a >> 20) & 255);
		if (fam == 6 || fam >= 15)
			mod += (int)((a >> 16) & 15) << 4;
		c->family = fam;
		c->model = mod;
		if (cx & (1u << 12))
			c->ext |= CPU_FMA;
	}
	if (__get_cpuid_count(7, 0, &a, &b, &cx, &d)) {
		static const struct { int reg, bit; unsigned ext; } bits[] = {
			{ 1, 5, CPU_AVX2 }, { 1, 16, CPU_AVX512F }, { 1, 17, CPU_AVX512DQ }, { 1, 30, CPU_AVX512BW },
			{ 1, 31, CPU_AVX512VL }, { 2, 11, CPU_AVX512VNNI }, { 3, 23, CPU_AVX512FP16 },
			{ 3, 24, CPU_AMXTILE }, { 3, 25, CPU_AMXINT8 }, { 3, 22, CPU_AMXBF16 },
		};
		for (int i = 0; i < COUNTOF(bits); i++)
			if (((bits[i].reg == 1 ? b : bits[i].reg == 2 ? cx : d) >> bits[i].bit) & 1)
				c->ext |= bits[i].ext;
		if (__get_cpuid_count(7, 1, &a, &b, &cx, &d)) {
			if (a & (1u << 4))
				c->ext |= CPU_AVXVNNI;
			if (a & (1u << 5))
				c->ext |= CPU_AVX512BF16;
		}
	}
	amd = strcmp(c->vendor, "AuthenticAMD") == 0;
	leaf = amd ? 0x8000001du : 4u;
	for (unsigned i = 0; i < 16 && __get_cpuid_count(leaf, i, &a, &b, &cx, &d); i++) {
		unsigned type = a & 31, level = (a >> 5) & 7, sharing = ((a >> 14) & 0xfff) + 1;
		long bytes = (long)(((b >> 22) & 0x3ff) + 1) * (((b >> 12) & 0x3ff) + 1) * ((b & 0xfff) + 1) *
		             ((long)cx + 1);
		if (type == 0)
			break;
		if (type == 2)   /* instruction cache */
			continue;
		int kib = (int)(bytes / 1024 / (level == 3 ? sharing : 1));
		if (level == 1)
			c->l1d_kib = kib;
		else if (level == 2)
			c->l2_kib = kib;
		else if (level == 3)
			c->l3_kib = kib;
	}
	/* a VM without AMD's topology extensions answers 0x8000001d with zeros: the legacy
	 * leaves still give L1d and L2 */
	if (amd && !c->l1d_kib && __get_cpuid(0x80000005, &a, &b, &ecx5, &d) &&
	    __get_cpuid(0x80000006, &a, &b, &cx, &d))
		cg_cpu_amd_legacy_caches(ecx5, cx, c);
}
#endif

void cg_cpu_detect(CpuInfo *c)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	memset(c, 0, sizeof *c);
	if (f) {
		size_t cap = 1 << 16, n = 0, got;
		char *text = malloc(cap + 1);
		if (text) {
			while ((got = fread(text + n, 1, cap - n, f)) > 0) {
				n += got;
				if (n == cap) {   /* the first processor's block is all it needs */
					break;
				}
			}
			text[n] = 0;
			cg_cpu_parse_cpuinfo(text, c);
			free(text);
		}
		fclose(f);
		cg_cpu_parse_sysfs_cache("/sys/devices/system/cpu/cpu0/cache", c);
	}
#if defined(__x86_64__) && defined(__GNUC__)
	if (!c->vendor[0] || !c->l1d_kib) {
		CpuInfo k;
		memset(&k, 0, sizeof k);
		cpuid_detect(&k);
		if (!c->vendor[0]) {
			memcpy(c->vendor, k.vendor, sizeof c->vendor);
			c->family = k.family;
			c->model = k.model;
			c->ext = k.ext;
		}
		if (!c->l1d_kib) {
			c->l1d_kib = k.l1d_kib;
			c->l2_kib = k.l2_kib;
			c->l3_kib = k.l3_kib;
		}
		match(c);
	}
#endif
#if defined(__unix__) && defined(_SC_NPROCESSORS_ONLN)
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n > 0)
		c->cores = (int)n;
#endif
	if (c->cores < 1)
		c->cores = 1;
}
