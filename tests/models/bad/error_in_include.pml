/* expect: error file=include/broken.h line=4 message="syntax error" */
#include "include/broken.h"

active proctype P() { bump() }
