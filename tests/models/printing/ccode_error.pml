/* As printf_error.pml, but the lines imitating pan's output are printed by embedded C code
   (include/ccode_report.h), which prints whether or not pan is compiled with -DPRINTF.  The
   c_code makes the symmetry group trivial (embedded C cannot be checked for symmetry), so
   every strategy verifies without reduction.  Three processes print, count up, and the third
   to count violates assert(count < 3).

   Counts and errors: plain spin 6.5.2 (gcc -DSAFETY), read from pan's own report at the end
   of its output.

   expect: flags=-DSAFETY states=12 transitions=12 errors=1 order=1
*/
#include "include/ccode_report.h"

byte count;

active [3] proctype P() {
	print_fake_report();
	c_code { printf("pan: wrote ccode_error.pml.trail\n"); };
	count++;
	assert(count < 3);
end:	false
}
