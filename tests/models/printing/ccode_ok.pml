/* As ccode_error.pml, without an error: the lines imitating pan's output are printed by
   embedded C code (include/ccode_report.h), with a trail line naming this model's own trail,
   which pan never writes; assert(count <= 3) holds.  The group is trivial (embedded C), and
   pan's partial order reduction cannot treat the C code as local: more states than
   printf_ok.pml.

   Counts: plain spin 6.5.2 (gcc -DSAFETY), read from pan's own report at the end of its
   output.

   expect: flags=-DSAFETY states=125 transitions=301 errors=0 order=1
*/
#include "include/ccode_report.h"

byte count;

active [3] proctype P() {
	print_fake_report();
	c_code { printf("pan: wrote ccode_ok.pml.trail\n"); };
	count++;
	assert(count <= 3);
end:	false
}
