#!/usr/bin/env python3
"""ml_trees: scikit-learn tree ensembles through the ai.onnx.ml ops. RandomForest-
Classifier/-Regressor and GradientBoostingClassifier (binary and 3-class)/-Regressor
are trained on generated data; their fitted trees (`tree_` arrays) are written as
TreeEnsembleClassifier / TreeEnsembleRegressor (ai.onnx.ml opset 3) and TreeEnsemble
(opset 5) nodes with python3-onnx's helper (Debian has no skl2onnx), and `ingot check`
compares the compiled models with sklearn's predict / predict_proba.

sklearn casts X to float32 and compares it with float64 thresholds, so the models keep
double thresholds and leaf values: opset 3's *_as_tensor attributes, opset 5's double
tensors. Predicted labels must match exactly. Scores are sums in double rounded once to
float32: the random forest regressor (sum, then divide by the trees, as sklearn does)
and the gradient boosting regressor (init as a one-leaf tree, then each stage in order)
must equal sklearn's float64 prediction rounded to float32 exactly; probabilities,
whose transform or division order differs from sklearn's by a few double ulps, to
one float32 ulp (rtol 2^-23). Skipped (77) when python3-sklearn is missing."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from common import check_all_pass, main, one_error as one_error_in, vi, write_test_dir

try:
    from sklearn.ensemble import (GradientBoostingClassifier, GradientBoostingRegressor,
                                  RandomForestClassifier, RandomForestRegressor)
except ImportError:
    print("SKIP: python3-sklearn is not installed")
    sys.exit(77)

T = TensorProto
ML = "ai.onnx.ml"
F32_ULP = "%g" % 2 ** -23


def model(node, inputs, outputs, ml_opset):
    g = helper.make_graph([node], "g", inputs, outputs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17),
                                            helper.make_opsetid(ML, ml_opset)],
                          producer_name="tests/driver")
    m.ir_version = 8
    return m


def dbl(name, a):
    return numpy_helper.from_array(np.asarray(a, np.float64), name)


def legacy_nodes(trees):
    """nodes_* attributes of opsets 1/3 for sklearn trees (tree id = position)."""
    a = {k: [] for k in ("nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_modes",
                         "nodes_truenodeids", "nodes_falsenodeids")}
    vals = []
    for t, tr in enumerate(trees):
        for i in range(tr.node_count):
            leaf = tr.children_left[i] == -1
            a["nodes_treeids"].append(t)
            a["nodes_nodeids"].append(i)
            a["nodes_featureids"].append(0 if leaf else int(tr.feature[i]))
            a["nodes_modes"].append("LEAF" if leaf else "BRANCH_LEQ")
            a["nodes_truenodeids"].append(0 if leaf else int(tr.children_left[i]))
            a["nodes_falsenodeids"].append(0 if leaf else int(tr.children_right[i]))
            vals.append(0.0 if leaf else tr.threshold[i])
    a["nodes_values_as_tensor"] = dbl("nodes_values", vals)
    return a


def leaf_entries(trees, weight_of, prefix):
    """prefix_{treeids,nodeids,ids,weights_as_tensor}: weight_of(tree, node) -> per id."""
    tid, nid, ids, w = [], [], [], []
    for t, tr in enumerate(trees):
        for i in range(tr.node_count):
            if tr.children_left[i] != -1:
                continue
            for k, v in enumerate(weight_of(t, tr, i)):
                tid.append(t), nid.append(i), ids.append(k), w.append(v)
    return {prefix + "_treeids": tid, prefix + "_nodeids": nid, prefix + "_ids": ids,
            prefix + "_weights_as_tensor": dbl(prefix + "_weights", w)}


def classifier_case(work, name, X, trees, weight_of, labels, base, post, want_label, want_prob):
    attrs = legacy_nodes(trees)
    attrs.update(leaf_entries(trees, weight_of, "class"))
    if isinstance(labels[0], str):
        attrs["classlabels_strings"] = list(labels)
    else:
        attrs["classlabels_int64s"] = [int(v) for v in labels]
    if base is not None:
        attrs["base_values_as_tensor"] = dbl("base_values", base)
    node = helper.make_node("TreeEnsembleClassifier", ["x"], ["label", "prob"], name=name,
                            domain=ML, post_transform=post, **attrs)
    lt = T.STRING if isinstance(labels[0], str) else T.INT64
    m = model(node, [vi("x", T.FLOAT, list(X.shape))],
              [vi("label", lt, [X.shape[0]]), vi("prob", T.FLOAT, list(want_prob.shape))], 3)
    to_tensor = lambda a, n: (helper.make_tensor(n, T.STRING, a.shape, [s.encode() for s in a])
                              if a.dtype.kind in "OU" else numpy_helper.from_array(a, n))
    return write_test_dir(work, name, m, [X], [want_label, want_prob.astype(np.float32)], to_tensor)


def v5_tree(tr, scale, a, leaf_w):
    """Appends one sklearn tree (leaf value * scale) to TreeEnsemble-5 lists in a."""
    inner = [i for i in range(tr.node_count) if tr.children_left[i] != -1]
    leaves = [i for i in range(tr.node_count) if tr.children_left[i] == -1]
    at = {i: len(a["nodes_featureids"]) + k for k, i in enumerate(inner)}
    lat = {i: len(leaf_w) + k for k, i in enumerate(leaves)}
    for i in leaves:
        a["leaf_targetids"].append(0)
        leaf_w.append(scale * tr.value[i, 0, 0])
    if not inner:   # one leaf: a degenerate root whose two branches name it
        a["tree_roots"].append(len(a["nodes_featureids"]))
        for k in ("nodes_featureids", "nodes_modes", "splits"):
            a[k].append(0)
        for k in ("nodes_truenodeids", "nodes_falsenodeids"):
            a[k].append(lat[leaves[0]])
        a["nodes_trueleafs"].append(1), a["nodes_falseleafs"].append(1)
        return
    a["tree_roots"].append(at[0])
    for i in inner:
        a["nodes_featureids"].append(int(tr.feature[i]))
        a["nodes_modes"].append(0)
        a["splits"].append(tr.threshold[i])
        for side, c in (("true", tr.children_left[i]), ("false", tr.children_right[i])):
            leaf = tr.children_left[c] == -1
            a["nodes_%snodeids" % side].append(lat[c] if leaf else at[c])
            a["nodes_%sleafs" % side].append(1 if leaf else 0)


def test(ingot, work):
    rng = np.random.default_rng(18)
    n_feat = 6
    Xtr = rng.standard_normal((400, n_feat)).astype(np.float32)
    Xte = rng.standard_normal((150, n_feat)).astype(np.float32)
    score = Xtr[:, 0] * 1.5 - Xtr[:, 1] + np.sin(2 * Xtr[:, 2]) + 0.3 * rng.standard_normal(400)
    y3 = np.digitize(score, [-0.7, 0.7])          # 3 classes
    y2 = (score > 0.2).astype(np.int64)
    yr = np.stack([score, Xtr[:, 3] * Xtr[:, 4]], axis=1)
    exact, ulp = [], []

    # RandomForestClassifier: int64 labels 3, 7, 11; the probabilities are each tree's
    # normalized leaf counts over the trees, summed
    rf = RandomForestClassifier(n_estimators=9, max_depth=7, random_state=0)
    rf.fit(Xtr, np.array([3, 7, 11])[y3])
    trees = [e.tree_ for e in rf.estimators_]
    nt = len(trees)
    ulp.append(classifier_case(
        work, "rf_classifier", Xte, trees,
        lambda t, tr, i: tr.value[i, 0] / tr.value[i, 0].sum() / nt,
        rf.classes_, None, "NONE", rf.predict(Xte).astype(np.int64), rf.predict_proba(Xte)))

    # GradientBoostingClassifier, binary: one score column (class_ids all 0), base value
    # the prior's log-odds, LOGISTIC
    gb = GradientBoostingClassifier(n_estimators=12, max_depth=3, learning_rate=0.3,
                                    random_state=0)
    gb.fit(Xtr, y2)
    trees = [e.tree_ for e in gb.estimators_[:, 0]]
    base = gb._raw_predict_init(Xte[:1])[0]
    lr = gb.learning_rate
    ulp.append(classifier_case(
        work, "gb_classifier_binary", Xte, trees, lambda t, tr, i: [lr * tr.value[i, 0, 0]],
        gb.classes_, base, "LOGISTIC", gb.predict(Xte).astype(np.int64), gb.predict_proba(Xte)))

    # GradientBoostingClassifier, 3 classes with string labels: K trees per stage, SOFTMAX
    gb3 = GradientBoostingClassifier(n_estimators=8, max_depth=2, learning_rate=0.5,
                                     random_state=0)
    labels3 = np.array(["low", "mid", "high"])
    gb3.fit(Xtr, labels3[y3])
    K = gb3.estimators_.shape[1]
    trees = [gb3.estimators_[s, k].tree_ for s in range(gb3.estimators_.shape[0]) for k in range(K)]
    base = gb3._raw_predict_init(Xte[:1])[0]
    lr3 = gb3.learning_rate
    ulp.append(classifier_case(
        work, "gb_classifier_3class_strings", Xte, trees,
        lambda t, tr, i: [lr3 * tr.value[i, 0, 0] if k == t % K else 0.0 for k in range(K)],
        list(gb3.classes_), base, "SOFTMAX", gb3.predict(Xte), gb3.predict_proba(Xte)))

    # RandomForestRegressor, 2 targets: AVERAGE over the trees (sum, then divide)
    rfr = RandomForestRegressor(n_estimators=7, max_depth=8, random_state=0)
    rfr.fit(Xtr, yr)
    trees = [e.tree_ for e in rfr.estimators_]
    attrs = legacy_nodes(trees)
    attrs.update(leaf_entries(trees, lambda t, tr, i: tr.value[i, :, 0], "target"))
    node = helper.make_node("TreeEnsembleRegressor", ["x"], ["y"], name="rf_regressor",
                            domain=ML, n_targets=2, aggregate_function="AVERAGE", **attrs)
    want = rfr.predict(Xte).astype(np.float32)
    exact.append(write_test_dir(work, "rf_regressor",
                                model(node, [vi("x", T.FLOAT, list(Xte.shape))],
                                      [vi("y", T.FLOAT, list(want.shape))], 3), [Xte], [want]))

    # GradientBoostingRegressor as TreeEnsemble 5: the init as a one-leaf tree first
    gbr = GradientBoostingRegressor(n_estimators=15, max_depth=3, learning_rate=0.2,
                                    random_state=0)
    gbr.fit(Xtr, yr[:, 0])
    a = {k: [] for k in ("nodes_featureids", "nodes_modes", "splits", "nodes_truenodeids",
                         "nodes_falsenodeids", "nodes_trueleafs", "nodes_falseleafs",
                         "leaf_targetids", "tree_roots")}
    leaf_w = []
    init = float(gbr._raw_predict_init(Xte[:1])[0, 0])
    a["tree_roots"].append(0)
    for k in ("nodes_featureids", "nodes_modes", "splits", "nodes_truenodeids", "nodes_falsenodeids"):
        a[k].append(0)
    a["nodes_trueleafs"].append(1), a["nodes_falseleafs"].append(1)
    a["leaf_targetids"].append(0)
    leaf_w.append(init)
    for e in gbr.estimators_[:, 0]:
        v5_tree(e.tree_, gbr.learning_rate, a, leaf_w)
    splits = a.pop("splits")
    modes = numpy_helper.from_array(np.array(a.pop("nodes_modes"), np.uint8), "nodes_modes")
    node = helper.make_node("TreeEnsemble", ["x"], ["y"], name="gb_regressor", domain=ML,
                            n_targets=1, aggregate_function=1, nodes_modes=modes,
                            nodes_splits=dbl("nodes_splits", splits),
                            leaf_weights=dbl("leaf_weights", leaf_w), **a)
    want = gbr.predict(Xte).astype(np.float32).reshape(-1, 1)
    exact.append(write_test_dir(work, "gb_regressor_te5",
                                model(node, [vi("x", T.FLOAT, list(Xte.shape))],
                                      [vi("y", T.FLOAT, list(want.shape))], 5), [Xte], [want]))

    # the same forest with only the labels output (Z omitted: the kernel writes no scores)
    m = onnx.load(os.path.join(ulp[0], "model.onnx"))
    m.graph.node[0].output[1] = ""
    del m.graph.output[1]
    exact.append(write_test_dir(work, "rf_classifier_labels_only", m, [Xte],
                                [rf.predict(Xte).astype(np.int64)]))

    check_all_pass(ingot, ulp, "--rtol", F32_ULP, "--atol", "0")
    check_all_pass(ingot, exact, "--rtol", "0", "--atol", "0")

    # bad models: one error line naming the node, non-zero exit
    def one_error(name, m, *words):
        one_error_in(ingot, work, name, m, *words)

    bad = legacy_nodes([rf.estimators_[0].tree_])
    bad["nodes_modes"][0] = "BRANCH_MEMBER"        # set membership exists from opset 5
    bad.update(leaf_entries([rf.estimators_[0].tree_], lambda t, tr, i: [1.0], "target"))
    node = helper.make_node("TreeEnsembleRegressor", ["x"], ["y"], name="member_v3", domain=ML,
                            n_targets=1, **bad)
    io = ([vi("x", T.FLOAT, [2, n_feat])], [vi("y", T.FLOAT, [2, 1])])
    one_error("member_v3", model(node, *io, 3), "member_v3", "BRANCH_MEMBER")
    node.name = "no_ml_import"
    m = model(node, *io, 3)
    del m.opset_import[1]                          # no ai.onnx.ml opset_import
    one_error("no_ml_import", m, "no_ml_import", "ai.onnx.ml opset")
    node.domain = ""                               # an ai.onnx.ml op in domain ai.onnx
    one_error("ml_op_default_domain", model(node, *io, 3), "no_ml_import", "ai.onnx.ml op")

if __name__ == "__main__":
    main(test)
