/* semihost.h — output and exit through the debugger (QEMU) semihosting interface. */
#ifndef SEMIHOST_H
#define SEMIHOST_H

void semihost_puts(const char *s);
void semihost_exit(int status) __attribute__((noreturn));

#endif
