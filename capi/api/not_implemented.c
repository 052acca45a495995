//go:build goabt_c_engine
/*
 * not_implemented.c: where a function of the Argobots 1.2 API that goabt does not implement yet
 * would get its body, returning ABT_ERR_FEATURE_NA, so that libgoabt.so still exports the whole
 * API (include/abt.h then says "Not implemented yet"; ctests/doc_test.go checks the two agree).
 * Every function is implemented today: the file is empty.
 */
#include "abt.h"
