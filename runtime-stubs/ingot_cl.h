/* ingot_cl.h — the OpenCL host helpers of --target opencl: how an application picks
 * the platform and device, and how an OpenCL failure is reported. NAME.c includes
 * ingot_cl.c (its functions are static), so two models link together.
 *
 *     ingot_cl_options o = INGOT_CL_OPTIONS_DEFAULT;
 *     ingot_cl_error err;
 *     o.device_name = "pthread";                 // a substring of CL_DEVICE_NAME
 *     o.cache_dir = "/var/cache/myapp";          // program binaries kept here (optional)
 *     m_cl *cl = m_cl_init(&o, &err);            // NULL: err.name says why
 *     int rc = m_cl_run(cl, inputs, outputs, workspace);   // 0 or INGOT_EDEVICE
 *     m_cl_release(cl);
 *
 * The only run-time dependency is the OpenCL ICD loader (-lOpenCL). */
#ifndef INGOT_CL_H
#define INGOT_CL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

/* Which device: the index-th platform (or the first whose CL_PLATFORM_NAME holds
 * platform_name), and on it the index-th device (or the first whose CL_DEVICE_NAME
 * holds device_name). A name, when not NULL, wins over its index.
 *
 * cache_dir, when not NULL, is an existing directory the application owns where
 * init keeps the driver's program binary (CL_PROGRAM_BINARIES, saved after the
 * kernels are created, since some drivers compile at clCreateKernel) as
 * ingot-cl-KEY.bin, KEY a hash of the program text, its build options, the platform,
 * the device and the driver version; a later init loads it instead of compiling the
 * source. A file that is damaged, or that the driver refuses, is ignored: init builds
 * from source and writes the file again. Models share the file when their programs
 * are the same. */
typedef struct ingot_cl_options {
	int platform;
	int device;
	const char *platform_name;
	const char *device_name;
	const char *cache_dir;
} ingot_cl_options;

#define INGOT_CL_OPTIONS_DEFAULT { 0, 0, NULL, NULL, NULL }

/* What init did (NAME_cl_info): the device it chose, and where the program came
 * from: the cache (from_binary), or the source, then written to the cache (saved);
 * a model without device kernels builds no program.
 * cache says what happened to the cache file in words ("off", "loaded", "missing",
 * "damaged: ...", "refused by the driver: CL_...", "saved", "not written: ..."). */
typedef struct ingot_cl_info {
	char device[128];
	int n_kernels;               /* kernels created (0: every node on the host, no program) */
	int from_binary;
	int saved;
	char cache[160];
} ingot_cl_info;

/* The last OpenCL failure: its code (CL_*; 0 none), the code's name, the call that
 * failed, and the program's build log when clBuildProgram failed. */
typedef struct ingot_cl_error {
	int code;
	const char *name;
	const char *where;
	char log[1024];
} ingot_cl_error;

/* What NAME.c hands the helpers of ingot_cl.c. */

/* A kernel argument's buffer: the device pool (which mirrors the host arena's
 * offsets), the weights (NAME_weights, uploaded once), the status word (nonzero:
 * a kernel met an index out of range), or the tables the compiler computed for the
 * kernels (NAME_cl_tables, uploaded once), at a byte offset. */
enum { INGOT_CL_POOL, INGOT_CL_WEIGHTS, INGOT_CL_STATUS, INGOT_CL_TABLES };
typedef struct ingot_cl_buf {
	int mem;
	cl_long off;
} ingot_cl_buf;

/* One kernel launch: the kernel, its parameter struct (argument 0), its buffers
 * (arguments 1, 2...: buffer then offset), its NDRange (lws[0] == 0: the driver's). */
#define INGOT_CL_MAX_BUFS 8
typedef struct ingot_cl_call {
	const char *kernel;
	const void *params;
	size_t params_size;
	int n_bufs;
	ingot_cl_buf buf[INGOT_CL_MAX_BUFS];
	cl_uint dims;
	size_t gws[3], lws[3];
} ingot_cl_call;

/* A model's device state (inside NAME_cl). */
typedef struct ingot_cl_state {
	cl_context ctx;
	cl_device_id dev;
	cl_command_queue q;          /* one in-order queue */
	cl_program prog;
	cl_mem pool, weights, status, tables;
	const ingot_cl_call *calls;
	cl_kernel *k;                /* one per call, created at init with its arguments set */
	int n_calls;
	ingot_cl_error err;
	ingot_cl_info info;
} ingot_cl_state;

#endif /* INGOT_CL_H */
