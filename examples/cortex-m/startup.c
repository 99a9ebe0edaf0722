/* startup.c — the least a Cortex-M4 needs to run main() under QEMU: a vector table,
 * a reset handler that turns on the FPU and clears .bss, and semihosting calls to
 * print a line and to exit with a status (no newlib stdio). */
#include <stdint.h>

#include "semihost.h"

int main(void);
void reset_handler(void);
static void fault_handler(void);

extern uint32_t __bss_start__, __bss_end__, __stack_top;

__attribute__((section(".vectors"), used))
static void (*const vectors[16])(void) = {
	(void (*)(void))(uintptr_t)&__stack_top,
	reset_handler,
	fault_handler, fault_handler, fault_handler, fault_handler, fault_handler,
};

static int semihost(int op, const void *arg)
{
	register int r0 __asm__("r0") = op;
	register const void *r1 __asm__("r1") = arg;
	__asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
	return r0;
}

void semihost_puts(const char *s)
{
	semihost(0x04, s);           /* SYS_WRITE0 */
}

void semihost_exit(int status)
{
	/* SYS_EXIT: ApplicationExit ends QEMU with 0, anything else with 1 */
	semihost(0x18, (const void *)(uintptr_t)(status == 0 ? 0x20026 : 0x20023));
	for (;;)
		;
}

static void fault_handler(void)
{
	semihost_puts("fault\n");
	semihost_exit(1);
}

void reset_handler(void)
{
	volatile uint32_t *cpacr = (volatile uint32_t *)0xE000ED88;
	*cpacr |= 0xFu << 20;        /* full access to CP10/CP11: the FPU */
	__asm__ volatile("dsb\n\tisb");
	for (uint32_t *p = &__bss_start__; p < &__bss_end__; p++)
		*p = 0;
	semihost_exit(main());
}
