/* main.c — ingot's entry point (placeholder). */
#include "driver.h"

int main(int argc, char **argv)
{
	(void)argc; (void)argv;
	return 2;
}
