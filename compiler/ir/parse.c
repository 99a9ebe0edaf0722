/* parse.c — reading the text IR back (placeholder until the golden tests need it:
 * `ingot opt` and print → parse → print come with the pass-manager work). */
#include "ir.h"

int ir_parse(Graph *g, const char *text, size_t len, const char *blob_file, DiagSink *d)
{
	DiagLoc l = diag_loc_file(g->file);
	(void)text; (void)len; (void)blob_file;
	diag_report(d, DIAG_ERROR, DC_UNSUPPORTED, &l, "parsing text IR is not implemented yet");
	return -1;
}
