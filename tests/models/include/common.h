/* Shared by the models in tests/models/ (included with #include "include/common.h"). */
#ifndef COMMON_H
#define COMMON_H

#define MAX(a, b)     ((a) > (b) -> (a) : (b))
#define MIN(a, b)     ((a) < (b) -> (a) : (b))
#define INC(v, d)     v = v + (d)

#ifndef N
#define N 2
#endif

#endif
