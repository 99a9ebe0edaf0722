/* calibrate_report.c — the accuracy report of `--quantize int8`: what ingot_calib.c
 * measured comparing the int8 build with the fp32 build on the calibration sets (per
 * quantized node the SQNR of its dequantized output; per model output the cosine
 * similarity, the largest absolute error and, for [N,C] or [C] outputs, how often
 * both builds pick the same class), and the nodes left float with their reasons.
 * Printed after a compile (stderr), and as the "quantization" object of
 * `inspect --json`. */
#include "driver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_sqnr(const void *a, const void *b)
{
	const QuantReportNode *x = a, *y = b;
	if (x->measured != y->measured)
		return x->measured ? -1 : 1;
	return x->sqnr_db < y->sqnr_db ? -1 : x->sqnr_db > y->sqnr_db;
}

int quant_report_read(QuantReport *r, const char *path)
{
	FILE *f = fopen(path, "r");
	char name[1024];
	double ref2, err2, dot, q2, max_abs, agree, rows;
	if (!f)
		return -1;
	while (fscanf(f, "%1023s %lf %lf %lf %lf %lf %lf %lf", name, &ref2, &err2, &dot, &q2, &max_abs,
	              &agree, &rows) == 8) {
		double sqnr = err2 > 0 ? (ref2 > 0 ? 10 * log10(ref2 / err2) : -QUANT_SQNR_EXACT) : QUANT_SQNR_EXACT;
		for (int i = 0; i < r->n_nodes; i++)
			if (strcmp(r->nodes[i].value, name) == 0) {
				r->nodes[i].sqnr_db = sqnr;
				r->nodes[i].measured = true;
			}
		for (int i = 0; i < r->n_outputs; i++)
			if (strcmp(r->outputs[i].name, name) == 0) {
				QuantReportOutput *o = &r->outputs[i];
				o->cosine = ref2 > 0 && q2 > 0 ? dot / sqrt(ref2 * q2) : (ref2 == q2 ? 1.0 : 0.0);
				o->max_abs_err = max_abs;
				o->top1_agree = (int)agree;
				o->top1_rows = (int)rows;
			}
	}
	fclose(f);
	qsort(r->nodes, (size_t)r->n_nodes, sizeof *r->nodes, cmp_sqnr);
	return 0;
}

void quant_report_print(const QuantReport *r, FILE *f)
{
	int shown = r->n_nodes < 8 ? r->n_nodes : 8;
	fprintf(f, "ingot: int8 (%s activations, %s%s", r->s8_acts ? "s8 symmetric" : "u8 asymmetric",
	        r->reduce_range ? "7-bit weights, " : "", r->method);
	if (r->percentile > 0)
		fprintf(f, "=%g", r->percentile);
	fprintf(f, " calibration on %d input set%s, %.1f s; compared with fp32 on %d, %.1f s in all): %d nodes "
	        "quantized, %d left float\n", r->n_sets, r->n_sets == 1 ? "" : "s", r->calib_seconds, r->n_report_sets,
	        r->seconds, r->n_nodes,
	        r->n_floats);
	for (int i = 0; i < r->n_outputs; i++) {
		const QuantReportOutput *o = &r->outputs[i];
		fprintf(f, "  output '%s': cosine %.6f, max abs error %.4g", o->name, o->cosine, o->max_abs_err);
		if (o->top1_rows)
			fprintf(f, ", top-1 agreement %d/%d", o->top1_agree, o->top1_rows);
		fputc('\n', f);
	}
	if (shown)
		fprintf(f, "  worst SQNR:");
	for (int i = 0; i < shown; i++)
		fprintf(f, "%s %s (%s) %.1f dB", i ? "," : "", r->nodes[i].node, r->nodes[i].op, r->nodes[i].sqnr_db);
	if (shown)
		fputc('\n', f);
	for (int i = 0; i < r->n_floats && i < 8; i++)
		fprintf(f, "  float: %s (%s): %s\n", r->floats[i].node, r->floats[i].op, r->floats[i].why);
	if (r->n_floats > 8)
		fprintf(f, "  float: %d more (inspect --json lists them)\n", r->n_floats - 8);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

void quant_report_json(const QuantReport *r, FILE *f)
{
	fprintf(f, "{\"activations\": \"%s\", \"weights\": \"s8 per-channel symmetric%s\", \"calibration\": \"%s\", "
	        "\"percentile\": %g, \"sets\": %d, \"report_sets\": %d, \"calib_seconds\": %.3f, \"seconds\": %.3f, \"nodes\": [",
	        r->s8_acts ? "s8" : "u8", r->reduce_range ? " 7-bit" : "", r->method, r->percentile, r->n_sets, r->n_report_sets, r->calib_seconds,
	        r->seconds);
	for (int i = 0; i < r->n_nodes; i++) {
		fprintf(f, "%s{\"node\": ", i ? ", " : "");
		json_str(f, r->nodes[i].node);
		fprintf(f, ", \"op\": \"%s\", \"output\": ", r->nodes[i].op);
		json_str(f, r->nodes[i].value);
		if (r->nodes[i].measured)
			fprintf(f, ", \"sqnr_db\": %.3f}", r->nodes[i].sqnr_db);
		else
			fprintf(f, ", \"sqnr_db\": null}");
	}
	fprintf(f, "], \"outputs\": [");
	for (int i = 0; i < r->n_outputs; i++) {
		const QuantReportOutput *o = &r->outputs[i];
		fprintf(f, "%s{\"name\": ", i ? ", " : "");
		json_str(f, o->name);
		fprintf(f, ", \"cosine\": %.9f, \"max_abs_err\": %.9g", o->cosine, o->max_abs_err);
		if (o->top1_rows)
			fprintf(f, ", \"top1_agreement\": %.6f, \"top1_rows\": %d", (double)o->top1_agree / o->top1_rows,
			        o->top1_rows);
		fputc('}', f);
	}
	fprintf(f, "], \"float\": [");
	for (int i = 0; i < r->n_floats; i++) {
		fprintf(f, "%s{\"node\": ", i ? ", " : "");
		json_str(f, r->floats[i].node);
		fprintf(f, ", \"op\": \"%s\", \"why\": ", r->floats[i].op);
		json_str(f, r->floats[i].why);
		fputc('}', f);
	}
	fprintf(f, "]}");
}

void quant_report_free(QuantReport *r)
{
	for (int i = 0; i < r->n_nodes; i++) {
		free(r->nodes[i].node);
		free(r->nodes[i].op);
		free(r->nodes[i].value);
	}
	for (int i = 0; i < r->n_outputs; i++)
		free(r->outputs[i].name);
	for (int i = 0; i < r->n_floats; i++) {
		free(r->floats[i].node);
		free(r->floats[i].op);
		free(r->floats[i].why);
	}
	free(r->nodes);
	free(r->outputs);
	free(r->floats);
	memset(r, 0, sizeof *r);
}
