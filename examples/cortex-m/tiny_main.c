/* tiny_main.c — runs one MLPerf Tiny net (tiny_nets.py, compiled by ingot with
 * --name net) on a Cortex-M4 under QEMU, with no OS and no malloc: the workspace is a
 * static array, the weights sit in flash (.rodata.model). It prints each output as
 * the hex bits of its float (tiny.sh compares them with the same model run on the
 * build machine) and the stack the run used, measured by painting the free RAM
 * between .bss and the stack pointer first. NET_OUT_SIZE comes from the command line. */
#include <stdint.h>

#include "net.h"
#include "net_input.h"
#include "semihost.h"

#define PAINT 0xdeadbeefu

static unsigned char workspace[NET_WORKSPACE_SIZE > 0 ? NET_WORKSPACE_SIZE : 1]
	__attribute__((aligned(64)));
static float output[NET_OUT_SIZE];

extern uint32_t __bss_end__, __stack_top;

static char *put_hex(char *p, uint32_t v)
{
	for (int s = 28; s >= 0; s -= 4)
		*p++ = "0123456789abcdef"[(v >> s) & 15u];
	return p;
}

static char *put_dec(char *p, uint32_t v)
{
	char tmp[10];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static void put_line(const char *tag, uint32_t v, int hex)
{
	char line[48], *p = line;
	while (*tag)
		*p++ = *tag++;
	p = hex ? put_hex(p, v) : put_dec(p, v);
	*p++ = '\n';
	*p = 0;
	semihost_puts(line);
}

int main(void)
{
	volatile uint32_t *w, *sp;
	__asm__ volatile("mov %0, sp" : "=r"(sp));
	for (w = &__bss_end__; w < sp - 64; w++)   /* leave main's own frame alone */
		*w = PAINT;
	int rc = net_run(net_input, output, workspace);
	for (w = &__bss_end__; w < sp && *w == PAINT; w++)
		;
	if (rc != 0) {
		put_line("tiny: net_run failed with ", (uint32_t)rc, 0);
		return 1;
	}
	put_line("stack ", (uint32_t)((uintptr_t)&__stack_top - (uintptr_t)w), 0);
	for (uint32_t i = 0; i < NET_OUT_SIZE; i++) {
		union { float f; uint32_t u; } v = { output[i] };
		put_line("out ", v.u, 1);
	}
	semihost_puts("tiny: done\n");
	return 0;
}
