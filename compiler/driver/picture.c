/* picture.c — --svg FILE / --svg-before FILE: the graph (ir_dot) drawn by
 * Graphviz's `dot -Tsvg`, run as a child process (no shell). Without `dot` on PATH
 * the compile fails with one line saying so. */
#include "driver.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether prog is an executable file in one of PATH's directories. */
static bool on_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];
	if (!path)
		return false;
	while (*path) {
		size_t len = strcspn(path, ":");
		snprintf(buf, sizeof buf, "%.*s%s%s", (int)len, path, len ? "/" : "./", prog);
		if (access(buf, X_OK) == 0)
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

int driver_write_svg(const Graph *g, const DotStyle *style, const char *path, const char *flag,
                     DiagSink *d)
{
	DiagLoc l = diag_loc_file(path);
	char dot_path[4200], out[2048];
	FILE *f;
	int rc;
	if (!on_path("dot")) {
		diag_report(d, DIAG_ERROR, DC_IO, &l, "%s needs Graphviz's 'dot', which is not on PATH "
		            "(install graphviz: apt-get install graphviz)", flag);
		return -1;
	}
	/* the dot text next to the picture, removed once drawn */
	snprintf(dot_path, sizeof dot_path, "%s.tmp.dot", path);
	f = fopen(dot_path, "w");
	if (!f) {
		diag_report(d, DIAG_ERROR, DC_IO, &l, "cannot write: %s", strerror(errno));
		return -1;
	}
	ir_dot(g, style, f);
	if (fclose(f)) {
		diag_report(d, DIAG_ERROR, DC_IO, &l, "cannot write: %s", strerror(errno));
		unlink(dot_path);
		return -1;
	}
	const char *argv[] = { "dot", "-Tsvg", "-o", path, dot_path, NULL };
	rc = proc_run(argv, NULL, 300, out, sizeof out);
	unlink(dot_path);
	if (rc != 0) {
		char *nl = strchr(out, '\n');
		if (nl)
			*nl = 0;
		diag_report(d, DIAG_ERROR, DC_IO, &l, "dot -Tsvg failed (exit %d): %s", rc, out);
		return -1;
	}
	return 0;
}
