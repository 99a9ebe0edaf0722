/* onnx_scan.c — protobuf wire-format pre-scan (placeholder). */
#include "frontend.h"

int onnx_prescan(const uint8_t *data, size_t len, const char *file, DiagSink *d)
{
	(void)data; (void)len; (void)file; (void)d;
	return 0;
}
