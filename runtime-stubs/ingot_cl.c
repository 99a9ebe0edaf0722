/* ingot_cl.c — the OpenCL host helpers (ingot_cl.h), compiled into each NAME.c of
 * --target opencl as static functions: error names, device selection, program
 * build. Only NAME_cl_init calls them, the one place that may allocate. */
#include "ingot_cl.h"
#include "ingot_rt.h"

#include <stdint.h>
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

/* A buffer of at least one byte (OpenCL rejects empty ones), from host data or not. */
static INGOT_UNUSED int ingot_cl_buffer(ingot_cl_state *st, cl_mem_flags fl, size_t bytes,
                                        const void *data, cl_mem *m)
{
	cl_int e;
	*m = clCreateBuffer(st->ctx, fl | (data && bytes ? CL_MEM_COPY_HOST_PTR : 0), bytes ? bytes : 64,
	                    data && bytes ? (void *)(uintptr_t)data : NULL, &e);
	return e == CL_SUCCESS ? 0 : ingot_cl_fail(&st->err, e, "clCreateBuffer");
}

/* Everything NAME_cl_init does: device, context, queue, program (built once), the
 * pool, the weights (uploaded once), and each call's kernel with its arguments. */
static INGOT_UNUSED int ingot_cl_setup(ingot_cl_state *st, const ingot_cl_options *o,
                                       const char *const *src, cl_uint n_src, const char *build_opts,
                                       size_t pool_bytes, const void *weights, size_t weights_bytes,
                                       const ingot_cl_call *calls, int n_calls, cl_kernel *k)
{
	static const ingot_cl_options defaults = INGOT_CL_OPTIONS_DEFAULT;
	cl_platform_id pf;
	cl_int e;
	int i, j, rc;
	st->calls = calls;
	st->n_calls = n_calls;
	st->k = k;
	if ((rc = ingot_cl_pick(o ? o : &defaults, &pf, &st->dev, &st->err)) != 0)
		return rc;
	st->ctx = clCreateContext(NULL, 1, &st->dev, NULL, NULL, &e);
	if (e != CL_SUCCESS)
		return ingot_cl_fail(&st->err, e, "clCreateContext");
	st->q = clCreateCommandQueue(st->ctx, st->dev, 0, &e);
	if (e != CL_SUCCESS)
		return ingot_cl_fail(&st->err, e, "clCreateCommandQueue");
	if ((rc = ingot_cl_build(st->ctx, st->dev, src, n_src, build_opts, &st->prog, &st->err)) != 0 ||
	    (rc = ingot_cl_buffer(st, CL_MEM_READ_WRITE, pool_bytes, NULL, &st->pool)) != 0 ||
	    (rc = ingot_cl_buffer(st, CL_MEM_READ_ONLY, weights_bytes, weights, &st->weights)) != 0)
		return rc;
	for (i = 0; i < n_calls; i++) {
		const ingot_cl_call *c = &calls[i];
		if (!c->kernel)
			continue;
		k[i] = clCreateKernel(st->prog, c->kernel, &e);
		if (e != CL_SUCCESS)
			return ingot_cl_fail(&st->err, e, "clCreateKernel");
		e = clSetKernelArg(k[i], 0, c->params_size, c->params);
		for (j = 0; j < c->n_bufs && e == CL_SUCCESS; j++) {
			cl_mem *m = c->buf[j].mem == INGOT_CL_WEIGHTS ? &st->weights : &st->pool;
			e = clSetKernelArg(k[i], (cl_uint)(1 + 2 * j), sizeof *m, m);
			if (e == CL_SUCCESS)
				e = clSetKernelArg(k[i], (cl_uint)(2 + 2 * j), sizeof c->buf[j].off, &c->buf[j].off);
		}
		if (e != CL_SUCCESS)
			return ingot_cl_fail(&st->err, e, "clSetKernelArg");
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
	if (st->prog)
		clReleaseProgram(st->prog);
	if (st->q)
		clReleaseCommandQueue(st->q);
	if (st->ctx)
		clReleaseContext(st->ctx);
}
