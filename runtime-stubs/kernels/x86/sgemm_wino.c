/* x86/sgemm_wino.c — Winograd F(2x2, 3x3) Conv of the x86 targets (packed = 2:
 * weights pre-transformed by the compiler, codegen/x86/prepack.c): input tiles
 * transformed in vectors, the 16 products per tile position through sgemm.c's GEMM
 * driver, the output transform, then bias, residual and activation. Not a translation
 * unit of its own: x86/sgemm.c #includes it after the driver (sg_job, sg_run, sg_act,
 * sg_split), and codegen copies it with the x86/sgemm family. */

/* One block of tile rows [ty0, ty0 + rows) of image x (C planes) into y (M planes):
 *   V = B^T d B per 4x4 input tile d (vectors over the tiles of a row: stride-2 loads
 *       from zero-padded rows), U x V per position as 16 GEMMs, Y = A^T m A per tile,
 *   then bias, residual and activation per output row. */
static void sg_wino_block(const ingot_x86_conv_params *p, const sg_job *proto, const float *u,
                          const float *x, float *y, const float *res, int64_t ty0, int64_t rows,
                          int64_t m0, int64_t m1, float *scratch)
{
	const int64_t C = p->x_dims[1], M = p->y_dims[1], H = p->x_dims[2], W = p->x_dims[3];
	const int64_t OH = p->y_dims[2], OW = p->y_dims[3], ph = p->pads[0], pw = p->pads[1];
	const int64_t tw = (OW + 1) / 2, tb = rows * tw;
	const int64_t wp = 2 * tw + 2 + 2 * UK_VF;             /* padded row: loads read past */
	float *v = scratch, *mm = scratch + 16 * C * tb;
	float prow[4][4096 + 8 + 4 * UK_VF] SG_ALIGN;       /* ingot_x86_wino_ok bounds the rows */
	float out[2][4096 + 8 + 4 * UK_VF] SG_ALIGN;
	sg_job jb;
	memset(&jb, 0, sizeof jb);           /* the products run without an epilogue */
	jb.e.alpha = 1.0f;
	/* input transform */
	for (int64_t c = 0; c < C; c++) {
		const float *xc = x + c * H * W;
		for (int64_t ty = ty0; ty < ty0 + rows; ty++) {
			const int64_t t0 = (ty - ty0) * tw;
			for (int r = 0; r < 4; r++) {
				const int64_t iy = 2 * ty - ph + r;
				memset(prow[r], 0, sizeof(float) * (size_t)wp);
				if (iy >= 0 && iy < H) {
					const int64_t lo = pw, n = W < wp - pw ? W : wp - pw;
					memcpy(prow[r] + lo, xc + iy * W, sizeof(float) * (size_t)n);
				}
			}
			for (int64_t tx = 0; tx < tw; tx += UK_VF) {
				const int64_t n = tw - tx < UK_VF ? tw - tx : UK_VF;
				const uk_mask m = uk_mask_n(n);
				uk_vec d[4][4], t[4][4];
				for (int r = 0; r < 4; r++)
					for (int q = 0; q < 4; q++)
						d[r][q] = uk_load_s2(prow[r] + 2 * tx + q);
				for (int q = 0; q < 4; q++) {               /* B^T d */
					t[0][q] = uk_add(d[0][q], uk_mul(d[2][q], uk_bcast(-1.0f)));
					t[1][q] = uk_add(d[1][q], d[2][q]);
					t[2][q] = uk_add(d[2][q], uk_mul(d[1][q], uk_bcast(-1.0f)));
					t[3][q] = uk_add(d[1][q], uk_mul(d[3][q], uk_bcast(-1.0f)));
				}
				for (int r = 0; r < 4; r++) {               /* (B^T d) B */
					uk_vec o[4];
					o[0] = uk_add(t[r][0], uk_mul(t[r][2], uk_bcast(-1.0f)));
					o[1] = uk_add(t[r][1], t[r][2]);
					o[2] = uk_add(t[r][2], uk_mul(t[r][1], uk_bcast(-1.0f)));
					o[3] = uk_add(t[r][1], uk_mul(t[r][3], uk_bcast(-1.0f)));
					for (int q = 0; q < 4; q++)
						uk_storem(v + ((r * 4 + q) * C + c) * tb + t0 + tx, m, o[q]);
				}
			}
		}
	}
	/* the 16 products: output channels m0..m1 (whole panels of U) times C x tiles */
	jb.m = m1 - m0;
	jb.n = tb;
	jb.k = C;
	jb.b_rs = tb;
	jb.b_cs = 1;
	jb.ldy = tb;
	for (int xi = 0; xi < 16; xi++) {
		jb.ap = u + xi * M * C + m0 * C;
		jb.b = v + xi * C * tb;
		jb.y = mm + (xi * M + m0) * tb;
		sg_run(&jb, 0, 1);
	}
	/* output transform, then the epilogue per output row */
	for (int64_t oc = m0; oc < m1; oc++) {
		const float bias = p->has_bias ? proto->e.rbias[oc] : 0.0f;
		for (int64_t ty = ty0; ty < ty0 + rows; ty++) {
			const int64_t t0 = (ty - ty0) * tw;
			for (int64_t tx = 0; tx < tw; tx += UK_VF) {
				const int64_t n = tw - tx < UK_VF ? tw - tx : UK_VF;
				const uk_mask m = uk_mask_n(n);
				uk_vec g[4][4], s0[4], s1[4];
				for (int xi = 0; xi < 16; xi++)
					g[xi / 4][xi % 4] = uk_loadm(mm + (xi * M + oc) * tb + t0 + tx, m);
				for (int q = 0; q < 4; q++) {               /* A^T m */
					s0[q] = uk_add(uk_add(g[0][q], g[1][q]), g[2][q]);
					s1[q] = uk_add(uk_add(g[1][q], uk_mul(g[2][q], uk_bcast(-1.0f))),
					               uk_mul(g[3][q], uk_bcast(-1.0f)));
				}
				/* (A^T m) A, interleaved into the two output rows */
				uk_store_il2(out[0] + 2 * tx, uk_add(uk_add(s0[0], s0[1]), s0[2]),
				             uk_add(uk_add(s0[1], uk_mul(s0[2], uk_bcast(-1.0f))),
				                    uk_mul(s0[3], uk_bcast(-1.0f))));
				uk_store_il2(out[1] + 2 * tx, uk_add(uk_add(s1[0], s1[1]), s1[2]),
				             uk_add(uk_add(s1[1], uk_mul(s1[2], uk_bcast(-1.0f))),
				                    uk_mul(s1[3], uk_bcast(-1.0f))));
			}
			for (int r = 0; r < 2 && 2 * ty + r < OH; r++) {
				const int64_t oy = 2 * ty + r;
				float *yr = y + (oc * OH + oy) * OW;
				uk_epi e;
				memset(&e, 0, sizeof e);
				e.rbias = p->has_bias ? &bias : NULL;
				e.res = res ? res + (oc * OH + oy) * OW : NULL;
				e.act = proto->e.act;
				e.lo = proto->e.lo;
				e.hi = proto->e.hi;
				for (int64_t ox = 0; ox < OW; ox += UK_VF) {
					const int64_t n = OW - ox < UK_VF ? OW - ox : UK_VF;
					const uk_mask m = uk_mask_n(n);
					uk_storem(yr + ox, m, uk_epi_apply(&e, 0, ox, uk_loadm(out[r] + ox, m), m, 1));
				}
				if (proto->post)
					for (int64_t ox = 0; ox < OW; ox++)
						yr[ox] = sg_act(proto->act, yr[ox], proto->al, proto->be);
			}
		}
	}
}

/* Winograd Conv of every image: tasks split the tile rows, or, when a task would
 * get fewer than 4 vectors of tiles (small planes, where every task would stream all
 * of U for a few tiles), the output channels in whole panels of U; blocks of
 * ingot_x86_wino_rows() rows go through the task's scratch. Either way each output
 * is computed alike, so the split does not change results. */
static int sg_wino(const ingot_x86_conv_params *p, const sg_job *proto, const float *x,
                   const float *w, float *y, const float *res, float *scratch, int task, int n_tasks)
{
	const int64_t C = p->x_dims[1], M = p->y_dims[1], th = (p->y_dims[2] + 1) / 2;
	const int64_t R = ingot_x86_wino_rows(p), plane_x = p->x_dims[2] * p->x_dims[3];
	const int64_t plane_y = p->y_dims[2] * p->y_dims[3];
	int64_t r0 = 0, r1 = th, m0 = 0, m1 = M;
	if (!scratch)
		return INGOT_EINVAL;
	if (n_tasks > 1 && th * ((p->y_dims[3] + 1) / 2) < 4 * UK_VF * (int64_t)n_tasks) {
		const int64_t panels = (M + UK_MR - 1) / UK_MR;
		sg_split(panels, task, n_tasks, &m0, &m1);
		m0 *= UK_MR;
		m1 = m1 * UK_MR < M ? m1 * UK_MR : M;
	} else {
		sg_split(th, task, n_tasks, &r0, &r1);
	}
	if (m0 >= m1)
		return INGOT_OK;
	for (int64_t n = 0; n < p->y_dims[0]; n++)
		for (int64_t ty = r0; ty < r1; ty += R)
			sg_wino_block(p, proto, w, x + n * C * plane_x, y + n * M * plane_y,
			              res ? res + n * M * plane_y : NULL, ty, r1 - ty < R ? r1 - ty : R, m0, m1,
			              scratch);
	return INGOT_OK;
}
