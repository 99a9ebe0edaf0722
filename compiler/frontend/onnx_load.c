/* onnx_load.c — frontend entry: reads a .onnx file, pre-scans its wire format,
 * unpacks it with protobuf-c under a memory cap, checks the model header (IR
 * version, opsets, fields newer than our onnx.proto) and imports the main graph
 * into region 0. The protobuf message is freed before onnx_load() returns; the IR
 * owns copies of everything it keeps (names in the arena, tensor bytes in the blob).
 */
#include "onnx_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* a ModelProto is capped at 2 GiB by protobuf itself; bigger weights go external */
#define MAX_MODEL_BYTES ((int64_t)INT32_MAX)
/* protobuf-c may use this many bytes per file byte (plus a fixed allowance): a bound
 * linear in the file, above what real models need (10^6 inputs, each a ValueInfo with
 * its type and shape, need about 17x: 8 refused that model) and below the densest
 * hostile case, empty NodeProtos of 2 bytes that unpack to about 130 (64x; the
 * frontend test's amplify.onnx) */
#define ALLOC_FACTOR 32
#define ALLOC_EXTRA ((size_t)64 << 20)
#define MAX_OPSET 100
#define MAX_ML_OPSET 5     /* the newest ai.onnx.ml opset ingot implements */
#define MAX_IR_VERSION 100

/* ---- name map: open addressing, FNV-1a ---- */

void onnx_names_init(NameMap *m) { memset(m, 0, sizeof *m); }

void onnx_names_free(NameMap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

static size_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ull;
	return (size_t)h;
}

ValueId onnx_names_get(const NameMap *m, const char *name)
{
	if (!m->cap)
		return IR_NONE;
	for (size_t i = hash(name) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->keys[i])
			return IR_NONE;
		if (strcmp(m->keys[i], name) == 0)
			return m->vals[i];
	}
}

static void put_slot(const char **keys, ValueId *vals, size_t cap, const char *key, ValueId v)
{
	size_t i = hash(key) & (cap - 1);
	while (keys[i] && strcmp(keys[i], key) != 0)
		i = (i + 1) & (cap - 1);
	keys[i] = key;
	vals[i] = v;
}

void onnx_names_put(NameMap *m, const char *key, ValueId v)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		const char **keys = calloc(cap, sizeof *keys);
		ValueId *vals = calloc(cap, sizeof *vals);
		if (!keys || !vals)
			die("out of memory (name map of %zu entries)", cap);
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i])
				put_slot(keys, vals, cap, m->keys[i], m->vals[i]);
		free(m->keys);
		free(m->vals);
		m->keys = keys;
		m->vals = vals;
		m->cap = cap;
	}
	if (onnx_names_get(m, key) == IR_NONE)
		m->n++;
	put_slot(m->keys, m->vals, m->cap, key, v);
}

/* ---- diagnostics ---- */

int onnx_fail(Loader *L, DiagCode code, const DiagLoc *loc, const char *fmt, ...)
{
	DiagLoc l = loc ? *loc : diag_loc_file(L->file);
	va_list ap;
	l.file = L->file;
	va_start(ap, fmt);
	diag_vreport(L->d, DIAG_ERROR, code, &l, fmt, ap);
	va_end(ap);
	return -1;
}

/* Fields added to onnx.proto after ONNX 1.12 (IR version 8). `ignore`: dropping
 * them cannot change what the model computes. */
static const struct NewerField {
	const char *message;
	unsigned id;
	const char *name;
	bool ignore;
} newer_fields[] = {
	{ "onnx.ModelProto", 26, "configuration", false },
	{ "onnx.GraphProto", 16, "metadata_props", true },
	{ "onnx.NodeProto", 8, "overload", false },
	{ "onnx.NodeProto", 9, "metadata_props", true },
	{ "onnx.NodeProto", 10, "device_configurations", true },
	{ "onnx.TensorProto", 16, "metadata_props", true },
	{ "onnx.ValueInfoProto", 4, "metadata_props", true },
	{ "onnx.FunctionProto", 11, "attribute_proto", true },   /* read by onnx_function.c */
	{ "onnx.FunctionProto", 12, "value_info", true },
	{ "onnx.FunctionProto", 13, "overload", false },
	{ "onnx.FunctionProto", 14, "metadata_props", true },
};

int onnx_check_unknown(Loader *L, const ProtobufCMessage *m, const DiagLoc *loc)
{
	for (unsigned i = 0; i < m->n_unknown_fields; i++) {
		unsigned id = m->unknown_fields[i].tag;
		const struct NewerField *nf = NULL;
		for (int k = 0; k < COUNTOF(newer_fields); k++)
			if (newer_fields[k].id == id && strcmp(newer_fields[k].message, m->descriptor->name) == 0)
				nf = &newer_fields[k];
		if (nf && nf->ignore)
			continue;
		if (nf)
			return onnx_fail(L, DC_UNSUPPORTED, loc, "%s field '%s' (newer than ONNX 1.12) is "
			                 "not supported", m->descriptor->short_name, nf->name);
		return onnx_fail(L, DC_UNSUPPORTED, loc, "unknown %s field %u (written by a newer "
		                 "ONNX?)", m->descriptor->short_name, id);
	}
	return 0;
}

/* ---- reading the file ---- */

static int read_file(Loader *L, const char *path, uint8_t **data, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	*data = NULL;
	*len = 0;
	if (!f)
		return onnx_fail(L, DC_IO, NULL, "cannot open: %s", strerror(errno));
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
		fclose(f);
		return onnx_fail(L, DC_IO, NULL, "not a regular file");
	}
	if ((int64_t)st.st_size > MAX_MODEL_BYTES) {
		fclose(f);
		return onnx_fail(L, DC_LIMIT, NULL, "file is %lld bytes; a protobuf model is limited "
		                 "to 2 GiB (store the weights as external data)", (long long)st.st_size);
	}
	size_t n = (size_t)st.st_size;
	uint8_t *buf = malloc(n ? n : 1);
	if (!buf) {
		fclose(f);
		return onnx_fail(L, DC_LIMIT, NULL, "out of memory reading %zu bytes", n);
	}
	if (n && fread(buf, 1, n, f) != n) {
		free(buf);
		fclose(f);
		return onnx_fail(L, DC_IO, NULL, "read error");
	}
	fclose(f);
	*data = buf;
	*len = n;
	return 0;
}

/* ---- protobuf-c under a memory cap ---- */

/* protobuf-c allocates each message, string and repeated array apart: a model of 10^5
 * nodes makes millions of small blocks, and malloc plus free_unpacked's walk over them
 * were a quarter of loading it. Small blocks are carved from 1 MiB chunks (free is a
 * no-op for them: their budget is not given back); a block of ARENA_BIG or more (weights,
 * protobuf-c's scanned-member slabs of a large graph) is malloc'd apart and freed for
 * real. cap_release frees everything at once, without walking the message. */
#ifdef INGOT_TEST_SMALL_CHUNKS   /* -Dsmall_chunks: every chunk and big-block path runs */
#define ARENA_CHUNK ((size_t)512)
#define ARENA_BIG ((size_t)256)
#else
#define ARENA_CHUNK ((size_t)4 << 20)
#define ARENA_BIG ((size_t)64 << 10)
#endif
#define ARENA_ALIGN ((size_t)16)

/* The word before each block tells a big block (1) from a small one (0). */
typedef struct BigHead {
	struct BigHead *prev, *next;   /* the list cap_release frees */
	size_t size, tag;
} BigHead;

typedef struct SmallHead {
	size_t pad, tag;
} SmallHead;

typedef struct Chunk {
	struct Chunk *next;
	size_t pad;
} Chunk;

typedef struct CapAlloc {
	size_t used, cap;
	bool exceeded;
	BigHead *big;      /* big blocks, most recent first */
	Chunk *chunks;     /* most recent first */
	char *cur;         /* the free part of the newest chunk */
	size_t left;
} CapAlloc;

static void *cap_alloc(void *data, size_t size)
{
	CapAlloc *c = data;
	if (size > c->cap - c->used || size > SIZE_MAX - ARENA_BIG) {
		c->exceeded = true;
		return NULL;
	}
	size_t need = sizeof(SmallHead) + (size + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
	if (need >= ARENA_BIG) {
		BigHead *b = malloc(sizeof *b + size);
		if (!b) {
			c->exceeded = true;
			return NULL;
		}
		*b = (BigHead){ NULL, c->big, size, 1 };
		if (c->big)
			c->big->prev = b;
		c->big = b;
		c->used += size;
		return b + 1;
	}
	if (need > c->left) {
		Chunk *ch = malloc(sizeof *ch + ARENA_CHUNK);
		if (!ch) {
			c->exceeded = true;
			return NULL;
		}
		mem_advise_huge(ch, sizeof *ch + ARENA_CHUNK);
		ch->next = c->chunks;
		c->chunks = ch;
		c->cur = (char *)(ch + 1);
		c->left = ARENA_CHUNK;
	}
	SmallHead *h = (SmallHead *)c->cur;
	h->tag = 0;
	c->cur += need;
	c->left -= need;
	c->used += size;
	return h + 1;
}

/* Frees a big block; a small one stays in its chunk until cap_release. */
static void cap_free(void *data, void *p)
{
	CapAlloc *c = data;
	if (!p || ((const size_t *)p)[-1] == 0)
		return;
	BigHead *b = (BigHead *)p - 1;
	if (b->prev)
		b->prev->next = b->next;
	else
		c->big = b->next;
	if (b->next)
		b->next->prev = b->prev;
	c->used -= b->size;
	free(b);
}

/* Frees every block of the decoded message (which must not be used after). */
static void cap_release(CapAlloc *c)
{
	while (c->big) {
		BigHead *b = c->big;
		c->big = b->next;
		free(b);
	}
	while (c->chunks) {
		Chunk *ch = c->chunks;
		c->chunks = ch->next;
		free(ch);
	}
	c->cur = NULL;
	c->left = 0;
}

static int check_header(Loader *L, const Onnx__ModelProto *m)
{
	Graph *g = L->g;
	bool have_default = false;

	if (onnx_check_unknown(L, &m->base, NULL))
		return -1;
	if (m->has_ir_version && (m->ir_version < 1 || m->ir_version > MAX_IR_VERSION))
		return onnx_fail(L, DC_PARSE, NULL, "invalid ir_version %lld",
		                 (long long)m->ir_version);
	g->ir_version = m->has_ir_version ? m->ir_version : 0;
	if (m->producer_name && m->producer_name[0])
		g->producer = m->producer_version && m->producer_version[0]
		              ? arena_printf(&g->arena, "%s %s", m->producer_name, m->producer_version)
		              : arena_strdup(&g->arena, m->producer_name);
	L->opset = 1;   /* what a model without an ai.onnx opset_import gets */
	for (size_t i = 0; i < m->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *os = m->opset_import[i];
		const char *dom = os->domain ? os->domain : "";
		if (onnx_check_unknown(L, &os->base, NULL))
			return -1;
		if (!os->has_version || os->version < 1 || os->version > MAX_OPSET)
			return onnx_fail(L, DC_PARSE, NULL, "invalid opset version %lld for domain '%s'",
			                 os->has_version ? (long long)os->version : 0LL, dom);
		if (strcmp(dom, "ai.onnx.ml") == 0) {
			/* the classic-ML ops (OPF_ML) go by this opset; 1 to 5 are defined */
			if (L->ml_opset)
				return onnx_fail(L, DC_PARSE, NULL, "more than one opset_import for the "
				                 "ai.onnx.ml domain");
			if (os->version > MAX_ML_OPSET)
				return onnx_fail(L, DC_UNSUPPORTED, NULL, "ai.onnx.ml opset %lld is newer "
				                 "than ingot knows (at most %d)", (long long)os->version,
				                 MAX_ML_OPSET);
			L->ml_opset = (int)os->version;
			continue;
		}
		if (dom[0] && strcmp(dom, "ai.onnx") != 0)
			continue;   /* other domains: their nodes are reported as unsupported */
		if (have_default)
			return onnx_fail(L, DC_PARSE, NULL, "more than one opset_import for the "
			                 "ai.onnx domain");
		have_default = true;
		L->opset = (int)os->version;
	}
	g->opset = L->opset;
	if (!m->graph)
		return onnx_fail(L, DC_PARSE, NULL, "model has no graph");
	return 0;
}

static const char *dir_of(Arena *a, const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return ".";
	if (slash == path)
		return "/";
	char *d = arena_strdup(a, path);
	d[slash - path] = 0;
	return d;
}

int onnx_load(Graph *g, const char *path, const FrontendOptions *opt, DiagSink *d)
{
	static const FrontendOptions no_opts;
	Loader L;
	uint8_t *data;
	size_t len;
	int rc = -1;

	memset(&L, 0, sizeof L);
	L.g = g;
	L.d = d;
	L.file = path;
	L.opt = opt ? opt : &no_opts;
	L.dir = dir_of(&g->arena, path);
	if (read_file(&L, path, &data, &len))
		return -1;
	if (onnx_prescan(data, len, path, d)) {
		free(data);
		return -1;
	}

	CapAlloc ca = { .cap = len * ALLOC_FACTOR + ALLOC_EXTRA };
	ProtobufCAllocator alloc = { cap_alloc, cap_free, &ca };
	Onnx__ModelProto *m = onnx__model_proto__unpack(&alloc, len, data);
	free(data);
	if (!m) {
		cap_release(&ca);   /* what a failed decode left in the chunks */
		if (ca.exceeded)
			return onnx_fail(&L, DC_LIMIT, NULL, "decoding needs more than %zu MiB, the limit "
			                 "for a %zu-byte model", ca.cap >> 20, len);
		return onnx_fail(&L, DC_PARSE, NULL, "malformed model (protobuf decoding failed)");
	}

	if (L.opt->n_dims > 0) {
		L.dim_used = calloc((size_t)L.opt->n_dims, sizeof *L.dim_used);
		if (!L.dim_used)
			die("out of memory");
	}
	if (check_header(&L, m) == 0 && onnx_functions_init(&L, m) == 0 &&
	    onnx_inputs_check_names(&L, m->graph) == 0 && onnx_graph_import(&L, m->graph, 0) == 0) {
		onnx_inputs_warn_unused_dims(&L);
		rc = 0;
	}
	free(L.dim_used);
	onnx_functions_free(&L);
	cap_release(&ca);   /* m with it */
	return rc;
}

static IoKind io_kind(const Onnx__ValueInfoProto *vi)
{
	const Onnx__TypeProto *tp = vi ? vi->type : NULL;
	if (tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE)
		return IO_SEQUENCE;
	if (tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE)
		return IO_OPTIONAL;
	return IO_TENSOR;
}

int onnx_io_kinds(const char *path, IoKinds *k, DiagSink *d)
{
	Graph g;
	Loader L;
	uint8_t *data;
	size_t len;
	int rc = -1;

	memset(k, 0, sizeof *k);
	memset(&L, 0, sizeof L);
	ir_graph_init(&g, path);
	L.g = &g;
	L.d = d;
	L.file = path;
	if (read_file(&L, path, &data, &len) || onnx_prescan(data, len, path, d)) {
		if (data)
			free(data);
		ir_graph_free(&g);
		return -1;
	}
	CapAlloc ca = { .cap = len * ALLOC_FACTOR + ALLOC_EXTRA };
	ProtobufCAllocator alloc = { cap_alloc, cap_free, &ca };
	Onnx__ModelProto *m = onnx__model_proto__unpack(&alloc, len, data);
	free(data);
	if (m && m->graph) {
		const Onnx__GraphProto *gp = m->graph;
		NameMap inits;   /* initializer names (keys: the message's strings, alive till cap_release) */
		onnx_names_init(&inits);
		for (size_t j = 0; j < gp->n_initializer; j++)
			if (gp->initializer[j]->name)
				onnx_names_put(&inits, gp->initializer[j]->name, 0);
		for (size_t i = 0; i < gp->n_input && k->n_in < IO_KINDS_MAX; i++) {
			if (gp->input[i]->name && onnx_names_get(&inits, gp->input[i]->name) != IR_NONE)
				continue;    /* an initializer listed as an input (IR version < 4) */
			snprintf(k->in_name[k->n_in], sizeof k->in_name[0], "%s",
			         gp->input[i]->name ? gp->input[i]->name : "");
			k->in[k->n_in++] = io_kind(gp->input[i]);
		}
		for (size_t i = 0; i < gp->n_output && k->n_out < IO_KINDS_MAX; i++) {
			snprintf(k->out_name[k->n_out], sizeof k->out_name[0], "%s",
			         gp->output[i]->name ? gp->output[i]->name : "");
			k->out[k->n_out++] = io_kind(gp->output[i]);
		}
		onnx_names_free(&inits);
		rc = 0;
	} else {
		onnx_fail(&L, DC_PARSE, NULL, "malformed model (protobuf decoding failed)");
	}
	cap_release(&ca);   /* m with it */
	ir_graph_free(&g);
	return rc;
}
