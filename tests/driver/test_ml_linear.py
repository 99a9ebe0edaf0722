#!/usr/bin/env python3
"""ml_linear: scikit-learn's linear models and preprocessing through the ai.onnx.ml
ops Scaler, LinearRegressor, Normalizer and Imputer (ml opset 1), written with python3-onnx's helper (Debian has no
skl2onnx) as sklearn-onnx writes them: StandardScaler as Scaler(offset = mean_, scale =
1 / scale_), LinearRegression / Ridge as LinearRegressor(coefficients = coef_ row by
row, intercepts = intercept_, targets), Normalizer(norm = MAX, L1, L2) as
sklearn's Normalizer (the spec's reference: x / max(norm, 1e-30)), SimpleImputer as
Imputer (imputed_value_floats = statistics_, replaced_value_float NaN; an int64 one
with imputed_value_int64s and replaced_value_int64 -1, exact). `ingot check` compares the compiled models with
sklearn's transform / predict: ingot computes Scaler in float, as ONNX Runtime does, and
LinearRegressor's sums in double from the float32 coefficients, so both agree with
sklearn's float64 results to 1e-5. Also int64 input to Scaler, a one-value offset and a
[C] input, a regressor without intercepts, and the one error line of an unsupported
post_transform and of an ai.onnx.ml op ingot lacks (SVMRegressor). Skipped (77) when
python3-sklearn is missing."""
import sys

import numpy as np
from onnx import TensorProto, helper

from common import check_all_pass, main, one_error as one_error_in, vi, write_test_dir

try:
    from sklearn.linear_model import LinearRegression, Ridge
    from sklearn.impute import SimpleImputer
    from sklearn.preprocessing import Normalizer, StandardScaler
except ImportError:
    print("SKIP: python3-sklearn is not installed")
    sys.exit(77)

T = TensorProto
ML = "ai.onnx.ml"


def model(node, inputs, outputs):
    g = helper.make_graph([node], "g", inputs, outputs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ML, 1)],
                          producer_name="tests/driver")
    m.ir_version = 8
    return m


def test(ingot, work):
    rng = np.random.default_rng(1818)
    X = (rng.standard_normal((40, 5)) * [1, 10, 0.1, 3, 100] + [0, 5, -1, 2, 50]).astype(np.float32)
    Xte = (rng.standard_normal((12, 5)) * [1, 10, 0.1, 3, 100] + [0, 5, -1, 2, 50]).astype(np.float32)
    dirs = []

    sc = StandardScaler().fit(X)
    node = helper.make_node("Scaler", ["x"], ["y"], name="scaler", domain=ML,
                            offset=sc.mean_.astype(np.float32).tolist(),
                            scale=(1 / sc.scale_).astype(np.float32).tolist())
    dirs.append(write_test_dir(work, "standard_scaler", model(node, [vi("x", T.FLOAT, [12, 5])],
                                                              [vi("y", T.FLOAT, [12, 5])]),
                               [Xte], [sc.transform(Xte).astype(np.float32)]))
    Xi = rng.integers(-50, 50, (6, 5)).astype(np.int64)
    dirs.append(write_test_dir(work, "scaler_int64", model(node, [vi("x", T.INT64, [6, 5])],
                                                           [vi("y", T.FLOAT, [6, 5])]),
                               [Xi], [sc.transform(Xi.astype(np.float64)).astype(np.float32)]))
    node1 = helper.make_node("Scaler", ["x"], ["y"], name="scaler_1d", domain=ML, offset=[2.5],
                             scale=[0.5, 2, 4, 0.25, 1])
    x1 = Xte[0]
    dirs.append(write_test_dir(work, "scaler_one_offset_1d", model(node1, [vi("x", T.FLOAT, [5])],
                                                                   [vi("y", T.FLOAT, [5])]),
                               [x1], [((x1.astype(np.float64) - 2.5) * [0.5, 2, 4, 0.25, 1]).astype(np.float32)]))

    Y = np.stack([X @ [1, -2, 3, 0.5, 0.01] + 4, X @ [0.3, 0.1, -7, 1, -0.02] - 1,
                  X @ [2, 0, 0, -1, 0.005]], 1) + rng.standard_normal((40, 3)) * 0.1
    lr = LinearRegression().fit(X, Y)
    node = helper.make_node("LinearRegressor", ["x"], ["y"], name="linreg", domain=ML,
                            coefficients=lr.coef_.astype(np.float32).ravel().tolist(),
                            intercepts=lr.intercept_.astype(np.float32).tolist(), targets=3)
    dirs.append(write_test_dir(work, "linear_regression_3", model(node, [vi("x", T.FLOAT, [12, 5])],
                                                                  [vi("y", T.FLOAT, [12, 3])]),
                               [Xte], [lr.predict(Xte).astype(np.float32)]))
    rd = Ridge(alpha=0.5, fit_intercept=False).fit(X, Y[:, 0])
    node = helper.make_node("LinearRegressor", ["x"], ["y"], name="ridge", domain=ML,
                            coefficients=rd.coef_.astype(np.float32).tolist())
    dirs.append(write_test_dir(work, "ridge_no_intercept", model(node, [vi("x", T.FLOAT, [12, 5])],
                                                                 [vi("y", T.FLOAT, [12, 1])]),
                               [Xte], [rd.predict(Xte).astype(np.float32).reshape(-1, 1)]))
    Xn = np.vstack([Xte, np.zeros((1, 5), np.float32)])   # an all-zero row stays zero
    for norm in ("max", "l1", "l2"):
        node = helper.make_node("Normalizer", ["x"], ["y"], name="norm_" + norm, domain=ML,
                                norm=norm.upper())
        dirs.append(write_test_dir(work, "normalizer_" + norm,
                                   model(node, [vi("x", T.FLOAT, [13, 5])], [vi("y", T.FLOAT, [13, 5])]),
                                   [Xn], [Normalizer(norm=norm).transform(Xn.astype(np.float64))
                                          .astype(np.float32)]))
    Xm = X.copy()
    Xm[rng.random(Xm.shape) < 0.2] = np.nan
    imp = SimpleImputer(strategy="mean").fit(Xm)
    node = helper.make_node("Imputer", ["x"], ["y"], name="imputer", domain=ML,
                            imputed_value_floats=imp.statistics_.astype(np.float32).tolist(),
                            replaced_value_float=float("nan"))
    Xq = Xte.copy()
    Xq[rng.random(Xq.shape) < 0.3] = np.nan
    dirs.append(write_test_dir(work, "simple_imputer_mean", model(node, [vi("x", T.FLOAT, [12, 5])],
                                                                  [vi("y", T.FLOAT, [12, 5])]),
                               [Xq], [imp.transform(Xq).astype(np.float32)]))
    Xk = rng.integers(-1, 4, (30, 4)).astype(np.int64)
    impk = SimpleImputer(missing_values=-1, strategy="most_frequent").fit(Xk)
    node = helper.make_node("Imputer", ["x"], ["y"], name="imputer_i64", domain=ML,
                            imputed_value_int64s=impk.statistics_.astype(np.int64).tolist(),
                            replaced_value_int64=-1)
    dirs.append(write_test_dir(work, "simple_imputer_i64", model(node, [vi("x", T.INT64, [30, 4])],
                                                                 [vi("y", T.INT64, [30, 4])]),
                               [Xk], [impk.transform(Xk).astype(np.int64)]))
    check_all_pass(ingot, dirs, "--rtol", "1e-5", "--atol", "1e-5")

    def one_error(name, m, *words):
        one_error_in(ingot, work, name, m, *words)

    io = ([vi("x", T.FLOAT, [2, 5])], [vi("y", T.FLOAT, [2, 1])])
    node = helper.make_node("LinearRegressor", ["x"], ["y"], name="softmax_reg", domain=ML,
                            coefficients=[1.0] * 5, post_transform="SOFTMAX")
    one_error("softmax_reg", model(node, *io), "softmax_reg", "post_transform")
    node = helper.make_node("LinearRegressor", ["x"], ["y"], name="short_coef", domain=ML,
                            coefficients=[1.0] * 4)
    one_error("short_coef", model(node, *io), "short_coef", "coefficients")
    node = helper.make_node("Imputer", ["x"], ["y"], name="imputer_types", domain=ML,
                            imputed_value_int64s=[1])
    one_error("imputer_types", model(node, *io), "imputer_types", "imputed_value_int64s")
    node = helper.make_node("SVMRegressor", ["x"], ["y"], name="svm", domain=ML,
                            coefficients=[1.0], support_vectors=[0.0] * 5, n_supports=1, rho=[0.0])
    one_error("svm", model(node, *io), "svm", "SVMRegressor", "unsupported")


if __name__ == "__main__":
    main(test)
