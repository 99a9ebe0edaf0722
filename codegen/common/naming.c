/* naming.c — C identifiers and comment text from ONNX names. */
#include "codegen.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static const char *const c_keywords[] = {
	"auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
	"enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
	"restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
	"typedef", "union", "unsigned", "void", "volatile", "while", "bool", "true", "false",
	"workspace", "inputs", "outputs", "main", NULL
};

void cg_ident(const char *name, char *buf, size_t cap)
{
	size_t n = 0;
	if (cap < 4)
		die("identifier buffer too small");
	if (!isalpha((unsigned char)name[0]) && name[0] != '_')
		buf[n++] = 'v';
	for (const char *p = name; *p && n + 2 < cap; p++)
		buf[n++] = isalnum((unsigned char)*p) ? *p : '_';
	buf[n] = 0;
	for (int i = 0; c_keywords[i]; i++)
		if (strcmp(buf, c_keywords[i]) == 0 && n + 2 < cap) {
			buf[n++] = '_';
			buf[n] = 0;
			break;
		}
}

void cg_comment_text(const char *s, char *buf, size_t cap)
{
	size_t n = 0;
	for (const char *p = s; *p && n + 2 < cap; p++) {
		unsigned char c = (unsigned char)*p;
		if (c < 0x20 || c >= 0x7f)
			c = '?';
		if ((c == '/' && n > 0 && buf[n - 1] == '*') || (c == '*' && n > 0 && buf[n - 1] == '/'))
			buf[n++] = ' ';
		buf[n++] = (char)c;
	}
	buf[n] = 0;
}

bool cg_valid_model_name(const char *name)
{
	if (!name[0] || (!isalpha((unsigned char)name[0]) && name[0] != '_') || strlen(name) > 64)
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return false;
	for (int i = 0; c_keywords[i]; i++)
		if (strcmp(name, c_keywords[i]) == 0)
			return false;
	/* not what ingot writes next to NAME.c: the stubs (ingot_rt.h, ingot_runner.c...,
	 * whose INGOT_RT_H guard an upper-cased name would also hit), kernels/, Makefile */
	return strncasecmp(name, "ingot_", 6) != 0 && strcmp(name, "kernels") != 0 &&
	       strcmp(name, "Makefile") != 0;
}

void cg_upper(const char *s, char *buf, size_t cap)
{
	size_t n = 0;
	for (; *s && n + 1 < cap; s++)
		buf[n++] = (char)toupper((unsigned char)*s);
	buf[n] = 0;
}
