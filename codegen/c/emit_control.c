/* emit_control.c — control flow in NAME.c (If, Loop, Scan): each body becomes a
 * static function NAME_body_<k>(bin[], bout[], ws, cap[]) whose results go straight
 * into the caller's buffers; the node becomes a branch or a loop around its calls.
 * Values of enclosing scopes that live outside the workspace reach a body through
 * its cap[] argument. */
#include "emit_impl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void add_cap(ValueId **caps, int *n, int *cap, ValueId v)
{
	if (cg_c_io_index(*caps, *n, v) < 0)
		*VEC_PUSH(*caps, *n, *cap) = v;
}

/* Outer values read inside region b (at any depth) that have no workspace offset:
 * graph inputs and outputs, enclosing bodies' inputs and outputs. */
static void collect_caps(const Graph *g, RegionId b, RegionId r, ValueId **caps, int *n, int *cap)
{
	const Region *reg = &g->regions[r];
	for (int i = 0; i < reg->n_nodes; i++) {
		const Node *nd = &g->nodes[reg->nodes[i]];
		if (nd->dead)
			continue;
		for (int k = 0; k < nd->n_in; k++) {
			ValueId v = nd->in[k];
			if (v == IR_NONE || g->values[v].is_const || g->values[v].arena_off >= 0 ||
			    ctrl_region_within(g, g->values[v].region, b))
				continue;
			add_cap(caps, n, cap, v);
		}
		for (int k = 0; k < nd->n_bodies; k++)
			collect_caps(g, b, nd->bodies[k], caps, n, cap);
	}
}

/* Dynamic sizes are supported for graph outputs only: not inside bodies. */
static int check_body_static(Ctx *c, RegionId b, const Scope *s)
{
	const Region *reg = &c->g->regions[b];
	for (int i = 0; i < reg->n_nodes; i++) {
		const Node *n = &c->g->nodes[reg->nodes[i]];
		for (int k = 0; k < n->n_out && !n->dead; k++)
			if (n->out[k] != IR_NONE && c->g->values[n->out[k]].dynamic) {
				DiagLoc l = ir_node_loc(c->g, reg->nodes[i]);
				diag_report(c->d, DIAG_ERROR, DC_UNSUPPORTED, &l, "output %d has a data-dependent "
				            "size inside a control-flow body: not supported", k);
				return -1;
			}
	}
	for (int i = 0; i < s->n_caps; i++)
		if (c->g->values[s->caps[i]].dynamic) {
			DiagLoc l = diag_loc_file(c->g->file);
			l.graph = reg->name;
			l.tensor = c->g->values[s->caps[i]].name;
			diag_report(c->d, DIAG_ERROR, DC_UNSUPPORTED, &l, "a body reads a tensor whose size "
			            "depends on input values: not supported");
			return -1;
		}
	return 0;
}

/* Emits region b as `static int NAME_body_<k>(...)` into c->funcs (its own nested
 * bodies first); *k gets its number and *caps what the caller passes as cap[]. */
static int emit_body(Ctx *c, RegionId b, int *k, ValueId **caps, int *n_caps)
{
	Emitter fe;
	Scope s = { b, NULL, 0 };
	int cap = 0, rc;
	char name[256];
	collect_caps(c->g, b, b, &s.caps, &s.n_caps, &cap);
	*caps = s.caps;
	*n_caps = s.n_caps;
	if (check_body_static(c, b, &s))
		return -1;
	*k = c->n_funcs++;
	em_init(&fe);
	cg_comment_text(c->g->regions[b].name, name, sizeof name);
	em_line(&fe, "/* body '%s': bin[] its inputs, bout[] its outputs, cap[] outer values */", name);
	em_line(&fe, "static int %s_body_%d(const void *const bin[], void *const bout[], unsigned char *ws,",
	        c->o->name, *k);
	em_line(&fe, "\tconst void *const cap[])");
	em_line(&fe, "{");
	em_line(&fe, "\tunsigned char *scratch = ws + %" PRId64 ";", c->g->arena_bytes);
	em_line(&fe, "\tint rc = 0;");
	em_blank(&fe);
	em_line(&fe, "\t(void)bin;");
	em_line(&fe, "\t(void)bout;");
	em_line(&fe, "\t(void)cap;");
	em_line(&fe, "\t(void)scratch;");
	rc = cg_c_emit_nodes(c, &s, &fe);
	em_line(&fe, "\treturn rc;");
	em_line(&fe, "}");
	em_blank(&fe);
	if (!rc)
		em_raw(&c->funcs, fe.buf, fe.len);
	em_free(&fe);
	return rc;
}

/* `const void *const sub_cap[] = {...};` for a call from scope s. */
static void emit_caps(Ctx *c, const Scope *s, Emitter *e, const ValueId *caps, int n, int idx)
{
	char ref[256];
	if (n == 0) {
		em_line(e, "\t\tconst void *const *sub_cap%d = NULL;", idx);
		return;
	}
	em_printf(e, "\t\tconst void *const sub_cap%d[%d] = {", idx, n);
	for (int i = 0; i < n; i++) {
		cg_c_value_ref(c, s, caps[i], ref, sizeof ref);
		em_printf(e, i ? ", %s" : " %s", ref);
	}
	em_printf(e, " };\n");
}

/* Writes the dims of node output v (dynamic, a graph output) into its dims slot. */
static void emit_set_dims(Ctx *c, Emitter *e, const char *indent, ValueId v, const int64_t *dims,
                          const char *dim0)
{
	const Type *t = &c->g->values[v].type;
	em_printf(e, "%s{ int64_t *dd = (int64_t *)(void *)(ws + %" PRId64 ");", indent,
	          c->dims_off + 64 * (int64_t)cg_c_dynamic_slot(c->g, v));
	for (int q = 0; q < t->rank; q++) {
		if (q == 0 && dim0)
			em_printf(e, " dd[0] = %s;", dim0);
		else
			em_printf(e, " dd[%d] = %" PRId64 ";", q, dims[q]);
	}
	em_printf(e, " }\n");
}

static int emit_if(Ctx *c, const Scope *s, Emitter *e, NodeId id, const CtrlTemp *t)
{
	const Graph *g = c->g;
	const Node *n = &g->nodes[id];
	const CtrlAttrs *a = n->attrs;
	int k[2], n_caps[2];
	ValueId *caps[2];
	char ref[256];
	for (int b = 0; b < 2; b++)
		if (emit_body(c, n->bodies[b], &k[b], &caps[b], &n_caps[b]))
			return -1;
	for (int b = 0; b < 2; b++)
		emit_caps(c, s, e, caps[b], n_caps[b], b);
	em_printf(e, "\t\tvoid *const sub_out[%d] = {", n->n_out);
	for (int q = 0; q < n->n_out; q++) {
		if (t->out_buf[q] >= 0)
			snprintf(ref, sizeof ref, "ws + %" PRId64, a->ws_off + t->out_buf[q]);
		else
			cg_c_value_ref(c, s, n->out[q], ref, sizeof ref);
		em_printf(e, q ? ", %s" : " %s", ref);
	}
	em_printf(e, " };\n");
	cg_c_value_ref(c, s, n->in[0], ref, sizeof ref);
	em_line(e, "\t\tif (*(const unsigned char *)(%s)) {", ref);
	for (int b = 0; b < 2; b++) {
		if (b)
			em_line(e, "\t\t} else {");
		em_line(e, "\t\t\trc = %s_body_%d(NULL, sub_out, ws, sub_cap%d);", c->o->name, k[b], b);
		for (int q = 0; q < n->n_out; q++)
			if (n->out[q] != IR_NONE && g->values[n->out[q]].dynamic)
				emit_set_dims(c, e, "\t\t\t", n->out[q],
				              g->values[g->regions[n->bodies[b]].outputs[q]].type.dims, NULL);
	}
	em_line(e, "\t\t}");
	em_line(e, "\t\tif (rc != 0)");
	em_line(e, "\t\t\treturn rc;");
	free(caps[0]);
	free(caps[1]);
	return 0;
}

/* The node-output pointer a body writes scan output q to at iteration `pos`. */
static void scan_out_ptr(Ctx *c, const Scope *s, const Node *n, const CtrlTemp *t, int q,
                         const char *pos, int64_t elem, char *buf, size_t cap)
{
	const CtrlAttrs *a = n->attrs;
	char ref[256];
	if (t->out_buf[q] >= 0) {
		snprintf(buf, cap, "ws + %" PRId64, a->ws_off + t->out_buf[q]);
		return;
	}
	cg_c_value_ref(c, s, n->out[q], ref, sizeof ref);
	snprintf(buf, cap, "(unsigned char *)(%s) + %s * %" PRId64, ref, pos, elem);
}

static void emit_carried_init(Emitter *e, const Node *n, const CtrlTemp *t)
{
	const CtrlAttrs *a = n->attrs;
	for (int j = 0; j < t->n_carried; j++)
		em_line(e, "\t\tcur[%d] = ws + %" PRId64 "; nxt[%d] = ws + %" PRId64 ";", j,
		        a->ws_off + t->carried[0][j], j, a->ws_off + t->carried[1][j]);
}

static void emit_swap(Emitter *e, const char *indent, int n_carried)
{
	for (int j = 0; j < n_carried; j++)
		em_line(e, "%s{ unsigned char *x = cur[%d]; cur[%d] = nxt[%d]; nxt[%d] = x; }", indent, j, j,
		        j, j);
}

static int emit_loop(Ctx *c, const Scope *s, Emitter *e, NodeId id, const CtrlTemp *t)
{
	const Graph *g = c->g;
	const Node *n = &g->nodes[id];
	const CtrlAttrs *a = n->attrs;
	const Region *br = &g->regions[n->bodies[0]];
	int k, n_caps, nc = t->n_carried;
	ValueId *caps;
	char ref[256], ptr[400];
	bool has_m = n->n_in > 0 && n->in[0] != IR_NONE, has_cond = n->n_in > 1 && n->in[1] != IR_NONE;

	if (emit_body(c, n->bodies[0], &k, &caps, &n_caps))
		return -1;
	emit_caps(c, s, e, caps, n_caps, 0);
	free(caps);
	if (nc)
		em_line(e, "\t\tunsigned char *cur[%d], *nxt[%d];", nc, nc);
	em_line(e, "\t\tint64_t it;");
	em_line(e, "\t\tunsigned char cond = 1;");
	if (has_m) {
		const void *mv = ir_const_data(g, n->in[0]);
		if (mv) {
			int64_t m;
			memcpy(&m, mv, sizeof m);
			em_line(e, "\t\tconst int64_t m = %" PRId64 "LL;", m > 0 ? m : 0);
		} else {
			cg_c_value_ref(c, s, n->in[0], ref, sizeof ref);
			em_line(e, "\t\tint64_t m;");
			em_line(e, "\t\tmemcpy(&m, %s, sizeof m);", ref);
		}
	}
	if (has_cond && ir_const_data(g, n->in[1])) {   /* constants of const_inputs slots are */
		em_line(e, "\t\tcond = %d;",                  /* not in the weights */
		        ((const unsigned char *)ir_const_data(g, n->in[1]))[0] != 0);
	} else if (has_cond) {
		cg_c_value_ref(c, s, n->in[1], ref, sizeof ref);
		em_line(e, "\t\tcond = *(const unsigned char *)(%s) != 0;", ref);
	}
	emit_carried_init(e, n, t);
	for (int j = 0; j < nc; j++) {
		int64_t bytes = type_bytes(&g->values[br->outputs[1 + j]].type);
		if (bytes == 0)
			continue;
		cg_c_value_ref(c, s, n->in[2 + j], ref, sizeof ref);
		em_line(e, "\t\tmemcpy(cur[%d], %s, %" PRId64 ");", j, ref, bytes);
	}
	em_line(e, "\t\tfor (it = 0; %s%s%s; it++) {", has_m ? "it < m" : "",
	        has_m && has_cond ? " && " : "", has_cond ? "cond" : has_m ? "" : "1");
	em_line(e, "\t\t\tunsigned char cond_out = 0;");
	em_printf(e, "\t\t\tconst void *const sub_in[%d] = { &it, &cond", 2 + nc);
	for (int j = 0; j < nc; j++)
		em_printf(e, ", cur[%d]", j);
	em_printf(e, " };\n");
	em_printf(e, "\t\t\tvoid *const sub_out[%d] = { &cond_out", 1 + n->n_out);
	for (int j = 0; j < nc; j++)
		em_printf(e, ", nxt[%d]", j);
	for (int q = nc; q < n->n_out; q++) {
		int64_t elem = type_bytes(&g->values[br->outputs[1 + q]].type);
		scan_out_ptr(c, s, n, t, q, "it", elem, ptr, sizeof ptr);
		em_printf(e, ", %s", ptr);
	}
	em_printf(e, " };\n");
	em_line(e, "\t\t\tif ((rc = %s_body_%d(sub_in, sub_out, ws, sub_cap0)) != 0)", c->o->name, k);
	em_line(e, "\t\t\t\treturn rc;");
	emit_swap(e, "\t\t\t", nc);
	/* without a condition input the body's condition output is ignored */
	em_line(e, has_cond ? "\t\t\tcond = cond_out;" : "\t\t\t(void)cond_out;");
	em_line(e, "\t\t}");
	for (int j = 0; j < nc; j++) {
		int64_t bytes = type_bytes(&g->values[br->outputs[1 + j]].type);
		if (n->out[j] == IR_NONE || bytes == 0)
			continue;
		cg_c_value_ref(c, s, n->out[j], ref, sizeof ref);
		em_line(e, "\t\tmemcpy(%s, cur[%d], %" PRId64 ");", ref, j, bytes);
	}
	for (int q = nc; q < n->n_out; q++)
		if (n->out[q] != IR_NONE && g->values[n->out[q]].dynamic)
			emit_set_dims(c, e, "\t\t", n->out[q], g->values[n->out[q]].type.dims, "it");
	if (a->trip >= 0 || n->n_out == nc)
		em_line(e, "\t\t(void)it;");
	return 0;
}

void cg_c_scan_geometry(const Type *t, int skip, int64_t axis, int64_t *outer, int64_t *inner)
{
	*outer = 1;
	*inner = (int64_t)dtype_size(t->dtype);
	for (int64_t i = skip; i < skip + axis; i++)
		*outer *= t->dims[i];
	for (int i = skip + (int)axis + 1; i < t->rank; i++)
		*inner *= t->dims[i];
}

static int emit_scan(Ctx *c, const Scope *s, Emitter *e, NodeId id, const CtrlTemp *t)
{
	const Graph *g = c->g;
	const Node *n = &g->nodes[id];
	const CtrlAttrs *a = n->attrs;
	const Region *br = &g->regions[n->bodies[0]];
	int base = n->opset < 9 ? 1 : 0, nc = t->n_carried, ns = t->n_scan_in;
	int64_t len = a->trip;
	int k, n_caps;
	ValueId *caps;
	char ref[256], pos[64];

	if (emit_body(c, n->bodies[0], &k, &caps, &n_caps))
		return -1;
	emit_caps(c, s, e, caps, n_caps, 0);
	free(caps);
	if (nc)
		em_line(e, "\t\tunsigned char *cur[%d], *nxt[%d];", nc, nc);
	em_line(e, "\t\tint64_t b, t;");
	em_line(e, "\t\tfor (b = 0; b < %" PRId64 "; b++) {", a->batch);
	for (int j = 0; j < nc; j++)
		em_line(e, "\t\t\tcur[%d] = ws + %" PRId64 "; nxt[%d] = ws + %" PRId64 ";", j,
		        a->ws_off + t->carried[0][j], j, a->ws_off + t->carried[1][j]);
	for (int j = 0; j < nc; j++) {
		int64_t bytes = type_bytes(&g->values[br->inputs[j]].type);
		if (bytes == 0)
			continue;
		cg_c_value_ref(c, s, n->in[base + j], ref, sizeof ref);
		em_line(e, "\t\t\tmemcpy(cur[%d], (const unsigned char *)(%s) + b * %" PRId64 ", %" PRId64 ");",
		        j, ref, bytes, bytes);
	}
	em_line(e, "\t\t\tfor (t = 0; t < %" PRId64 "; t++) {", len);
	em_line(e, "\t\t\t\tconst void *sub_in[%d];", nc + ns);
	em_line(e, "\t\t\t\tvoid *sub_out[%d];", n->n_out);
	for (int j = 0; j < nc; j++)
		em_line(e, "\t\t\t\tsub_in[%d] = cur[%d];", j, j);
	for (int j = 0; j < ns; j++) {
		const Type *in = &g->values[n->in[base + nc + j]].type;
		int64_t outer, inner;
		cg_c_scan_geometry(in, base, a->scan_input_axes.v[j], &outer, &inner);
		snprintf(pos, sizeof pos, a->scan_input_directions.v[j] ? "(%" PRId64 " - t)" : "t", len - 1);
		cg_c_value_ref(c, s, n->in[base + nc + j], ref, sizeof ref);
		if (t->scan_in[j] < 0) {
			em_line(e, "\t\t\t\tsub_in[%d] = (const unsigned char *)(%s) + (b * %" PRId64 " + %s) * %"
			        PRId64 ";", nc + j, ref, len, pos, inner);
			continue;
		}
		em_line(e, "\t\t\t\t{ int64_t o; for (o = 0; o < %" PRId64 "; o++) memcpy(ws + %" PRId64
		        " + o * %" PRId64 ", (const unsigned char *)(%s) + ((b * %" PRId64 " + o) * %" PRId64
		        " + %s) * %" PRId64 ", %" PRId64 "); }", outer, a->ws_off + t->scan_in[j], inner, ref,
		        outer, len, pos, inner, inner);
		em_line(e, "\t\t\t\tsub_in[%d] = ws + %" PRId64 ";", nc + j, a->ws_off + t->scan_in[j]);
	}
	for (int j = 0; j < nc; j++)
		em_line(e, "\t\t\t\tsub_out[%d] = nxt[%d];", j, j);
	for (int q = nc; q < n->n_out; q++) {
		int64_t outer = 1, inner = 0;
		if (t->out_buf[q] >= 0) {
			em_line(e, "\t\t\t\tsub_out[%d] = ws + %" PRId64 ";", q, a->ws_off + t->out_buf[q]);
			continue;
		}
		cg_c_scan_geometry(&g->values[n->out[q]].type, base, a->scan_output_axes.v[q - nc], &outer, &inner);
		snprintf(pos, sizeof pos, a->scan_output_directions.v[q - nc] ? "(%" PRId64 " - t)" : "t",
		         len - 1);
		cg_c_value_ref(c, s, n->out[q], ref, sizeof ref);
		em_line(e, "\t\t\t\tsub_out[%d] = (unsigned char *)(%s) + (b * %" PRId64 " + %s) * %" PRId64 ";",
		        q, ref, len, pos, inner);
	}
	em_line(e, "\t\t\t\tif ((rc = %s_body_%d(sub_in, sub_out, ws, sub_cap0)) != 0)", c->o->name, k);
	em_line(e, "\t\t\t\t\treturn rc;");
	/* scan outputs along an inner axis: scatter the element's rows */
	for (int q = nc; q < n->n_out; q++) {
		int64_t outer, inner;
		if (t->out_buf[q] < 0 || n->out[q] == IR_NONE)
			continue;
		cg_c_scan_geometry(&g->values[n->out[q]].type, base, a->scan_output_axes.v[q - nc], &outer, &inner);
		snprintf(pos, sizeof pos, a->scan_output_directions.v[q - nc] ? "(%" PRId64 " - t)" : "t",
		         len - 1);
		cg_c_value_ref(c, s, n->out[q], ref, sizeof ref);
		em_line(e, "\t\t\t\t{ int64_t o; for (o = 0; o < %" PRId64 "; o++) memcpy((unsigned char *)(%s) + "
		        "((b * %" PRId64 " + o) * %" PRId64 " + %s) * %" PRId64 ", ws + %" PRId64 " + o * %" PRId64
		        ", %" PRId64 "); }", outer, ref, outer, len, pos, inner, a->ws_off + t->out_buf[q], inner,
		        inner);
	}
	emit_swap(e, "\t\t\t\t", nc);
	em_line(e, "\t\t\t}");
	for (int j = 0; j < nc; j++) {
		int64_t bytes = type_bytes(&g->values[br->inputs[j]].type);
		if (n->out[j] == IR_NONE || bytes == 0)
			continue;
		cg_c_value_ref(c, s, n->out[j], ref, sizeof ref);
		em_line(e, "\t\t\tmemcpy((unsigned char *)(%s) + b * %" PRId64 ", cur[%d], %" PRId64 ");", ref,
		        bytes, j, bytes);
	}
	em_line(e, "\t\t}");
	return 0;
}

/* A control-flow node: its bodies as functions, and the branch or loop calling them. */
int cg_c_emit_control(Ctx *c, const Scope *s, Emitter *body, NodeId id)
{
	const Node *n = &c->g->nodes[id];
	CtrlTemp t;
	int rc;
	ctrl_temp_layout(c->g, id, &t);
	cg_c_node_comment(body, c, id, "\t");
	em_line(body, "\t{");
	if (n->op == OP_IF)
		rc = emit_if(c, s, body, id, &t);
	else if (n->op == OP_LOOP)
		rc = emit_loop(c, s, body, id, &t);
	else
		rc = emit_scan(c, s, body, id, &t);
	em_line(body, "\t}");
	return rc;
}
