/* Provisional: replaced by the complete Argobots 1.2 header. */
#ifndef ABT_H_INCLUDED
#define ABT_H_INCLUDED
#include <stddef.h>
#define ABT_SUCCESS 0
#define ABT_ERR_UNINITIALIZED 1
#define ABT_ERR_OTHER 3
#define ABT_ERR_FEATURE_NA 51
#define ABT_ERR_INV_ARG 53
int ABT_initialized(void);
int ABT_error_get_str(int err, char *str, size_t *len);
double ABT_get_wtime(void);
#endif
