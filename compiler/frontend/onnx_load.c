/* onnx_load.c — ONNX protobuf → IR (placeholder). */
#include "frontend.h"
#include "onnx.pb-c.h"

int onnx_load(Graph *g, const char *path, const FrontendOptions *opt, DiagSink *d)
{
	DiagLoc l = diag_loc_file(path);
	(void)g; (void)opt;
	diag_report(d, DIAG_ERROR, DC_UNSUPPORTED, &l, "frontend not implemented yet");
	return -1;
}

int onnx_read_tensor_file(const char *path, Type *t, void **data, DiagSink *d)
{
	DiagLoc l = diag_loc_file(path);
	(void)t; (void)data;
	diag_report(d, DIAG_ERROR, DC_UNSUPPORTED, &l, "not implemented yet");
	return -1;
}
