/* ingot_cl.c — the OpenCL host helpers (ingot_cl.h), compiled into each NAME.c of
 * --target opencl as static functions: error names, device selection, program
 * build and the program binary cache. Only NAME_cl_init calls them, the one place
 * that may allocate (and, with ingot_cl_options.cache_dir, touch files). */
#include "ingot_cl.h"
#include "ingot_rt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INGOT_CL_ERRORS(X) \
	X(CL_DEVICE_NOT_FOUND) X(CL_DEVICE_NOT_AVAILABLE) X(CL_COMPILER_NOT_AVAILABLE) \
	X(CL_MEM_OBJECT_ALLOCATION_FAILURE) X(CL_OUT_OF_RESOURCES) X(CL_OUT_OF_HOST_MEMORY) \
	X(CL_BUILD_PROGRAM_FAILURE) X(CL_INVALID_VALUE) X(CL_INVALID_DEVICE) \
	X(CL_INVALID_PLATFORM) X(CL_INVALID_CONTEXT) X(CL_INVALID_COMMAND_QUEUE) \
	X(CL_INVALID_MEM_OBJECT) X(CL_INVALID_BINARY) X(CL_INVALID_BUILD_OPTIONS) \
	X(CL_INVALID_PROGRAM) X(CL_INVALID_PROGRAM_EXECUTABLE) X(CL_INVALID_KERNEL_NAME) \
	X(CL_INVALID_KERNEL) X(CL_INVALID_ARG_INDEX) X(CL_INVALID_ARG_VALUE) \
	X(CL_INVALID_ARG_SIZE) X(CL_INVALID_KERNEL_ARGS) X(CL_INVALID_WORK_DIMENSION) \
	X(CL_INVALID_WORK_GROUP_SIZE) X(CL_INVALID_WORK_ITEM_SIZE) X(CL_INVALID_GLOBAL_OFFSET) \
	X(CL_INVALID_EVENT_WAIT_LIST) X(CL_INVALID_OPERATION) X(CL_INVALID_BUFFER_SIZE) \
	X(CL_INVALID_GLOBAL_WORK_SIZE) X(CL_MISALIGNED_SUB_BUFFER_OFFSET) \
	X(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)

/* The name of an OpenCL error code ("CL_OUT_OF_RESOURCES"). */
static INGOT_UNUSED const char *ingot_cl_error_name(cl_int e)
{
#define INGOT_CL_ERROR_CASE(name) case name: return #name;
	switch (e) {
	case CL_SUCCESS: return "CL_SUCCESS";
	INGOT_CL_ERRORS(INGOT_CL_ERROR_CASE)
	case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";   /* the ICD loader: no platform */
	default: return "CL_UNKNOWN_ERROR";
	}
#undef INGOT_CL_ERROR_CASE
}

/* Records a failure; returns INGOT_EDEVICE. */
static INGOT_UNUSED int ingot_cl_fail(ingot_cl_error *err, cl_int e, const char *where)
{
	if (err) {
		err->code = e;
		err->name = ingot_cl_error_name(e);
		err->where = where;
	}
	return INGOT_EDEVICE;
}

/* The device the options name (ingot_cl.h); 0 or INGOT_EDEVICE. */
static INGOT_UNUSED int ingot_cl_pick(const ingot_cl_options *o, cl_platform_id *pf,
                                      cl_device_id *dev, ingot_cl_error *err)
{
	cl_platform_id pfs[16];
	cl_device_id devs[16];
	cl_uint n_pf = 0, n_dev = 0, i, k;
	char name[256];
	cl_int e = clGetPlatformIDs(16, pfs, &n_pf);
	if (e != CL_SUCCESS || n_pf == 0)
		return ingot_cl_fail(err, e != CL_SUCCESS ? e : CL_DEVICE_NOT_FOUND, "clGetPlatformIDs");
	for (i = 0; i < n_pf; i++) {
		if (o->platform_name) {
			name[0] = 0;
			clGetPlatformInfo(pfs[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
			name[sizeof name - 1] = 0;
			if (!strstr(name, o->platform_name))
				continue;
		} else if ((int)i != o->platform) {
			continue;
		}
		if (clGetDeviceIDs(pfs[i], CL_DEVICE_TYPE_ALL, 16, devs, &n_dev) != CL_SUCCESS)
			continue;
		for (k = 0; k < n_dev; k++) {
			if (o->device_name) {
				name[0] = 0;
				clGetDeviceInfo(devs[k], CL_DEVICE_NAME, sizeof name, name, NULL);
				name[sizeof name - 1] = 0;
				if (!strstr(name, o->device_name))
					continue;
			} else if ((int)k != o->device) {
				continue;
			}
			*pf = pfs[i];
			*dev = devs[k];
			return 0;
		}
	}
	return ingot_cl_fail(err, CL_DEVICE_NOT_FOUND, "selecting the device (ingot_cl_options)");
}

/* Builds the program from source (the build log into err on failure). */
static INGOT_UNUSED int ingot_cl_build(cl_context ctx, cl_device_id dev, const char *const *src,
                                       cl_uint n_src, const char *opts, cl_program *prog,
                                       ingot_cl_error *err)
{
	cl_int e;
	*prog = clCreateProgramWithSource(ctx, n_src, (const char **)src, NULL, &e);
	if (e != CL_SUCCESS)
		return ingot_cl_fail(err, e, "clCreateProgramWithSource");
	e = clBuildProgram(*prog, 1, &dev, opts, NULL, NULL);
	if (e != CL_SUCCESS) {
		if (err) {
			err->log[0] = 0;
			clGetProgramBuildInfo(*prog, dev, CL_PROGRAM_BUILD_LOG, sizeof err->log, err->log, NULL);
			err->log[sizeof err->log - 1] = 0;
		}
		return ingot_cl_fail(err, e, "clBuildProgram");
	}
	return 0;
}

/* ---- the program binary cache (ingot_cl_options.cache_dir) ----
 * A file is a 32-byte header, then the driver's binary:
 *   "INGOTCL1", the key, the binary's size, its FNV-1a 64 hash (little-endian u64s).
 * The key names the file; the hash catches a damaged or half-written one before the
 * driver sees it (drivers are not obliged to survive a corrupt binary). */
#define INGOT_CL_MAGIC "INGOTCL1"
#define INGOT_CL_HEADER 32
#define INGOT_CL_MAX_BINARY ((size_t)1 << 30)

static INGOT_UNUSED uint64_t ingot_cl_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = (const unsigned char *)p;
	size_t i;
	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return h;
}

static INGOT_UNUSED void ingot_cl_put64(unsigned char *b, uint64_t v)
{
	int i;
	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

static INGOT_UNUSED uint64_t ingot_cl_get64(const unsigned char *b)
{
	uint64_t v = 0;
	int i;
	for (i = 0; i < 8; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

/* The cache key: the program text and options, then who compiles it. */
static INGOT_UNUSED uint64_t ingot_cl_key(cl_platform_id pf, cl_device_id dev, const char *const *src,
                                          cl_uint n_src, const char *opts)
{
	static const cl_platform_info pinfo[2] = { CL_PLATFORM_NAME, CL_PLATFORM_VERSION };
	static const cl_device_info dinfo[3] = { CL_DEVICE_NAME, CL_DEVICE_VERSION, CL_DRIVER_VERSION };
	uint64_t h = 14695981039346656037ull;
	char s[256];
	cl_uint i;
	for (i = 0; i < n_src; i++)
		h = ingot_cl_fnv(h, src[i], strlen(src[i]) + 1);
	h = ingot_cl_fnv(h, opts, strlen(opts) + 1);
	for (i = 0; i < 2; i++) {
		memset(s, 0, sizeof s);
		clGetPlatformInfo(pf, pinfo[i], sizeof s - 1, s, NULL);
		h = ingot_cl_fnv(h, s, strlen(s) + 1);
	}
	for (i = 0; i < 3; i++) {
		memset(s, 0, sizeof s);
		clGetDeviceInfo(dev, dinfo[i], sizeof s - 1, s, NULL);
		h = ingot_cl_fnv(h, s, strlen(s) + 1);
	}
	return h;
}

/* The binary in the cache file (malloc'd; *n its size), or NULL with info->cache
 * saying why. */
static INGOT_UNUSED unsigned char *ingot_cl_cache_read(const char *path, uint64_t key, size_t *n,
                                                       ingot_cl_info *info)
{
	unsigned char hdr[INGOT_CL_HEADER], *bin = NULL;
	uint64_t size = 0;
	long len;
	FILE *f = fopen(path, "rb");
	const char *bad = NULL;
	if (!f) {
		snprintf(info->cache, sizeof info->cache, "missing");
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
	    fread(hdr, 1, sizeof hdr, f) != sizeof hdr || memcmp(hdr, INGOT_CL_MAGIC, 8) != 0)
		bad = "not a binary cache file";
	else if (ingot_cl_get64(hdr + 8) != key)
		bad = "made for another program or device";
	else if ((size = ingot_cl_get64(hdr + 16)) == 0 || size > INGOT_CL_MAX_BINARY ||
	         size != (uint64_t)len - INGOT_CL_HEADER)
		bad = "truncated";
	else if (!(bin = (unsigned char *)malloc((size_t)size)))
		bad = "out of memory";
	else if (fread(bin, 1, (size_t)size, f) != (size_t)size ||
	         ingot_cl_fnv(14695981039346656037ull, bin, (size_t)size) != ingot_cl_get64(hdr + 24))
		bad = "its hash does not match";
	fclose(f);
	if (bad) {
		free(bin);
		snprintf(info->cache, sizeof info->cache, "damaged: %s", bad);
		return NULL;
	}
	*n = (size_t)size;
	return bin;
}

/* Writes the program's binary to path (through path.tmp, renamed, so a reader sees
 * the old file or the new one); the outcome into info. */
static INGOT_UNUSED void ingot_cl_cache_write(cl_program prog, const char *path, uint64_t key,
                                              ingot_cl_info *info)
{
	size_t size = 0;
	unsigned char hdr[INGOT_CL_HEADER], *bin;
	char tmp[4200];
	const char *bad = NULL;
	FILE *f;
	if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
	    size == 0 || size > INGOT_CL_MAX_BINARY) {
		snprintf(info->cache, sizeof info->cache, "not written: the driver gives no binary");
		return;
	}
	if (!(bin = (unsigned char *)malloc(size))) {
		snprintf(info->cache, sizeof info->cache, "not written: out of memory");
		return;
	}
	if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) != CL_SUCCESS) {
		free(bin);
		snprintf(info->cache, sizeof info->cache, "not written: the driver gives no binary");
		return;
	}
	memcpy(hdr, INGOT_CL_MAGIC, 8);
	ingot_cl_put64(hdr + 8, key);
	ingot_cl_put64(hdr + 16, (uint64_t)size);
	ingot_cl_put64(hdr + 24, ingot_cl_fnv(14695981039346656037ull, bin, size));
	/* a name of this process's own (the state's address) for the temporary */
	snprintf(tmp, sizeof tmp, "%s.%p.tmp", path, (void *)info);
	if (!(f = fopen(tmp, "wb")))
		bad = "cannot create the file";
	else if (fwrite(hdr, 1, sizeof hdr, f) != sizeof hdr || fwrite(bin, 1, size, f) != size)
		bad = "write failed";
	if (f && fclose(f) != 0 && !bad)
		bad = "write failed";
	if (!bad && rename(tmp, path) != 0)
		bad = "rename failed";
	if (bad)
		remove(tmp);
	free(bin);
	info->saved = !bad;
	if (bad)
		snprintf(info->cache, sizeof info->cache, "not written: %s", bad);
	else
		snprintf(info->cache, sizeof info->cache, "saved");
}

/* A buffer of at least one byte (OpenCL rejects empty ones), from host data or not. */
static INGOT_UNUSED int ingot_cl_buffer(ingot_cl_state *st, cl_mem_flags fl, size_t bytes,
                                        const void *data, cl_mem *m)
{
	cl_int e;
	*m = clCreateBuffer(st->ctx, fl | (data && bytes ? CL_MEM_COPY_HOST_PTR : 0), bytes ? bytes : 64,
	                    data && bytes ? (void *)(uintptr_t)data : NULL, &e);
	return e == CL_SUCCESS ? 0 : ingot_cl_fail(&st->err, e, "clCreateBuffer");
}

/* Each call's kernel with its arguments; on failure none is left. */
static INGOT_UNUSED int ingot_cl_kernels(ingot_cl_state *st)
{
	cl_int e = CL_SUCCESS;
	int i, j;
	for (i = 0; i < st->n_calls && e == CL_SUCCESS; i++) {
		const ingot_cl_call *c = &st->calls[i];
		if (!c->kernel)
			continue;
		st->k[i] = clCreateKernel(st->prog, c->kernel, &e);
		if (e != CL_SUCCESS) {
			st->k[i] = NULL;
			ingot_cl_fail(&st->err, e, "clCreateKernel");
			break;
		}
		e = clSetKernelArg(st->k[i], 0, c->params_size, c->params);
		for (j = 0; j < c->n_bufs && e == CL_SUCCESS; j++) {
			cl_mem *m = c->buf[j].mem == INGOT_CL_WEIGHTS ? &st->weights :
			            c->buf[j].mem == INGOT_CL_STATUS ? &st->status :
			            c->buf[j].mem == INGOT_CL_TABLES ? &st->tables : &st->pool;
			e = clSetKernelArg(st->k[i], (cl_uint)(1 + 2 * j), sizeof *m, m);
			if (e == CL_SUCCESS)
				e = clSetKernelArg(st->k[i], (cl_uint)(2 + 2 * j), sizeof c->buf[j].off, &c->buf[j].off);
		}
		if (e != CL_SUCCESS)
			ingot_cl_fail(&st->err, e, "clSetKernelArg");
	}
	if (e == CL_SUCCESS) {
		for (i = 0, st->info.n_kernels = 0; i < st->n_calls; i++)
			st->info.n_kernels += st->k[i] != NULL;
		return 0;
	}
	for (i = 0; i < st->n_calls; i++)
		if (st->k[i]) {
			clReleaseKernel(st->k[i]);
			st->k[i] = NULL;
		}
	return INGOT_EDEVICE;
}

/* The program and kernels from the cache file; 0, or INGOT_EDEVICE with nothing
 * left behind (init then builds the source). */
static INGOT_UNUSED int ingot_cl_from_cache(ingot_cl_state *st, const char *path, uint64_t key,
                                            const char *build_opts)
{
	size_t n = 0;
	cl_int e, status = CL_SUCCESS;
	unsigned char *bin = ingot_cl_cache_read(path, key, &n, &st->info);
	const unsigned char *b = bin;
	const char *bad = NULL;
	if (!bin)
		return INGOT_EDEVICE;
	st->prog = clCreateProgramWithBinary(st->ctx, 1, &st->dev, &n, &b, &status, &e);
	free(bin);
	if (e != CL_SUCCESS || status != CL_SUCCESS)
		bad = ingot_cl_error_name(e != CL_SUCCESS ? e : status);
	else if ((e = clBuildProgram(st->prog, 1, &st->dev, build_opts, NULL, NULL)) != CL_SUCCESS)
		bad = ingot_cl_error_name(e);
	else if (ingot_cl_kernels(st) != 0)
		bad = st->err.name;
	if (!bad) {
		st->info.from_binary = 1;
		snprintf(st->info.cache, sizeof st->info.cache, "loaded");
		return 0;
	}
	if (st->prog)
		clReleaseProgram(st->prog);
	st->prog = NULL;
	memset(&st->err, 0, sizeof st->err);
	snprintf(st->info.cache, sizeof st->info.cache, "refused by the driver: %s", bad);
	return INGOT_EDEVICE;
}

/* Everything NAME_cl_init does: device, context, queue, the pool, the weights and
 * the kernels' tables (uploaded once), the program (from the binary cache, else built from source, once)
 * and each call's kernel with its arguments. */
static INGOT_UNUSED int ingot_cl_setup(ingot_cl_state *st, const ingot_cl_options *o,
                                       const char *const *src, cl_uint n_src, const char *build_opts,
                                       size_t pool_bytes, const void *weights, size_t weights_bytes,
                                       const void *tables, size_t tables_bytes,
                                       const ingot_cl_call *calls, int n_calls, cl_kernel *k)
{
	static const ingot_cl_options defaults = INGOT_CL_OPTIONS_DEFAULT;
	static const cl_int zero = 0;
	char path[4096];
	uint64_t key = 0;
	cl_platform_id pf;
	cl_int e;
	int rc;
	st->calls = calls;
	st->n_calls = n_calls;
	st->k = k;
	if (!o)
		o = &defaults;
	snprintf(st->info.cache, sizeof st->info.cache, "off");
	if ((rc = ingot_cl_pick(o, &pf, &st->dev, &st->err)) != 0)
		return rc;
	clGetDeviceInfo(st->dev, CL_DEVICE_NAME, sizeof st->info.device - 1, st->info.device, NULL);
	st->ctx = clCreateContext(NULL, 1, &st->dev, NULL, NULL, &e);
	if (e != CL_SUCCESS)
		return ingot_cl_fail(&st->err, e, "clCreateContext");
	st->q = clCreateCommandQueue(st->ctx, st->dev, 0, &e);
	if (e != CL_SUCCESS)
		return ingot_cl_fail(&st->err, e, "clCreateCommandQueue");
	if ((rc = ingot_cl_buffer(st, CL_MEM_READ_WRITE, pool_bytes, NULL, &st->pool)) != 0 ||
	    (rc = ingot_cl_buffer(st, CL_MEM_READ_ONLY, weights_bytes, weights, &st->weights)) != 0 ||
	    (rc = ingot_cl_buffer(st, CL_MEM_READ_ONLY, tables_bytes, tables, &st->tables)) != 0 ||
	    (rc = ingot_cl_buffer(st, CL_MEM_READ_WRITE, sizeof zero, &zero, &st->status)) != 0)
		return rc;
	for (rc = 0; rc < n_calls && !calls[rc].kernel; rc++)
		;
	if (rc == n_calls) {   /* no kernel to run (every node on the host): no program */
		snprintf(st->info.cache, sizeof st->info.cache, "unused: no device kernels");
		return 0;
	}
	if (o->cache_dir) {
		key = ingot_cl_key(pf, st->dev, src, n_src, build_opts);
		snprintf(path, sizeof path, "%s/ingot-cl-%016llx.bin", o->cache_dir, (unsigned long long)key);
		if (ingot_cl_from_cache(st, path, key, build_opts) == 0)
			return 0;
	}
	if ((rc = ingot_cl_build(st->ctx, st->dev, src, n_src, build_opts, &st->prog, &st->err)) != 0 ||
	    (rc = ingot_cl_kernels(st)) != 0)
		return rc;
	if (o->cache_dir) {
		/* keep why the old file went unused: "saved; was damaged: ..." */
		char why[sizeof st->info.cache];
		size_t n;
		memcpy(why, st->info.cache, sizeof why);
		ingot_cl_cache_write(st->prog, path, key, &st->info);
		n = strlen(st->info.cache);
		if (strcmp(why, "missing") != 0 && n + 6 < sizeof st->info.cache) {
			memcpy(st->info.cache + n, "; was ", 6);
			n += 6;
			strncpy(st->info.cache + n, why, sizeof st->info.cache - n - 1);
			st->info.cache[sizeof st->info.cache - 1] = 0;
		}
	}
	return 0;
}

/* Call i on the queue: its kernel, or (no kernel) a copy of buf[0] into buf[1]. */
static INGOT_UNUSED int ingot_cl_launch(ingot_cl_state *st, int i, size_t copy_bytes)
{
	const ingot_cl_call *c = &st->calls[i];
	cl_int e;
	if (!c->kernel) {
		if (!copy_bytes)
			return 0;
		e = clEnqueueCopyBuffer(st->q, st->pool, st->pool, (size_t)c->buf[0].off,
		                        (size_t)c->buf[1].off, copy_bytes, 0, NULL, NULL);
		return e == CL_SUCCESS ? 0 : ingot_cl_fail(&st->err, e, "clEnqueueCopyBuffer");
	}
	e = clEnqueueNDRangeKernel(st->q, st->k[i], c->dims, NULL, c->gws, c->lws[0] ? c->lws : NULL,
	                           0, NULL, NULL);
	return e == CL_SUCCESS ? 0 : ingot_cl_fail(&st->err, e, c->kernel);
}

/* The transfers: host memory into the pool at off, and back; both block, so the
 * host may reuse its memory (the arena) right after. */
static INGOT_UNUSED int ingot_cl_write(ingot_cl_state *st, size_t off, size_t bytes, const void *src)
{
	cl_int e = bytes ? clEnqueueWriteBuffer(st->q, st->pool, CL_TRUE, off, bytes, src, 0, NULL, NULL)
	                 : CL_SUCCESS;
	return e == CL_SUCCESS ? 0 : ingot_cl_fail(&st->err, e, "clEnqueueWriteBuffer");
}

static INGOT_UNUSED int ingot_cl_read(ingot_cl_state *st, size_t off, size_t bytes, void *dst)
{
	cl_int e = bytes ? clEnqueueReadBuffer(st->q, st->pool, CL_TRUE, off, bytes, dst, 0, NULL, NULL)
	                 : CL_SUCCESS;
	return e == CL_SUCCESS ? 0 : ingot_cl_fail(&st->err, e, "clEnqueueReadBuffer");
}

/* After a run whose kernels check indices: INGOT_ERANGE when one was out of range
 * (the word is cleared for the next run), else 0. */
static INGOT_UNUSED int ingot_cl_status(ingot_cl_state *st)
{
	cl_int v = 0, e = clEnqueueReadBuffer(st->q, st->status, CL_TRUE, 0, sizeof v, &v, 0, NULL, NULL);
	if (e != CL_SUCCESS)
		return ingot_cl_fail(&st->err, e, "clEnqueueReadBuffer");
	if (!v)
		return 0;
	v = 0;
	e = clEnqueueWriteBuffer(st->q, st->status, CL_TRUE, 0, sizeof v, &v, 0, NULL, NULL);
	return e == CL_SUCCESS ? INGOT_ERANGE : ingot_cl_fail(&st->err, e, "clEnqueueWriteBuffer");
}

static INGOT_UNUSED int ingot_cl_finish(ingot_cl_state *st)
{
	cl_int e = clFinish(st->q);
	return e == CL_SUCCESS ? 0 : ingot_cl_fail(&st->err, e, "clFinish");
}

static INGOT_UNUSED void ingot_cl_teardown(ingot_cl_state *st)
{
	int i;
	for (i = 0; st->k && i < st->n_calls; i++)
		if (st->k[i])
			clReleaseKernel(st->k[i]);
	if (st->pool)
		clReleaseMemObject(st->pool);
	if (st->weights)
		clReleaseMemObject(st->weights);
	if (st->tables)
		clReleaseMemObject(st->tables);
	if (st->status)
		clReleaseMemObject(st->status);
	if (st->prog)
		clReleaseProgram(st->prog);
	if (st->q)
		clReleaseCommandQueue(st->q);
	if (st->ctx)
		clReleaseContext(st->ctx);
}
