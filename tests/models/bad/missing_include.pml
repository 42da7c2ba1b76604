/* expect: error line=3 message="no_such_file.h" */

#include "include/no_such_file.h"

active proctype P() { skip }
