/* absent.c — the LLVM backend of an ingot built without LLVM (-Dllvm=disabled, the
 * default): the driver refuses --backend llvm with how to get it. */
#include "llvm_target.h"

bool cg_llvm_available(void)
{
	return false;
}

int cg_llvm_emit(const Target *t, Graph *g, const CodegenOptions *o, const char *triple, DiagSink *d)
{
	(void)t, (void)g, (void)o, (void)triple, (void)d;
	die("cg_llvm_emit called in a build without LLVM");
}
