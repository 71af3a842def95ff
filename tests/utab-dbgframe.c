/* utab-dbgframe.c — a fixture of test-utab-build: built without unwind tables, so that its
 * own functions are described by .debug_frame only (the C runtime's keep .eh_frame). */
int utab_dbgframe_leaf(int x);

int utab_dbgframe_leaf(int x)
{
	return x * 3 + 1;
}

int main(int argc, char **argv)
{
	(void)argv;
	return utab_dbgframe_leaf(argc) == 4 ? 0 : 1;
}
