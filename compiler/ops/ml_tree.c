/* ml_tree.c — op group tree_ensemble: TreeEnsembleClassifier and TreeEnsembleRegressor
 * (ai.onnx.ml opsets 1 and 3) and TreeEnsemble (opset 5), lowered to
 * runtime-stubs/kernels/ml.c.
 *
 * The import turns both attribute formats into one table the kernel walks: a row
 * per node (feature, mode, true row, false row, missing_value_tracks_true, a range of
 * leaf weights or set members), thresholds, weights and base values as doubles (the
 * *_as_tensor attributes of opset 3 and opset 5's tensors keep double thresholds
 * exact), and appends them as constant inputs 1-7 (8: a classifier's labels), so the
 * attribute struct stays numeric and the weights live once, in the blob. Opsets 1/3
 * name nodes by (tree id, node id) and leaves by the entries of class_* / target_*;
 * opset 5 indexes nodes and leaves directly. Semantics follow ONNX's reference
 * implementation: a classifier starts from its base values, a regressor adds them after
 * aggregating (AVERAGE divides the sum by the number of trees; opset 5 divides each
 * weight); a classifier whose class_ids are all one id is binary: that column is class
 * 1's score and class 0 gets 1 - it (NONE, PROBIT) or -it (the others). Sums run in
 * double and round once to the output dtype.
 */
#include "opimpl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ml.h"

typedef struct TreeAttrs {
	int64_t post;          /* INGOT_TREE_POST_* */
	int64_t aggregate;     /* INGOT_TREE_AVERAGE, SUM, MIN, MAX */
	int64_t n_cols;        /* targets, or classes */
	int64_t n_z;           /* score columns (a binary one-label classifier: 2) */
	int64_t binary;        /* 1: one score column, class 0 derived from it */
	int64_t labels;        /* INGOT_TREE_LABELS_* */
	int64_t has_base;
	int64_t legacy_nan;    /* opsets 1/3: NaN goes false unless tracked true */
	int64_t avg_each;      /* opset 5: AVERAGE divides each weight */
	int64_t max_feature;   /* the largest feature id any branch reads (-1: none) */
} TreeAttrs;

static const AttrField tree_fields[] = {
	{ "post", AK_INT, offsetof(TreeAttrs, post), NULL },
	{ "aggregate", AK_INT, offsetof(TreeAttrs, aggregate), NULL },
	{ "n_cols", AK_INT, offsetof(TreeAttrs, n_cols), NULL },
	{ "n_z", AK_INT, offsetof(TreeAttrs, n_z), NULL },
	{ "binary", AK_INT, offsetof(TreeAttrs, binary), NULL },
	{ "labels", AK_INT, offsetof(TreeAttrs, labels), NULL },
	{ "has_base", AK_INT, offsetof(TreeAttrs, has_base), NULL },
	{ "legacy_nan", AK_INT, offsetof(TreeAttrs, legacy_nan), NULL },
	{ "avg_each", AK_INT, offsetof(TreeAttrs, avg_each), NULL },
	{ "max_feature", AK_INT, offsetof(TreeAttrs, max_feature), NULL },
};

static const char *const post_names[] = { "NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO",
	                                      "PROBIT", NULL };
static const char *const agg_names[] = { "AVERAGE", "SUM", "MIN", "MAX", NULL };
static const char *const mode_names[] = { "BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT",
	                                      "BRANCH_EQ", "BRANCH_NEQ", "BRANCH_MEMBER", "LEAF",
	                                      NULL };

/* The table under construction (graph arena). */
typedef struct Table {
	int64_t *tab;          /* n_rows * INGOT_TREE_COLS */
	double *th;
	int64_t n_rows;
	int64_t *roots;
	int64_t n_trees;
	int64_t *tgt;
	double *w;
	int64_t n_w;
	double *base;          /* n_cols, or NULL */
	double *set;
	int64_t n_set;
} Table;

/* An int list attribute: its values and count (n = -1: absent). */
static int ints_of(ImportCtx *c, const char *name, const int64_t **v, int64_t *n)
{
	const RawAttr *a = import_find(c, name);
	*v = NULL;
	*n = -1;
	if (!a)
		return 0;
	if (a->kind == RA_INT) {
		*v = &a->i;
		*n = 1;
		return 0;
	}
	if (a->kind != RA_INTS)
		return import_fail(c, name, "expected ints");
	*v = a->ints;
	*n = a->n;
	return 0;
}

static int ints_req(ImportCtx *c, const char *name, int64_t want, const int64_t **v, int64_t *n)
{
	if (ints_of(c, name, v, n))
		return -1;
	if (*n < 0)
		return import_fail(c, name, "the attribute is required");
	if (want >= 0 && *n != want)
		return import_fail(c, name, "expected %lld values (one per node), got %lld",
		                   (long long)want, (long long)*n);
	return 0;
}

/* A list of reals from the floats attribute `name` or the tensor `tname` (f16, f32 or
 * f64; NULL: none), as doubles in the arena; n = -1 when neither is given. */
static int reals_of(ImportCtx *c, const char *name, const char *tname, double **v, int64_t *n)
{
	const RawAttr *a = name ? import_find(c, name) : NULL;
	const RawAttr *t = tname ? import_find(c, tname) : NULL;
	*v = NULL;
	*n = -1;
	if (a && t)
		return import_fail(c, tname, "%s is given as well: give one of them", name);
	if (t) {
		if (t->kind != RA_TENSOR)
			return import_fail(c, tname, "expected a tensor");
		const Value *tv = &c->g->values[t->tensor];
		DType dt = tv->type.dtype;
		if (dt != DT_F32 && dt != DT_F64 && dt != DT_F16)
			return import_fail(c, tname, "expected a float, double or float16 tensor, got %s",
			                   dtype_name(dt));
		*n = type_numel(&tv->type);
		*v = arena_array(&c->g->arena, (size_t)(*n ? *n : 1), sizeof **v);
		for (int64_t i = 0; i < *n; i++)
			(*v)[i] = ingot_ldf(dt, ir_const_data(c->g, t->tensor), i);
		return 0;
	}
	if (!a)
		return 0;
	if (a->kind != RA_FLOATS && a->kind != RA_FLOAT)
		return import_fail(c, name, "expected floats");
	*n = a->kind == RA_FLOAT ? 1 : a->n;
	*v = arena_array(&c->g->arena, (size_t)(*n ? *n : 1), sizeof **v);
	for (int64_t i = 0; i < *n; i++)
		(*v)[i] = a->kind == RA_FLOAT ? (double)a->f : (double)a->floats[i];
	return 0;
}

/* ---- opsets 1 and 3: nodes named by (tree id, node id) ---- */

typedef struct Key { int64_t tid, nid, idx; } Key;

static int key_cmp(const void *pa, const void *pb)
{
	const Key *a = pa, *b = pb;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->nid != b->nid)
		return a->nid < b->nid ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The first key of (tid, nid) in sorted k[0 .. n), or n. */
static int64_t key_find(const Key *k, int64_t n, int64_t tid, int64_t nid)
{
	int64_t lo = 0, hi = n;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (k[mid].tid < tid || (k[mid].tid == tid && k[mid].nid < nid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && k[lo].tid == tid && k[lo].nid == nid ? lo : n;
}

static Key *keys_sorted(Graph *g, const int64_t *tid, const int64_t *nid, int64_t n)
{
	Key *k = arena_array(&g->arena, (size_t)(n ? n : 1), sizeof *k);
	for (int64_t i = 0; i < n; i++)
		k[i] = (Key){ tid[i], nid[i], i };
	qsort(k, (size_t)n, sizeof *k, key_cmp);
	return k;
}

/* Builds the table from nodes_* and the leaf entries pre_treeids / pre_nodeids /
 * pre_ids / pre_weights (class_ or target_). */
static int import_legacy(ImportCtx *c, TreeAttrs *a, Table *T, const char *pre)
{
	Graph *g = c->g;
	const int64_t *tid, *nid, *feat, *tr, *fa, *mtt, *etid, *enid, *eid;
	int64_t n, n2, ne, ne2;
	double *vals, *ew;
	char nm[4][40];
	const RawAttr *modes = import_find(c, "nodes_modes");
	snprintf(nm[0], sizeof nm[0], "%s_treeids", pre);
	snprintf(nm[1], sizeof nm[1], "%s_nodeids", pre);
	snprintf(nm[2], sizeof nm[2], "%s_ids", pre);
	snprintf(nm[3], sizeof nm[3], "%s_weights", pre);
	char nmt[48];
	snprintf(nmt, sizeof nmt, "%s_weights_as_tensor", pre);
	if (ints_req(c, "nodes_treeids", -1, &tid, &n) || ints_req(c, "nodes_nodeids", n, &nid, &n2) ||
	    ints_req(c, "nodes_featureids", n, &feat, &n2) ||
	    ints_req(c, "nodes_truenodeids", n, &tr, &n2) ||
	    ints_req(c, "nodes_falsenodeids", n, &fa, &n2) ||
	    ints_of(c, "nodes_missing_value_tracks_true", &mtt, &n2))
		return -1;
	if (n2 >= 0 && n2 != n)
		return import_fail(c, "nodes_missing_value_tracks_true", "expected %lld values (one "
		                   "per node), got %lld", (long long)n, (long long)n2);
	if (!modes || modes->kind != RA_STRINGS || modes->n != n)
		return import_fail(c, "nodes_modes", "expected %lld strings (one per node)",
		                   (long long)n);
	if (n < 1)
		return import_fail(c, "nodes_treeids", "expected at least one node");
	if (reals_of(c, "nodes_values", "nodes_values_as_tensor", &vals, &n2))
		return -1;
	if (n2 >= 0 && n2 != n)
		return import_fail(c, "nodes_values", "expected %lld values (one per node), got %lld",
		                   (long long)n, (long long)n2);
	if (ints_req(c, nm[0], -1, &etid, &ne) || ints_req(c, nm[1], ne, &enid, &ne2) ||
	    ints_req(c, nm[2], ne, &eid, &ne2) || reals_of(c, nm[3], nmt, &ew, &ne2))
		return -1;
	if (ne2 != ne)
		return import_fail(c, nm[3], "expected %lld weights (one per %s_ids entry), got %lld",
		                   (long long)ne, pre, (long long)ne2);

	Key *nk = keys_sorted(g, tid, nid, n), *ek = keys_sorted(g, etid, enid, ne);
	T->n_rows = n;
	T->tab = arena_array(&g->arena, (size_t)n * INGOT_TREE_COLS, sizeof *T->tab);
	T->th = arena_array(&g->arena, (size_t)n, sizeof *T->th);
	T->n_w = ne;
	T->tgt = arena_array(&g->arena, (size_t)(ne ? ne : 1), sizeof *T->tgt);
	T->w = arena_array(&g->arena, (size_t)(ne ? ne : 1), sizeof *T->w);
	for (int64_t i = 0; i < ne; i++) {   /* entries in (tree, node) order, stable */
		T->tgt[i] = eid[ek[i].idx];
		T->w[i] = ew[ek[i].idx];
		if (T->tgt[i] < 0 || T->tgt[i] >= a->n_cols)
			return import_fail(c, nm[2], "entry %lld is %lld, expected 0..%lld",
			                   (long long)ek[i].idx, (long long)T->tgt[i],
			                   (long long)a->n_cols - 1);
	}
	T->roots = arena_array(&g->arena, (size_t)n, sizeof *T->roots);
	a->max_feature = -1;
	for (int64_t s = 0; s < n; s++) {
		const Key *k = &nk[s];
		int64_t i = k->idx, *row = T->tab + i * INGOT_TREE_COLS;
		int mode = -1;
		if (s > 0 && nk[s - 1].tid == k->tid && nk[s - 1].nid == k->nid)
			return import_fail(c, "nodes_nodeids", "tree %lld has node %lld twice",
			                   (long long)k->tid, (long long)k->nid);
		if (s == 0 || nk[s - 1].tid != k->tid)   /* a new tree: its root is its first node */
			T->roots[T->n_trees++] = i;
		else if (i < T->roots[T->n_trees - 1])
			T->roots[T->n_trees - 1] = i;
		for (int m = 0; mode_names[m]; m++)
			if (strcmp(modes->strings[i], mode_names[m]) == 0)
				mode = m;
		if (mode < 0 || mode == INGOT_TREE_MEMBER)
			return import_fail(c, "nodes_modes", "node %lld: unsupported mode '%s'",
			                   (long long)i, modes->strings[i]);
		row[1] = mode;
		row[4] = mtt && mtt[i];
		T->th[i] = vals ? vals[i] : 0.0;
		if (mode == INGOT_TREE_LEAF) {
			int64_t e = key_find(ek, ne, k->tid, k->nid), e1 = e;
			while (e1 < ne && ek[e1].tid == k->tid && ek[e1].nid == k->nid)
				e1++;
			row[5] = e;
			row[6] = e1 - e;
			continue;
		}
		if (feat[i] < 0 || feat[i] > OPS_MAX_TENSOR_BYTES)
			return import_fail(c, "nodes_featureids", "node %lld: feature %lld out of range",
			                   (long long)i, (long long)feat[i]);
		row[0] = feat[i];
		a->max_feature = feat[i] > a->max_feature ? feat[i] : a->max_feature;
		for (int side = 0; side < 2; side++) {
			int64_t to = side ? fa[i] : tr[i], at = key_find(nk, n, k->tid, to);
			if (at == n)
				return import_fail(c, side ? "nodes_falsenodeids" : "nodes_truenodeids",
				                   "node %lld of tree %lld: no node %lld in that tree",
				                   (long long)k->nid, (long long)k->tid, (long long)to);
			row[2 + side] = nk[at].idx;
		}
	}
	a->legacy_nan = 1;
	return 0;
}

/* ---- opset 5: nodes and leaves indexed ---- */

static int import_v5(ImportCtx *c, TreeAttrs *a, Table *T)
{
	Graph *g = c->g;
	const int64_t *feat, *tr, *fa, *tl, *fl, *ltid, *roots, *mtt;
	int64_t n, n2, nl, nr, v;
	double *splits, *lw, *members;
	const RawAttr *modes = import_find(c, "nodes_modes");
	if (ints_req(c, "nodes_featureids", -1, &feat, &n) ||
	    ints_req(c, "nodes_truenodeids", n, &tr, &n2) ||
	    ints_req(c, "nodes_falsenodeids", n, &fa, &n2) ||
	    ints_req(c, "nodes_trueleafs", n, &tl, &n2) ||
	    ints_req(c, "nodes_falseleafs", n, &fl, &n2) ||
	    ints_req(c, "leaf_targetids", -1, &ltid, &nl) || ints_req(c, "tree_roots", -1, &roots, &nr) ||
	    ints_of(c, "nodes_missing_value_tracks_true", &mtt, &n2))
		return -1;
	if (n2 >= 0 && n2 != n)
		return import_fail(c, "nodes_missing_value_tracks_true", "expected %lld values (one "
		                   "per node), got %lld", (long long)n, (long long)n2);
	if (reals_of(c, NULL, "nodes_splits", &splits, &n2))
		return -1;
	if (n2 != n)
		return import_fail(c, "nodes_splits", "expected %lld values (one per node)", (long long)n);
	if (reals_of(c, NULL, "leaf_weights", &lw, &n2))
		return -1;
	if (n2 != nl)
		return import_fail(c, "leaf_weights", "expected %lld values (one per leaf)", (long long)nl);
	if (reals_of(c, NULL, "membership_values", &members, &T->n_set))
		return -1;
	if (!modes || modes->kind != RA_TENSOR || c->g->values[modes->tensor].type.dtype != DT_U8 ||
	    type_numel(&c->g->values[modes->tensor].type) != n)
		return import_fail(c, "nodes_modes", "expected a uint8 tensor of %lld modes (one per node)",
		                   (long long)n);
	if (nr < 1)
		return import_fail(c, "tree_roots", "expected at least one tree");
	if (import_int(c, "post_transform", 0, &v))
		return -1;
	if (v < 0 || v > INGOT_TREE_POST_PROBIT)
		return import_fail(c, "post_transform", "expected 0..4, got %lld", (long long)v);
	a->post = v;
	if (import_int(c, "aggregate_function", 1, &v))
		return -1;
	if (v < 0 || v > INGOT_TREE_MAX)
		return import_fail(c, "aggregate_function", "expected 0..3, got %lld", (long long)v);
	a->aggregate = v;
	const uint8_t *mode = ir_const_data(g, modes->tensor);

	T->n_rows = n + nl;
	T->tab = arena_array(&g->arena, (size_t)T->n_rows * INGOT_TREE_COLS, sizeof *T->tab);
	T->th = arena_array(&g->arena, (size_t)T->n_rows, sizeof *T->th);
	T->n_w = nl;
	T->tgt = arena_array(&g->arena, (size_t)(nl ? nl : 1), sizeof *T->tgt);
	T->w = lw;
	T->set = members;
	for (int64_t k = 0; k < nl; k++) {
		int64_t *row = T->tab + (n + k) * INGOT_TREE_COLS;
		if (ltid[k] < 0 || ltid[k] >= a->n_cols)
			return import_fail(c, "leaf_targetids", "leaf %lld: target %lld, expected 0..%lld",
			                   (long long)k, (long long)ltid[k], (long long)a->n_cols - 1);
		T->tgt[k] = ltid[k];
		row[1] = INGOT_TREE_LEAF;
		row[5] = k;
		row[6] = 1;
	}
	int64_t next_set = 0;    /* the sets follow the BRANCH_MEMBER nodes' order, NaN-ended */
	a->max_feature = -1;
	for (int64_t i = 0; i < n; i++) {
		int64_t *row = T->tab + i * INGOT_TREE_COLS;
		if (mode[i] > INGOT_TREE_MEMBER)
			return import_fail(c, "nodes_modes", "node %lld: mode %d, expected 0..6", (long long)i,
			                   mode[i]);
		if (feat[i] < 0 || feat[i] > OPS_MAX_TENSOR_BYTES)
			return import_fail(c, "nodes_featureids", "node %lld: feature %lld out of range",
			                   (long long)i, (long long)feat[i]);
		row[0] = feat[i];
		row[1] = mode[i];
		row[4] = mtt && mtt[i];
		T->th[i] = splits[i];
		a->max_feature = feat[i] > a->max_feature ? feat[i] : a->max_feature;
		for (int side = 0; side < 2; side++) {
			int64_t to = side ? fa[i] : tr[i], leaf = side ? fl[i] : tl[i];
			if (to < 0 || to >= (leaf ? nl : n))
				return import_fail(c, side ? "nodes_falsenodeids" : "nodes_truenodeids",
				                   "node %lld: %s %lld out of range", (long long)i,
				                   leaf ? "leaf" : "node", (long long)to);
			row[2 + side] = leaf ? n + to : to;
		}
		if (mode[i] == INGOT_TREE_MEMBER) {
			int64_t s = next_set;
			while (next_set < T->n_set && members[next_set] == members[next_set])
				next_set++;
			if (next_set >= T->n_set && s == next_set)
				return import_fail(c, "membership_values", "node %lld: no set left for this "
				                   "BRANCH_MEMBER node", (long long)i);
			row[5] = s;
			row[6] = next_set - s;
			next_set++;   /* past the NaN */
		}
	}
	T->n_trees = nr;
	T->roots = arena_array(&g->arena, (size_t)nr, sizeof *T->roots);
	for (int64_t t = 0; t < nr; t++) {
		int64_t r = roots[t];
		if (r < 0 || r >= n)
			return import_fail(c, "tree_roots", "tree %lld: root %lld out of range",
			                   (long long)t, (long long)r);
		/* a tree that is one leaf: both branches name the same leaf */
		T->roots[t] = tl[r] && fl[r] && tr[r] == fa[r] ? n + tr[r] : r;
	}
	a->avg_each = 1;
	return 0;
}

/* The class labels: their count, and the tensor to append (dtype DT_UNDEF: none). */
typedef struct Labels { DType dt; int64_t n; void *data; } Labels;

static int import_labels(ImportCtx *c, TreeAttrs *a, int64_t *n_classes, Labels *L)
{
	const RawAttr *li = import_find(c, "classlabels_int64s");
	const RawAttr *ls = import_find(c, "classlabels_strings");
	if (!li == !ls)
		return import_fail(c, "classlabels_int64s", "expected exactly one of classlabels_int64s "
		                   "and classlabels_strings");
	if (li) {
		const int64_t *v;
		if (ints_of(c, "classlabels_int64s", &v, n_classes))
			return -1;
		if (*n_classes < 1)
			return import_fail(c, "classlabels_int64s", "expected at least one label");
		if (*n_classes == 1 && v[0] != 1)
			return import_fail(c, "classlabels_int64s", "a single label must be 1 (the "
			                   "reference supports no other), got %lld", (long long)v[0]);
		a->labels = *n_classes == 1 ? INGOT_TREE_LABELS_ONE : INGOT_TREE_LABELS_I64;
		if (*n_classes > 1)
			*L = (Labels){ DT_I64, *n_classes, (void *)v };
		return 0;
	}
	if (ls->kind != RA_STRINGS || ls->n < 2)
		return import_fail(c, "classlabels_strings", "expected at least two strings (a single "
		                   "string label is not supported)");
	*n_classes = ls->n;
	char *slots = ops_str_slots(c, "classlabels_strings", ls->strings, ls->n);
	if (!slots)
		return -1;
	a->labels = INGOT_TREE_LABELS_STR;
	*L = (Labels){ DT_STRING, ls->n, slots };
	return 0;
}

static int tree_import(ImportCtx *c)
{
	TreeAttrs *a = c->attrs;
	Graph *g = c->g;
	Node *nd = &g->nodes[c->node];
	Op op = nd->op;
	Table T;
	Labels L = { DT_UNDEF, 0, NULL };
	int e;
	memset(&T, 0, sizeof T);
	if (nd->n_in != 1)
		return import_fail(c, NULL, "%s takes 1 input, got %d", ir_op_name(op), nd->n_in);
	a->aggregate = INGOT_TREE_SUM;
	if (op == OP_TREE_ENSEMBLE) {
		if (nd->opset < 5)
			return import_fail(c, NULL, "TreeEnsemble exists from ai.onnx.ml opset 5; the model "
			                   "imports opset %d", nd->opset);
		if (import_int(c, "n_targets", -1, &a->n_cols))
			return -1;
		if (a->n_cols < 1 || a->n_cols > OPS_MAX_ATTR)
			return import_fail(c, "n_targets", "expected a positive count (required)");
		if (import_v5(c, a, &T))
			return -1;
		a->n_z = a->n_cols;
	} else {
		double *base;
		int64_t nb;
		if (import_enum(c, "post_transform", post_names, 0, &e))
			return -1;
		a->post = e;
		if (op == OP_TREE_ENSEMBLE_CLASSIFIER) {
			const int64_t *ids;
			int64_t n_ids, n_classes;
			if (import_labels(c, a, &n_classes, &L) || ints_req(c, "class_ids", -1, &ids, &n_ids))
				return -1;
			a->binary = n_ids > 0;
			for (int64_t i = 1; i < n_ids; i++)
				a->binary &= ids[i] == ids[0];
			a->n_cols = n_classes;
			a->n_z = a->binary && n_classes == 1 ? 2 : n_classes;
			if (import_legacy(c, a, &T, "class"))
				return -1;
		} else {
			if (import_enum(c, "aggregate_function", agg_names, INGOT_TREE_SUM, &e) ||
			    import_int(c, "n_targets", -1, &a->n_cols))
				return -1;
			a->aggregate = e;
			if (a->n_cols < 1 || a->n_cols > OPS_MAX_ATTR)
				return import_fail(c, "n_targets", "expected a positive count (required)");
			a->n_z = a->n_cols;
			if (import_legacy(c, a, &T, "target"))
				return -1;
		}
		if (reals_of(c, "base_values", "base_values_as_tensor", &base, &nb))
			return -1;
		if (nb >= 0 && nb != a->n_cols && nb != 1)
			return import_fail(c, "base_values", "expected %lld values (or one), got %lld",
			                   (long long)a->n_cols, (long long)nb);
		if (nb > 0) {   /* one value broadcasts over the columns, as the reference does */
			T.base = arena_array(&g->arena, (size_t)a->n_cols, sizeof *T.base);
			for (int64_t j = 0; j < a->n_cols; j++)
				T.base[j] = base[nb == 1 ? 0 : j];
			a->has_base = 1;
		}
	}
	static const double zero = 0;
	ops_append_const_input(c, "tree_nodes", DT_I64, T.n_rows * INGOT_TREE_COLS, T.tab);
	ops_append_const_input(c, "tree_thresholds", DT_F64, T.n_rows, T.th);
	ops_append_const_input(c, "tree_roots", DT_I64, T.n_trees, T.roots);
	ops_append_const_input(c, "leaf_targets", DT_I64, T.n_w ? T.n_w : 1, T.tgt);
	ops_append_const_input(c, "leaf_weights", DT_F64, T.n_w ? T.n_w : 1, T.w);
	ops_append_const_input(c, "base_values", DT_F64, T.base ? a->n_cols : 1,
	                       T.base ? (void *)T.base : (void *)&zero);
	ops_append_const_input(c, "set_members", DT_F64, T.n_set > 0 ? T.n_set : 1,
	                       T.n_set > 0 ? (void *)T.set : (void *)&zero);
	if (L.dt != DT_UNDEF)
		ops_append_const_input(c, "classlabels", L.dt, L.n, L.data);
	return 0;
}

static const DType x_legacy[] = { DT_F32, DT_F64, DT_I64, DT_I32, DT_UNDEF };

static int tree_infer(InferCtx *c)
{
	Node *n = infer_node(c);
	const TreeAttrs *a = n->attrs;
	const Type *x = infer_in(c, 0);
	if (infer_check_dtype(c, 0, n->op == OP_TREE_ENSEMBLE ? dtl_float : x_legacy) ||
	    infer_check_size(c, 0))
		return -1;
	if (x->dtype == DT_BF16)
		return infer_unsupported(c, "TreeEnsemble on bfloat16 (the spec allows float, double "
		                         "and float16)");
	if (x->rank != 1 && x->rank != 2)
		return infer_fail(c, 0, "expected [N, F] or [F] features, got rank %d", x->rank);
	int64_t f = x->dims[x->rank - 1], rows = x->rank == 2 ? x->dims[0] : 1;
	if (a->max_feature >= f)
		return infer_fail(c, 0, "a node reads feature %lld, but X has %lld features",
		                  (long long)a->max_feature, (long long)f);
	int64_t dims[2] = { rows, a->n_z };
	if (n->op == OP_TREE_ENSEMBLE_CLASSIFIER) {
		if (ops_set_out(c, 0, a->labels == INGOT_TREE_LABELS_STR ? DT_STRING : DT_I64, 1, dims))
			return -1;
		return infer_out(c, 1) ? ops_set_out(c, 1, DT_F32, 2, dims) : 0;
	}
	return ops_set_out(c, 0, n->op == OP_TREE_ENSEMBLE ? x->dtype : DT_F32, 2, dims);
}

#define PARAM_STRUCT ingot_tree_ensemble_params
static const ParamField tree_pfields[] = { INGOT_TREE_ENSEMBLE_FIELDS(PARAM_FIELD) };
#undef PARAM_STRUCT
static const ParamDesc tree_desc = PARAM_DESC(ingot_tree_ensemble_params, tree_pfields);

static int tree_lower(LowerCtx *c)
{
	const Node *n = &c->g->nodes[c->node];
	const TreeAttrs *a = n->attrs;
	const Type *x = lower_in(c, 0);
	bool cls = n->op == OP_TREE_ENSEMBLE_CLASSIFIER;
	ingot_tree_ensemble_params *p = lower_params(c, &tree_desc);
	p->x_dtype = x->dtype;
	p->y_dtype = n->op == OP_TREE_ENSEMBLE ? x->dtype : DT_F32;
	p->n_rows = x->rank == 2 ? x->dims[0] : 1;
	p->n_feat = x->dims[x->rank - 1];
	p->n_nodes = type_numel(lower_in(c, 1)) / INGOT_TREE_COLS;
	p->n_trees = type_numel(lower_in(c, 3));
	p->n_cols = a->n_cols;
	p->n_z = a->n_z;
	p->aggregate = a->aggregate;
	p->post = a->post;
	p->has_base = a->has_base;
	p->legacy_nan = a->legacy_nan;
	p->avg_each = a->avg_each;
	p->classifier = cls;
	p->binary = a->binary;
	p->labels = a->labels;
	p->has_z = cls && n->n_out > 1 && n->out[1] != IR_NONE;
	LOWER_CALL(c, ingot_tree_ensemble, &tree_desc, p);
	c->kc.scratch_bytes = a->n_z * (int64_t)sizeof(double);
	return 0;
}

const OpImpl op_impl_tree_ensemble = { sizeof(TreeAttrs), tree_fields, COUNTOF(tree_fields),
                                       tree_import, tree_infer, tree_lower };
