/* labels.c — symbolizer test fixture: PLT stubs ("puts@plt") and zero-size labels in code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sf_label_target(void);

__attribute__((noinline)) void sf_label_target(void)
{
	__asm__ volatile("" ::: "memory");
}

/* Two local, untyped, zero-size labels, as ld.so's _start and _dl_start_user are: the return
 * address of the call is sf_label_after, so a caller's frame (address - 1) is in sf_label_entry. */
__asm__(".text\n"
	"sf_label_entry:\n"
	"\tcall sf_label_target\n"
	"sf_label_after:\n"
	"\tret\n");

int main(int argc, char **argv)
{
	char *p = malloc(16 + (size_t)argc);

	if (!p)
		return 1;
	strcpy(p, argv[0]);
	puts(p);
	printf("%zu\n", strlen(p));
	free(p);
	return 0;
}
